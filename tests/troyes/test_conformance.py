"""The shared conformance checker (core.testing) over seeded random Troyes games.

The Python-level checker (illegal samples, every masked-in alternative, replays, byte round
trips, hidden-information perturbation, check_invariants after every step) runs on a subset of
games; test_random_games.py runs the compiled sweep over 1,000 games per player count.
"""

import pytest

import troyes_env as T
from core.testing import check_game


@pytest.mark.parametrize("n", [2, 3, 4])
def test_conformance(n):
    rep = check_game(T, n, range(100 * n, 100 * n + 12), sample_every=9, replay_every=4)
    assert rep.games == 12
    assert rep.illegal_checked > 0 and rep.alternatives_checked > 0 and rep.hidden_checked > 0
