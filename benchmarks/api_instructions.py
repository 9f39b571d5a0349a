"""Instructions per decision of the public-API loop (engine_speed's path (b)), counted exactly by
valgrind's callgrind, for before/after comparisons on a machine whose wall clock is noisy.

    python -m benchmarks.api_instructions --game troyes --seeds 10 14

Needs valgrind (with its headers, valgrind/callgrind.h) and a C compiler. It builds a two-function
helper that zeroes and dumps callgrind's counters, warms numba's cache for the generic CPU in a
normal process (compiling under valgrind would take an hour), then runs itself under callgrind:
the loop over the seeds runs twice uncounted (so no cached numba library is loaded inside the
count) and once between CALLGRIND_ZERO_STATS and CALLGRIND_DUMP_STATS. valgrind counts every
byte of a `rep stos` / `rep movs` as an instruction, so large memset / memcpy weigh more here
than in time.
"""

from __future__ import annotations

import argparse
import ctypes
import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path

from core.registry import default_game, game_names, get_game

_HELPER_C = """#include <valgrind/callgrind.h>
void cg_zero(void) { CALLGRIND_ZERO_STATS; }
void cg_dump(const char *s) { CALLGRIND_DUMP_STATS_AT(s); }
"""
_CHILD = "BENCH_API_INSTR_HELPER"  # set in the process that runs under valgrind


def api_loop(game, n: int, seeds) -> int:
    """engine_speed's path (b) over the given seeds; returns the decisions made."""
    from benchmarks.engine_speed import api_game

    return sum(api_game(game, n, seed) for seed in seeds)


def _child(args) -> None:
    helper = ctypes.CDLL(os.environ[_CHILD])
    game = get_game(args.game)
    seeds = range(args.seeds[0], args.seeds[1])
    api_loop(game, args.players, seeds)
    api_loop(game, args.players, seeds)
    helper.cg_zero()
    k = api_loop(game, args.players, seeds)
    helper.cg_dump(b"api_loop")
    Path(args.decisions_file).write_text(str(k))


def _summary(path: Path) -> int:
    for line in path.read_text().splitlines():
        if line.startswith(("summary:", "totals:")):
            return int(line.split()[1])
    raise RuntimeError(f"no totals in {path}")


def run(game: str, players: int, seeds: tuple[int, int]) -> dict:
    with tempfile.TemporaryDirectory() as tmp:
        tmp = Path(tmp)
        (tmp / "helper.c").write_text(_HELPER_C)
        subprocess.run(
            ["cc", "-O2", "-shared", "-fPIC", "-o", str(tmp / "helper.so"), str(tmp / "helper.c")],
            check=True,
        )
        env = dict(os.environ, NUMBA_CPU_NAME="generic", OPENBLAS_NUM_THREADS="1")
        # the generic-CPU cache, compiled outside valgrind
        subprocess.run(
            [
                sys.executable,
                "-c",
                f"import benchmarks.api_instructions as b, "
                f"core.registry as r; b.api_loop(r.get_game('{game}'), "
                f"{players}, range(1))",
            ],
            env=env,
            check=True,
        )
        env[_CHILD] = str(tmp / "helper.so")
        out = tmp / "cg.out"
        dec = tmp / "decisions"
        subprocess.run(
            [
                "valgrind",
                "--tool=callgrind",
                f"--callgrind-out-file={out}",
                sys.executable,
                "-m",
                "benchmarks.api_instructions",
                "--game",
                game,
                "--players",
                str(players),
                "--seeds",
                str(seeds[0]),
                str(seeds[1]),
                "--decisions-file",
                str(dec),
            ],
            env=env,
            check=True,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        dumps = sorted(tmp.glob("cg.out.*"))
        instructions = _summary(dumps[0])
        decisions = int(dec.read_text())
    return {
        "game": game,
        "players": players,
        "seeds": list(seeds),
        "decisions": decisions,
        "instructions": instructions,
        "instructions_per_decision": instructions / decisions,
    }


def main(argv=None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--game", choices=game_names(), default=default_game())
    ap.add_argument("--players", type=int, default=4)
    ap.add_argument("--seeds", type=int, nargs=2, default=[10, 14], metavar=("FIRST", "END"))
    ap.add_argument("--decisions-file", help=argparse.SUPPRESS)
    args = ap.parse_args(argv)
    if os.environ.get(_CHILD):
        _child(args)
        return
    print(json.dumps(run(args.game, args.players, tuple(args.seeds)), indent=2))


if __name__ == "__main__":
    main()
