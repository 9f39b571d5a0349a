"""Troyes batches: B games as one (B, STATE_SIZE) array stepped in one compiled call (D8).

    from troyes_env.batch import make_batch
    eng = make_batch(1024, num_players=4, seed=7)
    obs, rewards, dones, players = eng.step(eng.random_actions())

Slot i's k-th game is `troyes_env.new_game(n, core.batch.batch_game_seed(seed, i, k))`; the
batch runs the same compiled step as `troyes_env.step` (core.batch documents the arrays).
"""

from __future__ import annotations

import numpy as np

import troyes_env as _game
from core.batch import BatchEngine, BatchSpec
from troyes_env.engine import batch_loops
from troyes_env.engine.kernels import N_KEYS, WORK_SIZE
from troyes_env.layout import MAXP, STATE_SIZE

SPEC = BatchSpec(
    name="troyes",
    state_size=STATE_SIZE,
    num_actions=_game.NUM_ACTIONS,
    obs_size=_game.OBS_SIZE,
    max_players=MAXP,
    n_keys=N_KEYS,
    work_size=WORK_SIZE,
    mask_dtype=np.bool_,
    player_counts=tuple(_game.PLAYER_COUNTS),
    margin_scale=_game.MARGIN_SCALE,
    loops=batch_loops,
    tables=lambda: _game.TABLES,
)


def make_batch(
    batch_size: int,
    num_players: int = 4,
    seed: int = 0,
    reward_kind: str = "win_loss",
    observe: bool = True,
    threads: int | None = None,
) -> BatchEngine:
    """A Troyes batch engine of `batch_size` games, all started (slot i from (seed, i, 0));
    `threads`: most numba threads per call (default NUMBA_NUM_THREADS; one per 64 games)."""
    return BatchEngine(SPEC, batch_size, num_players, seed, reward_kind, observe, threads)
