"""What a Chip In player cannot see, resampled: for search agents (`determinize`) and for the
test that observations leak nothing (`perturb_hidden`). Hidden: the order of the face-down deck
and which cards were removed at setup; both are redrawn together by the compiled
`engine.rules.k_determinize` on a copy of the state."""

from __future__ import annotations

import numpy as np

from core.rng import split_seed

from chipin_env.engine.contract import WORK_SIZE, k_determinize


def resample(state: np.ndarray, observer: int, seed: int, T: np.ndarray) -> np.ndarray:
    """A copy of `state` with the unseen cards reshuffled into the deck and the removed pile."""
    s = np.array(state, dtype=np.int64, order="C")
    a, b, c = split_seed(seed)
    k_determinize(s, T, int(observer), a, b, c, np.zeros(max(WORK_SIZE, 1), dtype=np.int64))
    return s


def determinize(state: np.ndarray, observer: int, seed: int, T: np.ndarray) -> np.ndarray:
    return resample(state, observer, seed, T)


def perturb_hidden(state: np.ndarray, seed: int, T: np.ndarray) -> np.ndarray:
    return resample(state, -1, seed, T)
