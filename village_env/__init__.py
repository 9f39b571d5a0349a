"""Village (Inka & Markus Brand, 2011) as an RL environment: compiled engine, exact masks, AEC env.

Unofficial; not affiliated with the publishers. Rules: docs/rules/village.md. A state is a flat
int64 array (layout.LAYOUT). The public API is core.game's, shared with `troyes_env`, so code
written for one game runs on the other.
"""

from __future__ import annotations

from core.errors import IllegalActionError, StateFormatError
from core.game import PUBLIC_NAMES, Game
from village_env.spec import SPEC

GAME = Game(SPEC)
GAME.export_to(globals())


def __getattr__(name: str):  # RULES_DATA_HASH and TABLES follow load_rules_data
    return GAME.module_getattr(name)


# the AEC env (imported last: binding the names here replaces the `env` submodule attribute)
from village_env.env import env, raw_env  # noqa: E402

__all__ = list(PUBLIC_NAMES)
_ = (IllegalActionError, StateFormatError, env, raw_env)
