"""`az` with no path plays the network a game package ships for the count of the game, with the
search settings its sidecar names; Village and Troyes ship one for every count."""

from __future__ import annotations

import json

import pytest

from core.registry import game_names, get_game
from training.agents.az_agent import SIDECAR, search_config, shipped_networks
from training.agents.registry import make_agent

SHIPPED = [(name, n) for name in game_names() for n in sorted(shipped_networks(get_game(name)))]


@pytest.mark.parametrize("name", ["village", "troyes"])
def test_village_and_troyes_ship_a_network_for_every_player_count(name):
    game = get_game(name)
    assert sorted(shipped_networks(game)) == sorted(game.PLAYER_COUNTS)


@pytest.mark.parametrize("name, n", SHIPPED)
def test_az_at_each_count_plays_the_network_trained_at_that_count(name, n):
    game = get_game(name)
    meta = json.loads((shipped_networks(game)[n] / SIDECAR).read_text())
    assert meta["players"] == n
    agent = make_agent("az:sims=8", name, n, 0)
    assert agent.config == search_config(meta, "sims=8")  # the sidecar's settings, then the spec's
    s = game.new_game(n, 3)
    assert game.legal_mask(s)[agent.act(s)]
