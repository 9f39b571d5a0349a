"""Self-play games per second of expert iteration's Ray backend on a running Ray cluster.

    ray start --head --port 6379 --num-cpus 1          # one node ...
    ray start --address HEAD:6379 --num-cpus 1         # ... and a second one
    python -m benchmarks.selfplay_cluster --address HEAD:6379 --game GAME --players 2

Plays rounds of self-play jobs (training.alphazero.backends.RayBackend: the jobs of a training
iteration, each `--games` whole games of the guided search with a (256, 256) network of random
weights, 32 simulations per decision, the shipped search settings) with one job per CPU of the
cluster, after a warm-up round that loads every worker's compile cache; prints one JSON line:
the cluster's nodes and CPUs, the games per second of each round and their median. Compare the
median of the same command on one node and on two.
"""

from __future__ import annotations

import argparse
import json
import statistics
import time

from benchmarks.search import guided_network
from benchmarks.selfplay import SIMS, selfplay_config
from core.registry import default_game, game_names, get_game
from training.alphazero.backends import RayBackend


def jobs(game: str, players: int, arrays, cfg, count: int, games: int, round_: int) -> list:
    """`count` self-play jobs of `games` games each, seeds distinct per round and job."""
    out = []
    for j in range(count):
        seeds = [(10_000 * round_ + games * j + k, False) for k in range(games)]
        out.append((game, players, arrays, cfg, 20, 0.5, 0.0, "", round_, seeds))
    return out


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(prog="python -m benchmarks.selfplay_cluster", description=__doc__)
    p.add_argument("--address", required=True, help="a running Ray cluster, HOST:PORT or auto")
    p.add_argument("--game", choices=game_names(), default=default_game())
    p.add_argument("--players", type=int, default=2)
    p.add_argument("--games", type=int, default=8, help="games per job")
    p.add_argument("--rounds", type=int, default=3)
    a = p.parse_args(argv)
    game = get_game(a.game)
    arrays = guided_network(game)
    cfg = selfplay_config(a.game, a.players, SIMS)
    backend = RayBackend(None, a.game, None, a.address)
    try:
        ray = backend.ray
        cpus = int(ray.cluster_resources().get("CPU", 1))
        nodes = sum(1 for n in ray.nodes() if n.get("Alive"))
        backend.map("play", jobs(a.game, a.players, arrays, cfg, 2 * cpus, 1, 0))  # warm-up
        rates = []
        for r in range(1, a.rounds + 1):
            t0 = time.perf_counter()
            backend.map("play", jobs(a.game, a.players, arrays, cfg, cpus, a.games, r))
            rates.append(cpus * a.games / (time.perf_counter() - t0))
    finally:
        backend.close()
    out = {
        "game": a.game,
        "players": a.players,
        "nodes": nodes,
        "cpus": cpus,
        "games_per_job": a.games,
        "sims": SIMS,
        "games_per_s": [round(x, 3) for x in rates],
        "median_games_per_s": round(statistics.median(rates), 3),
        "rules_data_hash": game.RULES_DATA_HASH,
    }
    print(json.dumps(out))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
