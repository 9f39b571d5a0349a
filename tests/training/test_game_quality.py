"""Game-quality metrics after Ludii in the balance study (training.balance.game_stats): known
answers for each definition, and the compiled replay's figures against a plain-Python replay of
the same games through the public API."""

from __future__ import annotations

import numpy as np
import pytest

from core.registry import game_names, get_game
from training.arena.tournament import run_tournament
from training.balance.game_stats import (
    MAX_ROUND_ROWS,
    QUALITY_FIELDS,
    GameStats,
    collect,
    drama_stats,
    game_quality,
    lead_change_rate,
    lead_stats,
    round_field,
)
from training.balance.stats import game_shape, share_ci


def test_drama_is_the_mean_and_max_gap_to_the_leader_while_the_winner_trails():
    rows = np.array(
        [
            [0, 2, 1],  # winner 0 trails seat 1 by 2
            [3, 1, 3],  # tied for the lead: leading, not counted
            [2, 6, 5],  # trails by 4
            [5, 5, 8],  # trails by 3
            [9, 6, 8],  # leads (the end)
        ]
    )
    mean, top = drama_stats(rows, 0)
    assert mean == pytest.approx((2 + 4 + 3) / 3) and top == 4.0
    # a winner that never trailed: no drama; a shared win: undefined
    assert drama_stats(np.array([[1, 0], [3, 3], [5, 2]]), 0) == (0.0, 0.0)
    assert all(np.isnan(drama_stats(rows, -1)))
    # the gap is to the best score of the round, whoever holds it
    assert drama_stats(np.array([[0, 7, 3], [9, 2, 1]]), 0) == (7.0, 7.0)


def test_branching_factor_and_decision_moves_of_a_known_sequence():
    assert game_quality(np.array([1, 3, 5, 1, 2, 1], np.int64)) == (13 / 6, 0.5)
    assert game_quality(np.array([1, 1], np.int64)) == (1.0, 0.0)
    assert all(np.isnan(game_quality(np.zeros(0, np.int64))))


def test_lead_changes_per_round_transition():
    rows = np.array([[1, 0], [1, 2], [3, 2], [4, 4], [6, 4]])  # two changes over 4 transitions
    changes, _ = lead_stats(rows, 0)
    assert lead_change_rate(changes, rows.shape[0]) == 0.5
    assert lead_change_rate(0, 3) == 0.0
    assert np.isnan(lead_change_rate(0, 1))  # one snapshot: no transition


def test_share_interval_stays_in_0_1_and_has_width_at_either_bound():
    n = 100
    ones, zeros = share_ci(np.ones(n)), share_ci(np.zeros(n))
    assert ones.mean == 1.0 and ones.hi == 1.0
    assert ones.lo == pytest.approx(1 - 3.6889 / n, abs=1e-4)  # the Poisson bound, mirrored
    assert zeros.lo == 0.0 and zeros.hi == pytest.approx(3.6889 / n, abs=1e-4)
    r = share_ci(np.array([0.9, 1.0, 1.0, 0.8, np.nan]))
    assert r.n == 4 and r.mean == pytest.approx(0.925) and r.lo < 0.925 < r.hi <= 1.0
    assert share_ci(np.array([np.nan])).mean is None


def _api_replay(game, rec):
    """Legal actions per decision and the round score snapshots of one stored game, through the
    public API (plain Python, one call per decision): what collect's compiled replay computes."""
    round_at, _ = round_field(game)
    s = game.new_game(int(rec.players), rec.seed)
    legal, rows = [], []
    last = s[round_at]
    for i, a in enumerate(rec.actions):
        legal.append(int(game.legal_mask(s).sum()))
        s = game.step(s, a)
        over = game.is_terminal(s)
        if s[round_at] != last or over or i == len(rec.actions) - 1:
            if len(rows) < MAX_ROUND_ROWS:
                rows.append(game.scores(s))
            last = s[round_at]
    return np.array(legal, np.int64), np.array(rows, np.int64)


