"""The paired comparison of a rules variant (training.balance.paired) on constructed games with
known answers: the paired interval and test, McNemar's test of win flips, the pairing itself, the
false-coverage-rate adjusted intervals, and a planted imbalance that the paired analysis finds
where an unpaired comparison of the same games does not."""

from __future__ import annotations

import math

import numpy as np
import pytest
from scipy import stats as sps

from training.balance import paired
from training.balance import stats as bs
from training.balance.game_stats import GameStats, StatsError


def constructed(win0: np.ndarray, seeds=None, digests=None, rules="a" * 16) -> GameStats:
    """G two-player games where seat 0 won game g when win0[g] (else seat 1): scores 10/5,
    one score source, one action kind, no resources or items."""
    win0 = np.asarray(win0, dtype=bool)
    g = win0.size
    ws = np.stack([win0, ~win0], axis=1).astype(np.float64)
    scores = np.where(ws == 1.0, 10, 5).astype(np.int64)
    return GameStats(
        game="village",
        players=2,
        rules_data_hash=rules,
        sources=("score",),
        resources=(),
        action_kinds=("all",),
        items=(),
        game_ids=np.arange(g, dtype=np.int64),
        seats=np.tile(np.array([1, 2], np.int64), (g, 1)),
        scores=scores,
        win_shares=ws,
        points=scores[:, :, None].copy(),
        gained=np.zeros((g, 2, 0), np.int64),
        spent=np.zeros((g, 2, 0), np.int64),
        actions=np.ones((g, 2, 1), np.int64),
        deaths=np.zeros((g, 2), np.int64),
        in_play=np.zeros((g, 0), bool),
        taken=np.zeros((g, 2, 0), bool),
        decisions=np.full(g, 20, np.int64),
        rounds=np.full(g, 10, np.int64),
        truncated=np.zeros(g, bool),
        margin=np.full(g, 5, np.int64),
        lead_changes=np.zeros(g, np.int64),
        decided_at=np.full(g, 0.5),
        deal_seeds=np.arange(g, dtype=np.int64) if seeds is None else np.asarray(seeds),
        play_digests=np.zeros(g, np.int64) if digests is None else np.asarray(digests),
        labels={1: "heuristic", 2: "heuristic"},
    )


def test_paired_interval_and_test_on_known_values():
    d = np.array([1.0, 2.0, 3.0, 4.0, 5.0])
    r = paired.paired_ci(d)
    se = math.sqrt(2.5) / math.sqrt(5)  # sample sd sqrt(2.5)
    t = sps.t.ppf(0.975, 4)  # 2.776
    assert r.diff == 3.0 and r.n_pairs == 5 and r.df == 4
    assert r.lo == pytest.approx(3.0 - t * se) and r.hi == pytest.approx(3.0 + t * se)
    assert r.p == pytest.approx(sps.ttest_1samp(d, 0.0).pvalue)
    assert 1.0 <= r.boot_lo < 3.0 < r.boot_hi <= 5.0
    assert paired.paired_ci(d, seed=3) == paired.paired_ci(d, seed=3)  # seeded bootstrap
    zero = paired.paired_ci(np.zeros(50))  # identical play: exactly no difference
    assert (zero.diff, zero.lo, zero.hi, zero.p) == (0.0, 0.0, 0.0, 1.0)
    assert (zero.boot_lo, zero.boot_hi) == (0.0, 0.0)
    assert paired.paired_ci(np.array([np.nan, 1.0])).diff is None  # one pair: no interval


def test_mcnemar_counts_flips_and_matches_the_exact_binomial_test():
    base = np.array([1] * 10 + [0] * 2 + [1] * 5 + [0] * 3, dtype=bool)
    var = np.array([0] * 10 + [1] * 2 + [1] * 5 + [0] * 3, dtype=bool)
    m = paired.mcnemar(base, var)
    assert (m.base_only, m.variant_only, m.n_pairs) == (10, 2, 20)
    assert m.p == pytest.approx(2 * (1 + 12 + 66) / 4096)  # two-sided, 2 of 12 at 1/2
    assert paired.mcnemar(base, base).p == 1.0


