"""The wait before a training run's first step on an empty compile cache, checkouts compared.

    python -m benchmarks.cold_start --game village --checkout before=/path/to/old --checkout new=.
    python -m benchmarks.cold_start --game troyes --rounds 3 --checkout ... --out results.json

Each round runs the main job (`python -m training.learn.main_job`) once per checkout, in that
checkout, in a fresh process with an empty `NUMBA_CACHE_DIR`, and records the seconds from the
process start to the end of the first training step (`BatchVecEnv.step_wait`'s first return;
the process ends there). Checkouts alternate within a round, so a slower or faster spell of the
machine falls on both; ratios are paired by round. Nothing else should run meanwhile.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from benchmarks.run import machine_info
from core.registry import default_game, get_game

# run in the measured checkout: the main job, ended by its first training step
_PROBE = r"""
import os, sys, time, runpy
T0 = time.perf_counter()
import training.learn.batch_vec_env as m
first = m.BatchVecEnv.step_wait
def step_wait(self):
    out = first(self)
    print(f"FIRST_STEP_S {time.perf_counter() - T0:.2f}", flush=True)
    os._exit(0)
m.BatchVecEnv.step_wait = step_wait
sys.argv = ["training.learn.main_job", *sys.argv[1:]]
runpy.run_module("training.learn.main_job", run_name="__main__", alter_sys=True)
"""


def first_step_s(checkout: Path, game: str, timeout_s: float = 1800.0) -> float:
    """Seconds from start to the first training step of the main job in `checkout`, on an empty
    compile cache."""
    with tempfile.TemporaryDirectory() as cache, tempfile.TemporaryDirectory() as out:
        env = {**os.environ, "NUMBA_CACHE_DIR": cache, "PYTHONPATH": str(checkout)}
        got = subprocess.run(
            [sys.executable, "-c", _PROBE, "--game", game, "--out", f"{out}/run", "--no-progress"],
            cwd=checkout,
            env=env,
            capture_output=True,
            text=True,
            timeout=timeout_s,
        )
    lines = [x for x in got.stdout.splitlines() if x.startswith("FIRST_STEP_S ")]
    if got.returncode != 0 or not lines:
        raise RuntimeError(f"{checkout}: no first step (rc {got.returncode}): {got.stderr[-2000:]}")
    return float(lines[-1].split()[1])


def _commit(checkout: Path) -> str | None:
    """The git commit of `checkout` (with "+changes" when its tracked files differ), if any."""
    try:
        head = subprocess.run(
            ["git", "rev-parse", "HEAD"], cwd=checkout, capture_output=True, text=True, check=True
        ).stdout.strip()
        dirty = subprocess.run(["git", "diff", "--quiet", "HEAD"], cwd=checkout).returncode != 0
    except (OSError, subprocess.CalledProcessError):
        return None
    return head + ("+changes" if dirty else "")


def main(argv: list[str] | None = None) -> int:
    """CLI entry point."""
    p = argparse.ArgumentParser(
        prog="python -m benchmarks.cold_start",
        description=__doc__,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    p.add_argument("--game", default=default_game())
    p.add_argument("--rounds", type=int, default=3)
    p.add_argument(
        "--checkout",
        action="append",
        required=True,
        metavar="LABEL=DIR",
        help="a checkout to measure (repeatable; the first is the baseline of the ratios)",
    )
    p.add_argument("--out", help="write the results here (JSON)")
    args = p.parse_args(argv)
    if args.rounds < 1:
        p.error("--rounds must be >= 1")
    checkouts: dict[str, Path] = {}
    for spec in args.checkout:
        label, sep, folder = spec.partition("=")
        if not sep or not label or not Path(folder, "training").is_dir():
            p.error(f"--checkout {spec!r}: expected LABEL=DIR of a checkout of this library")
        checkouts[label] = Path(folder).resolve()
    base = next(iter(checkouts))
    rows = []
    for r in range(args.rounds):
        row = {}
        for label, folder in checkouts.items():
            row[label] = first_step_s(folder, args.game)
            print(f"round {r + 1} {label:<10} {row[label]:7.1f} s", flush=True)
        rows.append(row)
    summary = {}
    for label in checkouts:
        secs = [row[label] for row in rows]
        ratios = [row[label] / row[base] for row in rows]
        summary[label] = {
            "median_s": round(statistics.median(secs), 1),
            "seconds": secs,
            f"ratio_to_{base}": [round(x, 3) for x in ratios],
            f"median_ratio_to_{base}": round(statistics.median(ratios), 3),
        }
        print(
            f"{label:<10} median {summary[label]['median_s']:6.1f} s; "
            f"paired ratio to {base}: median {summary[label][f'median_ratio_to_{base}']:.3f}"
            f" (rounds {', '.join(f'{x:.2f}' for x in ratios)})"
        )
    if args.out:
        record = {
            "command": "python -m benchmarks.cold_start " + " ".join(sys.argv[1:]),
            "date": time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime()),
            "machine": machine_info(),
            "game": args.game,
            "rules_data_hash": get_game(args.game).RULES_DATA_HASH,
            "rounds": args.rounds,
            "checkouts": {k: {"path": str(v), "commit": _commit(v)} for k, v in checkouts.items()},
            "results": summary,
        }
        Path(args.out).write_text(json.dumps(record, indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main())
