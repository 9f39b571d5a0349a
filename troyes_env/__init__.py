"""Troyes (Pearl Games, 2010) for 2-4 players: compiled rules engine, exact masks, AEC env.

Unofficial; not affiliated with the publishers. Rules: docs/rules/troyes.md (many card numbers
are PROVISIONAL, see RULES_DATA_HASH). A state is a flat int64 array (layout.LAYOUT). The public
API is core.game's, shared with `village_env`, so code written for one game runs on the other.
"""

from __future__ import annotations

from core.errors import IllegalActionError, StateFormatError
from core.game import PUBLIC_NAMES, Game
from troyes_env.spec import SPEC

GAME = Game(SPEC)
GAME.export_to(globals())


def __getattr__(name: str):  # RULES_DATA_HASH and TABLES follow load_rules_data
    return GAME.module_getattr(name)


# the AEC env (imported last: binding the names here replaces the `env` submodule attribute)
from troyes_env.env import env, raw_env  # noqa: E402

__all__ = list(PUBLIC_NAMES)
_ = (IllegalActionError, StateFormatError, env, raw_env)
