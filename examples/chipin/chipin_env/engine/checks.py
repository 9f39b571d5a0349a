"""Accounting checks of a state (the conformance checker runs them after every step; `validate`
runs them on a state from outside). Plain numpy: the game is small enough."""

from __future__ import annotations

import numpy as np

from chipin_env.layout import LAYOUT, PH_OVER
from chipin_env.tables import N_CARDS, T_BURIES, T_CARD_LOW, T_CHIPS, T_REMOVED


def _penalty(owner: np.ndarray, p: int, low: int) -> int:
    held = owner == p
    starts = held & ~np.concatenate(([False], held[:-1]))
    return int((np.flatnonzero(starts) + low).sum())


def invariant_problems(state: np.ndarray, T: np.ndarray) -> list[str]:
    """Broken conservation laws and bounds; empty when the state is consistent."""
    v = lambda k: LAYOUT.view(state, k)  # noqa: E731
    bad = []
    n = int(v("n_players")[0])
    owner, buried, stack = v("owner"), v("buried"), v("stack")
    chips, score, src = v("chips"), v("score"), v("score_src")
    left, face, over = int(v("deck_left")[0]), int(v("face_up")[0]), int(v("game_over")[0])
    size = N_CARDS - int(T[T_REMOVED])
    if not 0 <= left <= size:
        return [f"deck_left {left} outside 0..{size}"]
    # every card is in exactly one place: deck, removed, face up, held or buried
    where = np.zeros(N_CARDS, dtype=np.int64)
    for c in (*stack[:left], *stack[size:]):
        if c < 0:
            bad.append("an empty slot in the deck or among the removed cards")
        else:
            where[c] += 1
    if np.any(stack[left:size] != -1):
        bad.append("a drawn slot of the stack is not empty")
    if face >= 0:
        where[face] += 1
    where += (owner >= 0).astype(np.int64) + buried
    if np.any(where != 1):
        bad.append(f"cards not in exactly one place: {np.flatnonzero(where != 1).tolist()}")
    if np.any(owner >= n) or np.any(owner[buried == 1] >= 0):
        bad.append("a card held by an absent seat, or held and buried")
    # chips are conserved: hands plus the pot
    if int(chips[:n].sum()) + int(v("pot")[0]) != n * int(T[T_CHIPS + n]):
        bad.append("chips not conserved")
    if np.any(chips[n:] != 0) or np.any(score[n:] != 0) or np.any(src[n:] != 0):
        bad.append("an absent seat holds chips or points")
    if np.any(v("buries_left")[:n] > T[T_BURIES]):
        bad.append("more buries left than dealt")
    if int(v("buries_left")[:n].sum()) + int(buried.sum()) != n * int(T[T_BURIES]):
        bad.append("buries not conserved")
    low = int(T[T_CARD_LOW])
    for p in range(n):
        want = int(chips[p]) - _penalty(owner, p, low)
        if score[p] != want:
            bad.append(f"seat {p}: score {score[p]}, chips minus runs give {want}")
        if src[p].sum() != score[p]:
            bad.append(f"seat {p}: points by source do not add up to the score")
    if over != (v("phase")[0] == PH_OVER) or (over and (face != -1 or left != 0)):
        bad.append("game_over, phase and the face-up card disagree")
    if not over and (face < 0 or not 0 <= v("actor")[0] < n):
        bad.append("no face-up card or no player to act before the end")
    taken = int((owner >= 0).sum()) + int(buried.sum())
    if int(v("round")[0]) != taken + (0 if over else 1):
        bad.append("round does not count the cards turned face up")
    return bad
