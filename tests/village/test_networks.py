"""Village's networks for 3 and 4 players play the other seats by the network's policy (the `opp`
pilots of benchmarks/results/alphazero/README.md), not by searched nodes of their own."""

import pytest

from training.agents.registry import make_agent


@pytest.mark.parametrize("n", [3, 4])
def test_az_at_3_and_4_players_models_the_other_seats_by_the_network(n):
    assert make_agent("az:sims=8", "village", n, 0).config.opp != "tree"
