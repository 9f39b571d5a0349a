"""Chip In rules data: every number of the rules, written once (the rules: docs/games/chipin.md).

Chip In is this library's own small example game (a pass-or-take card game), so every value is
tagged [D]: our own design, chosen to keep the example small and its games short; nothing
external confirms or contradicts them. `layout.py` turns this module into the flat integer table
the compiled engine receives as an argument (DESIGN D2). Values may be replaced (a modified copy
passed to `load_rules_data`); the number of cards is a shape (the layout sizes its segments by
it), so changing CARD_LOW / CARD_HIGH needs a layout version bump.
"""

from __future__ import annotations

# --- the cards ---------------------------------------------------------------------------------
CARD_LOW = 3  # [D] lowest card value
CARD_HIGH = 35  # [D] highest card value (33 cards, one of each value)
REMOVED_CARDS = 9  # [D] cards set aside face down at setup, never played, never shown

# --- the players ---------------------------------------------------------------------------------
# chips each player starts with, by player count (index 2, 3, 4); chips are public
STARTING_CHIPS = {2: 11, 3: 11, 4: 11}  # [D]
BURIES_PER_PLAYER = 1  # [D] times per game a player may bury the face-up card

# --- results ---------------------------------------------------------------------------------
MARGIN_SCALE = 30.0  # [D] "margin" returns: score gap / this (typical gaps are tens of points)
