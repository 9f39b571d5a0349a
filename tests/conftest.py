"""Shared test set-up: the helpers' folder on the path, and `--game NAME`, which runs every
generic test (a test parametrized over the registered games) for that one game and nothing else:

    pytest tests --game chipin -m "not slow"

A test is generic when one of its parameters is a game's name, or a tuple whose first item is one
(`(game, players)` line-ups); the game it runs for is that name.
"""

import os
import sys

import pytest

sys.path.insert(0, os.path.dirname(__file__))


def pytest_addoption(parser):
    parser.addoption(
        "--game",
        default=None,
        metavar="NAME",
        help="run only the generic tests (parametrized over the registered games), for NAME",
    )


def games_of(item, names) -> set:
    """The registered games an item's parameters name (empty: not a generic test's item)."""
    spec = getattr(item, "callspec", None)
    found = set()
    for value in spec.params.values() if spec else ():
        if isinstance(value, (tuple, list)) and value:
            value = value[0]
        if isinstance(value, str) and value in names:
            found.add(value)
    return found


def pytest_collection_modifyitems(config, items):
    name = config.getoption("--game")
    if name is None:
        return
    from core.registry import game_names

    names = set(game_names())
    if name not in names:
        raise pytest.UsageError(f"--game must be one of {', '.join(sorted(names))}; got {name!r}")
    keep = [item for item in items if games_of(item, names) == {name}]
    drop = [item for item in items if games_of(item, names) != {name}]
    if drop:
        config.hook.pytest_deselected(items=drop)
    items[:] = keep
