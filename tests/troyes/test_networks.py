"""Troyes ships a policy-value network for every player count: `az` with no path plays the one
trained at the count of the game, with the search settings its sidecar names."""

from __future__ import annotations

import json

import pytest

import troyes_env as T
from training.agents.az_agent import SIDECAR, search_config, shipped_networks
from training.agents.registry import make_agent


def test_a_network_is_shipped_for_every_player_count():
    assert sorted(shipped_networks(T)) == sorted(T.PLAYER_COUNTS)


@pytest.mark.parametrize("n", T.PLAYER_COUNTS)
def test_az_at_each_count_plays_the_network_trained_at_that_count(n):
    folder = shipped_networks(T)[n]
    meta = json.loads((folder / SIDECAR).read_text())
    assert meta["players"] == n
    agent = make_agent("az:sims=8", "troyes", n, 0)
    assert agent.config == search_config(meta, "sims=8")  # the sidecar's settings, then the spec's
    s = T.new_game(n, 3)
    assert T.legal_mask(s)[agent.act(s)]
