"""PettingZoo AEC env for Chip In, registered as `chipin_v0`: a thin adapter over the public API
(core.aec.GameAECEnv). A minimal copy of village_env/env.py, until core writes it once."""

from __future__ import annotations

from core.aec import env_factories
from core.registry import register_pettingzoo

raw_env, env = env_factories("chipin_env")
register_pettingzoo("chipin")
