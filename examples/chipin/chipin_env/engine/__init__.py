"""The compiled Chip In engine (numba, every function made by core.jit); tables always arrive
as arguments. One file per role, as in every game's engine folder:

- board.py: accessors and small mutators (scores, the deck, the end)
- setup.py: a new seeded game; legal.py: exact masks; apply.py: action effects
- rules.py: the game contract (core/game_contract.py): what the step driver, the entry points
  and the loops call
- observe.py: the observation (its layout: chipin_env/observation.py)
- checks.py: invariants
- step, api, contract, batch_loops, search_loops, stats_loops, bot_loops: no files here;
  rendered from core's templates at first import (core.codegen)
"""

from __future__ import annotations

from chipin_env.engine.apply import apply_action
from chipin_env.engine.legal import legal_mask_into
from chipin_env.engine.observe import observe_into
from chipin_env.engine.setup import init_state
from chipin_env.engine.step import play_random_games, settle, step_inplace, step_trusted

__all__ = [
    "apply_action",
    "init_state",
    "legal_mask_into",
    "observe_into",
    "play_random_games",
    "settle",
    "step_inplace",
    "step_trusted",
]
