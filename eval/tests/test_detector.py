"""The hallucination detector: the figure check's normalisation, abstention, and `python -m eval detector`."""

from __future__ import annotations

import argparse
import json
from pathlib import Path

import pytest

from eval import detector_eval
from eval.detector import abstains
from eval.figure_check import check_figures, extract_figures
from eval.hallucination_prompts import CLAIM_EXTRACTION, CLAIM_SEVERITY, CLAIM_VERIFICATION
from kb.jsonl import read_jsonl
from kb.store import SOURCES_DIR
from kb.verbatim import difference, law_units
from testing.openai_stub import StubEndpoint

FILES = {
    ("SOR-2019-150", "en"): "justice-laws/eng/regulations/SOR-2019-150.xml",
    ("SOR-2019-150", "fr"): "justice-laws/fra/reglements/DORS-2019-150.xml",
    ("C-26", "en"): "justice-laws/eng/acts/C-26.xml",
    ("C-26", "fr"): "justice-laws/fra/lois/C-26.xml",
    ("C-10.4", "en"): "justice-laws/eng/acts/C-10.4.xml",
    ("SOR-2019-244", "en"): "justice-laws/eng/regulations/SOR-2019-244.xml",
}
PLANTED = read_jsonl(detector_eval.PLANTED_SET)


@pytest.mark.parametrize(
    ("answer", "grounding"),
    [
        ("You are owed $1,000.", "1000 dollars"),
        ("Vous avez droit à 1 000 $.", "$1,000, if the arrival"),
        ("Il verse 1000 $.", "le montant de 1 000 $"),
        ("Pay within thirty days.", "within 30 days after the day"),
        ("dans les trente jours", "dans un délai de 30 jours"),
        ("within 21 days", "within twenty-one days from the date"),
        ("dans les vingt et un jours", "within 21 days"),
        ("within 48 hours", "not later than forty-eight hours after"),
        ("a 7-hour delay", "delayed 7 hours"),
        ("between 3 and 6 hours", "three hours or more, but less than six hours"),
        ("limited to 1,000 SDR", "1 000 Special Drawing Rights"),
        ("1 000 DTS", "1 000 droits de tirage spéciaux"),
        ("within one year", "before the first anniversary of the day"),
        ("under s. 19", "section 19"),
        ("see section 19(3)", "19 (1) If paragraph"),
        ("19(3) applies", "subsection 19(1)"),
        ("l'article 19", "s. 19"),
        ("paragraphe 19(3)", "section 19"),
        ("ss. 8-9", "sections 8 and 9"),
        ("Article 31", "article 31"),
        ("children under 14", "under the age of 14 years"),
        ("your two kids", "me and my 2 kids"),
    ],
)
def test_the_same_figure_written_differently_is_found(answer, grounding):
    assert extract_figures(answer), answer
    assert check_figures(answer, [grounding]) == []


@pytest.mark.parametrize(
    ("answer", "grounding", "span"),
    [
        ("You are owed $900.", "$400 or $700", "$900"),
        ("You are owed 1,000 SDR.", "$1,000", "1,000 SDR"),
        ("within 30 minutes", "within 30 days", "30 minutes"),
        ("dans les soixante jours", "dans les trente jours", "soixante jours"),
        ("within two years", "before the first anniversary", "two years"),
        ("see section 20", "section 19 and 21", "section 20"),
        ("under s. 18.2", "section 18.1", "s. 18.2"),
        ("the 3 conditions", "the following conditions", "3"),
    ],
)
def test_a_figure_not_in_the_grounding_is_a_finding_with_its_span(answer, grounding, span):
    assert [finding.figure.span for finding in check_figures(answer, [grounding])] == [span]


def test_citations_clock_times_and_instrument_ids_are_not_figures():
    assert extract_figures("As [1, 2] and passage 3 say, SOR/2019-150 applies; you landed at 9:45pm or 14h30.") == []


def test_a_passage_names_its_own_section():
    assert check_figures("under section 19 and Article 31", ["no numbers here"], ["s19", "sch6-art31"]) == []


