"""Pinpointing on the law's real parts: numbers against stated ranges, the carrier's size, words, and nothing
when the evidence is not clear."""

from __future__ import annotations

import pytest

from kb.bank import BankEntry
from retrieval.pinpoint import Condition, Facts, Pinpointer, conditions
from retrieval.search import search_dialogue
from testing.unit_changes import whole


@pytest.fixture(scope="module")
def pinpointer(law_passages):
    return Pinpointer(law_passages)


def labels(pinpointer, passages, question, unit="s19", lang="en", doc="SOR-2019-150") -> list[str]:
    return [part.label for part in pinpointer.pinpoint(question, whole(passages, doc, lang, unit))]


def test_a_stated_range_holds_for_the_hours_inside_it_only():
    (between,) = conditions("delayed by six hours or more, but less than nine hours; and")
    assert between == Condition("hours", 6, 9)
    assert between.holds(6) and between.holds(7) and not between.holds(5) and not between.holds(9)
    assert conditions("retardée de trois heures ou plus, mais de moins de six heures") == [Condition("hours", 3, 6)]
    assert conditions("a child who is 5 to 11 years of age") == [Condition("age", 5, 11, high_included=True)]


def test_the_passengers_facts_are_read_from_their_words():
    facts = Facts.read("Air Canada was 7 hours late and my 4-year-old got no seat, they offered $300")
    assert facts.hours == (7,) and facts.ages == (4,) and facts.amounts == (300,) and facts.size == "large"
    assert Facts.read("Pascan arrived seven hours late").size == "small"
    assert Facts.read("Vol retardé de 10 heures").hours == (10,)
    assert Facts.read("my flight was delayed").size == ""


@pytest.mark.parametrize(
    ("question", "expected"),
    [
        ("Air Canada was 7 hours late, how much do I get?", ["(1)(a)(ii)"]),
        ("WestJet arrived 5 hours late, what compensation?", ["(1)(a)(i)"]),
        ("Our Porter flight arrived exactly 9 hours late. Compensation?", ["(1)(a)(iii)"]),
        ("Pascan flight delayed 4 hours, how much compensation?", ["(1)(b)(i)"]),
        ("My flight arrived 7 hours late, how much compensation?", ["(1)(a)(ii)", "(1)(b)(ii)"]),
        ("WestJet cancelled my flight, how much compensation for the delay?", ["(1)(a)"]),
        ("How long do I have to file a request for compensation?", ["(3)"]),
    ],
)
def test_the_part_that_answers_is_pinpointed(pinpointer, law_passages, question, expected):
    assert labels(pinpointer, law_passages, question) == expected


def test_french_passages_carry_the_same_paths(pinpointer, law_passages):
    question = "Mon vol Air Canada est arrivé avec 7 heures de retard, quelle indemnité?"
    assert labels(pinpointer, law_passages, question, lang="fr") == ["(1)(a)(ii)"]
    assert labels(pinpointer, law_passages, "Qu'est-ce qu'un gros transporteur?", "s1", "fr") == ['(2)"large carrier"']


def test_nothing_is_pinpointed_without_clear_evidence(pinpointer, law_passages):
    assert labels(pinpointer, law_passages, "What does the law say?") == []
    assert labels(pinpointer, law_passages, "Air Canada was 2 hours late, how much?", "s8") == []


def test_a_bank_entry_naming_a_part_is_evidence_for_it(law_passages):
    question = "They never answered my claim, how long can the airline take?"
    entry = BankEntry("SOR-2019-150", "s19", "en", "How long can the airline take to answer my claim?", "(4)")
    assert labels(Pinpointer(law_passages, [entry]), law_passages, question) == ["(4)"]


def test_a_hit_carries_its_pinpointed_parts_each_its_exact_slice(engine):
    found = search_dialogue(["Air Canada was 7 hours late, how much do I get?"], engine)
    hit = found.results[0].hits[0]
    assert (hit.passage.unit, [part.label for part in hit.parts]) == ("s19", ["(1)(a)(ii)"])
    for hit in (hit for result in found.results for hit in result.hits):
        for part in hit.parts:
            assert hit.passage.text[part.start : part.end] == part.text
