"""Flat integer state layouts: named segments with shapes, ranges and hidden marks (DESIGN D1)."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from core.errors import StateFormatError


@dataclass(frozen=True)
class Segment:
    """One named block of the flat state array."""

    name: str
    shape: tuple[int, ...]
    lo: int  # smallest legal value of every entry
    hi: int  # largest legal value of every entry
    hidden: bool  # not seen by every seat: RNG words, deck order, private cards
    doc: str
    offset: int = 0
    per_seat: bool = False  # its first axis is the seat: rows past the player count are absent

    @property
    def size(self) -> int:
        return int(np.prod(self.shape)) if self.shape else 1


class Layout:
    """An ordered set of segments; `offset(name)` gives the integer offset into the state array."""

    def __init__(
        self, game: str, version: int, segments: list[tuple], per_seat: tuple[str, ...] = ()
    ):
        """`segments`: (name, shape, lo, hi, hidden, doc) each, in state order; `per_seat`: the
        segments whose first axis is the seat (a state sized for the most players keeps rows for
        absent seats; views of the state, e.g. the generic board, drop them)."""
        self.game = game
        self.version = version
        self.segments: dict[str, Segment] = {}
        off = 0
        for name, shape, lo, hi, hidden, doc in segments:
            shape = tuple(shape)
            seg = Segment(name, shape, lo, hi, hidden, doc, off, name in per_seat)
            if name in self.segments:
                raise ValueError(f"duplicate segment {name}")
            self.segments[name] = seg
            off += seg.size
        self.size = off
        for name in per_seat:
            if name not in self.segments or not self.segments[name].shape:
                raise ValueError(
                    f"{game} layout: per_seat names {name!r}, which is not a segment with a "
                    "first (seat) axis"
                )

    def offset(self, name: str) -> int:
        return self.segments[name].offset

    def view(self, state: np.ndarray, name: str) -> np.ndarray:
        """A reshaped view of one segment (writes go through to `state`)."""
        seg = self.segments[name]
        return state[seg.offset : seg.offset + seg.size].reshape(seg.shape or (1,))

    def hidden_segments(self) -> list[Segment]:
        return [s for s in self.segments.values() if s.hidden]

    def validate(self, state: np.ndarray) -> None:
        """Refuse a state with the wrong dtype/size or any entry outside its segment's range."""
        if not isinstance(state, np.ndarray) or state.dtype != np.int64 or state.ndim != 1:
            raise StateFormatError(f"{self.game}: a state is a 1-D int64 numpy array")
        if state.shape[0] != self.size:
            raise StateFormatError(
                f"{self.game}: state has {state.shape[0]} entries, layout v{self.version} "
                f"needs {self.size}"
            )
        for seg in self.segments.values():
            block = state[seg.offset : seg.offset + seg.size]
            if block.size and (block.min() < seg.lo or block.max() > seg.hi):
                bad = block[(block < seg.lo) | (block > seg.hi)][0]
                raise StateFormatError(
                    f"{self.game}: segment {seg.name!r} holds {bad}, outside [{seg.lo}, {seg.hi}]"
                )

    def describe(self) -> str:
        lines = [f"{self.game} state layout v{self.version}, {self.size} int64 entries"]
        for s in self.segments.values():
            h = " HIDDEN" if s.hidden else ""
            lines.append(
                f"  {s.offset:5d} {s.name:<22} {str(s.shape):<12} [{s.lo},{s.hi}]{h}  {s.doc}"
            )
        return "\n".join(lines)
