"""Flat Discrete(N) action spaces built from named, ordered segments (DESIGN D4)."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np


@dataclass(frozen=True)
class ActionSegment:
    name: str
    shape: tuple[int, ...]
    offset: int
    doc: str

    @property
    def size(self) -> int:
        return int(np.prod(self.shape)) if self.shape else 1


class ActionSpace:
    """Ordered action segments; ids are `offset + ravel_multi_index(indices, shape)`."""

    def __init__(self, game: str, version: int, segments: list[tuple]):
        self.game = game
        self.version = version
        self.segments: dict[str, ActionSegment] = {}
        off = 0
        for name, shape, doc in segments:
            seg = ActionSegment(name, tuple(shape), off, doc)
            self.segments[name] = seg
            off += seg.size
        self.n = off
        self._owner = np.empty(self.n, dtype=np.int64)
        self._names = list(self.segments)
        for i, seg in enumerate(self.segments.values()):
            self._owner[seg.offset : seg.offset + seg.size] = i

    def offset(self, name: str) -> int:
        return self.segments[name].offset

    @property
    def segment_index(self) -> np.ndarray:
        """(N,) int64: for each action id, the position of its segment in `segments`."""
        return self._owner

    def encode(self, name: str, *idx: int) -> int:
        seg = self.segments[name]
        if not seg.shape:
            return seg.offset
        return seg.offset + int(np.ravel_multi_index(tuple(idx), seg.shape))

    def decode(self, action: int) -> tuple[str, tuple[int, ...]]:
        """(segment name, indices within the segment) of an action id."""
        a = int(action)
        if not 0 <= a < self.n:
            raise ValueError(f"{self.game}: action {action} outside [0, {self.n})")
        seg = self.segments[self._names[self._owner[a]]]
        if not seg.shape:
            return seg.name, ()
        return seg.name, tuple(int(i) for i in np.unravel_index(a - seg.offset, seg.shape))

    def table(self) -> str:
        return "\n".join(
            f"{s.offset:4d}..{s.offset + s.size - 1:4d} {s.name:<16} {s.shape}  {s.doc}"
            for s in self.segments.values()
        )
