"""Village ships a policy-value network for every player count: `az` with no path plays the one
trained at the count of the game, with the search settings its sidecar names."""

from __future__ import annotations

import json

import pytest

import village_env as V
from training.agents.az_agent import SIDECAR, search_config, shipped_networks
from training.agents.registry import make_agent


def test_a_network_is_shipped_for_every_player_count():
    assert sorted(shipped_networks(V)) == sorted(V.PLAYER_COUNTS)


@pytest.mark.parametrize("n", V.PLAYER_COUNTS)
def test_az_at_each_count_plays_the_network_trained_at_that_count(n):
    folder = shipped_networks(V)[n]
    meta = json.loads((folder / SIDECAR).read_text())
    assert meta["players"] == n
    agent = make_agent("az:sims=8", "village", n, 0)
    assert agent.config == search_config(meta, "sims=8")  # the sidecar's settings, then the spec's
    if n > 2:
        assert agent.config.opp != "tree"  # the other seats modelled by the network (results)
    s = V.new_game(n, 3)
    assert V.legal_mask(s)[agent.act(s)]
