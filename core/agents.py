"""Agents that need no training: a seeded uniform-random legal-action agent."""

from __future__ import annotations

import numpy as np

from core.rng import rng_below, rng_seed, split_seed


class RandomAgent:
    """Picks uniformly among legal actions from its own seeded xoshiro stream (core.rng), so a
    match replays exactly on every platform and numpy version."""

    name = "random"

    def __init__(self, seed: int = 0):
        self._words = np.zeros(4, dtype=np.int64)
        rng_seed(self._words, 0, *split_seed(seed))

    def act_mask(self, mask: np.ndarray) -> int:
        legal = np.flatnonzero(mask)
        return int(legal[rng_below(self._words, 0, len(legal))])

    def act(self, game, state: np.ndarray) -> int:
        return self.act_mask(game.legal_mask(state))
