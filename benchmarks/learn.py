"""The default training run's learner speed: today's defaults against the settings they replaced.

`learn_throughput(game, players, "new")` runs `training.learn.train` with the game's default run
(its opponent pool, the current TrainConfig defaults) and reports learner steps per second of
`learn()` (rollouts and PPO updates; model set-up and the first, compiling rollout not timed).
`"before"` runs the same default run with the settings the defaults replaced (`BEFORE`): 8 games
per vector step, rollouts of 512 steps, minibatches of 512, 4 epochs, learning rate 3e-4, hidden
layers of 128 and 128, one torch thread, one engine thread, sb3-contrib's own policy and rollout
buffer, torch's distribution checks on, the bot opponents played one slot at a time through
their `act` (as a Python bot was) and the snapshots in numpy. Those
bots are the compiled ones, which decide faster than the Python bots did, so the ratio
understates the gain over the old code.

`busy=k` measures the same with k neighbour processes spinning on the CPU the whole time (a
machine whose cores are shared with other jobs): the default run then keeps what it can of its
advantage by running its two-thread loops on fewer threads (core/cores.py).
"""

from __future__ import annotations

import contextlib
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from training.learn.train import TrainConfig, train

SETTINGS = ("before", "new")
# the TrainConfig values of the defaults this benchmark compares against, and how they ran:
# sb3-contrib's own policy and rollout buffer, torch's distribution checks and the bot opponents
# played one slot at a time
BEFORE = {
    "sb3_parts": False,
    "validate_distributions": True,
    "batched_bots": False,
    "n_envs": 8,
    "n_steps": 512,
    "batch_size": 512,
    "n_epochs": 4,
    "net_arch": [128, 128],
    "learning_rate": 3e-4,
    "torch_threads": 1,
    "engine_threads": 1,
    "snapshot_every": 25_000,
    "checkpoint_every": 100_000,
}


def config(
    game: str,
    players: int,
    settings: str,
    timesteps: int | None,
    out: str,
    seed: int = 0,
    tensorboard: bool = False,
) -> TrainConfig:
    """The default run of `game` with `settings` ("before" or "new"), `timesteps` long (None:
    the default run's length)."""
    if settings not in SETTINGS:
        raise ValueError(f"settings must be one of {SETTINGS}, got {settings!r}")
    extra = BEFORE if settings == "before" else {}
    return TrainConfig(
        game=game,
        players=players,
        timesteps=timesteps,
        seed=seed,
        out=out,
        progress_bar=False,
        tensorboard=tensorboard,
        **extra,
    )


@contextlib.contextmanager
def busy_neighbours(k: int):
    """k other processes that keep a core busy each (a pure-Python spin loop) until exit."""
    procs = [subprocess.Popen([sys.executable, "-c", "while True: pass"]) for _ in range(int(k))]
    try:
        yield
    finally:
        for p in procs:
            p.kill()
        for p in procs:
            p.wait()


def learn_throughput(game: str, players: int, settings: str, seconds: float, busy: int = 0) -> dict:
    """Learner steps/s of the default run with `settings` over about `seconds` of `learn()`
    (at least two rollouts after a first, untimed one), with `busy` spinning neighbours."""
    probe = config(game, players, settings, 1, "-")
    rollout = probe.n_envs * probe.n_steps
    with tempfile.TemporaryDirectory() as d, busy_neighbours(busy):
        # one rollout and update first: compiles or loads the engine, warms torch
        first = train(config(game, players, settings, rollout, str(Path(d, "warm"))))
        rate = first["env_steps_per_s"]
        n = max(2, round(seconds * rate / rollout))
        t0 = time.perf_counter()
        s = train(config(game, players, settings, n * rollout, str(Path(d, "run"))))
        total = time.perf_counter() - t0
    return {
        "decisions_per_s": s["env_steps_per_s"],
        "games_per_s": None,
        "learner_steps": s["timesteps"],
        "learn_seconds": s["wall_s"],
        "call_seconds": round(total, 2),
        "busy_neighbours": int(busy),
    }
