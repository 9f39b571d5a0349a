"""The games training can run on: the registry in core.registry, plus a player-count check."""

from __future__ import annotations

from types import ModuleType

from core.registry import GameNotAvailableError, game_names, get_game

__all__ = ["GameNotAvailableError", "check_players", "game_names", "get_game"]


def check_players(game: ModuleType, num_players: int) -> int:
    """Validate a player count for `game`; returns it as an int."""
    try:
        n = int(num_players)
    except (TypeError, ValueError):
        raise ValueError(f"players must be an integer, got {num_players!r}") from None
    if n not in game.PLAYER_COUNTS:
        raise ValueError(
            f"{game.NAME}: players must be one of {tuple(game.PLAYER_COUNTS)}, got {n}"
        )
    return n
