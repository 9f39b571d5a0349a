"""Golden playthroughs: a behaviour change shows as a diff.

Regenerate with `python -m tests.troyes.golden` after an intended change."""

import difflib

import pytest

from .golden import GAMES, path, playthrough


@pytest.mark.parametrize("n,seed", GAMES)
def test_golden(n, seed):
    want = path(n, seed).read_text()
    got = playthrough(n, seed)
    if got != want:
        diff = "".join(
            list(
                difflib.unified_diff(want.splitlines(True), got.splitlines(True), "golden", "now")
            )[:60]
        )
        pytest.fail(f"golden playthrough changed:\n{diff}")
