"""A Ray task imports its game again when Ray's import thread handed it a partially initialised
module (Ray's import thread and a task can import the same modules at the same moment)."""

from __future__ import annotations

import pytest

from core.registry import GameNotAvailableError, game_names, get_game
from training.arena import ray_backend as rb


def test_a_partial_import_is_tried_again(monkeypatch):
    calls = []

    def flaky(name):
        calls.append(name)
        if len(calls) < 3:
            raise AttributeError(
                "partially initialized module 'gymnasium' has no attribute 'utils'"
            )
        return get_game(name)

    monkeypatch.setattr(rb, "get_game", flaky)
    monkeypatch.setattr(rb.time, "sleep", lambda s: None)
    name = game_names()[0]
    assert rb._import_game(name) is get_game(name)
    assert calls == [name] * 3


def test_a_game_that_never_imports_is_refused_after_the_tries(monkeypatch):
    monkeypatch.setattr(rb.time, "sleep", lambda s: None)
    with pytest.raises(GameNotAvailableError, match="unknown game"):
        rb._import_game("no-such-game")


def test_a_worker_whose_numba_registries_broke_exits_for_ray_to_replace_it(monkeypatch):
    """numba refuses to register a module twice; a worker where the import race broke one of its
    registry modules can run no compiled code, so it exits (Ray replays the task elsewhere)
    instead of failing every task it is given. Any other error of the load is raised."""
    from numba.core.registry import cpu_target

    exits = []
    monkeypatch.setattr(rb.os, "_exit", lambda code: exits.append(code))

    def broken():
        raise KeyError("duplicate registration for <class 'NPDatetime'>")

    monkeypatch.setattr(cpu_target.target_context, "refresh", broken)
    name = game_names()[0]
    rb._import_game(name)
    assert exits == [rb.POISONED_EXIT]

    def other():
        raise KeyError("something else")

    monkeypatch.setattr(cpu_target.target_context, "refresh", other)
    with pytest.raises(KeyError, match="something else"):
        rb._import_game(name)
