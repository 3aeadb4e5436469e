"""The coverage rules' model of words: it reads what happened, not the law's names; it refuses a service the rules
do not list and leaves a flight's trouble to the law; a damaged file says how to rewrite it."""

from __future__ import annotations

import pytest

from retrieval.coverage import outside_by_rules, outside_coverage
from retrieval.coverage_words import CoverageWords, CoverageWordsError, features, load_coverage_words
from retrieval.outcome import Outcome

TOUR = (
    "We flew WestJet from Vancouver to Maui and the flights were fine. The doors-off helicopter tour we booked with "
    "a local company for the 12th was cancelled that morning 'due to weather', yet other companies were flying all "
    "day. They only offer a credit valid for a year and we were leaving two days later. We paid $640 US on my Visa. "
    "Is a credit all they owe us, or can I insist on a refund?"
)
CANCELLED = (
    "Air Canada cancelled my Toronto to Calgary flight two hours before departure because of a crew shortage and "
    "rebooked me for the next afternoon, 20 hours later. They gave no hotel, I paid $190 for a room and $40 in "
    "taxis. I've read the APPR and I'll complain to the Canadian Transportation Agency if I have to. What "
    "compensation do I get and will they pay for the hotel?"
)


def test_the_law_s_names_and_numbers_carry_no_weight():
    assert features("Does the APPR or the Canadian law cover my $640 tour on the 12th?") == {
        "does", "the", "or", "my", "tour", "on", "cover"
    }  # fmt: skip


def test_a_service_no_rule_lists_is_refused_and_a_flight_s_trouble_is_not():
    assert outside_by_rules(TOUR) is None
    assert outside_coverage(TOUR) is Outcome.UNLIKE_COVERED
    assert outside_coverage(CANCELLED) is None


def test_the_model_refuses_only_at_its_threshold():
    model = CoverageWords({"helicopter": 2.9}, 0.0, 0.95)
    assert not model.refuses("a helicopter")  # 0.948
    assert CoverageWords({"helicopter": 2.9}, 0.0, 0.9).refuses("a helicopter")
    assert outside_coverage(TOUR, model) is None  # the shipped model is the default, not the only one


def test_a_damaged_model_file_says_how_to_rewrite_it(tmp_path):
    damaged = tmp_path / "coverage_words.json"
    for text in ("{not json", '{"weights": {"tour": 1}, "bias": 0, "threshold": 1.5}', '{"weights": []}'):
        damaged.write_text(text, encoding="utf-8")
        with pytest.raises(CoverageWordsError, match="python -m eval coverage-words --write"):
            load_coverage_words(damaged)
