"""Env ids in a fresh interpreter: PettingZoo's `<game>_v0` once the game package is imported
(PettingZoo 1.27 has no plugin registration), gymnasium's `village_troyes_rl/<Game>-v0` through
the `training.learn.env:` module prefix (gymnasium 1.x loads no plugins either)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]

SCRIPT = """
import gymnasium, numpy as np, pettingzoo
from pettingzoo.env_registry.exceptions import NameNotFound
try:
    pettingzoo.make("aec", "village_v0", num_players=4)
    print("pettingzoo without import: made")
except NameNotFound:
    print("pettingzoo without import: NameNotFound")
import village_env, troyes_env
for name in ("village", "troyes"):
    e = pettingzoo.make("aec", f"{name}_v0", num_players=4)
    e.reset(seed=0)
    print(name, "aec", type(e).__name__, len(e.possible_agents))
    g = gymnasium.make(f"training.learn.env:village_troyes_rl/{name.capitalize()}-v0", players=2)
    obs, info = g.reset(seed=0)
    a = int(np.flatnonzero(g.unwrapped.action_masks())[0])
    g.step(a)
    print(name, "gym", type(g.unwrapped).__name__, g.unwrapped.game_name, obs.shape)
"""


def test_env_ids_in_a_fresh_interpreter():
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    proc = subprocess.run(
        [sys.executable, "-c", SCRIPT],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert proc.returncode == 0, proc.stderr[-3000:]
    out = proc.stdout.splitlines()
    # the README's reason to import the game first (no plugin mechanism in PettingZoo 1.27)
    assert out[0] == "pettingzoo without import: NameNotFound"
    for name in ("village", "troyes"):
        assert f"{name} aec GameAECEnv 4" in out
        assert any(line.startswith(f"{name} gym SingleSeatEnv {name} ") for line in out)


def test_every_game_is_registered_by_its_entry_point_and_the_default_is_declared(monkeypatch):
    """The games this library ships register like any other distribution's (entry points in
    pyproject.toml, no table in core): every registered name maps to its package, the game the
    distribution declares default comes first, the rest follow by name whatever order the
    distributions were found in, and without a declared default the first by name is it."""
    from importlib.metadata import entry_points

    from core import registry

    eps = {ep.name: ep.value for ep in entry_points(group=registry.ENTRY_POINT_GROUP)}
    assert eps["village"] == "village_env" and eps["troyes"] == "troyes_env"
    assert not hasattr(registry, "BUILTIN_GAMES")
    assert registry.default_game() == "village"
    fake = ((("zed", "zed_env"), ("troyes", "troyes_env"), ("alpha", "a_env"),
             ("village", "village_env"), ("alpha", "other_env")), ("village",))  # fmt: skip
    monkeypatch.setattr(registry, "_entry_point_games", lambda: fake)
    assert registry.game_packages() == {
        "village": "village_env", "alpha": "a_env", "troyes": "troyes_env", "zed": "zed_env"
    }  # fmt: skip
    monkeypatch.setattr(registry, "_entry_point_games", lambda: (fake[0], ()))
    assert registry.game_names() == ["alpha", "troyes", "village", "zed"]
    assert registry.default_game() == "alpha"
    monkeypatch.setattr(registry, "_entry_point_games", lambda: (fake[0], ("nowhere",)))
    assert registry.default_game() == "alpha"  # a default naming no registered game is ignored
    monkeypatch.setattr(registry, "_entry_point_games", lambda: ((), ()))
    with pytest.raises(registry.GameNotAvailableError, match="pip install"):
        registry.default_game()
