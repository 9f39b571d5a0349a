"""PettingZoo AEC env for Troyes (DESIGN D7): a thin adapter over the public API."""

from __future__ import annotations

import pettingzoo

from core.aec import GameAECEnv, wrap_env


def raw_env(
    num_players: int = 4, render_mode: str | None = None, reward_kind: str = "win_loss", **opts
) -> GameAECEnv:
    """The unwrapped AEC env (agents player_0..player_{n-1})."""
    import troyes_env

    return GameAECEnv(
        troyes_env,
        num_players=num_players,
        render_mode=render_mode,
        reward_kind=reward_kind,
        **opts,
    )


def env(
    num_players: int = 4, render_mode: str | None = None, reward_kind: str = "win_loss", **opts
):
    """The AEC env with PettingZoo's classic wrappers."""
    return wrap_env(
        raw_env(num_players=num_players, render_mode=render_mode, reward_kind=reward_kind, **opts)
    )


try:
    pettingzoo.register("aec", "troyes_v0", entry_point="troyes_env.env:env")
except Exception:  # already registered (module reloaded) or an older PettingZoo
    pass