@pytest.mark.parametrize("name", game_names())
def test_replayed_quality_metrics_match_a_plain_python_replay(tmp_path, name):
    game = get_game(name)
    players = min(game.PLAYER_COUNTS)
    t = run_tournament(
        name, players, ["random"] * players, 2 * players, tmp_path / "q.sqlite",
        progress=False, n_boot=20, keep_records=True,
    )  # fmt: skip
    recs = t["records"]
    st = collect(name, recs)
    for g, rec in enumerate(recs):
        legal, rows = _api_replay(game, rec)
        assert legal.shape[0] == st.decisions[g] and (legal >= 1).all()
        assert st.branching[g] == legal.mean()
        assert st.decision_moves[g] == (legal > 1).mean()
        ws = np.asarray(rec.win_shares)
        winner = int(np.argmax(ws)) if (ws == 1.0).sum() == 1 else -1
        changes, _ = lead_stats(rows, winner)
        assert st.lead_changes[g] == changes
        assert st.lead_change_rate[g] == lead_change_rate(changes, rows.shape[0])
        np.testing.assert_array_equal([st.drama[g], st.drama_max[g]], drama_stats(rows, winner))
    assert (st.branching >= 1).all() and ((st.decision_moves >= 0) & (st.decision_moves <= 1)).all()
    shape = game_shape(st)
    assert shape.branching_factor.n == shape.decision_moves.n == len(st)
    assert shape.branching_factor.mean == pytest.approx(st.branching.mean())


def test_stats_without_the_quality_fields_read_as_nan(tmp_path):
    """GameStats files written before the quality metrics existed (and callers that do not pass
    them) load with nan for each, and the report's figures for them are empty."""
    g = 3
    base = dict(
        game="chipin", players=2, rules_data_hash="0" * 16, sources=("score",), resources=(),
        action_kinds=("all",), items=(), game_ids=np.arange(g), seats=np.ones((g, 2), np.int64),
        scores=np.zeros((g, 2), np.int64), win_shares=np.full((g, 2), 0.5),
        points=np.zeros((g, 2, 1), np.int64), gained=np.zeros((g, 2, 0), np.int64),
        spent=np.zeros((g, 2, 0), np.int64), actions=np.ones((g, 2, 1), np.int64),
        deaths=np.zeros((g, 2), np.int64), in_play=np.zeros((g, 0), bool),
        taken=np.zeros((g, 2, 0), bool), decisions=np.full(g, 4), rounds=np.full(g, 2),
        truncated=np.zeros(g, bool), margin=np.zeros(g, np.int64),
        lead_changes=np.zeros(g, np.int64), decided_at=np.full(g, np.nan),
        deal_seeds=np.arange(g), play_digests=np.zeros(g, np.int64),
    )  # fmt: skip
    st = GameStats(**base)
    for name in QUALITY_FIELDS:
        assert getattr(st, name).shape == (g,) and np.isnan(getattr(st, name)).all()
    np.savez_compressed(  # a file of an earlier version: no quality arrays
        tmp_path / "old.npz",
        meta=np.array(
            '{"game": "chipin", "players": 2, "rules_data_hash": "0000000000000000", '
            '"sources": ["score"], "resources": [], "action_kinds": ["all"], "items": [], '
            '"labels": {}}'
        ),
        **{k: v for k, v in base.items() if isinstance(v, np.ndarray)},
    )
    old = GameStats.load(tmp_path / "old.npz")
    assert np.isnan(old.drama).all() and np.isnan(old.branching).all()
    assert len(old.subset(np.array([0, 2]))) == 2
    assert game_shape(old).branching_factor.mean is None
    # and the new fields survive a save and load
    st.branching[:] = [2.0, 3.0, 4.0]
    back = GameStats.load(st.save(tmp_path / "new.npz"))
    assert back.branching.tolist() == [2.0, 3.0, 4.0] and np.isnan(back.drama).all()
