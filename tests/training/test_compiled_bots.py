"""The compiled bots (core/bots_template.py, generated into each game's engine/bot_loops.py): they
choose exactly what the bots chose when they were written in Python (tests/bot_oracles.py), and
the batch engine plays them for every slot at once, the same games as the single-seat env."""

from __future__ import annotations

import importlib
from pathlib import Path

import numpy as np
import pytest
from bot_oracles import GreedyOracle, TroyesOracle
from game_helpers import fewest, nth_count, seeded_games_decisions
from numba.core.dispatcher import Dispatcher
from training_helpers import GAMES

from core import contract_template
from core.batch import SEAT_CALLER, SEAT_POLICY, batch_game_seed
from core.bots import CompiledBot, bot_names, make_bot
from core.registry import game_packages, get_game
from training.agents.registry import make_agent
from training.learn.batch_vec_env import BatchVecEnv
from training.learn.env import SingleSeatEnv

HEURISTIC_GAMES = [g for g in GAMES if "heuristic" in bot_names(g)]


def _compiled_defs(module):
    return [
        k
        for k, v in vars(module).items()
        if isinstance(v, Dispatcher) and v.py_func.__module__ == module.__name__
    ]


@pytest.mark.parametrize("name", GAMES)
def test_rendered_bot_loops_match_template(name):
    pkg = game_packages()[name]
    loops = importlib.import_module(f"{pkg}.engine.bot_loops")
    template = importlib.import_module("core.bots_template")
    assert _compiled_defs(loops) == _compiled_defs(template) + ["play_seats_serial"]
    assert _compiled_defs(template) == ["greedy_values", "bot_choice", "play_seats"]
    assert template.k_own_bot_values is contract_template.k_own_bot_values


def _oracle(name: str, seed: int):
    g = get_game(name)
    return TroyesOracle(g, seed) if name == "troyes" else GreedyOracle(g, seed)


def _games(name: str, per_count: int = 2):
    """(players, game seed) of the seeded games each test plays: every player count of the game,
    `per_count` games of each."""
    return [(n, 100 * n + k) for n in get_game(name).PLAYER_COUNTS for k in range(per_count)]


