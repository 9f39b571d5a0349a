"""What a Troyes player cannot see, resampled (ED-35): for search agents (`determinize`) and for
the test that observations leak nothing (`perturb_hidden`).

Hidden: the other players' Character cards (rules §2), the order of the undrawn part of each
event deck, each face-down Activity card (only its colour and level are known), and future dice.
Both functions run the compiled redraw of the search kernels (engine/hidden.py, k_determinize) on
a copy of the state.
"""

from __future__ import annotations

import numpy as np

from core.rng import split_seed
from troyes_env.engine.contract import WORK_SIZE, k_determinize


def resample(state: np.ndarray, observer: int, seed: int, T: np.ndarray) -> np.ndarray:
    """A copy of `state` with everything `observer` cannot see redrawn, consistently with what
    they know; observer -1 keeps every Character with its owner (only what nobody sees moves).

    Other players' characters are redrawn from the cards the observer does not hold; the undrawn
    part of each event deck is sorted, then shuffled; each face-down Activity card is redrawn
    among the cards of its colour and level; the RNG is reseeded from `seed`."""
    s = np.array(state, dtype=np.int64, order="C")  # a copy
    a, b, c = split_seed(seed)
    k_determinize(s, T, int(observer), a, b, c, np.zeros(WORK_SIZE, dtype=np.int64))
    return s


def determinize(state: np.ndarray, observer: int, seed: int, T: np.ndarray) -> np.ndarray:
    return resample(state, observer, seed, T)


def perturb_hidden(state: np.ndarray, seed: int, T: np.ndarray) -> np.ndarray:
    return resample(state, -1, seed, T)
