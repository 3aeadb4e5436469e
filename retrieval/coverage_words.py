"""How unlike the troubles the law covers a dialogue reads, word by word: the coverage rules' second opinion.

The rules (`retrieval/coverage.py`) refuse what their words recognise: a train, a resort, a flight wholly abroad.
Passengers name more services than any list holds (a helicopter tour, a float plane's sightseeing, a flight
school, a customs fine), and a story that names a flight only to say it went well still shows law. A logistic model
over the words of a dialogue, fitted on messages marked covered or not, weighs every word the rules do not list. It
refuses only where it is nearly sure (the threshold in its file), since a false refusal hides the law from a
passenger it governs. The names of the law and of Canada carry no weight: a passenger who asks "does the APPR cover
this?" says nothing of what happened. Its weights are data (`retrieval/coverage_words.json`), fitted by
`python -m eval coverage-words --write`, which prints each candidate's figures with the writers held out.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from functools import cache
from pathlib import Path

from foundation.text import words
from retrieval.fitted import read_fitted

COVERAGE_WORDS_FILE = Path(__file__).resolve().parent / "coverage_words.json"
# the law's and Canada's own names: what a passenger read or hoped, not what happened to them
LAW_NAMES = frozenset(
    "canada canadian canadians canadien canadienne canadiens canadiennes cta otc appr rppa agency office l'office "
    "law laws loi lois rule rules regle regles reglement reglements regulation regulations passenger passengers "
    "passager passagers protection transportation transports transport aeriens aerien droits droit rights".split()
)


class CoverageWordsError(ValueError):
    """The model's file cannot be used; the message names what is wrong and the command that rewrites it."""


def features(text: str) -> frozenset[str]:
    """The words the model reads: each folded word once, but not the law's names nor numbers (dates, prices)."""
    return frozenset(word for word in words(text) if word not in LAW_NAMES and not word[0].isdigit())


@dataclass(frozen=True)
class CoverageWords:
    """A weight for each word, a bias, and the likelihood above which the dialogue is refused."""

    weights: dict[str, float]
    bias: float
    threshold: float

    def likelihood_outside(self, dialogue: str) -> float:
        """How likely no law here governs the dialogue, in (0, 1)."""
        return self.likelihood_of(features(dialogue))

    def likelihood_of(self, words: frozenset[str]) -> float:
        """The same for a dialogue's `features`, read once by whoever scores it many times (the fit)."""
        z = self.bias + sum(self.weights.get(word, 0.0) for word in words)
        return 1.0 / (1.0 + math.exp(-max(min(z, 50.0), -50.0)))

    def refuses(self, dialogue: str) -> bool:
        return self.likelihood_outside(dialogue) >= self.threshold

    def to_record(self) -> dict:
        return {"threshold": self.threshold, "bias": self.bias, "weights": dict(sorted(self.weights.items()))}


def parse_coverage_words(data: object) -> CoverageWords:
    """The model of a parsed file, or CoverageWordsError."""
    if not isinstance(data, dict) or not isinstance(data.get("weights"), dict):
        raise CoverageWordsError("the model needs a `weights` object, a `bias` and a `threshold`")
    weights, bias, threshold = data["weights"], data.get("bias"), data.get("threshold")
    numbers = [*weights.values(), bias, threshold]
    if not all(isinstance(v, int | float) and not isinstance(v, bool) and math.isfinite(v) for v in numbers):
        raise CoverageWordsError("the model's weights, bias and threshold must be finite numbers")
    if not 0 < threshold < 1:
        raise CoverageWordsError("the model's threshold must lie between 0 and 1")
    return CoverageWords({str(w): float(v) for w, v in weights.items()}, float(bias), float(threshold))


@cache
def load_coverage_words(path: Path = COVERAGE_WORDS_FILE) -> CoverageWords:
    """The shipped model, read and checked once per process."""
    return read_fitted(path, parse_coverage_words, CoverageWordsError, "python -m eval coverage-words --write")
