"""Where a compile goes: the functions numba compiles for one part of `python -m core.compile`,
in start order and nested by caller, with their seconds (numba's compile events, raised only on a
cache miss).

    NUMBA_CACHE_DIR=$(mktemp -d) python -m benchmarks.compile_timeline --game troyes --part botloop

Run two at once on one empty NUMBA_CACHE_DIR (e.g. `--part loops` and `--part botloop`, as a
training run's first start does) to see what each process compiles and what it finds cached.
"""

from __future__ import annotations

import argparse
import time

from numba.core import event

from core.compile import PARTS, compile_game
from core.registry import game_names


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(prog="python -m benchmarks.compile_timeline", description=__doc__,
                                formatter_class=argparse.RawDescriptionHelpFormatter)  # fmt: skip
    p.add_argument("--game", required=True, choices=game_names())
    p.add_argument("--part", required=True, choices=PARTS)
    p.add_argument("--min-seconds", type=float, default=1.0, help="hide shorter compiles")
    args = p.parse_args(argv)
    t0 = time.perf_counter()
    stack: list[tuple[str, float]] = []
    rows: list[tuple[float, float, int, str]] = []

    class Timeline(event.Listener):
        def on_start(self, e):
            f = e.data["dispatcher"].py_func
            stack.append((f"{f.__module__}.{f.__qualname__}", time.perf_counter()))

        def on_end(self, e):
            name, t = stack.pop()
            rows.append((t - t0, time.perf_counter() - t, len(stack), name))

    event.register("numba:compile", Timeline())
    compile_game(args.game, [args.part])
    print(" start s  took s  function (nested under its caller)")
    for start, took, depth, name in sorted(rows):
        if took >= args.min_seconds:
            print(f"{start:8.1f} {took:7.1f}  {'  ' * depth}{name}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
