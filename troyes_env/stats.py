"""What a balance study reads from a Troyes game beyond its score (training.balance.game_stats).

`RESOURCES`: per-seat state entries whose rises and falls over a game count as resources gained
and spent (name, layout segment, index in the seat's row or None). `ITEMS`: every Activity card
(rules §6), event card (rules §5) and character (rules §6.3) by key; `items(final, n)` says
which were in play (an Activity card revealed, an event drawn into the row, a character dealt)
and who took each (hired a supervisor on the card, kept the event card, was dealt the
character). Troyes has no deaths (`deaths` is None).

Restricted play (training.agents.restricted_agent) forbids an item through
`item_actions(state, item)`: the action ids that take ITEMS[item] in `state`: an Activity card or an
event card is taken by choosing it as the target of a turn (rules §4: the ACTIVITY or EVENT action
of the position it lies on, at the start of a turn); spending a cube on a card or taking a citizen
back from it is not taking it. Characters are dealt, never taken by an action, so `ACTION_ITEMS`
(the items an action can take) leaves them out."""

from __future__ import annotations

import numpy as np

from troyes_env import rules_data as rd
from troyes_env.actions import A_ACTIVITY, A_EVENT
from troyes_env.layout import LAYOUT, N_ACTPOS, NROW, PH_TURN, S_ACARD, S_PHASE, S_ROW

RESOURCES = (
    ("deniers", "deniers", None),
    ("influence", "influence", None),
    ("vp_tokens", "vp", None),
    ("citizens", "owned", None),
)
_ACT = tuple(f"activity:{row[1]}" for row in rd.ACTIVITY_CARDS)
_EV = tuple(f"event:{row[1]}" for row in rd.EVENT_CARDS)
_CH = tuple(f"character:{row[1]}" for row in rd.CHARACTER_CARDS)
ITEMS = _ACT + _EV + _CH
deaths = None
# the items an action can take (restricted play): the Activity and event cards, not characters
ACTION_ITEMS = tuple(range(len(_ACT) + len(_EV)))
_NONE = np.zeros(0, dtype=np.int64)
_NONE.setflags(write=False)  # handed out to every caller: nobody may change it


def item_actions(state: np.ndarray, item: int) -> np.ndarray:
    """The action ids that take ITEMS[item] in `state`: at the start of a turn (PH_TURN), the
    target action of the Activity position or event row position the card lies on; none in
    other phases, for a card not on the board, or for a character. Reads public entries only
    (the revealed Activity cards and the event row)."""
    if state[S_PHASE] != PH_TURN:
        return _NONE
    na, ne = len(_ACT), len(_EV)
    if item < na:
        return A_ACTIVITY + np.flatnonzero(state[S_ACARD : S_ACARD + N_ACTPOS] == item)
    if item < na + ne:
        return A_EVENT + np.flatnonzero(state[S_ROW : S_ROW + NROW] == item - na)
    return _NONE


def items(final: np.ndarray, n: int) -> tuple[np.ndarray, np.ndarray]:
    """(in_play (len(ITEMS),) bool, taken (n, len(ITEMS)) bool) of a finished game."""
    na, ne = len(_ACT), len(_EV)
    in_play = np.zeros(len(ITEMS), dtype=bool)
    taken = np.zeros((n, len(ITEMS)), dtype=bool)
    cards = LAYOUT.view(final, "act_card")
    sup = LAYOUT.view(final, "sup")
    for pos, c in enumerate(cards):
        if c >= 0:
            in_play[c] = True
            taken[:, c] |= sup[pos, :n] > 0
    kept = LAYOUT.view(final, "kept_by")
    row = LAYOUT.view(final, "row_card")
    for e, k in enumerate(kept):
        if k >= 0:
            in_play[na + e] = True
            if k < n:
                taken[k, na + e] = True
    for e in row:
        if e >= 0:
            in_play[na + e] = True
    chars = LAYOUT.view(final, "chars")
    for p in range(n):
        for c in chars[p]:
            if c >= 0:
                in_play[na + ne + c] = True
                taken[p, na + ne + c] = True
    return in_play, taken
