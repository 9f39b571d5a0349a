"""The compiled sweep and the conformance checker (core.testing.check_game, 30 games per player
count) once more with NUMBA_BOUNDSCHECK=1 and an empty NUMBA_CACHE_DIR (a cached function ignores
the flag), so an index bug raises instead of touching the wrong memory (DESIGN §4). Both run in one
process so the cold compile (about 1.5 minutes on one core, most of this test's time) is paid once.
"""

import os
import subprocess
import sys
from pathlib import Path

import pytest

pytestmark = pytest.mark.slow  # a sweep compiled afresh with NUMBA_BOUNDSCHECK=1

CODE = """
import numba
import numpy as np
import troyes_env as T
from core.rng import rng_seed, split_seed
from troyes_env.engine import WORK_SIZE, init_state, settle
from troyes_env.engine.checks import HI, LO, random_game
from troyes_env.layout import STATE_SIZE
from troyes_env.tables import TABLES

assert numba.config.BOUNDSCHECK == 1
mask = np.zeros(T.NUM_ACTIONS, np.bool_)
work = np.zeros(WORK_SIZE, np.int64)
r = np.zeros(4, np.int64)
spare = np.zeros(STATE_SIZE, np.int64)
for n in (2, 3, 4):
    for g in range(20):
        s = np.zeros(STATE_SIZE, np.int64)
        init_state(s, TABLES, n, *split_seed(50_000 + g))
        settle(s, TABLES, mask, work)
        rng_seed(r, 0, g, n, 11)
        k, e = random_game(s, TABLES, LO, HI, mask, work, r, spare, g < 4, 5000)
        assert e == 0, (n, g, e)
        for q in range(n):
            T.observe(s, q)
    assert T.check_invariants(s) == []
from core.testing import check_game
for n in (2, 3, 4):
    rep = check_game(T, n, range(500, 530), sample_every=5, replay_every=3)
    assert rep.games == 30 and rep.alternatives_checked > 0 and rep.hidden_checked > 0
print("boundscheck ok")
"""


def test_sweep_with_boundscheck(tmp_path):
    root = Path(__file__).resolve().parents[2]
    env = dict(
        os.environ,
        NUMBA_BOUNDSCHECK="1",
        NUMBA_CACHE_DIR=str(tmp_path / "numba-cache"),
        PYTHONPATH=str(root) + os.pathsep + os.environ.get("PYTHONPATH", ""),
    )
    out = subprocess.run(
        [sys.executable, "-c", CODE],
        env=env,
        capture_output=True,
        text=True,
        timeout=1500,
        cwd=root,
    )
    assert out.returncode == 0, out.stdout + out.stderr
    assert "boundscheck ok" in out.stdout
