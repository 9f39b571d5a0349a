"""PettingZoo AEC environment for Village (DESIGN D7), registered as `village_v0`."""

from __future__ import annotations

import sys

import pettingzoo

from core.aec import GameAECEnv, wrap_env


def raw_env(num_players: int = 4, render_mode: str | None = None, reward_kind: str = "win_loss",
            **options) -> GameAECEnv:
    """The unwrapped AEC env."""
    return GameAECEnv(sys.modules["village_env"], num_players, render_mode, reward_kind, **options)


def env(num_players: int = 4, render_mode: str | None = None, reward_kind: str = "win_loss",
        **options):
    """The AEC env with PettingZoo's classic wrappers (bounds check, call-order enforcement)."""
    return wrap_env(raw_env(num_players, render_mode, reward_kind, **options))


if "village_v0" not in pettingzoo.aec_registry:
    pettingzoo.register("aec", "village_v0", entry_point="village_env.env:env")
