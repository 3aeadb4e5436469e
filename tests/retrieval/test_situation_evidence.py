"""Situations as evidence: the units a described situation engages, ordered by what the ask needs."""

from __future__ import annotations

from kb.passage import UnitId
from kb.situations import load_situations
from retrieval.fusion import with_situations
from retrieval.situations import situation_shares

S12, S19 = UnitId("SOR-2019-150", "s12"), UnitId("SOR-2019-150", "s19")


def test_the_unit_the_ask_needs_counts_first():
    shares = situation_shares(load_situations(), "Cancelled for a crew shortage", "How much compensation?")
    assert shares[S19] == shares[S12] == 1.0


def test_without_a_money_ask_the_obligation_comes_before_the_table():
    shares = situation_shares(load_situations(), "Cancelled for a crew shortage", "Is that allowed?")
    assert shares[S12] == 1.0 and shares[S19] < 1.0


def test_a_lifted_unit_passes_its_neighbours():
    ranked = [(UnitId("SOR-2019-150", "s11"), 1.0), (S12, 0.8), (S19, 0.2)]
    lifted = with_situations(ranked, {S12: 1.0, S19: 0.5}, 0.5)
    assert [unit for unit, _ in lifted] == [S12, UnitId("SOR-2019-150", "s11"), S19]
    assert with_situations(ranked, {}, 0.5) == ranked


def test_a_follow_up_reads_its_situation_from_the_earlier_turn():
    ART17, ART31 = UnitId("C-26", "sch6-art17"), UnitId("C-26", "sch6-art31")
    earlier = "They gate-checked our stroller and it came back with the frame bent; it won't fold."
    alone = situation_shares(load_situations(), "And what about that, by when?", "And what about that, by when?")
    followed = situation_shares(load_situations(), "And what about that, by when?", "And by when?", earlier)
    assert ART17 not in alone
    assert followed[ART31] == 1.0 and followed[ART17] > 0  # the ask wants a deadline: the notice article first
