"""Golden seeded playthroughs (DESIGN §4): `python -m tests.troyes.golden` rewrites the files."""

from __future__ import annotations

from pathlib import Path

import numpy as np

import troyes_env as T
from core.rng import rng_below, rng_seed

HERE = Path(__file__).parent
GAMES = [(2, 1), (3, 2), (4, 3)]


def path(n, seed):
    return HERE / f"golden_{n}p_seed{seed}.txt"


def playthrough(n: int, seed: int) -> str:
    """A random-bot game; the bot draws from an xoshiro stream (core.rng), not numpy."""
    r = np.zeros(4, np.int64)
    rng_seed(r, 0, seed, 99, 0)
    s = T.new_game(n, seed)
    lines = [f"troyes golden playthrough: {n} players, seed {seed}, rules {T.RULES_DATA_HASH}"]
    last_round = -1
    k = 0
    while not T.is_terminal(s):
        rnd = int(T.LAYOUT.view(s, "round")[0])
        if rnd != last_round:
            lines.append(f"== round {rnd}")
            lines.append(T.render(s))
            last_round = rnd
        legal = np.flatnonzero(T.legal_mask(s))
        a = int(legal[rng_below(r, 0, len(legal))])
        lines.append(f"{k:4d} P{T.current_player(s)} [{T.phase_name(s)}] {a}: {T.describe(a, s)}")
        s = T.step(s, a)
        k += 1
    lines.append("== end")
    lines.append(T.render(s))
    lines.append(f"scores {list(map(int, T.scores(s)))}")
    return "\n".join(lines) + "\n"


if __name__ == "__main__":
    for n, seed in GAMES:
        path(n, seed).write_text(playthrough(n, seed))
        print("wrote", path(n, seed))
