"""The compiled Village engine (numba, every function made by core.jit); tables always arrive
as arguments. Re-exports only; one file per role, the same names as troyes_env/engine:

- board.py: state accessors and small mutators (members, payments, gains, the bury rule, the
  decision context and the start of a turn)
- setup.py: a new seeded game (rules §2)
- rounds.py: rounds, turns, market day, deaths, the Mass, the end and final scoring
- legal.py: exact legal masks; apply.py: action effects
- rules.py: the game contract (core/game_contract.py): what the step driver, the entry points
  and the loops call
- observe.py: the observation (its layout is documented in village_env/observation.py)
- evaluate.py: the heuristic bot's position evaluation; checks.py: compiled invariants
- step, api, contract, batch_loops, search_loops, stats_loops, bot_loops: no files here;
  rendered from core's templates at first import (core.codegen)
"""

from __future__ import annotations

from village_env.engine.apply import apply_action
from village_env.engine.legal import legal_mask_into
from village_env.engine.observe import observe_into
from village_env.engine.setup import init_state
from village_env.engine.step import play_random_games, settle, step_inplace, step_trusted

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
