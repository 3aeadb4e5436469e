"""The lexicon is data read once at start: every entry compiles, and a broken one is named before any passenger
writes."""

from __future__ import annotations

import pytest

from query_understanding import lexicon


def test_every_topic_has_a_family_and_cues_that_match_its_own_words():
    assert lexicon.topics("our flight was cancelled and they lost my bag") >= {"cancellation", "baggage", "bag_lost"}
    assert set(lexicon.SITUATION_TOPICS) <= set(lexicon.TOPICS)


def test_the_lists_are_read_as_written():
    assert lexicon.CARRIER.search("We flew Air Transat to Cancun")
    assert lexicon.CARRIER.search("porter") is None  # an ordinary word unless capitalised
    assert lexicon.AIR_TRAVEL.search("westjet lost it")  # the carriers counted as air-travel words


def test_a_pattern_that_does_not_compile_is_named():
    with pytest.raises(lexicon.LexiconError, match=r"lexicon\.toml: patterns\.broken: missing \)"):
        lexicon._compile("patterns.broken", "(unclosed")
