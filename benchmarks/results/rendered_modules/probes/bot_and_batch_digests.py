"""sha256 of the actions of seeded bot-vs-bot games and of a batch of games played by the
compiled bots and a small network actor. Usage: python bot_and_batch_digests.py OUT.json GAMES"""

import hashlib
import json
import sys

import numpy as np

from benchmarks.search import guided_network
from core.batch import SEAT_POLICY, SEAT_RANDOM
from core.bots import BotRng
from core.registry import get_game
from training.agents.registry import make_agent

out = {}
for g in sys.argv[2].split(","):
    game = get_game(g)
    from training.agents.registry import bot_names

    bots = [b for b in bot_names(g) if b != "random"]
    for n in (2, 4):
        h = hashlib.sha256()
        for seed in range(6):
            agents = [
                make_agent(bots[(seed + p) % len(bots)], g, n, seed=seed * 10 + p) for p in range(n)
            ]
            s = game.new_game(n, seed=seed)
            while not game.is_terminal(s):
                p = game.current_player(s)
                a = agents[p].act(s)
                h.update(int(a).to_bytes(4, "little"))
                s = game.step(s, a)
        out[f"{g}-{n}p-bots"] = h.hexdigest()
        B = 16
        eng = game.make_batch(B, n, seed=1, observe=False, threads=1)
        arr = guided_network(game, (16,))
        actor = {k: v for k, v in arr.items()}
        actor["W1"] = actor["W1"][: game.NUM_ACTIONS]
        actor["b1"] = actor["b1"][: game.NUM_ACTIONS]
        eng.set_actors([actor])
        codes = np.zeros((B, eng.spec.max_players), np.int64)
        rngs = np.zeros((B, eng.spec.max_players, 4), np.int64)
        for i in range(B):
            for p in range(eng.spec.max_players):
                codes[i, p] = [SEAT_RANDOM, 0, SEAT_POLICY][(i + p) % 3]
                rngs[i, p] = BotRng(i * 10 + p).words
        moves = np.zeros(B, np.int64)
        eng.play_seats(eng._all, codes, rngs, moves)
        out[f"{g}-{n}p-batch"] = hashlib.sha256(
            eng.states.tobytes() + moves.tobytes() + rngs.tobytes()
        ).hexdigest()
        print(g, n, out[f"{g}-{n}p-bots"][:12], out[f"{g}-{n}p-batch"][:12], flush=True)
json.dump(out, open(sys.argv[1], "w"))
