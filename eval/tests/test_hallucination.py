"""`python -m eval hallucination` end to end, against a local OpenAI-compatible stub that plants hallucinations."""

from __future__ import annotations

import argparse
import json
from pathlib import Path

import pytest

from eval import hallucination
from eval.hallucination_prompts import (
    BASELINE_ANSWER,
    CLAIM_EXTRACTION,
    CLAIM_SEVERITY,
    CLAIM_VERIFICATION,
    HISTORY_MEMORY,
)
from eval.product_audit import audit_search
from kb.jsonl import read_jsonl
from kb.passage import Passage
from query_understanding.understanding import Understanding
from retrieval.results import Hit, QuestionResult, SearchResult
from testing.openai_stub import StubEndpoint

PLANTED_SET = Path(__file__).resolve().parents[2] / "eval" / "planted_hallucinations.jsonl"
APPR = "justice-laws/eng/regulations/SOR-2019-150.xml"
HALLUCINATED = "A large carrier owes you $900 for this delay, and you must claim within 60 days (s. 19) [1]."
ITEMS = [
    {"id": "t-rule", "type": "rule", "turns": ["WestJet landed 4 hours late, crew shortage. How much?"], "gold": [1]},
    {
        "id": "t-rail",
        "type": "unanswerable",
        "turns": ["My VIA Rail train was 5 hours late. Compensation?"],
        "gold": [],
    },
    {
        "id": "t-follow",
        "type": "followup",
        "turns": ["Flew WestJet to Toronto.", "It was 4 hours late, what now?"],
        "gold": [1],
    },
]


def law_passage(unit: str) -> Passage:
    """A passage of the APPR copied from the planted set, whose texts are the law's own words."""
    for item in read_jsonl(PLANTED_SET):
        for passage in item["passages"]:
            if (passage["doc"], passage["lang"], passage["unit"]) == ("SOR-2019-150", "en", unit):
                title, text = passage["text"].split("\n", 1)  # the evidence starts with the unit's title
                return Passage(
                    doc="SOR-2019-150",
                    unit=unit,
                    lang="en",
                    title=title,
                    heading_path=(),
                    instrument="Air Passenger Protection Regulations",
                    url="https://laws-lois.justice.gc.ca/eng/regulations/SOR-2019-150/",
                    text=text,
                    source=APPR,
                )
    raise KeyError(unit)


def search_with(passages: list[Passage], questions: tuple[str, ...] = ("How much compensation for a delay?",)):
    understanding = Understanding(standalone=questions[0], questions=questions, path="offline")
    results = [QuestionResult(question, tuple(Hit(p, 1.0) for p in passages)) for question in questions]
    return SearchResult(understanding, tuple(results))


