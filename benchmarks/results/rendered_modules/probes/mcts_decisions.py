"""Decisions (and median times) of three `mcts` settings at 2 and 4 players on 8 fixed
positions per game. Usage: python mcts_decisions.py OUT.json village,troyes,chipin"""

import json
import sys
import time

import numpy as np

from benchmarks.search import search_positions
from training.agents.registry import make_agent

out = {}
for g in sys.argv[2].split(","):
    for spec in (
        "mcts",
        "mcts:iters=300,rollout=greedy,cutoff=6,opp=greedy",
        "mcts:iters=200,rollout=bot,cutoff=4",
    ):
        for players in (2, 4):
            agent = make_agent(spec, g, players, seed=0)
            states = search_positions(g, players, 8, seed=5)
            agent.act(states[0])
            agent.reset()
            acts, times = [], []
            for s in states:
                agent.reset()
                t0 = time.perf_counter()
                a = agent.act(s)
                times.append(time.perf_counter() - t0)
                acts.append(int(a))
            k = f"{g}-{spec}-{players}p"
            out[k] = {"acts": acts, "median_ms": 1000 * float(np.median(times))}
            print(k, round(out[k]["median_ms"], 2), flush=True)
json.dump(out, open(sys.argv[1], "w"))
