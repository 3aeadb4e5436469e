"""The ranker: the shipped file reads every feature the engine gives, a damaged one says how to rewrite it, and what
the engine shows comes in the ranker's order."""

from __future__ import annotations

import pytest

from kb.passage import UnitId
from kb.situations import load_situations
from retrieval.engine import SearchEngine
from retrieval.fusion import Evidence
from retrieval.ranker import Ranker, RankerError, load_ranker, unit_features
from retrieval.situations import Engagement

S11, S12, S19 = (UnitId("SOR-2019-150", unit) for unit in ("s11", "s12", "s19"))
EVIDENCE = Evidence(passage_dense={S11: 0.9, S12: 0.6, S19: 0.5}, bank_dense={S11: 0.9, S12: 0.7, S19: 0.6},
                    bank_sparse={})  # fmt: skip
STORY = "The crew shortage got our flight cancelled. How much do we get?"  # engages s12 and s19, not s11


def test_the_shipped_ranker_reads_only_features_the_engine_gives():
    engaged = Engagement(1.0, 2, 0, frozenset({"limit"}), True)
    given = unit_features(0, 1.0, EVIDENCE, S11, engaged, load_situations().roles)
    assert set(load_ranker().names) <= set(given)


def test_a_damaged_ranker_file_says_how_to_rewrite_it(tmp_path):
    damaged = tmp_path / "ranker.json"
    damaged.write_text('{"names": ["rank"], "mean": [0], "scale": [0], "weights": [1], "bias": 0}', encoding="utf-8")
    with pytest.raises(RankerError, match="python -m eval ranker --write"):
        load_ranker(damaged)
    damaged.write_text("{not json", encoding="utf-8")
    with pytest.raises(RankerError, match="python -m eval ranker --write"):
        load_ranker(damaged)


def ordered_by(fake_engine, feature: str, weight: float) -> list[UnitId]:
    engine = SearchEngine(
        fake_engine.knowledge_base, fake_engine.weights, Ranker((feature,), (0.0,), (1.0,), (weight,), 0.0)
    )
    hits = engine.rank(EVIDENCE, STORY)
    assert [hit.score for hit in hits] == sorted((hit.score for hit in hits), reverse=True)
    return [hit.passage.unit_id for hit in hits]


def test_what_is_shown_comes_in_the_ranker_s_order(fake_engine):
    fused = [unit for unit, _ in fake_engine.candidates(EVIDENCE, STORY)]
    assert ordered_by(fake_engine, "rank", -1.0) == fused[:5]
    by_situations = ordered_by(fake_engine, "situations", 1.0)
    assert by_situations.index(S11) > max(by_situations.index(S12), by_situations.index(S19))
