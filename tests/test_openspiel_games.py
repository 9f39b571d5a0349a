"""Every registered game as an OpenSpiel game (interop.openspiel; the extra [openspiel])."""

from __future__ import annotations

import numpy as np
import pytest

from core.registry import game_names, get_game

pyspiel = pytest.importorskip(
    "pyspiel", reason='OpenSpiel needs the extra: pip install -e ".[openspiel]"'
)
spiel = pytest.importorskip("interop.openspiel")

CASES = [(g, n) for g in game_names() for n in get_game(g).PLAYER_COUNTS]


@pytest.mark.parametrize("case", CASES, ids=[f"{g}-{n}" for g, n in CASES])
def test_openspiel_s_random_simulation_test_passes(case):
    """OpenSpiel's own checks (sorted, unique action strings, clone equality, no legal action
    for a seat not to act, returns within the utilities), as its Python games run them."""
    name, n = case
    game = pyspiel.load_game(spiel.short_name(name), {"players": n, "seed": 3})
    pyspiel.random_sim_test(game, num_sims=2, serialize=False, verbose=False)


@pytest.mark.parametrize("case", CASES, ids=[f"{g}-{n}" for g, n in CASES])
def test_a_played_game_is_our_game_and_every_state_serialises_and_clones(case):
    name, n = case
    module = get_game(name)
    game = pyspiel.load_game(spiel.short_name(name), {"players": n, "seed": 5})
    state = game.new_initial_state()
    ours = np.array(state.array)
    assert module.num_players(ours) == n
    rng = np.random.default_rng(0)
    while not state.is_terminal():
        p = state.current_player()
        legal = state.legal_actions()
        assert legal == np.flatnonzero(module.legal_mask(ours)).tolist()
        assert p == module.current_player(ours)
        np.testing.assert_array_equal(state.observation_tensor(p), module.observe(ours, p))
        back = game.deserialize_state(state.serialize())
        clone = state.clone()
        assert str(back) == str(clone) == str(state)
        np.testing.assert_array_equal(back.array, ours)
        a = int(rng.choice(legal))
        state.apply_action(a)
        ours = module.step(ours, a)
        np.testing.assert_array_equal(state.array, ours)
    assert state.returns() == [float(x) for x in module.returns(ours)]


@pytest.mark.parametrize("name", game_names())
def test_resampling_keeps_what_the_seat_sees(name):
    module = get_game(name)
    n = min(module.PLAYER_COUNTS)
    game = pyspiel.load_game(spiel.short_name(name), {"players": n, "seed": 1})
    state = game.new_initial_state()
    for a in range(6):
        if state.is_terminal():
            break
        state.apply_action(state.legal_actions()[a % len(state.legal_actions())])
    if state.is_terminal():
        pytest.skip(f"{name}: over within six decisions")
    p = state.current_player()
    sampler = pyspiel.UniformProbabilitySampler(0.0, 1.0)
    for _ in range(3):
        other = state.resample_from_infostate(p, sampler)
        assert other.observation_string(p) == state.observation_string(p)
        assert other.legal_actions() == state.legal_actions()
        assert other.history() == state.history()


def test_deals_are_seeded_and_parameters_checked():
    a = pyspiel.load_game("python_chipin", {"players": 3, "seed": 9})
    b = pyspiel.load_game("python_chipin", {"players": 3, "seed": 9})
    first = [np.array(a.new_initial_state().array) for _ in range(3)]
    assert all(np.array_equal(x, np.array(b.new_initial_state().array)) for x in first)
    assert not np.array_equal(first[0], first[1])  # the k-th deal of a game object
    with pytest.raises(ValueError, match="players must be one of 2, 3, 4; got 5"):
        pyspiel.load_game("python_chipin", {"players": 5})
    with pytest.raises(ValueError, match="returns must be one of win_loss, rank"):
        pyspiel.load_game("python_chipin", {"returns": "margin"})
    assert a.get_type().chance_mode == pyspiel.GameType.ChanceMode.SAMPLED_STOCHASTIC
    assert a.num_distinct_actions() == get_game("chipin").NUM_ACTIONS
    assert a.observation_tensor_size() == get_game("chipin").OBS_SIZE


def test_a_rules_file_is_played_and_another_rules_data_loaded_later_is_refused():
    module = get_game("troyes")
    variant = "docs/rules_variants/troyes_cathedral_4.json"
    try:
        game = pyspiel.load_game("python_troyes", {"players": 2, "rules": variant})
        assert (
            game.rules_hash
            == module.RULES_DATA_HASH
            != module.GAME.spec.tables_hash(
                module.GAME.spec.build_tables(module.GAME.spec.rules_data)
            )
        )
        state = game.new_initial_state()
        state.apply_action(state.legal_actions()[0])
        module.load_rules_data()  # the game's own rules data again, behind the game's back
        with pytest.raises(ValueError, match="this game was made under rules data"):
            state.legal_actions()
    finally:
        module.load_rules_data()


# -- OpenSpiel's bots as our agents ----------------------------------------------------------------
def _decision(name: str, moves: int = 8):
    module = get_game(name)
    s = module.new_game(min(module.PLAYER_COUNTS), 11)
    rng = np.random.default_rng(4)
    for _ in range(moves):
        legal = np.flatnonzero(module.legal_mask(s))
        if legal.size > 1 and _ >= moves - 1:
            break
        s = module.step(s, int(rng.choice(legal)))
    return module, s


