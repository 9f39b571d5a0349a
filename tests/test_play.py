"""`python -m core.play --game G`: one printed bot game for every registered game."""

from __future__ import annotations

import runpy
import sys

import pytest
from game_helpers import fewest, nth_count

from core.registry import game_names, get_game


@pytest.mark.parametrize("name", game_names())
def test_play_module_runs_as_main(name, monkeypatch, capsys):
    n = fewest(get_game(name))
    argv = ["core.play", "--game", name, "--players", str(n), "--seed", "0"]
    monkeypatch.setattr(sys, "argv", argv)
    monkeypatch.delitem(sys.modules, "core.play", raising=False)  # as a fresh -m run
    runpy.run_module("core.play", run_name="__main__", alter_sys=False)
    out = capsys.readouterr().out.splitlines()
    assert out[0].startswith(f"{name.capitalize()}, {n} players, seed 0, rules data ")
    assert any(line.startswith("final scores: player_0 ") for line in out)
    assert out[-1].startswith("returns (win_loss): ")


@pytest.mark.parametrize("name", game_names())
def test_core_play_names_the_game_and_checks_players(name, capsys):
    from core import play

    game = get_game(name)
    n = nth_count(game, 1)  # 3 players at counts 2, 3, 4
    play.main(["--game", name, "--players", str(n), "--seed", "1"])
    first = capsys.readouterr().out.splitlines()[0]
    assert first.startswith(f"{name.capitalize()}, {n} players, seed 1")
    with pytest.raises(SystemExit):  # one more than the most: 5 of 2-4
        play.main(["--game", name, "--players", str(max(game.PLAYER_COUNTS) + 1)])
    with pytest.raises(SystemExit):
        play.main(["--game", "no_such_game"])


@pytest.mark.parametrize("name", game_names())
def test_the_same_seeds_give_the_same_log(name):
    from core.play import play_log

    p = min(get_game(name).PLAYER_COUNTS)
    log = play_log(name, p, 4, 1)[0]
    assert log and log == play_log(name, p, 4, 1)[0]


def test_tiebreak_labels_come_from_the_spec():
    from core.play import play_log

    final = [x for x in play_log("village", 2, 0)[0] if x.startswith("final scores: ")][0]
    assert "(customers " in final and ", living " in final
