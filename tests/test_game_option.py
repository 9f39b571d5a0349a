"""`pytest --game NAME` (tests/conftest.py): every generic test for one game, nothing else."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from core.registry import game_names

HERE = Path(__file__).resolve().parent


def _collected(*args: str) -> list[str]:
    cmd = [sys.executable, "-m", "pytest", "--collect-only", "-q", "-p", "no:cacheprovider"]
    run = subprocess.run(
        [*cmd, *args], cwd=HERE.parent, capture_output=True, text=True, timeout=600
    )
    return [line for line in run.stdout.splitlines() if "::" in line], run


@pytest.mark.slow
def test_game_option_selects_the_generic_tests_of_one_game_only():
    files = ["tests/test_game_api.py", "tests/training/test_train_checkpoint.py"]
    ids, run = _collected(*files, "--game", "toss")
    assert ids, run.stdout[-2000:] + run.stderr[-2000:]
    assert all("[toss" in i or "-toss" in i or "toss-" in i for i in ids), ids
    # the player-count test that looped over every game is now one item per game
    assert any("sizes_do_not_depend_on_the_player_count[toss]" in i for i in ids)
    every, _ = _collected(*files)
    others = [g for g in game_names() if g != "toss"]
    assert not any(f"[{g}" in i for g in others for i in ids)
    assert len(ids) < len(every)


def test_a_game_the_registry_lacks_is_a_usage_error():
    _ids, run = _collected("tests/test_game_api.py", "--game", "nosuchgame")
    assert run.returncode != 0
    assert "--game must be one of " in run.stderr + run.stdout


@pytest.mark.slow  # the generic suite for one small game, twice (about a minute each)
@pytest.mark.parametrize("counts", ["2", "3,4"])
def test_no_generic_test_hard_codes_a_player_count(counts):
    """Toss narrowed to other player counts (TOSS_PLAYER_COUNTS) passes every generic test."""
    import os

    env = {**os.environ, "TOSS_PLAYER_COUNTS": counts}
    cmd = [sys.executable, "-m", "pytest", "tests", "--game", "toss", "-m", "not slow", "-q"]
    cmd += ["-p", "no:cacheprovider", "-x"]
    run = subprocess.run(
        cmd, cwd=HERE.parent, env=env, capture_output=True, text=True, timeout=1800
    )
    assert run.returncode == 0, run.stdout[-4000:]
