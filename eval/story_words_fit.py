"""Fitting the map from a story's words to its units (`retrieval/story_words.py`), for `python -m eval ranker`.

Its texts are the question bank's entries (each with its unit) and the story sets' answerable items (each with the
units a volunteer would show); a word in fewer than two texts gets no weight. The map is ridge regression from each
text's tf-idf vector to its units, solved in its dual form (a system as large as the texts, not the words).
"""

from __future__ import annotations

import math
from collections import Counter

import numpy as np

from eval.retrieval_eval import GoldItem
from foundation.text import detect_language
from kb.bank import BankEntry
from kb.passage import UnitId
from retrieval.story_words import StoryWords
from retrieval.terms import terms

# the ridge penalty: each story set held out, 0.3 and 1 gave the same means within 0.002, 3 lower (README,
# "Stories' words")
PENALTY = 1.0
MIN_TEXTS = 2


def training_texts(bank: list[BankEntry], items: list[GoldItem]) -> list[tuple[list[str], frozenset[UnitId]]]:
    """(stemmed words, units) for each bank entry and each answerable item, its turns read as one text."""
    texts = [(terms(entry.text, entry.lang), frozenset({UnitId(entry.doc, entry.unit)})) for entry in bank]
    for item in items:
        if item.gold:
            story = "\n".join(item.turns)
            texts.append((terms(story, detect_language(story)), frozenset(item.gold)))
    return texts


def fit_story_words(texts: list[tuple[list[str], frozenset[UnitId]]], penalty: float = PENALTY) -> StoryWords:
    """The ridge map from the texts' tf-idf vectors to their units."""
    frequency = Counter(word for words, _ in texts for word in set(words))
    vocabulary = sorted(word for word, count in frequency.items() if count >= MIN_TEXTS)
    idf = np.array([math.log(len(texts) / frequency[word]) + 1.0 for word in vocabulary], dtype=np.float32)
    units = tuple(sorted({unit for _, named in texts for unit in named}))
    empty = StoryWords({word: i for i, word in enumerate(vocabulary)}, idf, units, np.zeros((len(vocabulary), 0)))
    x = np.stack([empty.vector(words) for words, _ in texts]).astype(np.float64)
    column = {unit: i for i, unit in enumerate(units)}
    y = np.zeros((len(texts), len(units)))
    for row, (_, named) in enumerate(texts):
        y[row, [column[unit] for unit in named]] = 1.0
    dual = np.linalg.solve(x @ x.T + penalty * np.eye(len(texts)), y)
    return StoryWords(empty.words, idf, units, (x.T @ dual).astype(np.float32))
