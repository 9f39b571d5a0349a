"""Our `mcts` against OpenSpiel's information-set MCTS on our own games (extra [openspiel]).

    python -m benchmarks.peer_ismcts --game troyes --players 2 --out DIR [--rows sims,time]
    python -m benchmarks.peer_ismcts --game G --out DIR --table
    python -m benchmarks.peer_ismcts --game G --players N --out DIR --rates

Both searches evaluate a leaf with random rollouts to the end of the game, and both sample their
worlds with the game's determinization: `openspiel:ismcts` (open_spiel.python.algorithms.ismcts,
random rollouts, UCT c = 2, nodes keyed on the seat's observation string) and our
`mcts:rollout=random,cutoff=-1,c=2` (core.search, no cut-off). Rows, seats rotated, seeds
`--seed` (none used to tune either agent), 200 games at 2 players and 100 at 4 (`--games`),
`--workers`. At 4 players one seat is OpenSpiel's and three are ours (its search runs in Python:
one seat keeps a row's time in reach); its win share is read against 1/4.

- `sims`: the same simulations per decision, `--sims` (default 100). OpenSpiel's rollouts are
  played on the state array (`fast=1`, interop.openspiel_agents.ArrayRollouts): the same uniform
  random rollouts as its RandomRolloutEvaluator, fewer Python calls per step, so the row measures
  the two searches and not the two rollout loops;
- `time`: the same wall-clock per decision, `--ms` (default 50): ours searches on its clock
  (`mcts:time=S`); OpenSpiel's search has no clock, so it gets the simulations it runs in that
  time on this machine with its own RandomRolloutEvaluator (what a user of the door gets),
  measured first (six positions of seeded random games, its
  median simulations per second) and recorded with the row. A clock makes a row depend on the
  machine and on what runs beside it: the JSON says so.

Each row is one `training.arena.evaluate` run (JSON per row; a row whose JSON exists is not
played again). `--table` prints the rows found in DIR; `--rates` measures
how much faster ISMCTS searches with `fast=1` (rates-<N>p.json).
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
from pathlib import Path

import numpy as np

from core.registry import get_game
from core.testing import decision_positions
from training.arena import evaluate

OURS = "mcts:iters={sims},rollout=random,cutoff=-1,c=2"
OURS_TIMED = "mcts:time={seconds},rollout=random,cutoff=-1,c=2"
THEIRS = "openspiel:ismcts,sims={sims},c=2,fast={fast}"


def spiel_rate(game_name: str, players: int, positions: int = 6, sims: int = 30,
               fast: int = 0) -> float:  # fmt: skip
    """OpenSpiel's ISMCTS simulations per second at `positions` decisions of seeded random games
    (the median over positions), with its own rollouts (`fast=0`) or ArrayRollouts (`fast=1`)."""
    from interop.openspiel_agents import OpenSpielAgent

    game = get_game(game_name)
    rates = []
    for k, s in enumerate(decision_positions(game, players, positions, seed=11)):
        agent = OpenSpielAgent(game_name, f"ismcts,sims={sims},fast={fast}", seed=k)
        t0 = time.perf_counter()
        agent.act(s)
        rates.append(sims / (time.perf_counter() - t0))
    return float(np.median(rates))


def rates(game_name: str, players: int, rounds: int = 3) -> dict:
    """ISMCTS's simulations per second with OpenSpiel's rollouts and with ArrayRollouts, measured
    alternately `rounds` times (the box's speed drifts): each round's pair and the ratios."""
    pairs = [(spiel_rate(game_name, players, fast=0), spiel_rate(game_name, players, fast=1))
             for _ in range(rounds)]  # fmt: skip
    return {"game": game_name, "players": players, "rounds": pairs,
            "ratio_median": float(np.median([b / a for a, b in pairs]))}  # fmt: skip


def rows(a: argparse.Namespace) -> list[dict]:
    out = []
    if "sims" in a.rows:
        agents = [OURS.format(sims=a.sims), THEIRS.format(sims=a.sims, fast=1)]
        out.append({"name": f"{a.game}-{a.players}p-sims{a.sims}", "agents": agents})
    if "time" in a.rows:
        rate = spiel_rate(a.game, a.players)
        sims = max(1, int(rate * a.ms / 1000.0))
        agents = [OURS_TIMED.format(seconds=a.ms / 1000.0), THEIRS.format(sims=sims, fast=0)]
        calibration = {"openspiel_sims_per_s": rate, "openspiel_sims": sims}
        out.append({"name": f"{a.game}-{a.players}p-{a.ms}ms", "agents": agents,
                    "calibration": calibration})  # fmt: skip
    return out


def play(a: argparse.Namespace, row: dict) -> None:
    path = a.out / f"{row['name']}.json"
    if path.exists():
        return
    games = a.games or (200 if a.players == 2 else 100)
    games -= games % a.players
    ours, theirs = row["agents"]
    lineup = [ours, theirs] if a.players == 2 else [theirs] + [ours] * (a.players - 1)
    argv = ["--game", a.game, "--players", str(a.players), "--agents", *lineup]
    argv += ["--games", str(games), "--seed", str(a.seed), "--workers", str(a.workers)]
    argv += ["--json", str(path), "--no-progress"]
    print(f"{row['name']}: python -m training.arena.evaluate {' '.join(argv)}", flush=True)
    if evaluate.main(argv):
        raise SystemExit(f"{row['name']}: evaluate failed")
    if "calibration" in row:
        d = json.loads(path.read_text())
        d["calibration"] = row["calibration"]
        path.write_text(json.dumps(d, indent=1))


def table(out: Path) -> str:
    lines = ["| row | games | OpenSpiel ISMCTS's win share [95%] | chance | mean rank: "
             "theirs / ours |", "|---|---:|---|---:|---|"]  # fmt: skip
    for path in sorted(out.glob("*.json")):
        d = json.loads(path.read_text())
        if "agents" not in d:  # the --rates files
            continue
        (them,) = [x for x in d["agents"] if x["spec"].startswith("openspiel:")]
        ours = np.mean([x["mean_rank"] for x in d["agents"] if x is not them])
        lo, hi = them["win_rate_ci95"]
        share = f"{them['win_rate']:.3f} [{lo:.3f}, {hi:.3f}]"
        lines.append(f"| {path.stem} | {d['games']} | {share} | {1 / d['players']:.3f} | "
                     f"{them['mean_rank']:.2f} / {ours:.2f} |")  # fmt: skip
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m benchmarks.peer_ismcts",
                                 description=__doc__.split("\n\n")[0])  # fmt: skip
    ap.add_argument("--game", required=True)
    ap.add_argument("--players", type=int, default=2)
    ap.add_argument("--rows", default="sims,time")
    ap.add_argument("--sims", type=int, default=100)
    ap.add_argument("--ms", type=int, default=50)
    ap.add_argument("--games", type=int, default=0, help="default 200 at 2 players, else 100")
    ap.add_argument("--seed", type=int, default=4242)
    ap.add_argument("--workers", type=int, default=1)
    ap.add_argument("--out", required=True, type=Path)
    ap.add_argument("--table", action="store_true")
    ap.add_argument("--rates", action="store_true", help="ISMCTS's simulations/s, fast=0 vs 1")
    a = ap.parse_args(argv)
    if a.table:
        print(table(a.out))
        return 0
    a.out.mkdir(parents=True, exist_ok=True)
    if a.rates:
        r = rates(a.game, a.players)
        r["date_utc"] = time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())
        r["rules_data_hash"] = str(get_game(a.game).RULES_DATA_HASH)
        r["load_average"] = list(os.getloadavg())
        (a.out / f"rates-{a.players}p.json").write_text(json.dumps(r, indent=1) + "\n")
        print(json.dumps(r))
        return 0
    for row in rows(a):
        play(a, row)
    print(table(a.out))
    return 0


if __name__ == "__main__":
    sys.exit(main())
