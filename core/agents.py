"""Agents that need no training: a seeded uniform-random legal-action agent."""

from __future__ import annotations

import numpy as np


class RandomAgent:
    """Picks uniformly among legal actions, from its own seeded generator (replays exactly)."""

    name = "random"

    def __init__(self, seed: int = 0):
        self.rng = np.random.default_rng(seed)

    def act(self, game, state: np.ndarray) -> int:
        legal = np.flatnonzero(game.legal_mask(state))
        return int(legal[self.rng.integers(len(legal))])

    def act_mask(self, mask: np.ndarray) -> int:
        legal = np.flatnonzero(mask)
        return int(legal[self.rng.integers(len(legal))])
