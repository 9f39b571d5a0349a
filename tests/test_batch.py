"""Batch engine (core.batch): exact equivalence with the single-game path, seeding, returns."""

from __future__ import annotations

import importlib

import numpy as np
import pytest
from game_helpers import counts_beside, fewest, nth_count
from numba.core.dispatcher import Dispatcher

from core import contract_template, game_contract
from core.agents import RandomAgent
from core.batch import batch_game_seed, returns_into
from core.errors import IllegalActionError
from core.registry import game_names, game_packages, get_game
from core.returns import RETURN_KINDS, compute_returns

GAMES = game_names()
MAX_SEARCH_STEPS = 2000  # batch steps a test plays looking for a position it needs, at most


def _game(name):
    return get_game(name)


@pytest.mark.parametrize("name", GAMES)
def test_rendered_loops_match_template(name):
    pkg = game_packages()[name]
    loops = importlib.import_module(f"{pkg}.engine.batch_loops")
    template = importlib.import_module("core.batch_loops_template")
    parallel = [
        k for k in _compiled_defs(template) if getattr(template, k).targetoptions.get("parallel")
    ]
    assert _compiled_defs(loops) == _compiled_defs(template) + [f"{k}_serial" for k in parallel]


def _compiled_defs(module):
    """Names of the compiled functions defined (not imported) in module, in order."""
    return [
        k
        for k, v in vars(module).items()
        if isinstance(v, Dispatcher) and v.py_func.__module__ == module.__name__
    ]


def test_loops_template_imports():
    """The template is a real module: it imports (nothing compiles until a call) against the
    contract template, itself over the game contract's stubs, which only raise."""
    template = importlib.import_module("core.batch_loops_template")
    assert template.k_step is contract_template.k_step
    assert contract_template.k_keys is game_contract.k_keys
    assert _compiled_defs(template) == [
        "reset_slots",
        "_finish",
        "step_slots",
        "random_play",
        "random_actions",
        "observe_slots",
        "over_flags",
        "mask_slots",
    ]
    for name in game_contract.__all__:
        fn = getattr(game_contract, name)
        if callable(fn):
            with pytest.raises(NotImplementedError):
                fn(*[None] * fn.__code__.co_argcount)


# each game's player counts in turn, each beside a reward kind: (2, win_loss), (3, rank) and
# (4, margin) for counts 2-4
@pytest.mark.parametrize(
    "name,players,kind",
    [
        (g, n, kind)
        for g in GAMES
        for n, kind in counts_beside(get_game(g), ("win_loss", "rank", "margin"))
    ],
)
def test_batch_equals_single_games(name, players, kind):
    """B seeded games stepped together == B single games with the same seeds and actions,
    byte for byte, through game ends and automatic resets."""
    game = _game(name)
    B, seed = 5, 1234567
    eng = game.make_batch(B, players, seed=seed, reward_kind=kind)
    bots = [RandomAgent(100 + i) for i in range(B)]
    singles = [game.new_game(players, batch_game_seed(seed, i, 0)) for i in range(B)]
    ks = [0] * B
    finished = 0
    steps = 0
    while finished < B + 2 and steps < 4000:
        for i in range(B):
            assert np.array_equal(eng.states[i], singles[i])
            assert np.array_equal(eng.masks[i], game.legal_mask(singles[i]))
            p = game.current_player(singles[i])
            assert eng.players[i] == p
            assert np.array_equal(eng.obs[i], game.observe(singles[i], p))
        actions = np.array([bots[i].act_mask(eng.masks[i]) for i in range(B)])
        eng.step(actions)
        steps += 1
        for i in range(B):
            singles[i] = game.step(singles[i], int(actions[i]))
            if game.is_terminal(singles[i]):
                assert eng.dones[i]
                assert np.array_equal(eng.final_states[i], singles[i])
                np.testing.assert_allclose(
                    eng.rewards[i], game.returns(singles[i], kind), rtol=0, atol=1e-6
                )
                assert eng.truncs[i] == game.is_truncated(singles[i])
                ks[i] += 1
                finished += 1
                singles[i] = game.new_game(players, batch_game_seed(seed, i, ks[i]))
            else:
                assert not eng.dones[i]
                assert not eng.rewards[i].any()
    assert finished >= B, "the test should see games end and restart"
    assert list(eng.games) == ks


