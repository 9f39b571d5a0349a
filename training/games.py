"""Registry of the games training can run on; game modules are imported lazily."""

from __future__ import annotations

import importlib
from types import ModuleType

# game name -> module exposing the common public API (new_game, step, legal_mask, observe, ...)
GAME_MODULES: dict[str, str] = {"village": "village_env", "troyes": "troyes_env"}
REQUIRED_API = ("new_game", "legal_mask", "step", "current_player", "is_terminal", "is_truncated",
                "scores", "returns", "observe", "render", "NUM_ACTIONS", "OBS_SIZE",
                "RULES_DATA_HASH", "LAYOUT", "ACTIONS", "PLAYER_COUNTS")


class GameNotAvailableError(ValueError):
    """The named game is unknown, or its engine has not landed yet."""


def get_game(name: str) -> ModuleType:
    """The game module for `name` ("village", "troyes"); a clear error if unknown or unfinished."""
    if name not in GAME_MODULES:
        raise GameNotAvailableError(
            f"unknown game {name!r}; known games: {', '.join(sorted(GAME_MODULES))}"
        )
    try:
        mod = importlib.import_module(GAME_MODULES[name])
    except ImportError as e:
        raise GameNotAvailableError(f"game {name!r} cannot be imported: {e}") from e
    missing = [attr for attr in REQUIRED_API if not hasattr(mod, attr)]
    if missing:
        raise GameNotAvailableError(
            f"game {name!r} is not available yet: module {mod.__name__} lacks "
            f"{', '.join(missing)} (its engine has not landed)"
        )
    return mod


def is_available(name: str) -> bool:
    """True if `get_game(name)` would succeed."""
    try:
        get_game(name)
    except GameNotAvailableError:
        return False
    return True


def available_games() -> list[str]:
    """Names of the games whose engines are importable now."""
    return [g for g in GAME_MODULES if is_available(g)]


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
