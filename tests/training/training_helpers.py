"""Shared bits of the training tests."""

from pathlib import Path
from types import SimpleNamespace

from core.registry import game_names

GAMES = game_names()  # every registered game (core.registry)


def tiny_policy_checkpoint(path: Path, game, players: int = 2) -> Path:
    """A PPO-format checkpoint (sidecar and actor, no .zip) of a fixed small actor for `game`."""
    import torch
    from torch import nn

    from training.agents.checkpoint import save_checkpoint

    torch.manual_seed(0)
    net = nn.Sequential(nn.Linear(game.OBS_SIZE, 16), nn.Tanh(), nn.Linear(16, game.NUM_ACTIONS))
    policy = SimpleNamespace(
        features_extractor=None,
        mlp_extractor=SimpleNamespace(policy_net=net[:2]),
        action_net=net[2],
    )
    model = SimpleNamespace(policy=policy, num_timesteps=0)
    return save_checkpoint(model, path, game, players, with_zip=False)


def constructed_stats(
    win0, taken=None, first=None, actions=None, decided=None, points=None, digests=None
):
    """GameStats of constructed 2-player Village games (`heuristic` in both seats; deal seed g for
    game g): seat 0 wins game g when win0[g] (a nan win0 is a shared win)."""
    import numpy as np

    from training.balance.game_stats import GameStats

    w = np.asarray(win0, dtype=np.float64)
    g = w.size
    ws = np.where(np.isnan(w)[:, None], 0.5, np.stack([w, 1.0 - w], axis=1))
    items = () if taken is None else tuple(f"item{i}" for i in range(taken.shape[2]))
    scores = np.rint(10 * ws).astype(np.int64)
    pts = scores[:, :, None].copy() if points is None else points
    return GameStats(
        game="village",
        players=2,
        rules_data_hash="x",
        sources=tuple(f"src{k}" for k in range(pts.shape[2])),
        resources=(),
        action_kinds=("a", "b", "c", "d"),
        items=items,
        game_ids=np.arange(g, dtype=np.int64),
        seats=np.tile(np.array([1, 2], np.int64), (g, 1)),
        scores=scores,
        win_shares=ws,
        points=pts,
        gained=np.zeros((g, 2, 0), np.int64),
        spent=np.zeros((g, 2, 0), np.int64),
        actions=np.ones((g, 2, 4), np.int64) if actions is None else actions,
        deaths=np.zeros((g, 2), np.int64),
        in_play=np.ones((g, len(items)), bool),
        taken=np.zeros((g, 2, 0), bool) if taken is None else taken,
        decisions=np.full(g, 8, np.int64),
        rounds=np.full(g, 10, np.int64),
        truncated=np.zeros(g, bool),
        margin=np.abs(scores[:, 0] - scores[:, 1]),
        lead_changes=np.zeros(g, np.int64),
        decided_at=np.full(g, 0.5) if decided is None else np.asarray(decided, np.float64),
        deal_seeds=np.arange(g, dtype=np.int64),
        play_digests=np.zeros(g, np.int64) if digests is None else np.asarray(digests, np.int64),
        labels={1: "heuristic", 2: "heuristic"},
        first_actions=first,
    )
