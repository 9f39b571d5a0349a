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
