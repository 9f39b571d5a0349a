"""Shared bits of the training tests."""

import pytest

from training.games import GAME_MODULES, is_available

# every game the registry knows; the ones whose engine has not landed yet are skipped, not dropped
GAMES = [pytest.param(g, marks=pytest.mark.skipif(not is_available(g),
                                                   reason=f"{g} engine not available yet"))
         for g in GAME_MODULES]