@pytest.mark.parametrize("name", GAMES)
def test_random_play_equals_random_agent_games(name):
    """The compiled random-play loop == RandomAgent(slot stream) on single games."""
    game = _game(name)
    B, seed, n = 3, 99, 900
    players = max(game.PLAYER_COUNTS)
    eng = game.make_batch(B, players, seed=seed, observe=False)
    d, g = eng.random_play(n)
    assert d == B * n
    for i in range(B):
        bot = RandomAgent(batch_game_seed(seed, i, 0))
        s = game.new_game(players, batch_game_seed(seed, i, 0))
        k = 0
        for _ in range(n):
            s = game.step(s, bot.act_mask(game.legal_mask(s)))
            if game.is_terminal(s):
                k += 1
                s = game.new_game(players, batch_game_seed(seed, i, k))
        assert np.array_equal(eng.states[i], s)
        assert eng.games[i] == k
    assert g == int(eng.games.sum())


@pytest.mark.parametrize("name", GAMES)
def test_same_seed_replays_and_subset_step(name):
    game = _game(name)
    n = nth_count(game, 1)  # 3 players at counts 2, 3, 4
    a = game.make_batch(4, n, seed=5)
    b = game.make_batch(4, n, seed=5)
    for _ in range(50):
        acts = a.random_actions().copy()
        a.step(acts)
        b.step(acts)
    assert np.array_equal(a.states, b.states)
    # stepping a subset leaves the other slots untouched
    before = a.states.copy()
    acts = a.random_actions().copy()
    a.step(acts, idx=np.array([1, 3]))
    assert np.array_equal(a.states[[0, 2]], before[[0, 2]])
    assert not np.array_equal(a.states[[1, 3]], before[[1, 3]])


@pytest.mark.parametrize("name", GAMES)
def test_illegal_action_rejected_before_any_slot_moves(name):
    game = _game(name)
    eng = game.make_batch(3, fewest(game), seed=1)
    for _ in range(MAX_SEARCH_STEPS):  # play on until slot 1 has a masked-out action
        if not eng.masks[1].all():
            break
        eng.step(eng.random_actions().copy())
    before = eng.states.copy()
    acts = eng.random_actions().copy()
    if not eng.masks[1].all():  # a game whose decisions never mask an action out skips this
        acts[1] = int(np.flatnonzero(~eng.masks[1])[0])
        with pytest.raises(IllegalActionError):
            eng.step(acts)
        assert np.array_equal(eng.states, before)
    acts[1] = -1
    with pytest.raises(IllegalActionError):
        eng.step(acts)
    assert np.array_equal(eng.states, before)


@pytest.mark.parametrize("name", GAMES)
def test_observe_any_seat(name):
    game = _game(name)
    players = max(game.PLAYER_COUNTS)
    eng = game.make_batch(4, players, seed=2)
    eng.random_play(37)
    seats = np.arange(4) % players
    out = eng.observe(seats)
    for i in range(4):
        assert np.array_equal(out[i], game.observe(eng.states[i], int(seats[i])))


def test_returns_into_matches_core_returns():
    rng = np.random.default_rng(0)
    out = np.zeros(4, dtype=np.float32)
    for _ in range(400):
        n = int(rng.integers(2, 5))
        keys = np.zeros((4, 3), dtype=np.int64)
        keys[:n] = rng.integers(0, 3, size=(n, 3))  # small values: many ties
        for code, kind in enumerate(RETURN_KINDS):
            returns_into(keys, n, code, 7.0, out)
            want = compute_returns(keys[:n, 0], keys[:n, 1:], kind, 7.0)
            np.testing.assert_allclose(out[:n], want, atol=1e-6, err_msg=f"{kind} {keys[:n]}")
            assert not out[n:].any()


