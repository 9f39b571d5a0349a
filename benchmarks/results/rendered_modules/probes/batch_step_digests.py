"""sha256 of 400 random batch steps (64 slots; rewards, dones, players, observations, final
states) per game, count and observe setting. Usage: python batch_step_digests.py OUT.json GAMES"""

import hashlib
import json
import sys
import time

from core.registry import get_game

out = {}
for g in sys.argv[2].split(","):
    game = get_game(g)
    for n in (2, 4):
        for obs in (True, False):
            eng = game.make_batch(64, n, seed=3, observe=obs, threads=1)
            h = hashlib.sha256()
            eng.step(eng.random_actions().copy())
            t0 = time.perf_counter()
            steps = 0
            for _ in range(400):
                o, r, d, p = eng.step(eng.random_actions().copy())
                steps += 64
                h.update(r.tobytes())
                h.update(d.tobytes())
                h.update(p.tobytes())
                if obs:
                    h.update(o.tobytes())
            dt = time.perf_counter() - t0
            h.update(eng.states.tobytes())
            h.update(eng.final_states.tobytes())
            k = f"{g}-{n}p-obs{int(obs)}"
            out[k] = {"digest": h.hexdigest(), "steps_per_s": steps / dt}
            print(k, out[k]["digest"][:12], round(steps / dt), flush=True)
json.dump(out, open(sys.argv[1], "w"))
