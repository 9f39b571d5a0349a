"""Batches (DESIGN D8): the batch engine steps the same compiled game as the single-game API."""

import numpy as np

import troyes_env as T
from core.batch import batch_game_seed
from troyes_env import make_batch


def test_batch_matches_single_games():
    eng = make_batch(4, num_players=3, seed=5, observe=True)
    singles = [T.new_game(3, batch_game_seed(5, i, 0)) for i in range(4)]
    for i in range(4):
        assert np.array_equal(eng.states[i], singles[i])
    for _ in range(60):
        acts = eng.random_actions()
        eng.step(acts, auto_reset=False)
        for i in range(4):
            if not T.is_terminal(singles[i]):
                singles[i] = T.step(singles[i], int(acts[i]))
            assert np.array_equal(eng.states[i], singles[i])
            if not T.is_terminal(singles[i]):
                p = T.current_player(singles[i])
                assert np.array_equal(eng.obs[i], T.observe(singles[i], p))


def test_batch_random_play_and_benchmark_loop():
    eng = make_batch(3, num_players=4, seed=1, observe=False)
    decisions, games = eng.random_play(400)
    assert decisions == 1200 and eng.counts[:, 2].sum() == 0
    from troyes_env.engine.step import play_random_games

    s = np.zeros(T.LAYOUT.size, np.int64)
    mask = np.zeros(T.NUM_ACTIONS, np.bool_)
    rng = np.array([1, 2, 3, 4], np.int64)
    work = np.zeros(max(1, T.GAME.spec.work_size), np.int64)
    assert play_random_games(T.TABLES, 2, 3, 9, s, mask, rng, work) > 60
