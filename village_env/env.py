"""PettingZoo AEC env for Village (DESIGN D7), registered as `village_v0`: a thin adapter over the
public API (core.aec.GameAECEnv)."""

from __future__ import annotations

from core.aec import env_factories
from core.registry import register_pettingzoo

raw_env, env = env_factories("village_env")
register_pettingzoo("village")