@pytest.mark.parametrize("bot", ["ismcts,sims=8", "ismcts,sims=8,fast=1", "mcts,sims=8", "random"])
@pytest.mark.parametrize("name", game_names())
def test_an_openspiel_bot_decides_from_what_its_seat_sees_and_repeats_with_its_seed(name, bot):
    from training.agents.registry import make_agent

    module, s = _decision(name)
    if module.is_terminal(s) or np.flatnonzero(module.legal_mask(s)).size < 2:
        pytest.skip(f"{name}: no decision with a choice in the first moves of seed 11")
    first = make_agent(f"openspiel:{bot}", name, None, seed=5).act(s)
    assert module.legal_mask(s)[first]
    assert make_agent(f"openspiel:{bot}", name, None, seed=5).act(s) == first
    other = module.perturb_hidden(s, 99)  # only what no seat sees differs
    assert make_agent(f"openspiel:{bot}", name, None, seed=5).act(other) == first


def test_array_rollouts_give_a_finished_game_its_returns_and_a_uniform_prior():
    """ArrayRollouts (`fast=1`) plays OpenSpiel's random rollouts on the state array: a rollout
    from a finished game is its returns, and the prior is uniform over the legal actions."""
    from interop.openspiel_agents import ArrayRollouts

    module = get_game("chipin")
    game = pyspiel.load_game(spiel.short_name("chipin"), {"players": 3, "seed": 1})
    state = game.new_initial_state()
    legal = state.legal_actions(state.current_player())
    ev = ArrayRollouts(module, 4, "win_loss", np.random.default_rng(0))
    assert ev.prior(state) == [(a, 1.0 / len(legal)) for a in legal]
    rng = np.random.default_rng(2)
    while not state.is_terminal():
        state.apply_action(int(rng.choice(state.legal_actions(state.current_player()))))
    assert ev.evaluate(state).tolist() == state.returns()


def test_an_openspiel_spec_with_bad_parameters_is_one_line():
    from training.agents.registry import AgentSpecError, make_agent

    for spec, want in [
        ("openspiel:alphago", "the bot is one of ismcts, mcts, random"),
        ("openspiel:ismcts,depth=3", "parameters are sims, c, rollouts, samples"),
        ("openspiel:mcts,sims=0", "sims and rollouts must be >= 1"),
        ("openspiel:ismcts,fast=2", "fast is 0 or 1"),
    ]:
        with pytest.raises(AgentSpecError, match=want) as err:
            make_agent(spec, "chipin", 2, 0)
        assert "\n" not in str(err.value)


# -- our agents as OpenSpiel bots ------------------------------------------------------------------
def test_our_agents_play_inside_openspiel_s_evaluate_bots_as_in_our_arena():
    from open_spiel.python.algorithms import evaluate_bots

    from interop.openspiel_bots import agent_bot
    from training.agents.registry import make_agent

    module = get_game("troyes")
    game = pyspiel.load_game("python_troyes", {"players": 2, "seed": 2})
    specs = ["az:sims=0", "mcts:iters=30"]
    state = game.new_initial_state()
    start = np.array(state.array)
    bots = [agent_bot(spec, game, p, seed=10 + p) for p, spec in enumerate(specs)]
    returns = evaluate_bots.evaluate_bots(state, bots, np.random.RandomState(0))
    # the same agents, seeds and deal in our own loop give the same game
    agents = [make_agent(spec, "troyes", 2, 10 + p) for p, spec in enumerate(specs)]
    s = start
    while not module.is_terminal(s):
        a = agents[module.current_player(s)].act(s)
        s = module.step(s, a)
        for agent in agents:
            if hasattr(agent, "notify"):
                agent.notify(a)
    np.testing.assert_array_equal(state.array, s)
    assert list(returns) == [float(x) for x in module.returns(s)]
    with pytest.raises(ValueError, match="agent_bot plays the games interop.openspiel registers"):
        agent_bot("heuristic", pyspiel.load_game("kuhn_poker"), 0)


def test_a_tournament_with_an_openspiel_bot_is_stored_replayed_and_rated(tmp_path):
    from training.arena import replay, tournament

    db = tmp_path / "t.sqlite"
    r = tournament.run_tournament(
        "chipin", 2, ["openspiel:ismcts,sims=4", "random"], 4, db, progress=False
    )
    assert r["played_now"] == 4
    labels = [e["label"] for e in r["entrants"]]
    assert labels == ["openspiel:ismcts,sims=4", "random"]
    assert replay.main(["--db", str(db), "--verify-all"]) == 0
    again = tournament.run_tournament(
        "chipin", 2, ["openspiel:ismcts,sims=4", "random"], 4, tmp_path / "u.sqlite", progress=False
    )
    rated = {e["name"]: e["win_share"] for e in r["board"]["entrants"]}
    assert set(rated) == set(labels)  # rated like any other entrant
    assert {e["name"]: e["win_share"] for e in again["board"]["entrants"]} == rated  # seeded