@pytest.mark.parametrize(
    ("answer", "expected"),
    [
        ("The passages provided do not cover this.", True),
        ("They don't address train delays.", True),
        ("This is not covered by the passages.", True),
        ("Les passages fournis ne couvrent pas cette question.", True),
        ("If the carrier does not answer within 30 days, complain to the Agency.", False),
        ("Yes, VIA Rail owes you $400.", False),
    ],
)
def test_abstention(answer, expected):
    assert abstains(answer) is expected


def test_the_planted_set_quotes_the_law_and_marks_each_planted_span():
    assert sum(1 for record in PLANTED if record["planted"]) >= 15
    assert {record["planted"]["kind"] for record in PLANTED if record["planted"]} == {
        "amount",
        "duration",
        "obligation",
        "fabricated detail",
        "false acceptance",
    }
    for record in PLANTED:
        for passage in record["passages"]:
            unit_text = law_units(SOURCES_DIR / FILES[(passage["doc"], passage["lang"])])[passage["unit"]]
            after_title = "\n".join(passage["text"].splitlines()[1:])  # evidence may start with the unit's title
            assert difference(passage["text"], unit_text) is None or difference(after_title, unit_text) is None, (
                record["id"],
                passage["unit"],
            )
        if record["planted"]:
            assert record["planted"]["span"] in record["answer"]


def arguments(tmp_path: Path, *extra: str) -> argparse.Namespace:
    parser = argparse.ArgumentParser()
    detector_eval.configure(parser)
    return parser.parse_args(["--cache", str(tmp_path / "cache"), *extra])


def test_without_an_endpoint_the_deterministic_part_is_measured(tmp_path, capsys):
    output = tmp_path / "scores.json"
    assert detector_eval.run(arguments(tmp_path, "--json", str(output)), None) == 0
    captured = capsys.readouterr()
    assert "OPENAI_BASE_URL" in captured.err
    assert captured.out.count("not run") == 2
    scores = json.loads(output.read_text())["scores"]
    assert scores["llm"] is None and scores["combined"] is None
    deterministic = scores["deterministic"]
    assert deterministic["recall_by_kind"]["false acceptance"] == 1.0
    assert deterministic["recall_by_kind"]["obligation"] == 0.0  # a changed "must" has no figure to check
    assert deterministic["precision"] > 0.8 and deterministic["on_planted_span"] == 1.0


def test_llm_stages_are_scored_against_the_planted_answers(tmp_path, capsys):
    """A stub judge that knows the planted answers: checks the plumbing and the scoring, not a model."""
    planted_answers = {record["answer"] for record in PLANTED if record["planted"]}

    def reply(system: str, user: str):
        answer = user.removeprefix("Answer:\n")
        if system == CLAIM_EXTRACTION:
            return json.dumps({"claims": [{"claim": answer, "span": answer}]})
        if system == CLAIM_VERIFICATION:
            claim = user.split("Claims:\n1. ", 1)[1]
            verdict = "contradicted" if claim in planted_answers else "supported"
            return json.dumps({"verdicts": [{"claim": 1, "verdict": verdict, "justification": "stub"}]})
        if system == CLAIM_SEVERITY:
            return json.dumps({"ratings": [{"claim": 1, "severity": 5, "justification": "stub"}]})
        return "The passenger's earlier messages."

    output = tmp_path / "scores.json"
    with StubEndpoint(reply) as stub:
        assert detector_eval.run(arguments(tmp_path, "--json", str(output)), stub.config) == 0
        asked = len(stub.requests)
        assert detector_eval.run(arguments(tmp_path), stub.config) == 0
        assert len(stub.requests) == asked  # served from the cache
    scores = json.loads(output.read_text())["scores"]
    assert (scores["llm"]["precision"], scores["llm"]["recall"]) == (1.0, 1.0)
    assert scores["combined"]["recall"] == 1.0
    assert scores["combined"]["false_positives"] == scores["deterministic"]["false_positives"]