def test_games_pair_by_deal_seed_and_seating_whatever_their_order():
    rng = np.random.default_rng(0)
    base = constructed(rng.random(6) < 0.5, seeds=[5, 6, 7, 8, 9, 10])
    var = constructed(rng.random(5) < 0.5, seeds=[9, 7, 5, 11, 6])
    ib, iv = paired.match_pairs(base, var)
    assert base.deal_seeds[ib].tolist() == [5, 6, 7, 9]
    assert (base.deal_seeds[ib] == var.deal_seeds[iv]).all()
    swapped = constructed(np.ones(6, bool), seeds=[5, 6, 7, 8, 9, 10])
    swapped.labels = {1: "heuristic", 2: "random"}  # another agent in seat 1: no twin
    assert paired.match_pairs(base, swapped)[0].size == 0
    old = constructed(np.ones(6, bool), seeds=[-1] * 6)  # statistics without deal seeds
    with pytest.raises(StatsError, match="deal seeds"):
        paired.match_pairs(base, old)


def test_fcr_intervals_exclude_zero_exactly_for_the_bh_selected_rows():
    rng = np.random.default_rng(2)
    for _ in range(20):
        est = rng.normal(0, 1, 12) + np.where(rng.random(12) < 0.3, 3.0, 0.0)
        rows = [
            {"d": float(e), "se": 1.0, "df": None, "p": float(2 * sps.norm.sf(abs(e)))} for e in est
        ]
        for r, v in zip(rows, bs.bh([r["p"] for r in rows]), strict=True):
            r["p_bh"] = v
        bs.fcr_intervals(rows, "d")
        for r in rows:
            excludes = r["adj_lo"] > 0 or r["adj_hi"] < 0
            assert excludes == (r["p_bh"] <= 0.05), r


def test_a_planted_seat_edge_is_found_by_pairing_and_missed_unpaired():
    """200 deal pairs of a 2-player game; the variant changes the play in 30 of them, and in 24
    of those seat 0 now wins a deal it lost (6 the other way). Seat 0's win share rises by
    18/200 = 0.09: the paired test sees it, an unpaired comparison of the same games does not."""
    base_win0 = np.zeros(200, bool)
    base_win0[:100] = True  # seat 0 wins half of the deals under the base rules
    var_win0 = base_win0.copy()
    var_win0[100:124] = True  # 24 deals flip to seat 0
    var_win0[:6] = False  # 6 flip away
    digests = np.zeros(200, np.int64)
    var_digests = digests.copy()
    var_digests[list(range(6)) + list(range(100, 124))] = 1  # the play changed in those 30
    base = constructed(base_win0, digests=digests)
    var = constructed(var_win0, digests=var_digests, rules="b" * 16)
    comp = paired.paired_differences(base, var)
    assert comp.pairs == 200 and comp.changed.pairs == 30
    assert comp.changed.share == pytest.approx(0.15)
    row = next(r for r in comp.rows if r.figure == "win share, seat 0")
    assert row.diff == pytest.approx(0.09)
    assert row.p_bh < 0.05 and row.adj_lo > 0 and row.boot_lo > 0
    assert row.welch_p > 0.05 and row.welch_lo < 0 < row.welch_hi  # unpaired misses it
    seat0 = comp.mcnemar[0]
    assert (seat0.base_only, seat0.variant_only) == (6, 24)
    assert seat0.p == pytest.approx(sps.binomtest(6, 30, 0.5).pvalue) and seat0.p < 0.05
    rounds = next(r for r in comp.rows if r.figure == "rounds")
    assert (rounds.diff, rounds.lo, rounds.hi, rounds.p) == (0.0, 0.0, 0.0, 1.0)


def test_an_identity_variant_is_refused():
    with pytest.raises(ValueError, match="changes nothing"):
        paired.check_variant("a" * 16, "a" * 16)
    paired.check_variant("a" * 16, "b" * 16)
