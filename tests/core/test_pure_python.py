"""NUMBA_DISABLE_JIT=1 runs the same code as plain Python (for debugging and coverage): a game, a
batch step, an `mcts` and an `az` decision give what the compiled code gives."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
SCRIPT = """
import numpy as np
from core.registry import get_game
from core.guided import GuidedAgent, GuidedConfig
from core.search import MCTSAgent, SearchConfig
from benchmarks.search import guided_network

g = get_game("chipin")
s = g.new_game(3, 4)
rng = np.random.default_rng(0)
for _ in range(12):
    s = g.step(s, int(rng.choice(np.flatnonzero(g.legal_mask(s)))))
print("game", g.scores(s).tolist(), int(s.sum()), float(g.observe(s, 1).sum()))
eng = g.make_batch(4, 3, seed=2)
for _ in range(6):
    eng.step(eng.random_actions())
print("batch", int(eng.states.sum()), eng.masks.sum(axis=1).tolist())
print("mcts", MCTSAgent(g, SearchConfig(iters=30), seed=1).act(s))
az = GuidedAgent(g, guided_network(g, (16,)), GuidedConfig(sims=8), seed=0)
print("az", az.act(s), az.last["simulations"])
"""


def _run(jit: bool) -> subprocess.CompletedProcess:
    env = {k: v for k, v in os.environ.items() if k != "NUMBA_DISABLE_JIT"}
    if not jit:
        env["NUMBA_DISABLE_JIT"] = "1"
    env["PYTHONPATH"] = os.pathsep.join([str(ROOT), env.get("PYTHONPATH", "")])
    return subprocess.run(
        [sys.executable, "-W", "ignore", "-c", SCRIPT], cwd=ROOT, env=env, capture_output=True,
        text=True, timeout=600,
    )  # fmt: skip


@pytest.mark.slow  # two interpreters, one of them compiling or loading every part it plays
def test_pure_python_mode_plays_what_the_compiled_code_plays():
    plain, compiled = _run(jit=False), _run(jit=True)
    assert plain.returncode == 0, plain.stderr[-3000:]
    assert compiled.returncode == 0, compiled.stderr[-3000:]
    lines = [
        x for x in plain.stdout.splitlines() if x.split(" ")[0] in ("game", "batch", "mcts", "az")
    ]
    assert len(lines) == 4
    assert lines == [
        x
        for x in compiled.stdout.splitlines()
        if x.split(" ")[0] in ("game", "batch", "mcts", "az")
    ]
