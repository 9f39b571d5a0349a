"""Toss rules data: every number of the rules, written once (our own design, for tests only)."""

from __future__ import annotations

DECISIONS_EACH = 4  # decisions per player in a game
KEEP_POINTS = 1  # points of `keep`
HEADS_POINTS = 2  # points of a `toss` when the coin shows heads (tails: none)
MARGIN_SCALE = 4.0  # "margin" returns: score gap / this
