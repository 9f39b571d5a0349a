"""PettingZoo conformance (DESIGN D7): api_test and seed_test for 2, 3 and 4 players."""

import numpy as np
import pettingzoo
import pytest
from pettingzoo.test import api_test, seed_test

import troyes_env
from troyes_env import env, raw_env


@pytest.mark.parametrize("n", [2, 3, 4])
def test_api_test(n):
    api_test(env(num_players=n), num_cycles=1000)


@pytest.mark.parametrize("n", [2, 3, 4])
def test_seed_test(n):
    seed_test(lambda render_mode=None: env(num_players=n, render_mode=render_mode), num_cycles=200)


def test_registry_and_render():
    e = pettingzoo.make("aec", "troyes_v0", num_players=3, render_mode="ansi")
    e.reset(seed=1)
    assert "Troyes 3p" in e.render()
    r = raw_env(num_players=2)
    r.reset(seed=3)
    obs = r.observe(r.agent_selection)
    assert obs["observation"].dtype == np.float32 and obs["action_mask"].dtype == np.int8
    assert obs["action_mask"].sum() >= 1
    with pytest.raises(ValueError):
        raw_env(num_players=5)
    assert troyes_env.env is env


def test_full_game_rewards():
    e = env(num_players=2)
    e.reset(seed=5)
    rng = np.random.default_rng(0)
    total = {}
    for agent in e.agent_iter():
        obs, rew, term, trunc, _ = e.last()
        total[agent] = total.get(agent, 0.0) + rew
        if term or trunc:
            e.step(None)
            continue
        e.step(int(rng.choice(np.flatnonzero(obs["action_mask"]))))
    assert sorted(total.values())[-1] in (0.0, 1.0)
