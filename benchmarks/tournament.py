"""Tournament throughput: the store and the process pool against a plain loop.

For each game: the same scheduled games (heuristic against heuristic, 2 players, seats rotated)
played three ways, each timed from the first game to the last stored one:

- `plain loop`: training.arena.evaluate.play_game over the jobs, nothing recorded or stored;
- `tournament, 1 worker`: training.arena.tournament.run_jobs into a fresh SQLite store (actions and
  a state check per decision recorded, each chunk of games one transaction), in this process;
- `tournament, 2 workers`: the same with a pool of 2 spawned processes (their start-up, imports
  and loading numba's cache included in the time).

Targets: 1 worker >= 80% of the plain loop's games/s; 2 workers >= 1.7x 1 worker.

    python -m benchmarks.tournament --games 400 --out benchmarks/results/tournament
"""

from __future__ import annotations

import argparse
import datetime as _dt
import json
import sys
import tempfile
import time
from pathlib import Path

from benchmarks.run import machine_info
from core.registry import game_names, get_game
from training.agents.checkpoint import library_version
from training.agents.registry import make_agent
from training.arena.evaluate import play_game
from training.arena.store import GameStore
from training.arena.tournament import resolve_entrants, run_jobs, schedule

SPECS = ["heuristic", "heuristic"]


def _jobs(g: str, games: int, seed: int = 0):
    ents = resolve_entrants(g, 2, SPECS)
    return ents, schedule(2, ents, "round-robin", games, seed, get_game(g).RULES_DATA_HASH)


def plain_loop(g: str, games: int) -> float:
    """Seconds to play the scheduled games with no recording and no store."""
    game = get_game(g)
    _e, jobs = _jobs(g, games)
    t0 = time.perf_counter()
    for j in jobs:
        agents = [make_agent(j.specs[p], g, 2, j.agent_seeds[p]) for p in range(2)]
        play_game(game, agents, j.seed)
    return time.perf_counter() - t0


def tournament(g: str, games: int, workers: int) -> float:
    """Seconds to play and store the scheduled games with `workers` processes."""
    ents, jobs = _jobs(g, games)
    with tempfile.TemporaryDirectory() as d, GameStore(Path(d) / "b.sqlite", g) as st:
        ids = [st.entrant_id(e.spec, e.fingerprint, e.copy) for e in ents]
        by_label = {e.label: i for e, i in zip(ents, ids, strict=True)}
        todo = [(j, [by_label[lab] for lab in j.labels]) for j in jobs]
        tid = st.tournament_id("bench", 2, {})
        t0 = time.perf_counter()
        n = run_jobs(st, g, 2, todo, tid, workers, progress=False)
        dt = time.perf_counter() - t0
        assert n == len(jobs) == st.count()
    return dt


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(prog="python -m benchmarks.tournament", description=__doc__)
    p.add_argument("--games", type=int, default=400, help="games per measurement (even)")
    p.add_argument("--game", nargs="+", choices=game_names(), default=game_names())
    p.add_argument("--out", default="benchmarks/results/tournament")
    args = p.parse_args(argv)
    rows = []
    for g in args.game:
        plain_loop(g, 2)  # compile / load caches outside the clock
        t_plain = plain_loop(g, args.games)
        t_one = tournament(g, args.games, 1)
        t_two = tournament(g, args.games, 2)
        row = {
            "game": g,
            "games": args.games,
            "plain_games_per_s": args.games / t_plain,
            "one_worker_games_per_s": args.games / t_one,
            "two_workers_games_per_s": args.games / t_two,
        }
        row["one_worker_vs_plain"] = row["one_worker_games_per_s"] / row["plain_games_per_s"]
        row["two_vs_one_worker"] = row["two_workers_games_per_s"] / row["one_worker_games_per_s"]
        row["targets_met"] = row["one_worker_vs_plain"] >= 0.8 and row["two_vs_one_worker"] >= 1.7
        rows.append(row)
        print(
            f"{g}: plain {row['plain_games_per_s']:.2f} games/s, 1 worker "
            f"{row['one_worker_games_per_s']:.2f} ({row['one_worker_vs_plain']:.2f}x plain, "
            f"target >= 0.8), 2 workers {row['two_workers_games_per_s']:.2f} "
            f"({row['two_vs_one_worker']:.2f}x 1 worker, target >= 1.7)",
            flush=True,
        )
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    result = {
        "command": "python -m benchmarks.tournament "
        + " ".join(sys.argv[1:] if argv is None else argv),
        "date_utc": _dt.datetime.now(_dt.timezone.utc).isoformat(timespec="seconds"),
        "library_version": library_version(),
        "rules_data_hash": {g: get_game(g).RULES_DATA_HASH for g in args.game},
        "machine": machine_info(),
        "agents": SPECS,
        "rows": rows,
    }
    (out / "tournament.json").write_text(json.dumps(result, indent=2))
    print(f"saved {out / 'tournament.json'}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
