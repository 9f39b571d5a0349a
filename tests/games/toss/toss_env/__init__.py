"""Toss: a degenerate game for the library's own tests, written to be legal and nothing more.

2-4 players; each, in turn from the start player, decides four times, between two actions that
are always both legal: `keep` (one point) or `toss` (two points if the coin lying face up shows
heads, none if tails). After every decision a new coin is tossed from the state's RNG and lies
face up for the next player. The highest score wins; equal scores share the win (no
tie-break). Nothing is hidden but the coins to come. A game is 8-16 decisions long, no action
is ever masked out, and the game
has no rules keys, no statistics module and no bots of its own: every generic test of the
library must hold on it, or skip saying why. The README's test command installs it.
"""

from __future__ import annotations

from core.errors import IllegalActionError, StateFormatError
from core.game import PUBLIC_NAMES, Game

from toss_env.spec import SPEC

GAME = Game(SPEC)
GAME.export_to(globals())


def __getattr__(name: str):  # RULES_DATA_HASH and TABLES follow load_rules_data
    return GAME.module_getattr(name)


__all__ = list(PUBLIC_NAMES)
_ = (IllegalActionError, StateFormatError)
