"""The shared conformance checker (core.testing.check_game) over seeded random Troyes games
(DESIGN §4).

1,000 games per player count in CI (split into chunks so pytest-xdist can share them; sparse
sampling: illegal ids, every masked-in alternative, the bytes round trip and the hidden-information
perturbation every 25th decision, a replay every 25th game), a denser sample of alternative/illegal
actions with a replay of every game on the first 100 per count, and once more in a fresh process
with NUMBA_BOUNDSCHECK=1 and an empty NUMBA_CACHE_DIR (test_boundscheck.py: check_game on 30 games
per count in the same process as the compiled sweep, so the cold compile is paid once).
check_invariants after every step is the compiled full check (invariants.py), which is what keeps
this affordable; test_random_games.py runs the compiled sweep.
"""

import pytest

import troyes_env as T
from core.testing import check_game

pytestmark = pytest.mark.slow  # sweeps over thousands of games

CHUNK = 250


@pytest.mark.parametrize("n", [2, 3, 4])
@pytest.mark.parametrize("chunk", range(4))
def test_thousand_random_games_per_player_count(n, chunk):
    seeds = range(1000 * n + chunk * CHUNK, 1000 * n + (chunk + 1) * CHUNK)
    rep = check_game(T, n, seeds, sample_every=25, replay_every=25)
    assert rep.games == CHUNK
    assert rep.illegal_checked > 0 and rep.alternatives_checked > 0 and rep.hidden_checked > 0


@pytest.mark.parametrize("n", [2, 3, 4])
def test_dense_checks(n):
    rep = check_game(T, n, range(100), sample_every=3, replay_every=1)
    assert rep.games == 100
    assert rep.illegal_checked > 0 and rep.alternatives_checked > 0 and rep.hidden_checked > 0
