"""What a balance study reads from a Chip In game beyond its score (training.balance.game_stats).

`RESOURCES`: chips, counted as gained (taken with a card) and spent (paid onto cards). `ITEMS`:
every card by value; `items(final, n)` says which came into play (turned face up: held or
buried) and who took each. Nobody dies in Chip In: `deaths` is None.

Restricted play (training.agents.restricted_agent) forbids an item through
`item_actions(state, item)`: a card is taken by the `take` action while it is the face-up card
(burying it is not taking it); every card can be taken (`ACTION_ITEMS`)."""

from __future__ import annotations

import numpy as np

from chipin_env import rules_data as rd
from chipin_env.layout import A_TAKE, LAYOUT, S_FACE

RESOURCES = (("chips", "chips", None),)
ITEMS = tuple(f"card:{v}" for v in range(rd.CARD_LOW, rd.CARD_HIGH + 1))
# the items an action can take (restricted play): every card, by `take` while it is face up
ACTION_ITEMS = tuple(range(len(ITEMS)))
_TAKE = np.array([A_TAKE], dtype=np.int64)
_NONE = np.zeros(0, dtype=np.int64)
_TAKE.setflags(write=False)  # handed out to every caller: nobody may change them
_NONE.setflags(write=False)


def item_actions(state: np.ndarray, item: int) -> np.ndarray:
    """The action ids that take card ITEMS[item] in `state`: `take` while it is the face-up card
    (public), else none."""
    return _TAKE if state[S_FACE] == item else _NONE


def items(final: np.ndarray, n: int) -> tuple[np.ndarray, np.ndarray]:
    """(in_play (len(ITEMS),) bool, taken (n, len(ITEMS)) bool) of a finished game."""
    owner = LAYOUT.view(final, "owner")
    buried = LAYOUT.view(final, "buried")
    taken = owner[None, :] == np.arange(n)[:, None]
    return (owner >= 0) | (buried == 1), taken


deaths = None
