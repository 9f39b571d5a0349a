"""Village batches: B games as one (B, STATE_SIZE) array stepped in one compiled call (D8).

    from village_env.batch import make_batch
    eng = make_batch(1024, num_players=4, seed=7)
    obs, rewards, dones, players = eng.step(eng.random_actions())

Slot i's k-th game is `village_env.new_game(n, core.batch.batch_game_seed(seed, i, k))`; the
batch runs the same compiled step as `village_env.step` (core.batch documents the arrays).
"""

from __future__ import annotations

from core.batch import batch_factory, batch_spec
from village_env import GAME
from village_env.engine import batch_loops

SPEC = batch_spec(GAME, batch_loops)
make_batch = batch_factory(SPEC)
