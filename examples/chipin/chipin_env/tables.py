"""Chip In rules data as one flat int64 table for the compiled engine (DESIGN D2).

`build_tables(rd)` reads a rules-data module (or any object with the same names) and returns the
table; compiled functions receive it as an argument, never as a global, so a replaced table
reaches the engine without recompiling. `T_*` are offsets into the table (shape, not values).
"""

from __future__ import annotations

import hashlib
import types

import numpy as np

from chipin_env import rules_data as _default


def _entries(rd) -> list[tuple[str, list[int]]]:
    chips = [0, 0] + [rd.STARTING_CHIPS[n] for n in (2, 3, 4)]  # indexed by player count
    return [
        ("card_low", [rd.CARD_LOW]),
        ("n_cards", [rd.CARD_HIGH - rd.CARD_LOW + 1]),
        ("removed", [rd.REMOVED_CARDS]),
        ("chips", chips),
        ("buries", [rd.BURIES_PER_PLAYER]),
    ]


def _layout(rd) -> tuple[dict[str, int], dict[str, tuple[int, ...]]]:
    off, shapes, pos = {}, {}, 0
    for name, vals in _entries(rd):
        arr = np.asarray(vals, dtype=np.int64)
        off[name], shapes[name] = pos, arr.shape
        pos += arr.size
    return off, shapes


OFFSETS, SHAPES = _layout(_default)
# the number of cards is a shape: the state's card segments are this long
N_CARDS = _default.CARD_HIGH - _default.CARD_LOW + 1


def build_tables(rd=_default) -> np.ndarray:
    """The flat table for rules data `rd` (read-only); refuses data of another shape."""
    parts = []
    for name, vals in _entries(rd):
        arr = np.asarray(vals, dtype=np.int64)
        if arr.shape != SHAPES[name]:
            raise ValueError(f"rules data {name!r} has shape {arr.shape}, needs {SHAPES[name]}")
        parts.append(arr.ravel())
    T = np.concatenate(parts).astype(np.int64)
    if T[OFFSETS["n_cards"]] != N_CARDS:
        raise ValueError(
            f"rules data has {T[OFFSETS['n_cards']]} cards, the layout needs {N_CARDS} "
            "(a change of the card range needs a layout version bump)"
        )
    if not 0 <= T[OFFSETS["removed"]] < N_CARDS:
        raise ValueError(f"REMOVED_CARDS must be in 0..{N_CARDS - 1}")
    T.flags.writeable = False
    return T


def rules_with(**changes) -> types.SimpleNamespace:
    """A copy of the default rules data with some names replaced (for studies and tests)."""
    ns = types.SimpleNamespace(**{k: getattr(_default, k) for k in dir(_default) if k.isupper()})
    for k, v in changes.items():
        if not hasattr(ns, k):
            raise ValueError(f"unknown rules-data name {k!r}")
        setattr(ns, k, v)
    return ns


def tables_hash(tables: np.ndarray) -> str:
    return hashlib.sha256(np.ascontiguousarray(tables, dtype="<i8").tobytes()).hexdigest()[:16]


TABLES = build_tables()
RULES_DATA_HASH = tables_hash(TABLES)

T_CARD_LOW = OFFSETS["card_low"]
T_REMOVED = OFFSETS["removed"]
T_CHIPS = OFFSETS["chips"]  # T[T_CHIPS + n]: starting chips of an n-player game
T_BURIES = OFFSETS["buries"]
