"""Compiled public-API entry points with exactly one signature each (`<game>_env/engine/api.py`),
and the memo of the last stepped state's legal mask that the API wrappers share.

A dispatcher compiled for one signature and then closed to compilation raises TypeError at
dispatch for any other argument types (a float, 2-D, strided or read-only state), which the
Python wrappers turn into their checked slow path, instead of compiling a new specialisation.
"""

from __future__ import annotations

import numpy as np


def compile_exactly(dispatchers_and_signatures) -> None:
    """Compile (or load from numba's cache) each (dispatcher, signature) pair, then refuse every
    other specialisation. Called again with other table types, it adds their signatures."""
    for dispatcher, sig in dispatchers_and_signatures:
        dispatcher.disable_compile(False)
        dispatcher.compile(sig)
        dispatcher.disable_compile()


class LastMask:
    """The legal mask of the state the API's `step` returned last (`settle` builds it anyway),
    for the `legal_mask` call that usually follows: each state's mask is then built once.

    Keyed by the state's bytes, so a state edited in place, another game's state or an array of
    another dtype or shape misses and the caller computes the mask. The (bytes, mask) pair is one
    tuple replaced as a whole, so a reader in another thread sees a matching pair or a miss.
    `load_rules_data` clears it (the mask depends on the tables)."""

    __slots__ = ("_entry", "_shape", "_dtype")

    def __init__(self, size: int):
        self._shape = (size,)
        self._dtype = np.dtype(np.int64)
        self._entry = (b"", None)

    def clear(self) -> None:
        self._entry = (b"", None)

    def put(self, state: np.ndarray, mask: np.ndarray) -> None:
        """Remember `mask` (bool; kept, never handed out) as the legal mask of `state`."""
        self._entry = (state.tobytes(), mask)

    def copy_for(self, state) -> np.ndarray | None:
        """A copy of the remembered mask if `state` is, entry by entry, the remembered state."""
        key, mask = self._entry
        if (state.__class__ is np.ndarray and state.dtype is self._dtype
                and state.shape == self._shape and state.tobytes() == key):
            return mask.copy()
        return None
