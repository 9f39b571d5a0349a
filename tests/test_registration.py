"""Env ids in a fresh interpreter: PettingZoo's `<game>_v0` once the game package is imported
(PettingZoo 1.27 has no plugin registration), gymnasium's `village_troyes_rl/<Game>-v0` through
the `training.learn.env:` module prefix (gymnasium 1.x loads no plugins either)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

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
