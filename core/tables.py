"""What every game's rules tables share: their hash (a game's RULES_DATA_HASH) and a copy of a
rules-data module with some names replaced."""

from __future__ import annotations

import hashlib
import types

import numpy as np


def tables_hash(tables: np.ndarray) -> str:
    """The first 16 hex digits of sha256 over the tables as little-endian int64."""
    return hashlib.sha256(np.ascontiguousarray(tables, dtype="<i8").tobytes()).hexdigest()[:16]


def rules_with(default, **changes) -> types.SimpleNamespace:
    """A copy of rules-data module `default` (its upper-case names) with some names replaced
    (for studies and tests); ValueError naming a name the module does not have."""
    ns = types.SimpleNamespace(**{k: getattr(default, k) for k in dir(default) if k.isupper()})
    for k, v in changes.items():
        if not hasattr(ns, k):
            raise ValueError(f"unknown rules-data name {k!r}")
        setattr(ns, k, v)
    return ns
