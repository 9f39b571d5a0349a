"""Baseline bots: registry, exact replay from seeds, heuristic strength against random."""

import numpy as np
import pytest

from training.bots import bot_names, make_bot
from training.evaluate import evaluate, play_game
from training.games import get_game


def test_registry_names_and_errors():
    assert {"random", "heuristic"} <= set(bot_names("village"))
    with pytest.raises(ValueError, match="no bot 'nope' for village; available: heuristic, random"):
        make_bot("village", "nope")


@pytest.mark.parametrize("name", ["random", "heuristic"])
def test_bots_replay_exactly_from_their_seeds(name):
    g = get_game("village")

    def trace(seed):
        bots = [make_bot("village", name, seed), make_bot("village", "random", seed + 1)]
        s = g.new_game(2, 7)
        acts = []
        for _ in range(150):
            a = bots[g.current_player(s)].act(s)
            acts.append(a)
            s = g.step(s, a)
        return acts

    assert trace(3) == trace(3)
    if name == "random":
        assert trace(3) != trace(4)


def test_heuristic_does_not_peek_at_future_draws():
    """The lookahead runs on a reseeded copy: the real state's RNG words are never consumed."""
    g = get_game("village")
    bot = make_bot("village", "heuristic", 0)
    s = g.new_game(2, 1)
    before = s.copy()
    bot.act(s)
    assert np.array_equal(s, before)


def test_heuristic_beats_random_70_percent_of_100_games():
    res = evaluate("village", 2, ["heuristic", "random"], games=100, seed=2024)
    h = res["agents"][0]
    assert h["games_per_seat"] == [50, 50]
    assert h["win_rate"] >= 0.70, h


def test_full_game_heuristic_vs_heuristic_terminates():
    g = get_game("village")
    s = play_game(g, [make_bot("village", "heuristic", 1), make_bot("village", "heuristic", 2)], 9)
    assert g.is_terminal(s)
