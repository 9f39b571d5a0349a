"""The AEC env's edges (core.aec.GameAECEnv), for every game: actions outside the action space,
the global state(), the final standing in infos, and illegal_action="raise" | "penalty"."""

from __future__ import annotations

import importlib

import numpy as np
import pytest
from game_helpers import fewest, nth_count
from pettingzoo.test import api_test

from core.aec import ILLEGAL_ACTION_PENALTY
from core.errors import IllegalActionError
from core.registry import game_names
from core.returns import standing_ranks


@pytest.fixture(params=game_names())
def game(request):
    return importlib.import_module(f"{request.param}_env")


MAX_STEPS = 2000  # decisions a test plays looking for a position it needs, at most


def _masked_out(e) -> int:
    return int(np.flatnonzero(e.observe(e.agent_selection)["action_mask"] == 0)[0])


def _to_a_masked_out_action(e) -> None:
    """Play the last legal action until the agent to act has a masked-out action (a game may
    open with every action legal); a game that shows none within MAX_STEPS decisions, or ends
    first, skips the test that needs one."""
    for _ in range(MAX_STEPS):
        if any(e.terminations.values()) or not e.observe(e.agent_selection)["action_mask"].all():
            break
        e.step(int(np.flatnonzero(e.observe(e.agent_selection)["action_mask"])[-1]))
    if any(e.terminations.values()) or e.observe(e.agent_selection)["action_mask"].all():
        pytest.skip("this game showed no masked-out action (nothing to play illegally)")


def _play_out(e, seed=0):
    """Random legal play to the end; returns {agent: (reward, info)} as last() showed them."""
    rng = np.random.default_rng(seed)
    final = {}
    for agent in e.agent_iter():
        obs, rew, term, trunc, info = e.last()
        if term or trunc:
            final[agent] = (rew, dict(info))
            e.step(None)
        else:
            e.step(int(rng.choice(np.flatnonzero(obs["action_mask"]))))
    return final


@pytest.mark.parametrize("factory", ["env", "raw_env"])
def test_action_outside_the_space_names_it_and_the_range(game, factory):
    e = getattr(game, factory)(num_players=fewest(game))
    e.reset(seed=1)
    before = e.state()
    n = game.NUM_ACTIONS
    for bad in (10**6, -1, n):
        with pytest.raises(IllegalActionError, match=rf"{bad}\b.*0\.\.{n - 1}") as ei:
            e.step(bad)
        assert ei.value.action == bad
    if factory == "env":  # the checked env also refuses non-integers by name
        with pytest.raises(IllegalActionError, match=r"1\.5.*integer action in 0\.\."):
            e.step(1.5)
    np.testing.assert_array_equal(e.state(), before)


def test_state_is_a_copy_of_the_raw_state_array(game):
    e = game.env(num_players=nth_count(game, 1))  # 3 players at counts 2, 3, 4
    with pytest.raises(RuntimeError, match="reset"):
        e.state()
    e.reset(seed=2)
    s = e.state()
    assert s.dtype == np.int64 and s.shape == (game.STATE_SIZE,)
    assert e.state_space.contains(s)
    np.testing.assert_array_equal(s, e.state_array)
    s[:] = 0  # the caller's own copy
    assert e.state_array.any()
    assert game.current_player(e.state()) == e.agent_name_mapping[e.agent_selection]


def test_final_infos_carry_scores_ranks_and_tiebreaks(game):
    e = game.env(num_players=nth_count(game, 1))  # 3 players at counts 2, 3, 4
    e.reset(seed=4)
    final = _play_out(e, seed=4)
    assert sorted(final) == e.possible_agents
    s = e.state_array
    scores, tb = game.scores(s), game.tiebreaks(s)
    ranks = standing_ranks(scores, tb)
    ret = game.returns(s)
    for agent, (rew, info) in final.items():
        i = e.agent_name_mapping[agent]
        assert info["score"] == scores[i] and info["scores"] == scores.tolist()
        assert info["tiebreaks"] == tb[i].tolist()
        assert info["rank"] == ranks[i] and info["ranks"] == ranks
        assert info["truncated"] == bool(game.is_truncated(s))
        assert rew == ret[i]
        assert (rew == 1.0) == (info["rank"] == 1 and ranks.count(1) == 1)


def test_standing_ranks_share_places():
    scores = np.array([5, 7, 7, 1])
    assert standing_ranks(scores, np.zeros((4, 1), np.int64)) == [3, 1, 1, 4]
    assert standing_ranks(scores, np.array([[0], [1], [2], [0]])) == [3, 2, 1, 4]


def test_illegal_action_raise_is_the_default_and_keeps_the_game(game):
    e = game.env(num_players=fewest(game))
    assert e.illegal_action == "raise"
    e.reset(seed=3)
    _to_a_masked_out_action(e)
    before, agent = e.state(), e.agent_selection
    with pytest.raises(IllegalActionError):
        e.step(_masked_out(e))
    np.testing.assert_array_equal(e.state(), before)
    assert e.agent_selection == agent and not any(e.terminations.values())
    with pytest.raises(ValueError, match="illegal_action"):
        game.env(num_players=fewest(game), illegal_action="ignore")


@pytest.mark.parametrize("factory", ["env", "raw_env"])
def test_illegal_action_penalty_ends_the_game(game, factory):
    e = getattr(game, factory)(num_players=nth_count(game, 1), illegal_action="penalty")
    e.reset(seed=3)
    e.step(int(np.flatnonzero(e.observe(e.agent_selection)["action_mask"])[0]))  # one legal
    _to_a_masked_out_action(e)
    offender = e.agent_selection
    before = e.state()
    e.step(_masked_out(e))
    np.testing.assert_array_equal(e.state(), before)  # the illegal action was not applied
    assert all(e.terminations.values()) and not any(e.truncations.values())
    assert e.rewards == {a: (ILLEGAL_ACTION_PENALTY if a == offender else 0.0) for a in e.agents}
    for a in e.agents:
        assert e.infos[a] == {"illegal_action": a == offender, "offender": offender}
        assert not e.observe(a)["action_mask"].any()
    with pytest.raises(ValueError):  # env(): IllegalActionError; raw: PettingZoo's dead-agent check
        e.step(10**6)
    seen = {}
    for agent in e.agent_iter():
        _obs, rew, term, _trunc, _info = e.last()
        assert term
        seen[agent] = rew
        e.step(None)
    assert seen == {a: (-1.0 if a == offender else 0.0) for a in e.possible_agents}
    assert e.agents == []
    e.reset(seed=3)  # a new game after a penalty plays normally
    assert not any(e.terminations.values()) and e.infos[e.agent_selection] == {}


def test_api_test_with_the_penalty_mode(game):
    api_test(game.env(num_players=fewest(game), illegal_action="penalty"), num_cycles=200)
