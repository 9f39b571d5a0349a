"""What chance decided in a step, in words (GameSpec.chance): public outcomes only.

Troyes' chance: a round's start (rules §3 phases 0-3) turns up the round's Activity cards, rolls
every district's dice (emptied at the end of the last round) and draws the event cards; the
start player then rolls the black dice the row calls for (§3 phase 3 step 3); and an influence
reroll rolls one own die again (§5). A die an Activity card rolls against its threshold leaves
only its outcome (what the card did next), so it has no words of its own. Decks and face-down
cards stay hidden: only what turned up is named.
"""

from __future__ import annotations

import numpy as np

from troyes_env.actions import ACTIONS
from troyes_env.layout import LAYOUT, NEUTRAL
from troyes_env.render import COL, COLOUR_WORDS
from troyes_env.rules_data import ACTIVITY_NAMES, EVENT_NAMES


def _v(state, name):
    return LAYOUT.view(state, name)


def _dice(counts) -> str:
    """One district's dice (colour, value-1 counts) as "Y2 Y5 W1" (a die per entry)."""
    return " ".join(
        f"{COL[c]}{v + 1}" for c in range(counts.shape[0]) for v in range(counts.shape[1])
        for _ in range(int(counts[c, v]))
    )  # fmt: skip


def _round_start(before, after) -> list[str]:
    if int(_v(after, "round")[0]) <= int(_v(before, "round")[0]):
        return []
    n = int(_v(after, "n_players")[0])
    words = [
        f"{ACTIVITY_NAMES[int(c)]} turned face up"
        for c0, c in zip(_v(before, "act_card"), _v(after, "act_card"), strict=True)
        if c0 < 0 <= c
    ]
    dice = _v(after, "dice")
    rolled = [f"player_{q} {_dice(dice[q]) or '-'}" for q in range(n)]
    rolled.append(f"neutral {_dice(dice[NEUTRAL]) or '-'}")
    words.append("dice rolled: " + "; ".join(rolled))
    return words


def _events(before, after) -> list[str]:
    """Cards in the row after the step that were not in it before (a card fought leaves the row
    and never comes back)."""
    was = {int(c) for c in _v(before, "row_card")}
    return [
        f"event {EVENT_NAMES[int(c)]} drawn"
        for c in _v(after, "row_card")
        if c >= 0 and int(c) not in was
    ]


def _black(before, after) -> list[str]:
    new = _v(after, "black") - _v(before, "black")
    if int(new.sum()) <= 0 or (new < 0).any():  # dice countered in the step are no roll
        return []
    return ["black dice rolled: " + " ".join(str(v + 1) for v in range(6) for _ in range(new[v]))]


def _reroll(before, action, after) -> list[str]:
    seg, idx = ACTIONS.decode(action)
    if seg != "REROLL":
        return []
    c, v = idx
    p = int(_v(before, "cur")[0])
    new = _v(after, "dice")[p, c] - _v(before, "dice")[p, c]
    new[v] += 1  # the die rerolled left its value
    got = np.flatnonzero(new > 0)
    return [f"the rerolled {COLOUR_WORDS[c]} {v + 1} came up {int(got[0]) + 1}"] if got.size else []


def chance(before: np.ndarray, action: int, after: np.ndarray, T: np.ndarray) -> list[str]:
    """Words for what chance decided in the step `action` made (module docstring)."""
    return (
        _reroll(before, action, after)
        + _round_start(before, after)
        + _events(before, after)
        + _black(before, after)
    )
