"""Situations as evidence: the units a described situation engages, ordered by what the ask needs."""

from __future__ import annotations

from kb.passage import UnitId
from kb.situations import load_situations
from retrieval.fusion import Evidence, with_situations
from retrieval.situations import engagements

S12, S19 = UnitId("SOR-2019-150", "s12"), UnitId("SOR-2019-150", "s19")


def situation_shares(*args, **kwargs):
    return {unit: engaged.share for unit, engaged in engagements(*args, **kwargs).items()}


def test_the_unit_the_ask_needs_counts_first():
    shares = situation_shares(load_situations(), "Cancelled for a crew shortage", "How much compensation?")
    assert shares[S19] == shares[S12] == 1.0


def test_without_a_money_ask_the_obligation_comes_before_the_table():
    shares = situation_shares(load_situations(), "Cancelled for a crew shortage", "Is that allowed?")
    assert shares[S12] == 1.0 and shares[S19] < 1.0


def test_a_damaged_wheelchair_engages_its_repair_and_return_before_its_carriage():
    """Accepting a mobility aid as priority baggage (s. 40) is seldom what a passenger's story disputes; what the
    carrier owes when it comes back damaged or late (s. 61, s. 41) is."""
    story = "My power wheelchair came off the plane in Calgary with a bent frame and a cracked joystick"
    shares = situation_shares(load_situations(), story, "What does the airline have to do?")
    s40, s41, s61 = (UnitId("SOR-2019-244", unit) for unit in ("s40", "s41", "s61"))
    assert shares[s61] > shares[s41] > shares[s40]


def test_a_lifted_unit_passes_its_neighbours():
    ranked = [(UnitId("SOR-2019-150", "s11"), 1.0), (S12, 0.8), (S19, 0.2)]
    lifted = with_situations(ranked, {S12: 1.0, S19: 0.5}, 0.5)
    assert [unit for unit, _ in lifted] == [S12, UnitId("SOR-2019-150", "s11"), S19]
    assert with_situations(ranked, {}, 0.5) == ranked


def test_a_follow_up_reads_its_situation_from_the_earlier_turn():
    ART17, ART31 = UnitId("C-26", "sch6-art17"), UnitId("C-26", "sch6-art31")
    earlier = "They gate-checked our stroller and it came back with the frame bent; it won't fold."
    follow_up = "And what about the stroller, by when?"
    alone = situation_shares(load_situations(), follow_up, follow_up, (follow_up,))
    followed = situation_shares(load_situations(), follow_up, follow_up, (earlier, follow_up))
    assert ART17 not in alone
    assert followed[ART31] == 1.0 and followed[ART17] > 0  # the ask wants a deadline: the notice article first


def test_an_earlier_turn_alone_lifts_nothing_for_another_topic():
    earlier = "Our flight was cancelled because of a crew shortage."
    question = "Different question: can my 8-year-old sit with me?"
    shares = situation_shares(load_situations(), question, question, (earlier, question))
    assert S12 not in shares and S19 not in shares
    assert UnitId("SOR-2019-150", "s22") in shares


def test_a_cause_told_elsewhere_in_the_message_counts():
    message = "They cancelled for a crew shortage. We waited all day. How much compensation do we get?"
    shares = situation_shares(load_situations(), "How much compensation do we get?", "How much?", (message,))
    assert shares[S19] == shares[S12] == 1.0


def test_a_situation_only_the_searched_question_carries_from_earlier_turns_counts_less():
    earlier = "WestJet cancelled our flight to Orlando because of crew availability; we got there 22 hours late."
    follow_up = "ok and what about the stroller? it came off with a bent frame"
    searched = f"{follow_up} (WestJet, crew availability, cancelled)"  # the facts a follow-up carries
    shares = situation_shares(load_situations(), searched, follow_up, (earlier, follow_up), earlier_turns=0.5)
    assert shares[UnitId("C-26", "sch6-art17")] == 1.0  # the stroller: the last message tells it
    assert shares[S12] == 0.5  # the cancellation: only the carried facts tell it


def test_the_facts_in_brackets_do_not_say_what_the_ask_asks_for():
    bag = "Then the bag came four days later."
    ask = "Do we get anything for the crew shortage (They rebooked us 2 days later, cancelled)?"
    shares = situation_shares(load_situations(), f"{ask} {bag}", ask, other_roles=0.5)
    assert shares[UnitId("SOR-2019-150", "s17")] < 1.0  # "rebooked" is the story's word, not the ask's


def test_a_question_telling_a_situation_passes_the_closeness_gate(fake_engine):
    """Worded like no bank entry, a question still gets the law when it tells a situation the law distinguishes;
    one that tells none is refused."""
    faint = Evidence(passage_dense={S12: 0.3, S19: 0.2}, bank_dense={S12: 0.2, S19: 0.1}, bank_sparse={})
    story = "The crew shortage got our flight cancelled, how much are they on the hook for?"
    assert S12 in {hit.passage.unit_id for hit in fake_engine.rank(faint, story)}
    assert fake_engine.rank(faint, "How much are they on the hook for?") == []


def test_where_the_flight_went_picks_the_tariff_rules_that_govern_it():
    S67, S110 = UnitId("C-10.4", "s67"), UnitId("SOR-88-58", "s110")
    ask = "They didn't apply their own rules to my fare, can I complain?"
    either = situation_shares(load_situations(), ask, ask)
    domestic = situation_shares(load_situations(), ask, ask, reach="domestic")
    international = situation_shares(load_situations(), ask, ask, reach="international")
    assert either[S110] == 1.0 and either[S67] < 1.0  # unknown: every unit, in the file's order
    assert domestic[S67] == 1.0 and S110 not in domestic
    assert international[S110] == 1.0 and S67 not in international


def test_a_mobility_aid_s_special_declaration_and_the_limit_it_lifts_belong_to_international_flights_only():
    s62 = UnitId("SOR-2019-244", "s62")  # "on an international service", "under Article 22(2) of the Montreal ..."
    art22 = UnitId("C-26", "sch6-art22")
    ask = "They broke my power wheelchair in the hold, what do they owe me?"
    assert {s62, art22} <= set(situation_shares(load_situations(), ask, ask))
    assert {s62, art22} <= set(situation_shares(load_situations(), ask, ask, reach="international"))
    assert not {s62, art22} & set(situation_shares(load_situations(), ask, ask, reach="domestic"))
