"""What a balance study reads from a Chip In game beyond its score (training.balance.game_stats).

`RESOURCES`: chips, counted as gained (taken with a card) and spent (paid onto cards). `ITEMS`:
every card by value; `items(final, n)` says which came into play (turned face up: held or
buried) and who took each. Nobody dies in Chip In: `deaths` is None.
"""

from __future__ import annotations

import numpy as np

from chipin_env import rules_data as rd
from chipin_env.layout import LAYOUT

RESOURCES = (("chips", "chips", None),)
ITEMS = tuple(f"card:{v}" for v in range(rd.CARD_LOW, rd.CARD_HIGH + 1))


def items(final: np.ndarray, n: int) -> tuple[np.ndarray, np.ndarray]:
    """(in_play (len(ITEMS),) bool, taken (n, len(ITEMS)) bool) of a finished game."""
    owner = LAYOUT.view(final, "owner")
    buried = LAYOUT.view(final, "buried")
    taken = owner[None, :] == np.arange(n)[:, None]
    return (owner >= 0) | (buried == 1), taken


deaths = None
