"""The shared conformance checker over seeded random Village games (DESIGN §4).

1,000 games per player count in CI (split into chunks so pytest-xdist can share them), a denser
sample of alternative/illegal actions on the first 100, and once more in a fresh process with
NUMBA_BOUNDSCHECK=1 and an empty NUMBA_CACHE_DIR (a cached function ignores the flag).
"""

import os
import subprocess
import sys

import pytest

import village_env as V
from core.testing import check_game

pytestmark = pytest.mark.slow  # sweeps over thousands of games

CHUNK = 250


@pytest.mark.parametrize("n", [2, 3, 4])
@pytest.mark.parametrize("chunk", range(4))
def test_thousand_random_games_per_player_count(n, chunk):
    seeds = range(1000 * n + chunk * CHUNK, 1000 * n + (chunk + 1) * CHUNK)
    rep = check_game(V, n, seeds, sample_every=25, replay_every=25)
    assert rep.games == CHUNK
    assert rep.illegal_checked > 0 and rep.alternatives_checked > 0 and rep.hidden_checked > 0


@pytest.mark.parametrize("n", [2, 3, 4])
def test_dense_checks(n):
    rep = check_game(V, n, range(100), sample_every=3, replay_every=1)
    assert rep.games == 100


def test_conformance_with_boundscheck(tmp_path):
    code = (
        "import village_env as V\n"
        "from core.testing import check_game\n"
        "for n in (2, 3, 4):\n"
        "    r = check_game(V, n, range(500, 540), sample_every=5)\n"
        "    assert r.games == 40\n"
        "import numba\n"
        "assert numba.config.BOUNDSCHECK == 1\n"
        "print('boundscheck ok')\n"
    )
    env = dict(os.environ, NUMBA_BOUNDSCHECK="1", NUMBA_CACHE_DIR=str(tmp_path / "numba-cache"))
    out = subprocess.run(
        [sys.executable, "-c", code], env=env, capture_output=True, text=True, timeout=1200
    )
    assert out.returncode == 0, out.stdout + out.stderr
    assert "boundscheck ok" in out.stdout
