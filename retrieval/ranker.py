"""The order of what a search shows: a logistic model over each unit's evidence and the situations engaging it.

Fusion and the situations' lift (`retrieval/fusion.py`) decide which units are shown; a weighted sum cannot say
which of them comes first when a long story engages five situations, each with its first unit at a full share.
The model weighs what decides that: how close the unit's text and its bank entries are to the question, what the
linear map fitted on the bank says of it (`retrieval/retrievers.py`), what the map of stories' words says of it
(`retrieval/story_words.py`), how many of the told situations engage it and at what place, whether its role (a
limit, a definition, a deadline...) is what the ask asks for. Its coefficients are data (`retrieval/ranker.json`),
fitted by `python -m eval ranker` on the project's own story sets, never on the dev set's items; the command prints
the figures of each set held out from the fit that measures it.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from functools import cache
from pathlib import Path

from kb.passage import UnitId
from retrieval.fitted import read_fitted
from retrieval.fusion import Evidence
from retrieval.situations import Engagement

RANKER_FILE = Path(__file__).resolve().parent / "ranker.json"
CANDIDATES = 30  # a unit below the first 30 of the fused order is never shown: the relative cut stops it first
NOT_ENGAGED = 9  # the place of a unit no told situation engages: past the last unit of any situation


class RankerError(ValueError):
    """The ranker's file cannot be used; the message names what is wrong and the command that rewrites it."""


def unit_features(
    position: int,
    relative: float,
    evidence: Evidence,
    unit: UnitId,
    engaged: Engagement | None,
    roles: frozenset[str],
) -> dict[str, float]:
    """What the model reads of one candidate: its place and share of the best in the fused order, each kind of
    evidence over its weakest candidate's (the map of stories' words' among them), and how the told situations
    engage it, role by role."""
    passage_floor, bank_floor, _ = evidence.floors
    features = {
        "relative": relative,
        "rank": math.log1p(position),
        "passage_dense": evidence.passage_dense.get(unit, passage_floor) - passage_floor,
        "bank_dense": evidence.bank_dense.get(unit, bank_floor) - bank_floor,
        "bank_sparse": evidence.bank_sparse.get(unit, 0.0),
        "bank_multilingual": evidence.bank_multilingual.get(unit, 0.0),
        "bank_linear": evidence.bank_linear.get(unit, 0.0),
        "bank_linear_multilingual": evidence.bank_linear_multilingual.get(unit, 0.0),
        "story_words": evidence.story_words.get(unit, 0.0),
        "share": engaged.share if engaged else 0.0,
        "situations": float(engaged.situations) if engaged else 0.0,
        "place": float(engaged.place) if engaged else float(NOT_ENGAGED),
        "asked": 1.0 if engaged and engaged.asked else 0.0,
    }
    for role in sorted(roles):
        features[f"role {role}"] = 1.0 if engaged and role in engaged.roles else 0.0
    return features


@dataclass(frozen=True)
class Ranker:
    """A logistic model: standardised features, one weight each, and a bias."""

    names: tuple[str, ...]
    mean: tuple[float, ...]
    scale: tuple[float, ...]
    weights: tuple[float, ...]
    bias: float

    def score(self, features: dict[str, float]) -> float:
        """How likely the unit is the law a volunteer would show, in (0, 1); only the order counts."""
        z = self.bias + sum(
            w * (features.get(n, 0.0) - m) / s
            for n, m, s, w in zip(self.names, self.mean, self.scale, self.weights, strict=True)
        )
        return 1.0 / (1.0 + math.exp(-max(min(z, 50.0), -50.0)))

    def to_record(self) -> dict:
        return {"names": self.names, "mean": self.mean, "scale": self.scale, "weights": self.weights, "bias": self.bias}


def parse_ranker(data: object) -> Ranker:
    """The ranker of a parsed file, or RankerError."""
    fields = ("names", "mean", "scale", "weights")
    if not isinstance(data, dict) or not all(isinstance(data.get(f), list) for f in fields):
        raise RankerError("the ranker needs `names`, `mean`, `scale` and `weights` lists and a `bias`")
    names, mean, scale, weights = (data[f] for f in fields)
    if not len(names) == len(mean) == len(scale) == len(weights) or not all(isinstance(n, str) for n in names):
        raise RankerError("the ranker's lists must name each feature once, with one mean, scale and weight each")
    numbers = [*mean, *scale, *weights, data.get("bias")]
    if not all(isinstance(v, int | float) and math.isfinite(v) for v in numbers) or min(scale, default=1) <= 0:
        raise RankerError("the ranker's means, scales, weights and bias must be finite numbers, scales positive")
    return Ranker(tuple(names), tuple(map(float, mean)), tuple(map(float, scale)), tuple(map(float, weights)),
                  float(data["bias"]))  # fmt: skip


@cache
def load_ranker(path: Path = RANKER_FILE) -> Ranker:
    """The shipped ranker, read and checked once per process."""
    return read_fitted(path, parse_ranker, RankerError, "python -m eval ranker --write")
