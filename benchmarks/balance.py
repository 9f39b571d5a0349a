"""Balance-study analysis speed: the statistics of 10,000 stored games in <= 60 s on
one core.

Fills a store with self-play games if it has fewer than --games (the tournament machinery, with
--workers processes; not timed), then, in this process on one core (numba's threading layer
limited to one thread; the replay loop is serial anyway), times the three steps of
`python -m training.balance` after playing: reading the records from SQLite, the compiled
re-simulation of every game (training.balance.game_stats.collect) and the statistics
(training.balance.report.analyse), and the report (training.balance.report.write_report:
Markdown, PNG plots, CSV tables, the .npz).

    python -m benchmarks.balance --game village --players 2 --games 10000 \\
        --db runs/bench/balance_village.sqlite --out benchmarks/results/balance
"""

from __future__ import annotations

import argparse
import datetime as _dt
import json
import os
import sys
import tempfile
import time
from pathlib import Path


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(prog="python -m benchmarks.balance", description=__doc__)
    p.add_argument("--game", required=True)
    p.add_argument("--players", type=int, default=2)
    p.add_argument("--games", type=int, default=10_000)
    p.add_argument("--agent", default="random", help="self-play agent that fills the store")
    p.add_argument("--db", required=True)
    p.add_argument("--workers", type=int, default=2, help="processes filling the store")
    p.add_argument("--out", default="benchmarks/results/balance")
    args = p.parse_args(argv)

    from benchmarks.run import machine_info
    from core.registry import get_game
    from training.agents.checkpoint import library_version
    from training.arena.tournament import run_tournament
    from training.balance.game_stats import collect
    from training.balance.play import study_specs
    from training.balance.report import analyse, write_report

    game = get_game(args.game)
    specs = study_specs([args.agent], args.players)
    t0 = time.perf_counter()
    t = run_tournament(
        args.game, args.players, specs, args.games, args.db, workers=args.workers, rate=False
    )  # fills the store (and keeps its games) when it has fewer than --games
    fill = time.perf_counter() - t0
    t0 = time.perf_counter()
    t = run_tournament(
        args.game, args.players, specs, args.games, args.db, keep_records=True, progress=False,
        rate=False,
    )  # fmt: skip
    read = time.perf_counter() - t0
    records = t.pop("records")
    collect(args.game, records[:2])  # load the compiled replay (numba cache) outside the timing
    c0, t0 = time.process_time(), time.perf_counter()
    st = collect(args.game, records)
    replay, replay_cpu = time.perf_counter() - t0, time.process_time() - c0
    c0, t0 = time.process_time(), time.perf_counter()
    a = analyse(st, t)
    stats, stats_cpu = time.perf_counter() - t0, time.process_time() - c0
    with tempfile.TemporaryDirectory() as d:
        t0 = time.perf_counter()
        write_report(d, st, a, t)
        report = time.perf_counter() - t0
    decisions = int(st.decisions.sum())
    res = {
        "benchmark": "balance analysis",
        "command": "python -m benchmarks.balance "
        + " ".join(sys.argv[1:] if argv is None else argv),  # noqa: E501
        "date_utc": _dt.datetime.now(_dt.timezone.utc).isoformat(timespec="seconds"),
        "game": args.game,
        "players": args.players,
        "agent": args.agent,
        "games": len(st),
        "decisions": decisions,
        "seconds": {
            "fill_store_not_timed": round(fill, 1),
            "read_records": round(read, 2),
            "replay_stats": round(replay, 2),
            "replay_stats_cpu": round(replay_cpu, 2),
            "analyse": round(stats, 2),
            "analyse_cpu": round(stats_cpu, 2),
            "write_report": round(report, 2),
            "total_analysis": round(read + replay + stats + report, 2),
        },
        "decisions_per_second_replayed": round(decisions / replay),
        "target_seconds": 60,
        "rules_data_hash": str(game.RULES_DATA_HASH),
        "library_version": library_version(),
        "machine": machine_info(),
        "note": "rests on PROVISIONAL rules data (docs/rules_data.md)",
    }
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    path = out / f"{args.game}_{args.players}p.json"
    path.write_text(json.dumps(res, indent=1) + "\n")
    print(json.dumps(res["seconds"]), f"{len(st)} games -> {path}")
    return 0


if __name__ == "__main__":
    # one numba thread per process (the store is filled by --workers processes); set before
    # numba starts, and only when run as a command: an importer keeps its own setting
    os.environ.setdefault("NUMBA_NUM_THREADS", "1")
    sys.exit(main())
