"""Agents that need no training: a seeded uniform-random legal-action agent."""

from __future__ import annotations

import numpy as np
from numba import njit

from core.rng import rng_below, rng_seed, split_seed


@njit(cache=True)
def pick_legal(mask, words):
    """A uniformly random index among the true entries of `mask` (one compiled call)."""
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
