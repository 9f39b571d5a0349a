"""PettingZoo AEC env for Troyes (DESIGN D7), registered as `troyes_v0`: a thin adapter over the
public API (core.aec.GameAECEnv)."""

from __future__ import annotations

from core.aec import env_factories
from core.registry import register_pettingzoo

raw_env, env = env_factories("troyes_env")
register_pettingzoo("troyes")
