"""The cores other processes leave free, so a trainer (PPO's, expert iteration's) can run its
two-thread loops on one thread while the cores are shared.

A second torch thread in the PPO updates, the expert-iteration minibatches or the batch engine's
bots' loop pays on a quiet 2-core machine, but on a machine whose cores are busy with other work
each extra thread only waits for a core and the handovers between threads cost far more than the
work they share. `FreeCores.update()` reads the machine's CPU time (Linux's ``/proc/stat``) and
this process's own (``time.process_time``, all its threads) since the previous call; what is left
is the other processes' load, in cores. `threads_for_free` turns it into a thread count. Elsewhere
(no ``/proc/stat``) nothing is known and the configured counts stand.
"""

from __future__ import annotations

import os
import time

# shorter intervals say too little (the kernel counts CPU time in ticks of 10 ms)
MIN_INTERVAL_S = 0.2


def machine_cpu_seconds() -> tuple[float, float] | None:
    """(busy, total) CPU seconds of every core since boot, or None where /proc/stat is not there.
    Busy: everything but idle and iowait."""
    try:
        with open("/proc/stat") as f:
            fields = f.readline().split()
    except OSError:
        return None
    if len(fields) < 5 or fields[0] != "cpu":
        return None
    ticks = [int(x) for x in fields[1:9]]  # user nice system idle iowait irq softirq steal
    hz = os.sysconf("SC_CLK_TCK") if hasattr(os, "sysconf") else 100
    total = sum(ticks) / hz
    idle = (ticks[3] + ticks[4]) / hz
    return total - idle, total


def other_load(busy: float, total: float, own: float, cores: int) -> float:
    """The cores kept busy by other processes over an interval in which the machine's `cores`
    cores spent `busy` of `total` CPU seconds busy and this process `own` CPU seconds."""
    if total <= 0.0:
        return 0.0
    wall = total / cores
    return max(0.0, (busy - own) / wall)


def threads_for_free(free: float | None, most: int) -> int:
    """Threads for a loop that may use up to `most`: the cores left free (rounded, at least
    one), or `most` when nothing is known."""
    if free is None:
        return int(most)
    return max(1, min(int(most), int(free + 0.5)))


class FreeCores:
    """The cores other processes left free between consecutive `update()` calls."""

    def __init__(self) -> None:
        self.cores = os.cpu_count() or 1
        self._last = self._sample()

    @staticmethod
    def _sample() -> tuple[float, float, float] | None:
        m = machine_cpu_seconds()
        return None if m is None else (m[0], m[1], time.process_time())

    def update(self) -> float | None:
        """Cores left free by the other processes since the last call (None: unknown, or the
        interval was too short to say)."""
        now = self._sample()
        last = self._last
        if now is None or last is None:
            return None
        busy, total, own = (now[i] - last[i] for i in range(3))
        if total / self.cores < MIN_INTERVAL_S:
            return None  # keep the earlier sample: the next call measures a longer interval
        self._last = now
        return max(0.0, self.cores - other_load(busy, total, own, self.cores))


class Steady:
    """A choice that changes only when it lasts: `propose(value)` returns the value in force,
    which becomes a new proposed value once that value has been proposed `runs` times in a row
    (a load hovering near a threshold would otherwise flip it, and its notes, every few
    seconds)."""

    def __init__(self, value, runs: int = 3):
        if runs < 1:
            raise ValueError(f"runs must be >= 1, got {runs}")
        self.value, self.runs = value, int(runs)
        self._candidate, self._seen = value, 0

    def propose(self, value):
        if value == self.value:
            self._candidate, self._seen = value, 0
            return self.value
        if value != self._candidate:
            self._candidate, self._seen = value, 0
        self._seen += 1
        if self._seen >= self.runs:
            self.value, self._seen = value, 0
        return self.value
