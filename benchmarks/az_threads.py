"""Expert iteration's training steps on one and on two torch threads, paired.

Each round times `--steps` minibatches (the game's network shape, `--batch` random examples, the
loss and AdamW step of training.alphazero.loop) on one thread and then on two, in alternating
order; the ratio of each round is two threads' time over one thread's (below 1: two threads
pay). With `--busy K`, K processes spin on the CPU the whole time, as other jobs do on a shared
machine.

    python -m benchmarks.az_threads --game troyes --rounds 5 --busy 0
    python -m benchmarks.az_threads --game troyes --rounds 5 --busy 1
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import time

import numpy as np

from benchmarks.learn import busy_neighbours
from core.registry import default_game, get_game


def time_steps(net, opt, batch, steps: int, threads: int, torch) -> float:
    from training.alphazero.loop import losses

    torch.set_num_threads(threads)
    t = time.perf_counter()
    for _ in range(steps):
        p_loss, v_loss = losses(net, batch, torch)
        opt.zero_grad()
        (p_loss + v_loss).backward()
        opt.step()
    return time.perf_counter() - t


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--game", default=None, help="a registered game (default: the first)")
    p.add_argument("--steps", type=int, default=40)
    p.add_argument("--batch", type=int, default=256)
    p.add_argument("--rounds", type=int, default=5)
    p.add_argument("--busy", type=int, default=0, help="spinning neighbour processes")
    argv = sys.argv[1:] if argv is None else list(argv)
    a = p.parse_args(argv)
    import torch

    from training.alphazero.net import for_game

    game = get_game(a.game or default_game())
    net = for_game(game, (256, 256))
    opt = torch.optim.AdamW(net.parameters(), lr=1e-4)
    rng = np.random.default_rng(0)
    seats = net.seats
    batch = (
        rng.random((a.batch, game.OBS_SIZE), dtype=np.float32),
        np.ones((a.batch, game.NUM_ACTIONS), dtype=bool),
        np.full((a.batch, game.NUM_ACTIONS), 1.0 / game.NUM_ACTIONS, dtype=np.float32),
        rng.random((a.batch, seats), dtype=np.float32),
        np.ones((a.batch, seats), dtype=bool),
    )
    time_steps(net, opt, batch, 5, 1, torch)  # warm-up
    rows = []
    with busy_neighbours(a.busy):
        for r in range(a.rounds):
            order = (1, 2) if r % 2 == 0 else (2, 1)
            t = {k: time_steps(net, opt, batch, a.steps, k, torch) for k in order}
            rows.append({"one_thread_s": t[1], "two_threads_s": t[2], "ratio": t[2] / t[1]})
    out = {
        "command": "python -m benchmarks.az_threads " + " ".join(argv),
        "date": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
        "game": game.NAME,
        "rules_data_hash": game.RULES_DATA_HASH,
        "steps": a.steps,
        "batch": a.batch,
        "busy_neighbours": a.busy,
        "rounds": rows,
        "median_ratio_two_over_one": statistics.median(r["ratio"] for r in rows),
    }
    print(json.dumps(out, indent=1))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
