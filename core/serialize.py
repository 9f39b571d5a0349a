"""to_bytes / from_bytes with a validating header (DESIGN D1)."""

from __future__ import annotations

import struct

import numpy as np

from core.errors import StateFormatError
from core.layout import Layout

MAGIC = b"VTRL"
_HDR = struct.Struct("<4s16sI32sI")  # magic, game name, layout version, rules hash, n entries


def to_bytes(layout: Layout, rules_hash: str, state: np.ndarray) -> bytes:
    arr = np.ascontiguousarray(state, dtype="<i8")
    head = _HDR.pack(
        MAGIC, layout.game.encode()[:16], layout.version, rules_hash.encode()[:32], arr.shape[0]
    )
    return head + arr.tobytes()


def from_bytes(layout: Layout, rules_hash: str, data: bytes) -> np.ndarray:
    """Parse and validate; refuse foreign, truncated, other-version or out-of-range states."""
    if not isinstance(data, (bytes, bytearray, memoryview)):
        raise StateFormatError("from_bytes expects bytes")
    data = bytes(data)
    if len(data) < _HDR.size:
        raise StateFormatError(f"{layout.game}: data too short to hold a state header")
    magic, game, version, rhash, n = _HDR.unpack_from(data)
    if magic != MAGIC:
        raise StateFormatError(f"{layout.game}: not a saved state (bad magic {magic!r})")
    game = game.rstrip(b"\0").decode(errors="replace")
    if game != layout.game:
        raise StateFormatError(f"state is for game {game!r}, not {layout.game!r}")
    if version != layout.version:
        raise StateFormatError(
            f"{layout.game}: state layout version {version}, this library reads {layout.version}"
        )
    rhash = rhash.rstrip(b"\0").decode(errors="replace")
    if rhash != rules_hash[:32]:
        raise StateFormatError(
            f"{layout.game}: state was made with rules data {rhash}, loaded rules data is "
            f"{rules_hash[:32]}"
        )
    body = data[_HDR.size :]
    if n != layout.size or len(body) != 8 * n:
        raise StateFormatError(
            f"{layout.game}: state body has {len(body)} bytes, layout needs {8 * layout.size}"
        )
    state = np.frombuffer(body, dtype="<i8").astype(np.int64)
    layout.validate(state)
    return state
