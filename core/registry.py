"""The registry of games: the one place that names them (DESIGN D10).

Training, benchmarks, tests and the PettingZoo registration discover games here. Every game,
the two this library ships included, registers itself under the entry-point group
``village_troyes_rl.games`` (``name = "package"`` in its distribution's pyproject.toml;
docs/adding_a_game.md) and is found the same way. A distribution may name the game commands play
when none is named, in the group ``village_troyes_rl.default`` (``game = "name"``); this
library names Village.
"""

from __future__ import annotations

import functools
import importlib
import operator
from importlib.metadata import entry_points
from types import ModuleType

ENTRY_POINT_GROUP = "village_troyes_rl.games"
DEFAULT_GROUP = "village_troyes_rl.default"


class GameNotAvailableError(ValueError):
    """The named game is unknown, or its package cannot be imported."""


@functools.lru_cache(maxsize=1)
def _entry_point_games() -> tuple[tuple[tuple[str, str], ...], tuple[str, ...]]:
    # scanning the installed distributions takes ~15 ms: once per process (a distribution
    # installed while the process runs is seen after _entry_point_games.cache_clear())
    games = tuple((ep.name, ep.value) for ep in entry_points(group=ENTRY_POINT_GROUP))
    defaults = tuple(ep.value for ep in entry_points(group=DEFAULT_GROUP))
    return games, defaults


def game_packages() -> dict[str, str]:
    """Every registered game: name -> package, the default game first, then by name (an order
    that does not depend on how the distributions were installed). A name registered twice
    keeps its first package in that scan."""
    games, _ = _entry_point_games()
    found: dict[str, str] = {}
    for name, value in games:
        found.setdefault(name, value)
    first = _declared_default(found)
    order = sorted(found, key=lambda n: (n != first, n))
    return {n: found[n] for n in order}


def _declared_default(found: dict[str, str]) -> str | None:
    """The registered game a distribution names as the default (the first by name if several
    do), or None."""
    named = sorted(v for v in _entry_point_games()[1] if v in found)
    return named[0] if named else None


def game_names() -> list[str]:
    """Names of the registered games, the default game first."""
    return list(game_packages())


def default_game() -> str:
    """The game a command plays when none is named: the one a distribution names in
    DEFAULT_GROUP, else the first registered by name. GameNotAvailableError if no game is
    registered (the library is not installed: `pip install -e .` registers its games)."""
    names = game_names()
    if not names:
        raise GameNotAvailableError(
            "no game is registered; install the library (pip install -e .) so that its games' "
            f"entry points ({ENTRY_POINT_GROUP}) are found"
        )
    return names[0]


def get_game(name: str) -> ModuleType:
    """The game package for `name`; GameNotAvailableError listing the known games if unknown."""
    packages = game_packages()
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
