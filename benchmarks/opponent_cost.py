"""What modelling the other seats costs the guided search at 4 players, and what a cheaper
opponent network could buy: the median wall time of one 100-simulation `az` decision (random
weights, the shipped `mix=0.5`) at 2 players with `opp=tree` and at 4 players with `opp=tree`
and with `opp=net`, the latter with the trained (256, 256) network and with (64,) and (32,)
ones, whose forward costs a fraction of it, and with `opp=prior` / `priormax` (the other seats'
moves from the policy stored in their nodes: no call beyond the new node's)
(benchmarks.search.guided_rate: a cycle of 16 seeded positions for at least --seconds). The
network calls per decision are printed beside.

    python -m benchmarks.opponent_cost [--games village,troyes] [--seconds 2] [--json FILE]

A (32,) network for every call bounds what a small opponent model (the search's leaves still on
the large network) could reach: if that bound is above twice the 2-player decision, the rest of
a simulation (stepping, observing and masking every other seat's decisions) is what costs.
"""

from __future__ import annotations

import argparse
import json

from benchmarks.search import GUIDED_HIDDEN, guided_rate
from core.registry import game_names, get_game

ROWS = (  # (players, hidden sizes, az parameters)
    (2, GUIDED_HIDDEN, "sims=100,mix=0.5"),
    (4, GUIDED_HIDDEN, "sims=100,mix=0.5"),
    (4, GUIDED_HIDDEN, "sims=100,mix=0.5,opp=net"),
    (4, (64,), "sims=100,mix=0.5,opp=net"),
    (4, (32,), "sims=100,mix=0.5,opp=net"),
    (4, GUIDED_HIDDEN, "sims=100,mix=0.5,opp=prior"),
    (4, GUIDED_HIDDEN, "sims=100,mix=0.5,opp=priormax"),
)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m benchmarks.opponent_cost", description=__doc__)
    ap.add_argument("--games", default=",".join(game_names()))
    ap.add_argument("--seconds", type=float, default=2.0, help="timed seconds per row, at least")
    ap.add_argument("--json", metavar="FILE")
    args = ap.parse_args(argv)
    if not args.seconds > 0:
        ap.error("--seconds must be > 0")
    rows = []
    for g in args.games.split(","):
        get_game(g)  # an unknown game is refused naming the known ones
        for players, hidden, params in ROWS:
            res = guided_rate(g, players, params, hidden)(args.seconds)
            ms, calls = res["median_decision_ms"], res["network_calls_per_decision"]
            row = {"game": g, "players": players, "hidden": list(hidden), "params": params}
            row |= {"median_ms": round(ms, 3), "network_calls": round(calls, 1)}
            rows.append(row)
            print(f"{g} {players}p {hidden} az:{params}: {ms:.2f} ms, {calls:.0f} calls")
    if args.json:
        with open(args.json, "w") as f:
            json.dump(rows, f, indent=1)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
