"""A fingerprint of the engines' behaviour: sha256 over every state, legal mask and observation
(every seat) of seeded games through the public API. Used to show that a refactor changes
nothing: run it before and after and compare the digests.

    python -m benchmarks.equivalence --games 60          # both games, 2-4 players
"""

from __future__ import annotations

import argparse
import hashlib
import time

import numpy as np

from core.registry import game_names, get_game

GAMES = tuple(game_names())


def game_digest(game: str, num_players: int, games: int) -> tuple[str, int]:
    """sha256 over the states, masks (as 0/1 bytes) and observations of `games` seeded games;
    also the number of decisions seen."""
    m = get_game(game)
    h = hashlib.sha256()
    decisions = 0
    for seed in range(games):
        rng = np.random.default_rng(seed)
        s = m.new_game(num_players, seed=seed)
        while True:
            h.update(np.ascontiguousarray(s).tobytes())
            for p in range(num_players):
                h.update(m.observe(s, p).tobytes())
            if m.is_terminal(s):
                break
            mask = np.asarray(m.legal_mask(s)).astype(np.uint8)
            h.update(mask.tobytes())
            legal = np.flatnonzero(mask)
            s = m.step(s, int(legal[rng.integers(len(legal))]))
            decisions += 1
        h.update(np.asarray(m.scores(s), dtype=np.int64).tobytes())
    return h.hexdigest(), decisions


def main(argv=None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--games", type=int, default=60)
    ap.add_argument("--game", choices=GAMES, action="append")
    args = ap.parse_args(argv)
    for game in args.game or GAMES:
        for n in (2, 3, 4):
            t = time.perf_counter()
            digest, k = game_digest(game, n, args.games)
            print(
                f"{game} {n}p {args.games} games {k} decisions sha256 {digest} "
                f"({time.perf_counter() - t:.1f} s)",
                flush=True,
            )


if __name__ == "__main__":
    main()