def retrieve(turns: list[str], k: int) -> SearchResult:
    return search_with([law_passage("s19"), law_passage("s20")][: max(1, k // 5)])


def planting_reply(claims_reply: str | tuple[str, str] | None = None):
    """The stub's answers, stage by stage: a baseline with a wrong amount and an invented deadline."""

    def reply(system: str, user: str):
        if system == BASELINE_ANSWER:
            return HALLUCINATED
        if system == HISTORY_MEMORY:
            return "The passenger flew WestJet to Toronto."
        if system == CLAIM_EXTRACTION:
            if claims_reply is not None:
                return claims_reply
            claims = [
                {
                    "claim": "A large carrier owes $900 for this delay",
                    "span": "A large carrier owes you $900 for this delay",
                },
                {"claim": "Claims must be made within 60 days", "span": "you must claim within 60 days"},
            ]
            return "```json\n" + json.dumps({"claims": claims}) + "\n```"
        if system == CLAIM_VERIFICATION:
            verdicts = [
                {"claim": 1, "verdict": "contradicted", "justification": "s. 19(1)(a)(i) says $400"},
                {"claim": 2, "verdict": "unverifiable", "justification": "no such deadline in the passages"},
            ]
            return json.dumps({"verdicts": verdicts})
        if system == CLAIM_SEVERITY:
            ratings = [{"claim": 1, "severity": 5, "justification": "wrong amount"}, {"claim": 2, "severity": 3}]
            return json.dumps({"ratings": ratings})
        raise AssertionError(f"unexpected system prompt: {system[:60]}")

    return reply


def arguments(tmp_path: Path, *extra: str) -> argparse.Namespace:
    gold = tmp_path / "gold.jsonl"
    gold.write_text("".join(json.dumps(item) + "\n" for item in ITEMS), encoding="utf-8")
    parser = argparse.ArgumentParser()
    hallucination.configure(parser)
    return parser.parse_args(["--gold", str(gold), "--cache", str(tmp_path / "cache"), *extra])


def test_finds_the_planted_hallucinations_and_clears_the_product(tmp_path, capsys):
    output = tmp_path / "out.json"
    with StubEndpoint(planting_reply()) as stub:
        status = hallucination.run(
            arguments(tmp_path, "--json", str(output), "--report", str(tmp_path / "report")),
            retrieve,
            stub.config,
            tmp_path,
        )
    assert status == 0
    result = json.loads(output.read_text())
    items = {item["id"]: item for item in result["items"]}
    findings = items["t-rule"]["baseline"]["detection"]["findings"]
    deterministic = {f["span"] for f in findings if f["method"] == "figures"}
    assert deterministic == {"$900", "60 days"}
    llm = [f for f in findings if f["method"] == "llm"]
    assert [(f["type"], f["severity"], f["span"]) for f in llm] == [
        ("contradicted", 5, "A large carrier owes you $900 for this delay")
    ]
    assert llm[0]["start"] == 0
    rail = items["t-rail"]["baseline"]["detection"]["findings"]
    assert any(f["type"] == "false acceptance" and f["severity"] == 5 for f in rail)
    assert any(system == HISTORY_MEMORY for system, _ in stub.requests)  # only t-follow has history
    summary = result["summary"]
    assert summary["baseline"]["combined"]["rate"] == 1.0
    assert summary["baseline"]["deterministic"]["flagged"] == 3
    assert 0 < summary["baseline"]["combined"]["token_share"] <= 1
    assert summary["product"] == {**summary["product"], "failed": 0, "rate": 0.0}
    assert summary["by_type"]["unanswerable"]["baseline_combined"] == 1.0
    report = (tmp_path / "report" / "report.md").read_text()
    assert "$900" in report and "false acceptance" in report
    assert (tmp_path / "report" / "hallucination_rates.png").read_bytes().startswith(b"\x89PNG")
    assert "hallucination rate" in capsys.readouterr().out


@pytest.mark.parametrize(
    "claims_reply",
    [
        "Sure, here are the claims you asked for.",
        '{"claims": [{"claim": "A large carrier owes',
        "",
        ('{"claims": []', "length"),
        '{"claims": "none"}',
    ],
    ids=["not-json", "truncated", "empty", "cut-off", "wrong-shape"],
)
def test_malformed_llm_output_is_a_stage_failure_not_a_finding(tmp_path, claims_reply):
    output = tmp_path / "out.json"
    with StubEndpoint(planting_reply(claims_reply)) as stub:
        status = hallucination.run(arguments(tmp_path, "--json", str(output)), retrieve, stub.config, tmp_path)
    assert status == 0
    item = json.loads(output.read_text())["items"][0]
    detection = item["baseline"]["detection"]
    assert [failure["stage"] for failure in detection["stage_failures"]] == ["claims"]
    assert all(f["method"] != "llm" for f in detection["findings"])
    assert {f["span"] for f in detection["findings"]} == {"$900", "60 days"}
    assert json.loads(output.read_text())["summary"]["stage_failures"] == {"claims": 3}


def test_a_second_run_is_served_from_the_cache(tmp_path):
    with StubEndpoint(planting_reply()) as stub:
        hallucination.run(arguments(tmp_path), retrieve, stub.config, tmp_path)
        first = len(stub.requests)
        hallucination.run(arguments(tmp_path), retrieve, stub.config, tmp_path)
        assert first > 0 and len(stub.requests) == first
        hallucination.run(arguments(tmp_path, "--refresh"), retrieve, stub.config, tmp_path)
        assert len(stub.requests) == 2 * first


def test_without_an_endpoint_says_how_to_configure_one_and_still_audits_the_product(tmp_path, capsys):
    output = tmp_path / "out.json"
    status = hallucination.run(arguments(tmp_path, "--json", str(output)), retrieve, None, tmp_path)
    captured = capsys.readouterr()
    assert status == 0
    assert "generative baseline needs an LLM endpoint" in captured.err
    assert "OPENAI_API_KEY" in captured.err and "OPENAI_BASE_URL=http://127.0.0.1:11434/v1" in captured.err
    assert "PASSENGER_LLM_MODEL" in captured.err
    assert "not run" in captured.out
    summary = json.loads(output.read_text())["summary"]
    assert summary["baseline_answers"] == 0 and summary["product"]["answers"] == len(ITEMS)
    assert "false acceptance" in captured.out and "false refusal" in captured.out
    assert summary["product_audit"]["unanswerable"] == 1 and summary["product_audit"]["false_acceptance"] == 1


def test_a_product_passage_that_is_not_the_law_fails_the_command(tmp_path):
    real = law_passage("s19")
    forged = Passage(**{**real.to_record(), "heading_path": (), "text": real.text.replace("$400", "$4,000")})
    status = hallucination.run(arguments(tmp_path), lambda turns, k: search_with([forged]), None, tmp_path)
    assert status == 1


def test_product_audit_checks_passages_and_questions_wherever_it_runs_from(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)  # sources resolve from the project, not the working directory
    real = law_passage("s19")
    assert audit_search(search_with([real])) == []
    forged = Passage(**{**real.to_record(), "heading_path": (), "text": real.text + "\nAnd $50 for lunch."})
    missing = Passage(**{**real.to_record(), "heading_path": (), "source": "justice-laws/eng/nowhere.xml"})
    kinds = [failure.kind for failure in audit_search(search_with([forged, missing]))]
    assert kinds == ["passage not its unit's text", "source missing"]
    questions = ("How much?\nAnd **when**?", "", "Third?", "Fourth?")
    kinds = [failure.kind for failure in audit_search(search_with([real], questions))]
    assert kinds == ["too many questions", "question not a plain line", "question not a plain line"]
