"""Decisions and timing of az (shipped network, sims=100, its sidecar search) at 2 and 4 players on
fixed positions: run in two checkouts to compare decisions and time. Usage: python
az_decisions.py OUT.json GAMES (games that ship networks, comma-separated)."""

import json
import sys
import time

import numpy as np

from benchmarks.search import search_positions
from training.agents.registry import make_agent

out = {}
for g in sys.argv[2].split(","):
    for players in (2, 4):
        agent = make_agent("az:sims=100", g, players, seed=0)
        states = search_positions(g, players, 24, seed=5)
        agent.act(states[0])
        acts, times, calls, memo = [], [], 0, 0
        inner = getattr(agent, "agent", agent)
        for _rep in range(2):
            for s in states:
                t0 = time.perf_counter()
                a = agent.act(s)
                times.append(time.perf_counter() - t0)
                acts.append(int(a))
                last = getattr(inner, "last", {})
                calls += last.get("network_calls", 0)
                memo += last.get("memo_answers", 0)
        out[f"{g}-{players}p"] = {
            "acts": acts,
            "median_ms": 1000 * float(np.median(times)),
            "calls": calls,
            "memo": memo,
        }
        print(g, players, out[f"{g}-{players}p"]["median_ms"], calls, memo, flush=True)
json.dump(out, open(sys.argv[1], "w"))
