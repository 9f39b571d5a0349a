"""Agents that need no training: a seeded uniform-random legal-action agent."""

from __future__ import annotations

import numpy as np
from numba import types
from numba.extending import overload

from core.jit import jit
from core.maskbits import pick_nonzero
from core.rng import rng_below, rng_seed, split_seed


def _by_entries(mask, words):
    """The pick entry by entry: one rng_below over the count of true entries, then the r-th of
    them in index order (-1 if none). The plain Python body of `_pick` and, compiled, the
    overload's implementation for masks that are not contiguous bytes."""
    n = 0
    for a in range(mask.shape[0]):
        if mask[a]:
            n += 1
    if n == 0:
        return -1
    r = rng_below(words, 0, n)
    for a in range(mask.shape[0]):
        if mask[a]:
            if r == 0:
                return a
            r -= 1
    return -1


def _pick(mask, words):
    """Plain Python (NUMBA_DISABLE_JIT=1): the entry-by-entry pick, which gives the same index as
    the 8-at-a-time one. Compiled callers get the implementation chosen per mask type by the
    overload."""
    return _by_entries(mask, words)


@overload(_pick)  # compiled into each caller (cached there; no cache of its own to go stale)
def _pick_impl(mask, words):
    if (
        isinstance(mask, types.Array)
        and mask.ndim == 1
        and mask.layout == "C"
        and mask.dtype in (types.boolean, types.int8, types.uint8)
    ):

        def by_words(mask, words):  # contiguous, one byte per entry: 8 entries per read
            return pick_nonzero(mask, words)

        return by_words
    return _by_entries


@jit
def pick_legal(mask, words):
    """A uniformly random index among the true (non-zero) entries of `mask` (one compiled call),
    drawn from the xoshiro stream `words`: one rng_below over their count, then the r-th of them
    in index order. Masks of one byte per entry in contiguous memory are scanned 8 entries at a
    time (core.maskbits), others entry by entry; both give the same index."""
    return _pick(mask, words)


class RandomAgent:
    """Picks uniformly among legal actions from its own seeded xoshiro stream (core.rng), so a
    match replays exactly on every platform and numpy version."""

    name = "random"

    def __init__(self, seed: int = 0):
        self._words = np.zeros(4, dtype=np.int64)
        rng_seed(self._words, 0, *split_seed(seed))

    def act_mask(self, mask: np.ndarray) -> int:
        a = pick_legal(mask, self._words)
        if a < 0:
            raise ValueError("no legal action in the mask")
        return a

    def act(self, game, state: np.ndarray) -> int:
        return self.act_mask(game.legal_mask(state))
