"""The registry of games: the one place that names them (DESIGN D10).

Training, benchmarks, tests and the PettingZoo registration discover games here. A game is
added by writing its package (docs/adding_a_game.md) and one line in `BUILTIN_GAMES`; a game
shipped in another distribution registers itself instead under the entry-point group
``village_troyes_rl.games`` (``name = "package"``) and is found the same way.
"""

from __future__ import annotations

import functools
import importlib
import operator
from importlib.metadata import entry_points
from types import ModuleType

# game name -> package exposing core.game.GameModule
BUILTIN_GAMES: dict[str, str] = {
    "village": "village_env",
    "troyes": "troyes_env",
}
ENTRY_POINT_GROUP = "village_troyes_rl.games"


class GameNotAvailableError(ValueError):
    """The named game is unknown, or its package cannot be imported."""


@functools.lru_cache(maxsize=1)
def _entry_point_games() -> tuple[tuple[str, str], ...]:
    # scanning the installed distributions takes ~15 ms: once per process (a distribution
    # installed while the process runs is seen after _entry_point_games.cache_clear())
    return tuple((ep.name, ep.value) for ep in entry_points(group=ENTRY_POINT_GROUP))


def game_packages() -> dict[str, str]:
    """Every registered game: name -> package (built-in first, then entry points)."""
    found = dict(BUILTIN_GAMES)
    for name, value in _entry_point_games():
        found.setdefault(name, value)
    return found


def game_names() -> list[str]:
    """Names of the registered games, in registration order."""
    return list(game_packages())


def default_game() -> str:
    """The game a command plays when none is named: the first registered one."""
    return game_names()[0]


def get_game(name: str) -> ModuleType:
    """The game package for `name`; GameNotAvailableError listing the known games if unknown."""
    packages = BUILTIN_GAMES if name in BUILTIN_GAMES else game_packages()
    if name not in packages:
        raise GameNotAvailableError(
            f"unknown game {name!r}; known games: {', '.join(sorted(packages))}"
        )
    try:
        return importlib.import_module(packages[name])
    except ImportError as e:
        raise GameNotAvailableError(f"game {name!r} cannot be imported: {e}") from e


def integer_arg(value, what: str) -> int:
    """`value` as an int when it is an integer (Python or NumPy), never a bool, a float equal to
    one (2.0) or a string; ValueError naming `what` otherwise."""
    if not isinstance(value, bool):
        try:
            return operator.index(value)
        except TypeError:
            pass
    raise ValueError(f"{what} must be an integer, got {value!r}")


def check_players(game: ModuleType, num_players: int) -> int:
    """A player count of `game`, as an int; ValueError naming the counts it allows."""
    n = integer_arg(num_players, "players")
    if n not in game.PLAYER_COUNTS:
        raise ValueError(
            f"{game.NAME}: players must be one of {tuple(game.PLAYER_COUNTS)}, got {n}"
        )
    return n


def register_pettingzoo(name: str, package: str | None = None) -> None:
    """Register the AEC env `<name>_v0` with PettingZoo's registry (once), so that
    ``pettingzoo.make("aec", "<name>_v0", ...)`` builds it: `env` of the game's package (default:
    the registered one). Every game package does this on import (core.game.Game.export_to)."""
    import pettingzoo

    env_id = f"{name}_v0"
    if env_id not in pettingzoo.aec_registry:
        pkg = package or game_packages()[name]
        pettingzoo.register("aec", env_id, entry_point=f"{pkg}:env")
