"""Troyes's bots: how strong its `heuristic` is."""

import pytest

from training.arena.evaluate import evaluate


@pytest.mark.slow  # 100 games
def test_heuristic_beats_random_70_percent_of_100_games():
    """The game's `heuristic` is a real opponent: it wins at least 70% of 100 two-player
    games against `random`, seats alternated (seeded)."""
    res = evaluate("troyes", 2, ["heuristic", "random"], games=100, seed=2024)
    h = res["agents"][0]
    assert h["games_per_seat"] == [50, 50]
    assert h["win_rate"] >= 0.70, h
