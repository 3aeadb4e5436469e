"""The map of stories' words: a story's words and neighbouring pairs of words score the units they point at, the
engine hands the scores to the ranker, and a damaged file says how to rewrite it."""

from __future__ import annotations

import numpy as np
import pytest

from kb.passage import UnitId
from retrieval.story_words import StoryWords, StoryWordsError, load_story_words, story_terms
from retrieval.terms import terms

S19, ART17 = UnitId("SOR-2019-150", "s19"), UnitId("C-26", "sch6-art17")
MAP = StoryWords(
    {word: index for index, word in enumerate(terms("cancelled compensation suitcase damaged"))},
    np.ones(4, dtype=np.float32),
    (S19, ART17),
    np.array([[1, 0], [1, 0], [0, 1], [0, 1]], dtype=np.float32),
)
STORY = "Air Canada cancelled our flight for a crew shortage and my suitcase came back damaged. What do we get?"


def test_a_story_s_words_score_the_units_they_point_at():
    scores = MAP.scores("They cancelled the flight. What compensation is owed?", "en")
    assert scores[S19] == pytest.approx(2**0.5) and scores[ART17] == 0.0  # two words of s19, each 1/√2
    both = MAP.scores(STORY, "en")
    assert both[ART17] == pytest.approx(2 * both[S19]) and both[S19] > 0  # damaged suitcase, cancelled
    assert MAP.scores("Nothing here the map knows.", "en") == {S19: 0.0, ART17: 0.0}


def test_every_word_and_two_neighbouring_words_are_terms():
    assert story_terms("What can I get?", "en") == ["what", "can", "i", "get", "what can", "can i", "i get"]
    pair = StoryWords({"crew sick": 0}, np.ones(1, dtype=np.float32), (S19,), np.ones((1, 1), dtype=np.float32))
    assert pair.scores("Half the crew sick, they said.", "en")[S19] == pytest.approx(1.0)
    assert pair.scores("The pilot was sick, the crew tired.", "en")[S19] == 0.0  # the same words, apart


def test_the_shipped_map_scores_units_of_the_knowledge_base(knowledge_base):
    shipped = load_story_words()
    units = {passage.unit_id for passage in knowledge_base.passages}
    assert set(shipped.units) <= units
    scores = shipped.scores(STORY, "en")
    assert max(scores, key=scores.get).doc in {"SOR-2019-150", "C-26"}


def test_the_engine_hands_each_question_s_scores_to_the_ranker(fake_engine):
    engine = type(fake_engine)(fake_engine.knowledge_base, fake_engine.weights, story_words=MAP)
    evidence = engine.evidence(STORY, "en")
    assert evidence.story_words == MAP.scores(STORY, "en")
    found = dict(engine.candidates(evidence, STORY))
    assert found and all(
        features["story_words"] == evidence.story_words.get(unit, 0.0) for unit, features in found.items()
    )


def test_a_damaged_map_file_says_how_to_rewrite_it(tmp_path):
    sound = tmp_path / "sound.npz"
    MAP.save(sound)
    assert load_story_words(sound).scores(STORY, "en") == MAP.scores(STORY, "en")
    (tmp_path / "garbage.npz").write_bytes(b"not a zip file")
    np.savez(tmp_path / "shapes.npz", words=np.array(["cancel"]), idf=np.ones(1), units=np.array(["SOR-2019-150 s19"]),
             weights=np.ones((1, 2)))  # fmt: skip
    np.savez(tmp_path / "missing.npz", words=np.array(["cancel"]), idf=np.ones(1))
    for name, what in (("garbage", "not the map's file"), ("shapes", "one weight per word and unit"),
                       ("missing", "is missing")):  # fmt: skip
        with pytest.raises(StoryWordsError, match=f"{what}.*python -m eval ranker --write"):
            load_story_words(tmp_path / f"{name}.npz")
