"""Metric arithmetic on hand-made cases."""

from __future__ import annotations

import pytest

from eval.metrics import average_precision_at_k, dedupe_units, f1, precision_at_k, recall_at_k

A, B, C, D, E, F = (("X", u) for u in "abcdef")


def test_duplicates_count_once_at_their_first_rank():
    assert dedupe_units([A, B, A, C, B]) == [A, B, C]
    assert precision_at_k([A, A, A, A, A, B], {A, B}, 5) == pytest.approx(2 / 5)
    assert average_precision_at_k([C, A, A, B], {A, B}, 5) == pytest.approx((1 / 2 + 2 / 3) / 2)


def test_fewer_than_k_results_keep_the_fixed_denominator():
    assert precision_at_k([A], {A}, 5) == pytest.approx(0.2)
    assert recall_at_k([A], {A, B}, 5) == pytest.approx(0.5)
    assert precision_at_k([], {A}, 5) == 0
    assert average_precision_at_k([], {A}, 5) == 0


def test_only_the_top_k_count():
    ranked = [C, D, E, F, ("X", "g"), A]
    assert recall_at_k(ranked, {A}, 5) == 0
    assert recall_at_k(ranked, {A}, 6) == 1


def test_average_precision_normalises_by_min_of_gold_and_k():
    assert average_precision_at_k([A, B], {A, B}, 5) == pytest.approx(1.0)
    assert average_precision_at_k([A, C, B], {A, B}, 5) == pytest.approx((1 + 2 / 3) / 2)
    many = {("X", str(i)) for i in range(7)}
    assert average_precision_at_k(sorted(many), many, 5) == pytest.approx(1.0)


def test_empty_gold_is_refused_for_recall_and_map():
    with pytest.raises(ValueError):
        recall_at_k([A], set(), 5)
    with pytest.raises(ValueError):
        average_precision_at_k([A], set(), 5)
    assert precision_at_k([A], set(), 5) == 0


def test_f1():
    assert f1(0, 0) == 0
    assert f1(0.5, 1.0) == pytest.approx(2 / 3)
