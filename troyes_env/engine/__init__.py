"""Compiled Troyes engine (numba), one file per role (the same names as village_env/engine):

- setup: a new seeded game (rules §2) and the pre-placement decisions (DP-1);
- step: the step driver (step_inplace, step_trusted, settle; rendered from core);
- rules: the game contract's rules names (core/game_contract.py), advance (the automatic
  stages), is_legal, WORK_SIZE; kernels: the contract's kernels, which look ahead through the
  step driver and so sit above it (the heuristic bot's chain search, the position evaluation);
- legal: the legal mask (legal_mask_into); apply: one decision applied (apply_action);
- observe, checks (compiled invariants and random sweeps), evaluate, hidden;
- step (with the benchmarks' random loop, play_random_games), api, contract, batch_loops,
  search_loops, stats_loops, bot_loops have no file here: core.codegen renders them from
  core's templates at first import;
- the rules areas: board (state accessors and small mutators), rounds (round structure), events,
  feasible, groups (dice groups), turns.

Every compiled function is made with core.jit (its docstring says why each option is used; the
rules code is compiled with alloc=False and never allocates). This file only re-exports.
"""

from __future__ import annotations

from troyes_env.engine.apply import apply_action
from troyes_env.engine.legal import legal_mask_into
from troyes_env.engine.observe import observe_into
from troyes_env.engine.rules import WORK_SIZE, advance, is_legal
from troyes_env.engine.setup import init_state
from troyes_env.engine.step import play_random_games, settle, step_inplace, step_trusted

__all__ = [
    "WORK_SIZE",
    "advance",
    "apply_action",
    "init_state",
    "is_legal",
    "legal_mask_into",
    "observe_into",
    "play_random_games",
    "settle",
    "step_inplace",
    "step_trusted",
]
