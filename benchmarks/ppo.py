"""MaskablePPO training throughput: the batch VecEnv vs SubprocVecEnv over the single-seat env.

Same network, same rollout size (n_envs x n_steps = 1024), same total timesteps, random
opponents; whole machine (the batch engine may use every numba thread, SubprocVecEnv one process
per env). Needs the `training` package (SingleSeatEnv) and sb3-contrib."""

from __future__ import annotations

import time

from training.learn.batch_vec_env import BatchVecEnv
from training.learn.env import SingleSeatEnv  # noqa: F401  (ImportError skips the rows)

ROLLOUT = 1024
NET = [64, 64]


def make_vec(game: str, players: int, vec: str, seed: int = 0):
    if vec == "batch":
        return BatchVecEnv(game, n_envs=16, players=players, opponents="random", seed=seed)
    from stable_baselines3.common.vec_env import SubprocVecEnv

    def make(i):
        def f():

            e = SingleSeatEnv(game, players=players, opponents="random")
            e.reset(seed=seed + i)
            return e

        return f

    return SubprocVecEnv([make(i) for i in range(2)], start_method="fork")


def ppo_throughput(game: str, players: int, vec: str, seconds: float) -> dict:
    """Env steps (learner decisions) per second of MaskablePPO.learn over ~`seconds`."""
    import torch
    from sb3_contrib import MaskablePPO

    from training.learn.train import silent_logger

    torch.set_num_threads(1)
    env = make_vec(game, players, vec)
    n_steps = ROLLOUT // env.num_envs
    model = MaskablePPO(
        "MlpPolicy",
        env,
        n_steps=n_steps,
        batch_size=256,
        n_epochs=2,
        seed=0,
        policy_kwargs={"net_arch": NET},
        device="cpu",
        verbose=0,
    )
    model.set_logger(silent_logger())
    model.learn(ROLLOUT)  # warm (compile / cache load, process start)
    collect = model.collect_rollouts
    in_rollout = [0.0]

    def timed_collect(*a, **kw):  # split env stepping (+ policy forward) from the PPO update
        t = time.perf_counter()
        try:
            return collect(*a, **kw)
        finally:
            in_rollout[0] += time.perf_counter() - t

    model.collect_rollouts = timed_collect
    t0 = time.perf_counter()
    steps0 = model.num_timesteps
    while time.perf_counter() - t0 < seconds:
        model.learn(ROLLOUT, reset_num_timesteps=False)
    el = time.perf_counter() - t0
    steps = model.num_timesteps - steps0
    env.close()
    return {
        "decisions_per_s": steps / el,
        "games_per_s": None,
        "rollout_steps_per_s": steps / in_rollout[0],
        "rollout_share": in_rollout[0] / el,
        "env_steps": int(steps),
        "seconds": round(el, 3),
        "note_unit": "learner env steps/s (opponent moves not counted)",
        "n_envs": int(env.num_envs),
        "rollout": ROLLOUT,
        "net": NET,
    }
