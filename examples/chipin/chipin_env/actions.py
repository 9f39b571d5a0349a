"""Chip In action space: one flat Discrete(3) (DESIGN D4). The order never changes without a
version bump."""

from __future__ import annotations

from core.actions import ActionSpace

VERSION = 1
ACTIONS = ActionSpace(
    "chipin",
    VERSION,
    [
        ("take", (), "take the face-up card and the chips on it; the taker then decides again"),
        ("pay", (), "pay one chip onto the face-up card (needs a chip); the next player decides"),
        ("bury", (), "bury the face-up card, its chips roll onto the next (once; not the last)"),
    ],
)
NUM_ACTIONS = ACTIONS.n
A_TAKE = ACTIONS.offset("take")
A_PAY = ACTIONS.offset("pay")
A_BURY = ACTIONS.offset("bury")
