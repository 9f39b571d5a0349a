"""Scans of a legal mask 8 entries at a time, for masks of one byte per action (bool, int8,
uint8) in contiguous memory: the one legal action of a forced decision, and RandomAgent's draw
(core.agents.pick_legal uses `pick_nonzero` for such masks).

Eight entries read as one uint64 word `w`. `_nonzero_bytes(w)` turns every non-zero byte into 1,
so (x * 0x0101..01) >> 56 is the number of non-zero entries among the eight (their byte sum)."""

from __future__ import annotations

import numpy as np

from core.jit import jit
from core.rng import rng_below

_ONES = np.uint64(0x0101010101010101)
_TOP = np.uint64(56)


@jit(inline=True)
def _nonzero_bytes(w):
    """Each byte of w: 1 if it was non-zero, else 0."""
    x = w | (w >> np.uint64(4))
    x |= x >> np.uint64(2)
    x |= x >> np.uint64(1)
    return x & _ONES


@jit(inline=True)
def _count8(w):
    return np.int64((_nonzero_bytes(w) * _ONES) >> _TOP)


@jit(alloc=False)
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


@jit(inline=True)
def pick_nonzero(mask, rng):
    """A uniformly random index among the non-zero entries of mask, drawn as the plain loop does
    (one rng_below over their count, then the r-th of them in index order); -1 if none."""
    nw = mask.shape[0] // 8
    words = mask[: nw * 8].view(np.uint64)
    n = 0
    for i in range(nw):
        n += _count8(words[i])
    for a in range(nw * 8, mask.shape[0]):
        if mask[a]:
            n += 1
    if n == 0:
        return -1
    r = rng_below(rng, 0, n)
    for i in range(nw):
        c = _count8(words[i])
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
