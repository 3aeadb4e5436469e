"""Which units of law a story's words point at: evidence the ranker reads beside the encoders' and the situations'.

A long story names its problems in words spread among many others (the airline's excuse, the hotel, the wedding
missed), and the words that decide which unit a volunteer shows differ from the law's and the bank's: "they said it
was crew", "my suitcase came back soaked". A ridge map from a text's stemmed words and pairs of neighbouring words
(tf-idf) to the units a volunteer would show scores every unit for a question; the ranker (`retrieval/ranker.py`)
weighs that score. The map is fitted on the question bank and on the project's story sets, written from the law's
text by writers who never saw the product; never on the dev set. Its weights are data (`retrieval/story_words.npz`),
fitted with the ranker by `python -m eval ranker --write`, which fits it without each story set in turn and prints
that set's figures.
"""

from __future__ import annotations

import math
import zipfile
from collections import Counter
from dataclasses import dataclass
from functools import cache
from itertools import pairwise
from pathlib import Path

import numpy as np

from kb.passage import UnitId
from retrieval.fitted import read_fitted
from retrieval.terms import stems

STORY_WORDS_FILE = Path(__file__).resolve().parent / "story_words.npz"
COMMAND = "python -m eval ranker --write"


class StoryWordsError(ValueError):
    """The map's file cannot be used; the message names what is wrong and the command that rewrites it."""


def story_terms(text: str, lang: str) -> list[str]:
    """A text's stemmed words, stop words kept (`retrieval.terms.stems`), then each two neighbours among them as one
    term: "crew shortag", "not weather", "how much" and "by when" tell a situation and its ask better than their
    words apart (README, "Every word and pairs of words")."""
    words = stems(text, lang)
    return words + [f"{first} {second}" for first, second in pairwise(words)]


@dataclass(frozen=True)
class StoryWords:
    """Each known term's index and inverse document frequency, the units scored, and a weight per term and unit."""

    words: dict[str, int]
    idf: np.ndarray
    units: tuple[UnitId, ...]
    weights: np.ndarray  # words × units

    def vector(self, words: list[str]) -> np.ndarray:
        """A text's `story_terms`, each known one weighted by 1 + log of its count times its idf, scaled to
        length 1."""
        vector = np.zeros(len(self.words), dtype=np.float32)
        for word, count in Counter(words).items():
            index = self.words.get(word)
            if index is not None:
                vector[index] = (1.0 + math.log(count)) * self.idf[index]
        norm = float(np.linalg.norm(vector))
        return vector / norm if norm else vector

    def scores(self, text: str, lang: str) -> dict[UnitId, float]:
        """Every unit the map knows, scored for `text`: about 1 for the units of a text like those it was fitted on."""
        return dict(zip(self.units, (self.vector(story_terms(text, lang)) @ self.weights).tolist(), strict=True))

    def save(self, path: Path) -> None:
        np.savez_compressed(
            path,
            words=np.array(sorted(self.words, key=self.words.get)),
            idf=self.idf.astype(np.float32),
            units=np.array([f"{unit.doc} {unit.unit}" for unit in self.units]),
            weights=self.weights.astype(np.float16),  # half the file; every score within 0.0001 of the fit's
        )


def parse_story_words(arrays: dict[str, np.ndarray]) -> StoryWords:
    """The map of a loaded file's arrays, or StoryWordsError."""
    try:
        words, idf, units, weights = (arrays[name] for name in ("words", "idf", "units", "weights"))
    except KeyError as missing:
        raise StoryWordsError(
            f"the map needs `words`, `idf`, `units` and `weights` arrays: {missing} is missing"
        ) from None
    if words.dtype.kind != "U" or units.dtype.kind != "U" or words.ndim != 1 or units.ndim != 1:
        raise StoryWordsError("the map's `words` and `units` must be lists of text")
    if idf.shape != words.shape or weights.shape != (len(words), len(units)):
        raise StoryWordsError("the map needs one idf per word and one weight per word and unit")
    if not (np.isfinite(idf).all() and np.isfinite(weights).all()):
        raise StoryWordsError("the map's idf and weights must be finite numbers")
    named = [unit.split(" ") for unit in units.tolist()]
    if any(len(parts) != 2 for parts in named):
        raise StoryWordsError("each of the map's units must read `instrument unit`")
    return StoryWords(
        {word: index for index, word in enumerate(words.tolist())},
        idf.astype(np.float32),
        tuple(UnitId(doc, unit) for doc, unit in named),
        weights.astype(np.float32),
    )


NO_STORY_WORDS = StoryWords({}, np.zeros(0, dtype=np.float32), (), np.zeros((0, 0), dtype=np.float32))


def read_arrays(path: Path) -> dict[str, np.ndarray]:
    """Every array of the map's file, read whole, or StoryWordsError for a file that is no such archive."""
    try:
        with np.load(path, allow_pickle=False) as arrays:
            return dict(arrays)
    except (ValueError, zipfile.BadZipFile) as problem:
        raise StoryWordsError(f"not the map's file ({problem})") from problem


@cache
def load_story_words(path: Path = STORY_WORDS_FILE) -> StoryWords:
    """The shipped map, read and checked once per process: a damaged file names the command that rewrites it."""
    return read_fitted(path, parse_story_words, StoryWordsError, COMMAND, read=read_arrays)
