"""The statistics of balance studies (training.balance.stats) on synthetic outcomes with a known
truth: a seat bias is flagged, a fair game is flagged no more often than the test's level."""

from __future__ import annotations

from types import SimpleNamespace

import numpy as np
import pytest
from scipy import stats as sps

from training.balance import stats as bs


def synthetic_games(rng, games: int, seat_p: list[float]) -> np.ndarray:
    """Win shares (games, seats) of a synthetic game whose seat s wins with probability
    seat_p[s] (one winner per game)."""
    n = len(seat_p)
    winner = rng.choice(n, size=games, p=seat_p)
    ws = np.zeros((games, n))
    ws[np.arange(games), winner] = 1.0
    return ws


def test_a_known_seat_bias_is_flagged():
    rng = np.random.default_rng(1)
    ws = synthetic_games(rng, 2000, [0.56, 0.44])  # first seat +6 points
    res = bs.seat_advantage(ws)
    assert res.p < 1e-4
    s0 = res.seats[0]
    assert s0.win_share_lo <= 0.56 <= s0.win_share_hi
    assert s0.win_share_lo > 0.5


def test_a_fair_game_is_flagged_at_about_the_tests_level():
    # 400 independent fair 3-seat studies of 300 games: the equal-shares test at 5% must reject
    # about 5% of them (binomial 95% range for 400 trials at 0.05: 11..30)
    rng = np.random.default_rng(7)
    rejections = sum(
        bs.seat_advantage(synthetic_games(rng, 300, [1 / 3] * 3)).p < 0.05 for _ in range(400)
    )
    assert 8 <= rejections <= 32, rejections


def test_seat_shares_count_a_shared_win_as_a_fraction():
    ws = np.array([[0.5, 0.5], [1.0, 0.0], [0.0, 1.0], [1.0, 0.0]])
    res = bs.seat_advantage(ws, scores=np.array([[3, 3], [5, 1], [0, 2], [4, 4]]))
    assert [r.wins for r in res.seats] == [2.5, 1.5]
    assert res.seats[0].mean_score == 3.0
    assert res.df == 1


def test_benjamini_hochberg_matches_the_definition_and_keeps_untested_rows():
    p = [0.01, None, 0.04, 0.03, 0.5]
    adj = bs.bh(p)
    assert adj[1] is None
    # sorted 0.01, 0.03, 0.04, 0.5 (m = 4): 0.04, 0.04 (min(0.06, 0.0533)), 0.0533, 0.5
    assert adj[0] == pytest.approx(0.04)
    assert adj[3] == pytest.approx(0.04 * 4 / 3)
    assert adj[2] == pytest.approx(0.04 * 4 / 3)
    assert adj[4] == pytest.approx(0.5)


def test_difference_interval_covers_the_truth_and_its_test_rejects_a_real_gap():
    rng = np.random.default_rng(3)
    a = rng.normal(1.0, 1.0, 4000)
    b = rng.normal(0.8, 1.0, 4000)
    d = bs.diff_ci(a, b)
    assert d.lo < 0.2 < d.hi and d.p < 1e-6
    same = bs.diff_ci(rng.normal(0, 1, 50), rng.normal(0, 1, 50))
    assert same.lo < 0 < same.hi or same.p < 0.05  # the 5% case is allowed
    assert bs.diff_ci(a[:1], b).diff is None


def test_mean_ci_on_known_values():
    x = np.array([-1.0, 2.0, 3.0, 4.0])  # both signs: the normal interval
    m = bs.mean_ci(x)
    h = 1.959963984540054 * np.std(x, ddof=1) / 2
    assert m.mean == 2.0 and m.n == 4
    assert m.lo == pytest.approx(2.0 - h) and m.hi == pytest.approx(2.0 + h)
    assert bs.mean_ci(np.array([])).mean is None
    assert bs.mean_ci(np.array([3.0])).lo is None


def test_mean_ci_of_a_mostly_zero_count_never_goes_below_zero():
    """Finding: normal-approximation intervals of non-negative counts went below 0
    (`council_privilege [-0.01, 0.28]` in a balance study's game statistics)."""
    n = 1600
    x = np.zeros(n)
    x[7] = 3.0  # one event worth 3 points in 1600 player-games
    m = bs.mean_ci(x)
    assert m.lo >= 0.0 and m.lo < m.mean < m.hi
    # one event: the exact (Garwood) Poisson interval of 1 event, in units of 3 points
    g_lo, g_hi = sps.chi2.ppf(0.025, 2) / 2, sps.chi2.ppf(0.975, 4) / 2
    assert m.lo == pytest.approx(3 * g_lo / n, rel=1e-9)
    assert m.hi == pytest.approx(3 * g_hi / n, rel=1e-9)
    # no event at all: [0, the exact Poisson bound of 0 events], not a point
    z = bs.mean_ci(np.zeros(n))
    assert z.lo == 0.0 and z.hi == pytest.approx(sps.chi2.ppf(0.975, 2) / 2 / n)
    # a sum of non-positive values (penalties) is mirrored
    neg = bs.mean_ci(-x)
    assert (neg.lo, neg.hi) == pytest.approx((-m.hi, -m.lo))
    # far from 0 it is the normal interval to within a few per cent of its width
    rng = np.random.default_rng(0)
    y = rng.poisson(20.0, 1200).astype(float)
    g = bs.mean_ci(y)
    h = 1.959963984540054 * y.std(ddof=1) / np.sqrt(y.size)
    assert g.lo == pytest.approx(y.mean() - h, abs=0.03 * h)
    assert g.hi == pytest.approx(y.mean() + h, abs=0.03 * h)


def test_points_by_source_of_a_rare_source_stay_non_negative():
    """Finding: normal-approximation intervals of non-negative counts went below 0
    (`council_privilege [-0.01, 0.28]` in a balance study's points by source)."""
    rng = np.random.default_rng(4)
    g = 200
    ws = synthetic_games(rng, g, [0.5, 0.5])
    points = np.zeros((g, 2, 2))
    points[:, :, 0] = rng.poisson(10.0, (g, 2))
    points[3, 1, 1] = 3.0  # the rare source: one 3-point award in 400 player-games
    st = SimpleNamespace(win_shares=ws, points=points, sources=("common", "rare"))
    for row in bs.source_shares(st):
        for side in ("winners", "rest"):
            lo, mean, hi = (getattr(row, f"{side}_{k}") for k in ("lo", "mean", "hi"))
            assert 0.0 <= lo <= mean <= hi and hi > 0.0


def test_undefined_values_are_left_out_of_differences_and_corrections():
    a = np.array([0.5, np.nan, 1.0, 0.75])
    b = np.array([0.25, 0.5, np.nan, 0.0])
    d = bs.diff_ci(a, b)
    assert d.n_a == 3 and d.n_b == 3 and d.diff == pytest.approx(0.75 - 0.25)
    assert bs.bh([0.01, float("nan"), None]) == [0.01, None, None]
