"""Progress output that reads well in a terminal and in a log file.

In a terminal: a tqdm bar. Anywhere else (a file, a pipe, CI): clean periodic lines on stderr,
at most one every `every_s` seconds plus the last one, with no carriage returns.
"""

from __future__ import annotations

import sys
import time
from collections.abc import Iterable, Iterator
from typing import TypeVar

T = TypeVar("T")
EVERY_S = 10.0


def interactive() -> bool:
    """Whether stderr is a terminal (a progress bar can redraw itself)."""
    try:
        return sys.stderr.isatty()
    except (AttributeError, ValueError):
        return False


def progress_line(desc: str, done: int, total: int | None, unit: str, t0: float) -> str:
    """One progress line: count, share, elapsed time and the time left at the rate so far."""
    el = time.perf_counter() - t0
    if total:
        left = max(0.0, el / done * (total - done)) if done else float("nan")
        return (
            f"{desc}: {done}/{total} {unit}s ({100.0 * done / total:.0f}%), "
            f"{el:.0f} s elapsed, ~{left:.0f} s left"
        )
    return f"{desc}: {done} {unit}s, {el:.0f} s elapsed"


def progress(
    items: Iterable[T], total: int | None, desc: str, unit: str = "it", every_s: float = EVERY_S
) -> Iterator[T]:
    """Iterate over items showing progress: a tqdm bar in a terminal, else periodic lines."""
    if interactive():
        from tqdm import tqdm

        yield from tqdm(items, total=total, desc=desc, unit=unit)
        return
    t0 = last = time.perf_counter()
    done = 0
    for x in items:
        yield x
        done += 1
        now = time.perf_counter()
        if now - last >= every_s or (total is not None and done == total):
            print(progress_line(desc, done, total, unit, t0), file=sys.stderr, flush=True)
            last = now


class ProgressCounter:
    """Progress counted by hand (`update(k)`), its clock started at construction: a tqdm bar in
    a terminal, else the same periodic lines as `progress`."""

    def __init__(self, total: int | None, desc: str, unit: str = "it", every_s: float = EVERY_S):
        self.total, self.desc, self.unit, self.every_s = total, desc, unit, every_s
        self.done = 0
        self.t0 = self.last = time.perf_counter()
        self.bar = None
        if interactive():
            from tqdm import tqdm

            self.bar = tqdm(total=total, desc=desc, unit=unit)

    def update(self, k: int = 1) -> None:
        self.done += k
        if self.bar is not None:
            self.bar.update(k)
            return
        now = time.perf_counter()
        if now - self.last >= self.every_s or (self.total is not None and self.done >= self.total):
            line = progress_line(self.desc, self.done, self.total, self.unit, self.t0)
            print(line, file=sys.stderr, flush=True)
            self.last = now

    def close(self) -> None:
        if self.bar is not None:
            self.bar.close()
