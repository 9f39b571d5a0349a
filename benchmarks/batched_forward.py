"""Does evaluating many leaves at once pay? The guided search's network forward one observation at
a time (core.mlp.actor_logits, what every search and self-play game runs) against the same
network over a batch of B observations in one call (`batch_logits` below: each weight row read
once per batch instead of once per observation, the per-row order of additions kept, so the
outputs are bit-identical, which the run checks), on observations of seeded random games.

    python -m benchmarks.batched_forward [--games village,troyes] [--repeats 3]

Prints microseconds per evaluation and the ratio one-at-a-time / batched for B = 8, 32, 64, and
the forward's floating-point rate (2 x multiply-adds per second; the first layer skips zero
inputs, so its multiply-adds are counted over the non-zero ones). Then the ceiling of any faster
forward: 2-player self-play games per second (benchmarks.selfplay's settings) with the (256,
256) network and with a (8,) one, whose forward costs next to nothing; their ratio bounds what
making the network's evaluation cheaper can give.
"""

from __future__ import annotations

import argparse
import time

import numpy as np

from benchmarks.search import guided_network, search_positions
from benchmarks.selfplay import selfplay_config
from core import mlp
from core.jit import jit
from core.registry import game_names, get_game
from training.alphazero.selfplay import SelfPlayer


@jit(alloc=False)
def batch_logits(w, meta, x, h, out):
    """out[r] = packed actor 0's outputs for the observation x[r], for every row r: the layers of
    core.mlp.actor_logits, each weight row applied to every row of the batch before the next (a
    matrix product in the order of actor_logits' sums). h: (2, rows, widest) scratch."""
    rows = x.shape[0]
    n = meta[0, 0]
    for i in range(n):
        m = 1 + mlp.LAYER_META * i
        n_in, n_out = meta[0, m], meta[0, m + 1]
        wo, bo, act = meta[0, m + 2], meta[0, m + 3], meta[0, m + 4]
        wt = w[wo : wo + n_in * n_out].reshape((n_in, n_out))
        b = w[bo : bo + n_out]
        src = x if i == 0 else h[(i - 1) % 2]
        dst = out if i == n - 1 else h[i % 2]
        for r in range(rows):
            for o in range(n_out):
                dst[r, o] = b[o]
        for j in range(n_in):
            row = wt[j]
            for r in range(rows):
                v = src[r, j]
                if v != 0.0:
                    d = dst[r]
                    for o in range(n_out):
                        d[o] += row[o] * v
        if act == mlp.ACT_RELU:
            for r in range(rows):
                for o in range(n_out):
                    if dst[r, o] < 0.0:
                        dst[r, o] = 0.0
        elif act == mlp.ACT_TANH:
            for r in range(rows):
                for o in range(n_out):
                    dst[r, o] = np.tanh(dst[r, o])


@jit(alloc=False)
def one_at_a_time(w, meta, x, h, out, reps):
    """reps forwards of the rows of x in turn, one call of core.mlp.actor_logits each."""
    for k in range(reps):
        mlp.actor_logits(w, meta, 0, x[k % x.shape[0]], h, out)


def measure(g: str, repeats: int) -> list[str]:
    game = get_game(g)
    w, meta, widest = mlp.pack_actors([guided_network(game)])
    n_out = mlp.actor_io(meta, 0)[1]
    states = search_positions(g, 2, 64, seed=3)
    obs = np.stack(
        [np.asarray(game.observe(s, int(game.current_player(s))), np.float32) for s in states]
    )
    h1, out1 = np.zeros((2, widest), np.float32), np.zeros(n_out, np.float32)
    one_at_a_time(w, meta, obs, h1, out1, 8)  # compile outside the clock
    hidden = [int(meta[0, 2 + mlp.LAYER_META * i]) for i in range(int(meta[0, 0]))]
    macs = np.count_nonzero(obs) / len(obs) * hidden[0] + sum(
        a * b for a, b in zip(hidden, hidden[1:], strict=False)
    )
    lines = []
    for rep in range(repeats):
        reps = 20_000
        t0 = time.perf_counter()
        one_at_a_time(w, meta, obs, h1, out1, reps)
        one = (time.perf_counter() - t0) / reps
        rate = 2 * macs / one / 1e9
        cols = [f"{g} repeat {rep + 1}: one at a time {one * 1e6:.2f} us ({rate:.1f} GFLOP/s)"]
        for rows in (8, 32, 64):
            x = obs[:rows].copy()
            h = np.zeros((2, rows, widest), np.float32)
            out = np.zeros((rows, n_out), np.float32)
            batch_logits(w, meta, x, h, out)
            for r in range(rows):
                mlp.actor_logits(w, meta, 0, x[r], h1, out1)
                if not np.array_equal(out1, out[r]):
                    raise AssertionError(f"{g}: row {r} of a batch of {rows} differs")
            calls = max(1, reps // rows)
            t0 = time.perf_counter()
            for _ in range(calls):
                batch_logits(w, meta, x, h, out)
            per = (time.perf_counter() - t0) / (calls * rows)
            cols.append(f"B={rows} {per * 1e6:.2f} us (x{one / per:.2f})")
        lines.append("; ".join(cols) + "; bit-identical")
    return lines


def selfplay_games_per_s(g: str, hidden: tuple[int, ...], seconds: float = 4.0) -> float:
    """2-player self-play games per second of busy time, games from seeds 1, 2, ..."""
    game = get_game(g)
    player = SelfPlayer(g, 2, guided_network(game, hidden), selfplay_config(g, 2), explore=20,
                        noise=0.5)  # fmt: skip
    player.play(0)  # compile outside the clock
    games, t0 = 0, time.perf_counter()
    while games < 1 or time.perf_counter() - t0 < seconds:
        games += 1
        player.play(games)
    return games / (time.perf_counter() - t0)


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--games", default=",".join(game_names()))
    ap.add_argument("--repeats", type=int, default=3)
    args = ap.parse_args(argv)
    if args.repeats < 1:
        raise SystemExit("--repeats must be >= 1")
    for g in args.games.split(","):
        for line in measure(g, args.repeats):
            print(line, flush=True)
        for rep in range(args.repeats):
            big, tiny = (selfplay_games_per_s(g, h) for h in ((256, 256), (8,)))
            print(
                f"{g} repeat {rep + 1}: self-play, 2 players: {big:.2f} games/s with a (256, 256) "
                f"network, {tiny:.2f} with an (8,) one: ceiling x{tiny / big:.2f}",
                flush=True,
            )


if __name__ == "__main__":
    main()
