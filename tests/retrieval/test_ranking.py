"""The engine's ranking logic, on the shipped snapshot with the fake encoder: gates, cuts, one unit per hit, each
unit shown once across questions. Quality with the shipped encoders is `test_retrieval.py`'s."""

from __future__ import annotations

from dataclasses import replace

import numpy as np

from kb.passage import UnitId
from kb.store import SOURCES_DIR
from kb.verbatim import check_unit
from retrieval.engine import SearchEngine
from retrieval.fusion import Evidence
from retrieval.retrievers import LinearRetriever
from retrieval.search import search_dialogue


def units(hits):
    return [hit.passage.unit_id for hit in hits]


ENTRY = "What counts as a mechanical malfunction under the passenger protection rules?"  # a bank entry for APPR s1


def test_a_question_worded_as_a_bank_entry_finds_its_unit_first_without_any_model_file(fake_engine):
    assert units(fake_engine.search(ENTRY))[0] == ("SOR-2019-150", "s1")


def test_each_hit_is_one_whole_unit_at_most_k_best_first(fake_engine):
    hits = fake_engine.search(ENTRY, k=3)
    assert 0 < len(hits) <= 3
    assert len(set(units(hits))) == len(hits)
    assert [hit.score for hit in hits] == sorted((hit.score for hit in hits), reverse=True)
    for hit in hits:
        assert check_unit(hit.passage, hit.passage.text, SOURCES_DIR) is None


def with_weights(engine, **changes):
    return SearchEngine(engine.knowledge_base, replace(engine.weights, **changes))


def test_the_closeness_gate_and_the_relative_cut_hold(fake_engine):
    question = "when do the passenger protection regulations come into force"  # it tells no situation
    closest = fake_engine.evidence(question, "en").closest_bank_entry
    assert with_weights(fake_engine, min_similarity=closest + 0.01).search(question) == []
    engine = with_weights(fake_engine, min_similarity=0.0, relative_cut=0.9)
    candidates = engine.candidates(engine.evidence(question, "en"), question)
    assert engine.search(question) and all(seen["relative"] >= 0.9 for _, seen in candidates)


def test_a_unit_a_told_situation_engages_is_kept_below_the_relative_cut(fake_engine):
    s11, s12, s19 = (UnitId("SOR-2019-150", unit) for unit in ("s11", "s12", "s19"))
    evidence = Evidence(passage_dense={s11: 0.9, s12: 0.3, s19: 0.25}, bank_dense={s11: 0.9, s12: 0.2, s19: 0.1},
                        bank_sparse={})  # fmt: skip
    story = "The crew shortage got our flight cancelled"  # engages s12 first

    def shown(kept_share):
        engine = with_weights(fake_engine, situation=0.0, relative_cut=0.6, kept_share=kept_share, min_likelihood=0.0)
        return set(units(engine.rank(evidence, story)))  # which units pass; their order is the ranker's

    assert shown(2.0) == {s11}
    assert shown(1.0) == {s11, s12}  # the situation's first unit
    assert shown(0.5) == {s11, s12, s19}  # and its second


def test_words_the_law_never_uses_show_nothing(fake_engine):
    assert fake_engine.search("zzzz qqqq xxxx") == []
    assert fake_engine.search("???") == []


def test_only_french_questions_get_multilingual_evidence(fake_engine):
    assert fake_engine.evidence("Mon bagage a été perdu par le transporteur", "fr").bank_multilingual
    assert not fake_engine.evidence("my baggage was lost by the carrier", "en").bank_multilingual


def test_the_linear_map_scores_every_bank_unit_and_puts_an_entry_s_own_unit_first(fake_engine):
    evidence = fake_engine.evidence(ENTRY, "en")
    english = fake_engine.knowledge_base.bank
    assert set(evidence.bank_linear) == {UnitId(e.doc, e.unit) for e in english if e.lang == "en"}
    assert max(evidence.bank_linear, key=evidence.bank_linear.get) == ("SOR-2019-150", "s1")
    assert not evidence.bank_linear_multilingual
    assert fake_engine.evidence("Mon bagage a été perdu par le transporteur", "fr").bank_linear_multilingual


def test_a_linear_map_reads_what_a_unit_s_entries_share_not_one_entry():
    a, b = UnitId("D", "a"), UnitId("D", "b")
    entries = np.array([[1.0, 0.0, 0.0], [0.0, 1.0, 0.0], [0.6, 0.0, 0.8]])
    linear = LinearRetriever(entries, [a, b, b], penalty=0.01)
    assert linear.scores(np.array([1.0, 0.0, 0.0]))[a] > 0.9
    query = np.array([0.0, 0.6, 0.8])  # nearest to a's entry by no measure, but along both of b's
    assert max(linear.scores(query), key=linear.scores(query).get) == b
    assert LinearRetriever(np.zeros((0, 3)), []).scores(query) == {}


def test_a_unit_is_shown_once_across_questions(fake_engine):
    result = search_dialogue(
        ["My flight was delayed and my baggage was lost. What compensation for the delay? "
         "What about the lost baggage? And what compensation for the delay again?"],
        fake_engine,
        llm_config=None,
    )  # fmt: skip
    shown = [p.unit_id for p in result.shown_passages]
    assert len(shown) == len(set(shown))
    for question in result.results:
        assert set(units(question.shown_above)) <= set(shown)
