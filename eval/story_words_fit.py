"""Fitting the map from a story's words to its units (`retrieval/story_words.py`), for `python -m eval ranker`.

Its texts are the question bank's entries (each with its unit) and the story sets' answerable items (each with the
units a volunteer would show); a term in fewer than three texts gets no weight. The map is ridge regression from each
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
from retrieval.story_words import StoryWords, story_terms

# the ridge penalty and the fewest texts a term must be in to get a weight: with the pairs of neighbouring words,
# each story set held out, 0.5 and 3 scored best of 0.3, 0.5, 1 and 2, and of 2, 3 and 4 (README, "Every word and
# pairs of words")
PENALTY = 0.5
MIN_TEXTS = 3


def training_texts(bank: list[BankEntry], items: list[GoldItem]) -> list[tuple[list[str], frozenset[UnitId]]]:
    """(terms, units) for each bank entry and each answerable item, its turns read as one text."""
    texts = [(story_terms(entry.text, entry.lang), frozenset({UnitId(entry.doc, entry.unit)})) for entry in bank]
    for item in items:
        if item.gold:
            story = "\n".join(item.turns)
            texts.append((story_terms(story, detect_language(story)), frozenset(item.gold)))
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
