"""Chip In: a tiny pass-or-take card game (docs/games/chipin.md), the example third game: a
package outside the library, registered by one entry point, that every generic path runs (DESIGN
D14). The public API is core.game's, as for `village_env` and `troyes_env`."""

from __future__ import annotations

import numpy as np

from core.errors import IllegalActionError, StateFormatError
from core.game import PUBLIC_NAMES, Game

from chipin_env.layout import SCORE_SOURCES
from chipin_env.spec import SPEC

GAME = Game(SPEC)
GAME.export_to(globals())


def score_by_source(state: np.ndarray) -> np.ndarray:
    """Score per player and source: int64 (num_players, len(SCORE_SOURCES)), a copy; each row
    sums to the player's score."""
    n = GAME.num_players(state)
    return GAME.layout.view(state, "score_src")[:n].copy()


def __getattr__(name: str):  # RULES_DATA_HASH and TABLES follow load_rules_data
    return GAME.module_getattr(name)


# Chip In's own additions to the shared API (core.game.PUBLIC_NAMES)
__all__ = [*PUBLIC_NAMES, "SCORE_SOURCES", "score_by_source"]
_ = (IllegalActionError, StateFormatError)
