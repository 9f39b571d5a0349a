"""What modelling the other seats costs the guided search at 4 players, and what a cheaper
opponent network could buy: the median wall time of one 100-simulation `az` decision (random
weights, the shipped `mix=0.5`) at 2 players with `opp=tree` and at 4 players with `opp=tree`
and with `opp=net`, the latter with the trained (256, 256) network and with (64,) and (32,)
ones, whose forward costs a fraction of it. The network calls per decision are printed beside.

    python -m benchmarks.opponent_cost [--games village,troyes] [--repeats 3] [--json FILE]

A (32,) network for every call bounds what a small opponent model (the search's leaves still on
the large network) could reach: if that bound is above twice the 2-player decision, the rest of
a simulation (stepping, observing and masking every other seat's decisions) is what costs.
"""

from __future__ import annotations

import argparse
import json
import time

import numpy as np

from benchmarks.search import GUIDED_HIDDEN, guided_network, search_positions
from core.guided import GuidedAgent, GuidedConfig
from core.registry import game_names, get_game

ROWS = (  # (players, hidden sizes, az parameters)
    (2, GUIDED_HIDDEN, "sims=100,mix=0.5"),
    (4, GUIDED_HIDDEN, "sims=100,mix=0.5"),
    (4, GUIDED_HIDDEN, "sims=100,mix=0.5,opp=net"),
    (4, (64,), "sims=100,mix=0.5,opp=net"),
    (4, (32,), "sims=100,mix=0.5,opp=net"),
)


def decision_cost(g: str, players: int, hidden: tuple[int, ...], params: str, repeats: int):
    """(median ms per decision, mean network calls per decision) over 16 seeded positions."""
    game = get_game(g)
    agent = GuidedAgent(game, guided_network(game, hidden), GuidedConfig.parse(params), seed=0)
    states = search_positions(g, players, 16)
    agent.act(states[0])  # compile or load from the cache outside the clock
    times, calls = [], []
    for _ in range(repeats):
        for s in states:
            t0 = time.perf_counter()
            agent.act(s)
            times.append(time.perf_counter() - t0)
            calls.append(agent.last["network_calls"])
    return 1000.0 * float(np.median(times)), float(np.mean(calls))


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m benchmarks.opponent_cost", description=__doc__)
    ap.add_argument("--games", default=",".join(game_names()))
    ap.add_argument("--repeats", type=int, default=3, help="passes over the 16 positions")
    ap.add_argument("--json", metavar="FILE")
    args = ap.parse_args(argv)
    if args.repeats < 1:
        ap.error("--repeats must be >= 1")
    rows = []
    for g in args.games.split(","):
        get_game(g)  # an unknown game is refused naming the known ones
        for players, hidden, params in ROWS:
            ms, calls = decision_cost(g, players, hidden, params, args.repeats)
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
