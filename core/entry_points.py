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
    another dtype or shape misses and the caller computes the mask. The mask is handed out once,
    without a copy: `take_for` gives it to the first caller whose state matches and forgets it,
    so a second `legal_mask` of the same state computes a fresh array (the AEC env and the usual
    loop ask once per state). The (bytes, mask) pair sits alone in a one-entry list replaced as a
    whole by `put`, and is claimed with `list.pop` (atomic under the GIL): of two threads only
    one gets the array, and a reader sees a matching pair or a miss.
    `load_rules_data` clears it (the mask depends on the tables)."""

    __slots__ = ("_slot", "_shape", "_dtype")

    def __init__(self, size: int):
        self._shape = (size,)
        self._dtype = np.dtype(np.int64)
        self._slot = []

    def clear(self) -> None:
        self._slot = []

    def put(self, state: np.ndarray, mask: np.ndarray) -> None:
        """Remember `mask` (bool, now owned by the memo) as the legal mask of `state`."""
        self._slot = [(state.tobytes(), mask)]

    def _key(self, state) -> bytes | None:
        """The memo key of `state`: its bytes, or None for an array the memo never holds."""
        if (state.__class__ is np.ndarray and state.dtype is self._dtype
                and state.shape == self._shape):
            return state.tobytes()
        return None

    def holds(self, state) -> bool:
        """Whether `take_for(state)` would return the remembered mask now (for tests)."""
        slot = self._slot
        return bool(slot) and self._key(state) == slot[0][0]

    def take_for(self, state) -> np.ndarray | None:
        """The remembered mask if `state` is, entry by entry, the remembered state; the memo
        forgets it and the caller owns the array. None on a miss."""
        slot = self._slot
        if slot and self._key(state) == slot[0][0]:
            try:
                return slot.pop()[1]
            except IndexError:  # another thread took it between the test and the pop
                return None
        return None
