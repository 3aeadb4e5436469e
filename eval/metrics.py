"""Retrieval metrics exactly as the evaluation set defines them (see eval/README.md, "Scoring")."""

from __future__ import annotations

from collections.abc import Iterable

from kb.passage import UnitId


def dedupe_units(units: Iterable[UnitId]) -> list[UnitId]:
    """Units in rank order, each kept at its first occurrence."""
    seen: set[UnitId] = set()
    ranked = []
    for unit in units:
        if unit not in seen:
            seen.add(unit)
            ranked.append(unit)
    return ranked


def precision_at_k(ranked: list[UnitId], gold: set[UnitId], k: int) -> float:
    """Hits in the top k over k: the denominator stays k even when fewer units are shown."""
    return sum(unit in gold for unit in dedupe_units(ranked)[:k]) / k


def recall_at_k(ranked: list[UnitId], gold: set[UnitId], k: int) -> float:
    if not gold:
        raise ValueError("recall is undefined for an item with no gold units")
    return sum(unit in gold for unit in dedupe_units(ranked)[:k]) / len(gold)


def f1(precision: float, recall: float) -> float:
    return 0.0 if precision + recall == 0 else 2 * precision * recall / (precision + recall)


def average_precision_at_k(ranked: list[UnitId], gold: set[UnitId], k: int) -> float:
    """(1 / min(|gold|, k)) · Σ_{i≤k} P@i · rel(i)."""
    if not gold:
        raise ValueError("average precision is undefined for an item with no gold units")
    hits = 0
    total = 0.0
    for i, unit in enumerate(dedupe_units(ranked)[:k], start=1):
        if unit in gold:
            hits += 1
            total += hits / i
    return total / min(len(gold), k)
