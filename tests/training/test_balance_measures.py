"""Decisiveness, fitted values and diversity (training.balance.measures) on constructed games with
known answers."""

from __future__ import annotations

import math

import numpy as np
import pytest
from training_helpers import constructed_stats as stats

from training.balance import measures as ms


def test_entropy_in_bits():
    assert ms.entropy_bits([1, 1]) == 1.0
    assert ms.entropy_bits([3, 3, 3, 3]) == 2.0
    assert ms.entropy_bits([7]) == 0.0 and ms.entropy_bits([]) == 0.0
    assert str(ms.entropy_bits([7])) == "0.0"  # not -0.0
    assert ms.entropy_bits([1, 3]) == pytest.approx(
        -(0.25 * math.log2(0.25) + 0.75 * math.log2(0.75))
    )


def test_decisiveness_counts_shared_wins_and_games_decided_by_each_share():
    win0 = [1, 0, 1, 0, np.nan]
    st = stats(win0, decided=[0.1, 0.3, 0.6, 0.95, np.nan])
    d = ms.decisiveness(st)
    assert d.shared_wins.share == 0.2 and d.shared_wins.n == 5
    by = {r.by: (r.share, r.n) for r in d.decided_by}
    assert by == {0.25: (0.25, 4), 0.5: (0.5, 4), 0.75: (0.75, 4), 0.9: (0.75, 4)}
    assert d.margin.mean == pytest.approx(8.0)  # 10 - 0 in four games, 5 - 5 in one


def test_an_item_that_always_goes_with_the_win_is_worth_one_win_share():
    rng = np.random.default_rng(0)
    g = 40
    win0 = (np.arange(g) % 2 == 0).astype(np.float64)
    taken = np.zeros((g, 2, 2), bool)
    taken[:, 0, 0] = win0 == 1.0  # item0: the winner's, always
    taken[:, 1, 0] = win0 == 0.0
    taken[:, :, 1] = rng.random((g, 2)) < 0.5  # item1: at random
    rows = {r.name: r for r in ms.item_values(stats(win0, taken=taken))}
    assert rows["item0"].value == pytest.approx(1.0)
    assert rows["item1"].value == pytest.approx(0.0, abs=1e-12)
    assert rows["item0"].taken_by == g


def test_items_taken_too_rarely_are_not_fitted():
    g = 30
    taken = np.zeros((g, 2, 1), bool)
    taken[:3, 0, 0] = True
    assert ms.item_values(stats(np.ones(g), taken=taken)) == []


def test_cluster_robust_fit_matches_the_sandwich_by_hand():
    rng = np.random.default_rng(1)
    n = 50
    x = np.column_stack([np.ones(n), rng.normal(size=n)])
    y = 0.3 + 0.7 * x[:, 1] + rng.normal(scale=0.5, size=n)
    groups = np.repeat(np.arange(n // 2), 2)  # clusters of two rows
    fit = ms.linear_fit(y, x, groups)
    beta = np.linalg.lstsq(x, y, rcond=None)[0]
    assert fit.beta == pytest.approx(beta)
    e = y - x @ beta
    bread = np.linalg.inv(x.T @ x)
    u = np.array([x[2 * c : 2 * c + 2].T @ e[2 * c : 2 * c + 2] for c in range(n // 2)])
    g, k = n // 2, 2
    cov = (g / (g - 1)) * ((n - 1) / (n - k)) * bread @ (u.T @ u) @ bread
    assert fit.se == pytest.approx(np.sqrt(np.diag(cov)))
    assert fit.df == g - 1


def test_a_point_of_a_source_is_valued_by_the_fit():
    # win share = 0.05 x points from src0 exactly (src1 is noise): src0 worth 0.05 a point
    rng = np.random.default_rng(2)
    g = 40
    p0 = rng.integers(0, 21, size=(g, 2))
    p0[:, 1] = 20 - p0[:, 0]
    win0 = p0[:, 0] / 20.0
    pts = np.stack([p0, rng.integers(0, 5, size=(g, 2))], axis=2)
    rows = {r.name: r for r in ms.source_values(stats(win0, points=pts))}
    assert rows["src0"].value == pytest.approx(0.05)
    assert rows["src1"].value == pytest.approx(0.0, abs=1e-12)


def test_diversity_of_openings_and_action_kinds():
    first = np.array([[3, -1], [3, -1], [5, -1], [5, -1]], np.int64)
    actions = np.zeros((4, 2, 4), np.int64)
    actions[:, 0, :] = 2  # every kind equally often: 2 bits
    d = ms.diversity(stats([1, 0, 1, 0], first=first, actions=actions), n_boot=50)
    o0, o1 = d.openings
    assert (o0.entropy_bits, o0.distinct, o0.games) == (1.0, 2, 4)
    assert (o1.entropy_bits, o1.distinct, o1.games) == (0.0, 0, 0)
    assert 0.0 <= o0.lo <= o0.hi <= 1.0
    assert d.action_kinds.entropy_bits == 2.0 and d.action_kinds.max_bits == 2.0
    assert d.action_kinds.lo == d.action_kinds.hi == 2.0


def test_compare_lines_up_each_measure_across_sets_of_games():
    a = stats([1, 0, 1, 0], decided=[0.1, 0.6, 0.2, 0.9])
    b = stats([1, 1, 1, 1], decided=[0.1, 0.1, 0.1, 0.1])
    rows = {r["measure"]: r for r in ms.compare([("a", a), ("b", b)], seed=1)}
    half = rows["decided by half its rounds (share)"]
    assert (half["a"], half["b"]) == (0.5, 1.0)
    margin = rows["winner's margin (points)"]
    assert margin["a"] == margin["b"] == 10.0
    lines = ms.compare_lines(list(rows.values()), ["a", "b"])
    assert lines[0] == "| measure | a | b |" and len(lines) == 2 + len(rows)
    missing = {"measure": "m", "a": None, "a_lo": None, "a_hi": None, "b": 1.0, "b_lo": 0.5,
               "b_hi": 1.5}  # fmt: skip
    assert ms.compare_lines([missing], ["a", "b"])[2] == "| m | n/a | 1.000 [0.500, 1.500] |"
