"""Exact legal masks (DESIGN D5)."""

from __future__ import annotations

from core.jit import jit

from chipin_env.actions import A_BURY, A_PAY, A_TAKE
from chipin_env.layout import S_ACTOR, S_BURIES, S_CHIPS, S_LEFT, S_OVER


@jit(alloc=False)
def legal_mask_into(s, T, mask):
    """mask = the actions the player to act may take now; returns how many (0 once over)."""
    for i in range(mask.shape[0]):
        mask[i] = False
    if s[S_OVER]:
        return 0
    p = s[S_ACTOR]
    mask[A_TAKE] = True  # taking is always allowed
    n = 1
    if s[S_CHIPS + p] > 0:  # paying needs a chip
        mask[A_PAY] = True
        n += 1
    if s[S_BURIES + p] > 0 and s[S_LEFT] > 0:  # a bury left, and a next card to roll onto
        mask[A_BURY] = True
        n += 1
    return n
