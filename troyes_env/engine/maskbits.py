"""Scans of a legal mask read 8 entries at a time: core.agents.pick_legal's draw, the one legal
action of a forced decision.

A mask from legal_mask_into (int8 or bool) holds 0 or 1 per action, so 8 entries read as one
uint64 `w` count (w * 0x0101..01) >> 56 (their byte sum, at most 8)."""

from __future__ import annotations

import numpy as np
from numba import njit

from core.rng import rng_below

_ONES = np.uint64(0x0101010101010101)
_TOP = np.uint64(56)


@njit(cache=True)
def mask_words(mask):
    """The first 8 * (len // 8) entries of mask as uint64 words (a view, made once per loop)."""
    return mask[: (mask.shape[0] // 8) * 8].view(np.uint64)


@njit(cache=True, _nrt=False)
def first_set(mask, n):
    """The lowest index below n of a non-zero entry (0 if none), as the loop
    `for i in range(n): if mask[i] != 0: return i` finds it."""
    nw = n // 8
    w = mask[: nw * 8].view(np.uint64)
    for i in range(nw):
        if w[i] != 0:
            for a in range(i * 8, i * 8 + 8):
                if mask[a] != 0:
                    return a
    for a in range(nw * 8, n):
        if mask[a] != 0:
            return a
    return 0


@njit(cache=True, inline="always")
def pick_set(mask, words8, rng):
    """pick_legal(mask, rng) for a 0/1 mask whose words8 = mask_words(mask): the same index and
    the same rng draw (one rng_below over the count of legal entries); -1 if none."""
    nw = words8.shape[0]
    n = 0
    for i in range(nw):
        n += np.int64((words8[i] * _ONES) >> _TOP)
    for a in range(nw * 8, mask.shape[0]):
        if mask[a]:
            n += 1
    if n == 0:
        return -1
    r = rng_below(rng, 0, n)
    for i in range(nw):
        c = np.int64((words8[i] * _ONES) >> _TOP)
        if r < c:
            for a in range(i * 8, i * 8 + 8):
                if mask[a]:
                    if r == 0:
                        return a
                    r -= 1
        r -= c
    for a in range(nw * 8, mask.shape[0]):
        if mask[a]:
            if r == 0:
                return a
            r -= 1
    return -1
