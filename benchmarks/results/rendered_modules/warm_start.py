"""One warm start, timed: a fresh process imports a game, plays a decision through the public
API, makes a default `mcts` decision and one batch step, each loading its compiled code from
the disk cache (warm: run once before timing). Prints one JSON line.

    PYTHONPATH=CHECKOUT python benchmarks/results/rendered_modules/warm_start.py village
"""

import json
import sys
import time

t0 = time.perf_counter()
import numpy as np  # noqa: E402

from core.registry import get_game  # noqa: E402
from training.agents.registry import make_agent  # noqa: E402

name = sys.argv[1]
g = get_game(name)
t1 = time.perf_counter()
s = g.new_game(2, seed=0)
s = g.step(s, int(np.flatnonzero(g.legal_mask(s))[0]))
g.observe(s, g.current_player(s))
t2 = time.perf_counter()
make_agent("mcts:iters=50", name, 2, seed=0).act(s)
t3 = time.perf_counter()
eng = g.make_batch(4, 2, seed=1, threads=1)
eng.step(eng.random_actions().copy())
t4 = time.perf_counter()
print(
    json.dumps(
        {
            "game": name,
            "import_s": t1 - t0,
            "api_s": t2 - t1,
            "mcts_s": t3 - t2,
            "batch_s": t4 - t3,
            "total_s": t4 - t0,
        }
    )
)
