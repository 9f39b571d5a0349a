"""Troyes (Pearl Games, 2010) for 2-4 players: compiled rules engine, exact masks, AEC env.

Unofficial; not affiliated with the publishers. Rules: docs/rules/troyes.md (many card numbers
are PROVISIONAL, see RULES_DATA_HASH). A state is a flat int64 array (layout.LAYOUT). The public
API is core.game's, shared with `village_env`, so code written for one game runs on the other;
`GAME.export_to` also binds `env` / `raw_env` (the PettingZoo AEC env, registered as
`troyes_v0`) and `make_batch` (the batch engine).
"""

from __future__ import annotations

import numpy as np

from core.errors import IllegalActionError, StateFormatError
from core.game import PUBLIC_NAMES, Game
from troyes_env.layout import LAYOUT as _LAYOUT
from troyes_env.layout import SCORE_SOURCES
from troyes_env.spec import SPEC

GAME = Game(SPEC)
GAME.export_to(globals())


def score_by_source(state: np.ndarray) -> np.ndarray:
    """Points by source: an int64 array (num_players, len(SCORE_SOURCES)), a copy, of
    the VP each player got from each source (SCORE_SOURCES names the columns; losses are
    negative). Each row sums to the player's VP during play and to its score, scores(state),
    once the game is over (the final-scoring columns are 0 before)."""
    n = GAME.num_players(state)  # checks the state's format and version
    return _LAYOUT.view(state, "score_src")[:n].copy()


def __getattr__(name: str):  # RULES_DATA_HASH and TABLES follow load_rules_data
    return GAME.module_getattr(name)


__all__ = [*PUBLIC_NAMES, "SCORE_SOURCES", "score_by_source"]
_ = (IllegalActionError, StateFormatError)
