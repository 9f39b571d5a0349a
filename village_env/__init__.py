"""Village (Inka & Markus Brand, 2011) as an RL environment: compiled engine, exact masks, AEC env.

Unofficial; not affiliated with the publishers. Rules: docs/rules/village.md. A state is a flat
int64 array (layout.LAYOUT). The public API is core.game's, shared with `troyes_env`, so code
written for one game runs on the other; `GAME.export_to` also binds `env` / `raw_env` (the
PettingZoo AEC env, registered as `village_v0`) and `make_batch` (the batch engine).
"""

from __future__ import annotations

import numpy as np

from core.errors import IllegalActionError, StateFormatError
from core.game import PUBLIC_NAMES, Game
from village_env.layout import SCORE_SOURCES
from village_env.spec import SPEC

GAME = Game(SPEC)
GAME.export_to(globals())


def score_by_source(state: np.ndarray) -> np.ndarray:
    """Prestige per player and source: int64 (num_players, len(SCORE_SOURCES)), a
    copy; column k is SCORE_SOURCES[k]. Each row sums to the player's prestige, and to
    `scores(state)` once the game is over (final scoring included, rules §5.2)."""
    n = GAME.num_players(state)  # the format check (StateFormatError)
    return GAME.layout.view(state, "score_src")[:n].copy()


def __getattr__(name: str):  # RULES_DATA_HASH and TABLES follow load_rules_data
    return GAME.module_getattr(name)


# Village's own additions to the shared API (core.game.PUBLIC_NAMES)
__all__ = [*PUBLIC_NAMES, "SCORE_SOURCES", "score_by_source"]
_ = (IllegalActionError, StateFormatError)
