"""The compiled Toss engine: rules.py, its rules and the game contract over them
(core/game_contract.py). The step driver (with the benchmarks' random loop), the entry points,
the full contract and the loops are rendered by core (core.codegen)."""

from __future__ import annotations

from toss_env.engine.step import play_random_games, settle, step_inplace, step_trusted

__all__ = ["play_random_games", "settle", "step_inplace", "step_trusted"]