# --- the SB3 VecEnv over the batch engine ---------------------------------------------------
def _vec(**kw):
    pytest.importorskip("stable_baselines3")
    from training.learn.batch_vec_env import BatchVecEnv

    return BatchVecEnv(**kw)


@pytest.mark.parametrize("name", GAMES)
def test_batch_vec_env_api_and_learner_frame(name):
    game = _game(name)
    players = nth_count(game, 1)  # 3 players at counts 2, 3, 4
    env = _vec(game=name, n_envs=4, players=players, seed=3, reward_kind="rank")
    obs = env.reset()
    assert obs.shape == (4, game.OBS_SIZE) and obs.dtype == np.float32
    from sb3_contrib.common.maskable.utils import get_action_masks, is_masking_supported

    assert is_masking_supported(env)
    bot = RandomAgent(0)
    ended = 0
    for _ in range(1500):
        masks = get_action_masks(env)
        assert masks.shape == (4, game.NUM_ACTIONS)
        for i in range(4):  # every slot waits for its learner, obs in the learner's frame
            s = env.engine.states[i]
            assert game.current_player(s) == env.seats[i]
            assert np.array_equal(masks[i], game.legal_mask(s))
            assert np.array_equal(obs[i], game.observe(s, int(env.seats[i])))
        obs, rew, dones, infos = env.step(np.array([bot.act_mask(m) for m in masks]))
        for i in np.flatnonzero(dones):
            ended += 1
            info = infos[i]
            assert info["terminal_observation"].shape == (game.OBS_SIZE,)
            assert "TimeLimit.truncated" in info
            assert -1.0 <= rew[i] <= 1.0
        assert not rew[~dones].any()
        if ended >= 3:
            break
    assert ended >= 3


@pytest.mark.parametrize("name", GAMES)
def test_batch_vec_env_replays_from_seed(name):
    players = fewest(_game(name))
    a = _vec(game=name, n_envs=3, players=players, seed=9)
    b = _vec(game=name, n_envs=3, players=players, seed=9)
    oa, ob = a.reset(), b.reset()
    bot = RandomAgent(1)
    for _ in range(200):
        assert np.array_equal(oa, ob)
        acts = np.array([bot.act_mask(m) for m in a.action_masks()])
        oa, ra, da, _ = a.step(acts)
        ob, rb, db, _ = b.step(acts)
        assert np.array_equal(ra, rb) and np.array_equal(da, db)


@pytest.mark.parametrize("name", GAMES)
def test_batch_vec_env_maskable_ppo_smoke(name):
    pytest.importorskip("sb3_contrib")
    from sb3_contrib import MaskablePPO

    env = _vec(game=name, n_envs=4, players=fewest(_game(name)), seed=0)
    model = MaskablePPO(
        "MlpPolicy",
        env,
        n_steps=32,
        batch_size=64,
        n_epochs=1,
        seed=0,
        policy_kwargs={"net_arch": [32]},
        device="cpu",
    )
    from training.learn.train import silent_logger

    model.set_logger(silent_logger())  # no SB3-<date> folder in the temp directory
    model.learn(256)
    assert model.num_timesteps >= 256


@pytest.mark.parametrize("name", GAMES)
def test_thread_count_follows_batch_size_and_cap(name):
    import numba

    from core.batch import MIN_SLOTS_PER_THREAD, use_threads_for

    assert use_threads_for(8) == 1 and numba.get_num_threads() == 1  # small batches: one thread
    top = numba.config.NUMBA_NUM_THREADS
    assert use_threads_for(MIN_SLOTS_PER_THREAD * 64) == top
    assert use_threads_for(MIN_SLOTS_PER_THREAD * 64, cap=1) == 1
    assert numba.get_num_threads() == 1
    g = get_game(name)
    p = min(g.PLAYER_COUNTS)
    eng = g.make_batch(256, p, seed=0, threads=1)
    eng.random_play(2)
    assert numba.get_num_threads() == 1  # the engine's cap holds for a large batch
    with pytest.raises(ValueError):
        g.make_batch(4, p, threads=0)