def _per_count_for(name: str, decisions: int) -> int:
    """Games per player count for at least `decisions` decisions in all (a game of a few
    decisions plays more of them), from the random games' lengths."""
    g = get_game(name)
    shortest = min(min(seeded_games_decisions(g, n, 4)) for n in g.PLAYER_COUNTS)
    return max(2, -(-decisions // (max(1, shortest) * len(g.PLAYER_COUNTS))))


@pytest.mark.parametrize("name", HEURISTIC_GAMES)
def test_compiled_heuristic_chooses_what_the_python_one_chose(name):
    """Finding: the bots decided in Python, one slot at a time in the batch path. Their compiled
    kernels choose the same action as the Python bots at every decision of seeded games of every
    player count, with the same draws from each bot's own stream (its words stay equal), Troyes'
    decisions where a finished game is in reach of the search included."""
    g = get_game(name)
    decisions = 0
    handed_back = 0
    for players, seed in _games(name, _per_count_for(name, 301)):
        bots = [make_bot(name, "heuristic", 7 * seed + p) for p in range(players)]
        oracles = [_oracle(name, 7 * seed + p) for p in range(players)]
        assert all(isinstance(b, CompiledBot) for b in bots)
        rng = np.random.default_rng(seed)
        s = g.new_game(players, seed)
        while not g.is_terminal(s):
            p = g.current_player(s)
            before = s.copy()
            want = oracles[p].act(s)
            got = bots[p].act(s)
            assert got == want, (players, seed, decisions)
            assert np.array_equal(bots[p].rng.words, oracles[p].rng.words)
            assert np.array_equal(s, before)
            decisions += 1
            if rng.random() < 0.2:  # now and then another legal move, for more varied positions
                got = int(rng.choice(np.flatnonzero(g.legal_mask(s))))
            s = g.step(s, got)
        handed_back += getattr(oracles[0], "handed_back", 0)
    assert decisions > 300, decisions
    if name == "troyes":  # the Python search decided these; the kernel scores finished games
        assert handed_back > 0


def test_troyes_chain_search_scores_finished_games_as_the_python_search():
    """Finding: the compiled chain search handed every decision with a finished game in reach
    back to a Python search. k_own_bot_values gives bit for bit the Python search's values of
    every root action (tests/bot_oracles.py, no compiled search in it) at every decision of
    games of 2-4 players, status 0 always, finished games in reach included."""
    from troyes_env.engine.kernels import BOT_SCRATCH_F, BOT_SCRATCH_I, HEURISTIC, k_own_bot_values

    g = get_game("troyes")
    bi = np.zeros(BOT_SCRATCH_I, dtype=np.int64)
    bf = np.zeros(BOT_SCRATCH_F)
    bmask = np.zeros(g.NUM_ACTIONS, dtype=np.bool_)
    work = np.zeros(max(1, g.GAME.spec.work_size), dtype=np.int64)
    compared = with_end = 0
    for players in (2, 3, 4):
        oracle = TroyesOracle(g, players)
        driver = make_bot("troyes", "random", players)
        s = g.new_game(players, 40 + players)
        while not g.is_terminal(s):
            me = g.current_player(s)
            legal = np.flatnonzero(g.legal_mask(s)).astype(np.int64)
            probe = g.determinize(s, me, 1000 + compared)
            want = oracle.search_values(probe, me, oracle.char_weights(s, me), legal)
            got = np.full(len(legal), np.nan)
            status = k_own_bot_values(
                HEURISTIC, s, probe, g.TABLES, me, legal, got, bi, bf, bmask, work
            )
            assert status == 0
            assert np.array_equal(got, want), (players, compared, got, want)
            compared += 1
            oracle._t = g.TABLES  # the search without scoring finished games: meets one?
            with_end += oracle._compiled(probe, me, oracle.char_weights(s, me), legal, got) == 1
            oracle._t = None
            s = g.step(s, driver.act(s))
    assert compared > 300 and with_end > 0, (compared, with_end)
    assert k_own_bot_values(HEURISTIC + 1, s, s, g.TABLES, 0, legal, got, bi, bf, bmask, work) == 1


# --- the batch path ---------------------------------------------------------------------------
@pytest.mark.parametrize("name", HEURISTIC_GAMES)
def test_batch_vec_env_plays_compiled_bots_without_python(name, monkeypatch):
    """Finding: BatchVecEnv called each bot's Python `act` one slot at a time. With heuristic
    opponents no bot's act runs at all (the engine plays them, every slot in one call), and each
    step makes exactly one such call when no other agent is to act."""

    def no_python(self, state):
        raise AssertionError("a compiled bot decided in Python")

    monkeypatch.setattr(CompiledBot, "act", no_python)
    n = nth_count(get_game(name), 1)  # 3 players at counts 2, 3, 4
    env = BatchVecEnv(name, n_envs=4, players=n, opponents="heuristic", seed=5)
    calls = []
    play_seats = env.engine.play_seats
    monkeypatch.setattr(env.engine, "play_seats", lambda *a: calls.append(1) or play_seats(*a))
    env.reset()
    rng = np.random.default_rng(0)
    steps = 0
    for _ in range(60):
        m = env.action_masks()
        before = len(calls)
        _obs, _r, dones, _i = env.step(np.array([rng.choice(np.flatnonzero(r)) for r in m]))
        if not dones.any():
            assert len(calls) - before == 1
            steps += 1
    assert steps > 0 and env.decisions > 60 * 4
    assert (env.seat_codes[:, :n] != SEAT_CALLER).sum() == 4 * (n - 1)  # every opponent seat


class _Replica(SingleSeatEnv):
    """A single-seat env that plays the episodes a BatchVecEnv slot plays (SingleSeatEnv.start)."""

    def follow(self, venv: BatchVecEnv, i: int) -> None:
        ops = [
            None
            if spec is None
            else make_agent(spec, venv.game_name, venv.players, int(venv.opponent_seeds[i, p]))
            for p, spec in enumerate(venv.opponent_specs[i])
        ]
        assert self.start(int(venv.seats[i]), ops, venv.engine.game_seed(i))


@pytest.mark.parametrize(
    "name,players,pool",
    [
        ("village", 2, "heuristic"),
        ("village", 4, "heuristic:3,py:tournament_agents:first_legal:1"),
        ("troyes", 3, "heuristic"),
        ("troyes", 4, "heuristic:3,py:tournament_agents:first_legal:1"),
    ],
)
def test_batch_vec_env_with_bots_plays_the_single_seat_env_s_games(name, players, pool):
    """The batch path is the single-seat env's game: with the same episode seeds (game, seat,
    opponents) and the same learner actions (seeded random over the mask), each slot of a
    BatchVecEnv with bot opponents (compiled, mixed with a Python agent) goes through the same
    states after every step as a SingleSeatEnv, and its finished games end the same (final
    observation, scores, reward, truncation)."""
    B = 3
    venv = BatchVecEnv(name, n_envs=B, players=players, opponents=pool, seed=11)
    singles = [_Replica(name, players, pool, on_illegal="raise") for _ in range(B)]
    obs = venv.reset()
    for i, env in enumerate(singles):
        env.follow(venv, i)
    learner = [np.random.default_rng(i) for i in range(B)]
    ended = 0
    for _ in range(3000):
        for i, env in enumerate(singles):
            assert np.array_equal(venv.engine.states[i], env.state)
            assert np.array_equal(obs[i], env._obs())
        masks = venv.action_masks()
        acts = np.array([int(learner[i].choice(np.flatnonzero(masks[i]))) for i in range(B)])
        obs, rewards, dones, infos = venv.step(acts)
        for i, env in enumerate(singles):
            _o, r, term, trunc, info = env.step(int(acts[i]))
            assert bool(dones[i]) == (term or trunc)
            if dones[i]:
                final_obs = env.game.observe(env.state, env.seat)
                assert np.array_equal(infos[i]["terminal_observation"], final_obs)
                assert infos[i]["outcome"]["scores"] == info["outcome"]["scores"]
                assert infos[i]["TimeLimit.truncated"] == trunc
                assert rewards[i] == np.float32(r)
                assert venv.engine.game_seed(i) == batch_game_seed(11, i, venv.engine.games[i])
                ended += 1
                env.follow(venv, i)
        if ended >= 2 * B:
            break
    assert ended >= 2 * B


@pytest.mark.parametrize("name", HEURISTIC_GAMES)
def test_bots_shared_among_threads_play_the_one_thread_games(name):
    """ "split" threading (core.batch.THREADINGS): the bots' loop run on two threads, each on its
    share of the slots, plays exactly the games, bot streams and move counts of one thread."""
    import numba

    from core.batch import SEAT_RANDOM

    if numba.config.NUMBA_NUM_THREADS < 2:
        pytest.skip("one CPU: nothing to share")
    g = get_game(name)
    B, n = 128, fewest(g)
    runs = []
    for threads, threading in ((1, "numba"), (2, "split")):
        eng = g.make_batch(B, n, seed=3, threads=threads, threading=threading)
        codes = np.full((B, eng.spec.max_players), SEAT_RANDOM, dtype=np.int64)
        codes[:, 1] = make_bot(name, "heuristic").batch_code
        rngs = np.zeros((B, eng.spec.max_players, 4), dtype=np.int64)
        rngs[:, :, 0] = np.arange(B)[:, None] + 1
        moves = np.zeros(B, dtype=np.int64)
        eng.play_seats(eng._all, codes, rngs, moves)
        assert (eng._pool is not None) == (threading == "split")
        runs.append((eng.states.copy(), rngs, moves))
    (s1, r1, m1), (s2, r2, m2) = runs
    assert (m1 > 0).all() and g.is_terminal(s1[0])  # whole games, every slot
    assert np.array_equal(s1, s2) and np.array_equal(r1, r2) and np.array_equal(m1, m2)
    with pytest.raises(ValueError, match="threading must be one of"):
        g.make_batch(4, n, threading="threads")


def _untrained_snapshot(game, players, path):
    """A snapshot checkpoint (actor + sidecar) of an untrained policy of the default shape."""
    from sb3_contrib import MaskablePPO

    from training.agents.checkpoint import save_checkpoint
    from training.learn.sb3_parts import MaskedPolicy

    env = BatchVecEnv(game, n_envs=2, players=players, opponents="random", seed=0)
    model = MaskablePPO(MaskedPolicy, env, n_steps=8, batch_size=8, seed=1, device="cpu")
    return str(save_checkpoint(model, path, get_game(game), players, {"kind": "snapshot"}, False))


@pytest.mark.parametrize("deterministic", [False, True])
@pytest.mark.parametrize("name", ["village", "troyes"])
def test_snapshot_opponents_play_in_the_engine_as_their_act_would(
    name, deterministic, tmp_path, monkeypatch
):
    """Frozen snapshots mixed with bots play inside the engine's call (no per-slot Python), and
    each slot goes through the states a single-seat env goes through with the same episodes,
    the snapshots played by PolicyAgent.act (numpy's forward pass)."""
    snap = _untrained_snapshot(name, 3, tmp_path / "snap")
    pool = f"{snap}:2,heuristic:1"
    B = 3
    venv = BatchVecEnv(
        name, n_envs=B, players=3, opponents=pool, seed=4, opponent_deterministic=deterministic
    )
    monkeypatch.setattr(venv, "_play_agents", lambda idx: pytest.fail("played in Python"))
    obs = venv.reset()
    assert (venv.seat_codes <= SEAT_POLICY).any()

    def follow(env, i):
        ops = [
            None
            if spec is None
            else make_agent(spec, name, 3, int(venv.opponent_seeds[i, p]), deterministic)
            for p, spec in enumerate(venv.opponent_specs[i])
        ]
        assert env.start(int(venv.seats[i]), ops, venv.engine.game_seed(i))

    singles = [SingleSeatEnv(name, 3, pool, on_illegal="raise") for _ in range(B)]
    for i, env in enumerate(singles):
        follow(env, i)
    learner = np.random.default_rng(0)
    ended = 0
    for _ in range(3000):
        for i, env in enumerate(singles):
            assert np.array_equal(venv.engine.states[i], env.state)
        masks = venv.action_masks()
        acts = np.array([int(learner.choice(np.flatnonzero(masks[i]))) for i in range(B)])
        obs, _r, dones, _i = venv.step(acts)
        for i, env in enumerate(singles):
            _o, _rr, term, trunc, _info = env.step(int(acts[i]))
            assert bool(dones[i]) == (term or trunc)
            if dones[i]:
                ended += 1
                follow(env, i)
        if ended >= B:
            break
    assert ended >= B


def test_the_engine_keeps_only_the_snapshots_in_use(tmp_path):
    """A new pool drops the engine's actors that no pool entry and no game in play uses; the
    seats still played by a kept one keep playing it; once no game uses one, none is kept."""
    a = _untrained_snapshot("village", 2, tmp_path / "a")
    b = _untrained_snapshot("village", 2, tmp_path / "b")
    venv = BatchVecEnv("village", n_envs=8, players=2, opponents=f"{a}:1,{b}:1", seed=2)
    venv.reset()
    assert sorted(venv._actor_specs) == sorted([a, b])

    def in_play():
        return [venv._actor_specs[SEAT_POLICY - c] for c in venv.seat_codes.ravel() if c <= -3]

    before = in_play()
    venv.set_opponents(f"{a}:1,random:1")
    assert in_play() == before  # the same snapshot still plays each of those seats
    assert set(venv._actor_specs) == {a} | set(before)
    rng = np.random.default_rng(0)
    for _ in range(2000):
        if b not in in_play():
            break
        venv.step(np.array([int(rng.choice(np.flatnonzero(m))) for m in venv.action_masks()]))
    venv.set_opponents("random")
    assert set(venv._actor_specs) == set(in_play()) and b not in venv._actor_specs


def test_compiled_bot_decisions_allocate_nothing():
    """numba's runtime counts every allocation (NUMBA_NRT_STATS=1, in a fresh process). A
    play_seats call allocates only when Python hands it its arguments, whatever the number of
    bot decisions it makes: whole games of heuristic bots in every seat allocate exactly as a call
    that finds every game over and makes none."""
    import os
    import subprocess
    import sys

    code = """
import numpy as np
from numba.core.runtime import rtsys
from core.bots import bot_names, make_bot
from core.registry import game_names, get_game
for name in game_names():
    if "heuristic" not in bot_names(name):
        continue
    g = get_game(name)
    n = max(g.PLAYER_COUNTS)
    eng = g.make_batch(3, n, seed=1, observe=False)
    mp = eng.spec.max_players
    codes = np.full((3, mp), make_bot(name, "heuristic").batch_code, dtype=np.int64)
    rngs = np.ones((3, mp, 4), dtype=np.int64)
    moves = np.zeros(3, dtype=np.int64)
    idx = np.arange(3, dtype=np.int64)
    eng.play_seats(idx, codes, rngs, moves)  # loads the compiled code: whole games
    eng.reset(2)
    counts = []
    for _ in range(2):  # whole games of bots, then no decision at all
        before = rtsys.get_allocation_stats().alloc
        eng.play_seats(idx, codes, rngs, moves)
        counts.append(rtsys.get_allocation_stats().alloc - before)
        print(name, int(moves.sum()), counts[-1])
"""
    root = Path(__file__).resolve().parents[2]
    path = os.pathsep.join(p for p in (str(root), os.environ.get("PYTHONPATH", "")) if p)
    env = dict(os.environ, NUMBA_NRT_STATS="1", PYTHONPATH=path)
    out = subprocess.run(
        [sys.executable, "-c", code], cwd=root, env=env, capture_output=True, text=True, timeout=600
    )
    assert out.returncode == 0, out.stderr[-2000:]
    lines = [x.split() for x in out.stdout.split("\n") if x]
    assert len(lines) == 2 * len(HEURISTIC_GAMES), out.stdout
    for played, idle in zip(lines[::2], lines[1::2], strict=True):
        assert int(played[1]) >= 3 and int(idle[1]) == 0, out.stdout  # whole games, then none
        assert played[2] == idle[2], out.stdout
