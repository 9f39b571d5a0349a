"""The compiled Toss engine: rules.py (the rules and the rules contract, core/rules_contract.py)
and kernels.py (the kernel contract, core/kernels_contract.py). The step driver (with the
benchmarks' random loop), the entry points and the loops are rendered by core (core.codegen)."""

from __future__ import annotations

from toss_env.engine.step import play_random_games, settle, step_inplace, step_trusted

__all__ = ["play_random_games", "settle", "step_inplace", "step_trusted"]
