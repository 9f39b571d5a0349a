"""Self-play training on RLlib: multi-agent PPO, one shared policy for every seat.

    python -m training.learn.rllib_train --game village --players 2 --iterations 20 --out runs/rl-v2
    python -m training.learn.rllib_train --game troyes --players 2 --env-runners 2 --address auto \
        --iterations 50 --out runs/rl-t2        # on a running Ray cluster (`ray start --head`)

Needs the optional extra: pip install -e ".[ray]" (Ray 2.60, RLlib's new API stack). The env is
our PettingZoo AEC env as an RLlib MultiAgentEnv (training.learn.rllib_env): the same observation
vector as our single-seat env, the same rewards (`game.returns(state, --reward)` at the end,
default as `python -m training.learn.train`: margin), and an action mask that RLlib's
action-masking RLModule (ActionMaskingTorchRLModule, RLlib's own example module) applies to
the logits, so no illegal action is ever sampled. Every seat maps to the one module `shared`:
each game trains the policy from every seat (self-play). RLlib's env pre-check, which steps
with unmasked random actions, is turned off (`disable_env_checking=True`): the env raises on an
illegal action instead of paying a penalty.

Ray: a local instance by default (started here and shut down at the end), or the cluster at
`--address` (`auto` or HOST:PORT; its nodes need this library installed at the same version).
`--env-runners K` sampling actors (0: sample in this process); learning runs in this process.

Writes into OUT: config.json, progress.csv (per iteration: env steps, wall time, throughput,
and with --eval-every the win rate against `random` with its Wilson interval), checkpoints/
iter_NNNNNN/ every --checkpoint-every iterations, final/ and summary.json (throughput, Ray
version, RULES_DATA_HASH). A checkpoint folder holds RLlib's own checkpoint (`rllib/`), the
policy exported to numpy (`policy.npz`) and our sidecar (training.agents.rllib_agent): it plays as
the agent spec `rllib:OUT` (or `rllib:OUT/final`) in evaluate and tournaments, without Ray.
"""

from __future__ import annotations

import argparse
import csv
import json
import sys
import time
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from core.registry import check_players, default_game, game_names, get_game
from core.returns import RETURN_KINDS
from training.agents.checkpoint import library_version
from training.agents.rllib_agent import RAY_DIR, module_actor_arrays, write_rllib_checkpoint
from training.arena.cli import OneLineParser
from training.arena.evaluate import evaluate, rules_note
from training.learn.train import TrainConfig

EXTRA_HINT = 'needs the optional extra: pip install -e ".[ray]"'
MODULE_ID = "shared"


class RayNotInstalledError(ImportError):
    """Ray (RLlib) is not installed: the optional extra `[ray]` is missing."""


def import_ray():
    """`ray`, or RayNotInstalledError saying which extra to install."""
    try:
        import ray
        import ray.rllib  # noqa: F401
    except ImportError as e:
        raise RayNotInstalledError(f"training.learn.rllib_train {EXTRA_HINT} ({e})") from None
    return ray


@dataclass
class RLlibConfig:
    """Everything an RLlib run depends on (saved as OUT/config.json)."""

    game: str = field(default_factory=default_game)
    players: int = 2
    iterations: int = 20
    seed: int = 0
    out: str | None = None  # None: runs/rllib-<game>-<players>p
    address: str | None = None  # None: a local Ray instance
    env_runners: int = 0
    envs_per_runner: int = 8  # games stepped together by each env runner (batched inference)
    reward: str = TrainConfig.reward  # as the SB3 trainer
    train_batch: int = (
        4096  # env steps per iteration (as 8 envs x 512 steps in training.learn.train)
    )
    minibatch: int = 512
    epochs: int = 4
    learning_rate: float = 3e-4
    gamma: float = 0.997
    gae_lambda: float = 0.95
    ent_coef: float = 0.01
    net_arch: list[int] = field(default_factory=lambda: [128, 128])
    checkpoint_every: int = 10
    eval_every: int = 0  # iterations between evaluations against random (0: none)
    eval_games: int = 100

    def __post_init__(self) -> None:
        if self.out is None:
            self.out = f"runs/rllib-{self.game}-{self.players}p"

    def validate(self) -> None:
        """Raise ValueError with a clear message for any bad setting."""
        game = get_game(self.game)
        check_players(game, self.players)
        if self.reward not in RETURN_KINDS:
            raise ValueError(f"--reward must be one of {RETURN_KINDS}, got {self.reward!r}")
        for name in (
            "iterations",
            "train_batch",
            "minibatch",
            "epochs",
            "checkpoint_every",
            "envs_per_runner",
        ):
            if getattr(self, name) < 1:
                flag = name.replace("_", "-")
                raise ValueError(f"--{flag} must be >= 1, got {getattr(self, name)}")
        for name in ("env_runners", "eval_every"):
            if getattr(self, name) < 0:
                flag = name.replace("_", "-")
                raise ValueError(f"--{flag} must be >= 0, got {getattr(self, name)}")
        if self.minibatch > self.train_batch:
            raise ValueError(
                f"--minibatch ({self.minibatch}) must not exceed --train-batch ({self.train_batch})"
            )
        if self.eval_every and (self.eval_games < self.players or self.eval_games % self.players):
            raise ValueError(
                f"--eval-games must be a positive multiple of --players ({self.players}), "
                f"got {self.eval_games}"
            )
        if not self.net_arch or any(w < 1 for w in self.net_arch):
            raise ValueError(
                f"--net-arch must be positive widths like 128,128, got {self.net_arch}"
            )


def module_spec(cfg: RLlibConfig):
    """The RLModuleSpec of the shared policy: RLlib's action-masking PPO module (torch)."""
    from ray.rllib.core.rl_module.rl_module import RLModuleSpec
    from ray.rllib.examples.rl_modules.classes.action_masking_rlm import (
        ActionMaskingTorchRLModule,
    )

    return RLModuleSpec(
        module_class=ActionMaskingTorchRLModule,
        model_config={
            "fcnet_hiddens": list(cfg.net_arch),
            "fcnet_activation": "tanh",
            "vf_share_layers": False,
        },
    )


def _map_to_shared(agent_id, *args, **kwargs) -> str:
    return MODULE_ID


def ppo_config(cfg: RLlibConfig):
    """RLlib's PPOConfig for this run (new API stack; one shared module for every seat)."""
    from ray.rllib.algorithms.ppo import PPOConfig
    from ray.rllib.core.rl_module.multi_rl_module import MultiRLModuleSpec

    from training.learn.rllib_env import RLlibGameEnv

    return (
        PPOConfig()
        .environment(
            RLlibGameEnv,
            env_config={"game": cfg.game, "players": cfg.players, "reward_kind": cfg.reward},
            disable_env_checking=True,  # its random actions ignore the mask (module docstring)
        )
        .framework("torch")
        .env_runners(
            num_env_runners=cfg.env_runners,
            num_envs_per_env_runner=cfg.envs_per_runner,
            rollout_fragment_length="auto",
        )
        .learners(num_learners=0)
        .training(
            train_batch_size_per_learner=cfg.train_batch,
            minibatch_size=cfg.minibatch,
            num_epochs=cfg.epochs,
            lr=cfg.learning_rate,
            gamma=cfg.gamma,
            lambda_=cfg.gae_lambda,
            entropy_coeff=cfg.ent_coef,
        )
        .rl_module(rl_module_spec=MultiRLModuleSpec(rl_module_specs={MODULE_ID: module_spec(cfg)}))
        .multi_agent(policies={MODULE_ID}, policy_mapping_fn=_map_to_shared)
        .debugging(seed=cfg.seed)
    )


def learner_module(algo, cfg: RLlibConfig):
    """A fresh copy of the shared module carrying the learner's current weights (the env
    runners' copies lag one update behind)."""
    from training.learn.rllib_env import RLlibGameEnv

    env = RLlibGameEnv({"game": cfg.game, "players": cfg.players, "reward_kind": cfg.reward})
    agent = env.possible_agents[0]
    spec = module_spec(cfg)
    spec.observation_space = env.observation_spaces[agent]
    spec.action_space = env.action_spaces[agent]
    module = spec.build()
    module.set_state(algo.learner_group.get_weights(module_ids=[MODULE_ID])[MODULE_ID])
    return module


def save_rllib_checkpoint(algo, cfg: RLlibConfig, folder: Path, extra: dict[str, Any]) -> Path:
    """RLlib's checkpoint in folder/rllib, the exported policy and the sidecar beside it."""
    import ray

    folder.mkdir(parents=True, exist_ok=True)
    algo.save_to_path(str((folder / RAY_DIR).resolve()))
    arrays = module_actor_arrays(learner_module(algo, cfg))
    meta = {"ray_version": ray.__version__, "config": asdict(cfg), **extra}
    return write_rllib_checkpoint(folder, arrays, get_game(cfg.game), cfg.players, meta)


def _metric(result: dict, *keys: str, default=None):
    for key in keys:
        cur: Any = result
        for part in key.split("/"):
            if not isinstance(cur, dict) or part not in cur:
                cur = None
                break
            cur = cur[part]
        if cur is not None:
            return cur
    return default


def check_out(cfg: RLlibConfig) -> None:
    """ValueError if --out already holds a run (runs are never overwritten)."""
    if (Path(cfg.out) / "config.json").exists():
        raise ValueError(f"--out {cfg.out} already holds a run; pass another --out")


def train(cfg: RLlibConfig) -> dict[str, Any]:
    """Run the configured RLlib self-play training; returns the summary (OUT/summary.json)."""
    cfg.validate()
    ray = import_ray()
    run = Path(cfg.out)
    check_out(cfg)
    game = get_game(cfg.game)
    started_ray = _init_ray(ray, cfg)
    import torch

    torch.set_num_threads(1)  # the learner's tiny MLP: more threads only slow a loaded box
    algo = None
    try:
        algo = ppo_config(cfg).build_algo()
        run.mkdir(parents=True, exist_ok=True)
        recorded = {**asdict(cfg), "rules_data_hash": game.RULES_DATA_HASH}
        (run / "config.json").write_text(json.dumps(recorded, indent=2))
        t_start = time.time()
        rows, steps, train_wall = _iterate(algo, cfg, run)
        final = save_rllib_checkpoint(
            algo,
            cfg,
            run / "final",
            {"kind": "final", "iteration": cfg.iterations, "env_steps": steps},
        )
    finally:
        if algo is not None:
            algo.stop()
        if started_ray:
            ray.shutdown()
    summary = _summary(cfg, game, rows, steps, train_wall, t_start, final, ray.__version__)
    (run / "summary.json").write_text(json.dumps(summary, indent=2))
    return summary


def _init_ray(ray, cfg: RLlibConfig) -> bool:
    """Connect to the cluster at cfg.address, or start a local Ray instance, unless Ray is
    running in this process already; whether it was started here (and is shut down after)."""
    if ray.is_initialized():
        return False
    if cfg.address:
        try:
            ray.init(address=cfg.address, log_to_driver=False)
        except ConnectionError as e:
            raise ConnectionError(
                f"--address {cfg.address}: {e}. A cluster with token authentication (Ray "
                "2.60 turns it on) needs RAY_AUTH_MODE=token with an explicit HOST:PORT"
            ) from None
    else:  # "local": a new instance, never a cluster found on this machine or in RAY_ADDRESS
        ray.init(address="local", include_dashboard=False, log_to_driver=False)
    return True


def _iterate(algo, cfg: RLlibConfig, run: Path) -> tuple[list[dict[str, Any]], int, float]:
    """cfg.iterations training iterations of `algo`, each a row of progress.csv and a line on
    stderr, with the periodic checkpoints and evaluations; (the rows, the env steps sampled in
    all, the seconds spent in training iterations)."""
    rows: list[dict[str, Any]] = []
    train_wall = 0.0
    steps = 0
    with open(run / "progress.csv", "w", newline="") as f:
        writer = None
        for it in range(1, cfg.iterations + 1):
            t0 = time.time()
            result = algo.train()
            dt = time.time() - t0
            train_wall += dt
            row = _iteration_row(result, it, dt, steps)
            total = steps = row["env_steps"]
            ckpt = None
            if it % cfg.checkpoint_every == 0 or (cfg.eval_every and it % cfg.eval_every == 0):
                ckpt = save_rllib_checkpoint(
                    algo,
                    cfg,
                    run / "checkpoints" / f"iter_{it:06d}",
                    {"kind": "periodic", "iteration": it, "env_steps": total},
                )
            if cfg.eval_every and it % cfg.eval_every == 0:
                row.update(_eval_vs_random(cfg, ckpt))
            rows.append(row)
            if writer is None:
                keys = list(row) + [k for k in ("win_rate", "ci95_lo", "ci95_hi") if k not in row]
                writer = csv.DictWriter(f, fieldnames=keys)
                writer.writeheader()
            writer.writerow(row)
            f.flush()
            print(_progress_line(row, cfg), file=sys.stderr, flush=True)
    return rows, steps, train_wall


def _iteration_row(result: dict, it: int, dt: float, steps: int) -> dict[str, Any]:
    """Iteration `it`'s row of progress.csv from RLlib's `result`: it took `dt` seconds, and
    `steps` env steps were sampled before it."""
    total = int(
        _metric(
            result,
            "env_runners/num_env_steps_sampled_lifetime",
            "num_env_steps_sampled_lifetime",
            default=0,
        )
    )
    return {
        "iteration": it,
        "env_steps": total,
        "iter_s": round(dt, 2),
        "env_steps_per_s": round((total - steps) / dt, 1),
        "episodes": int(_metric(result, "env_runners/num_episodes_lifetime", default=0)),
        "episode_len_mean": _metric(result, "env_runners/episode_len_mean"),
        "entropy": _metric(result, f"learners/{MODULE_ID}/entropy"),
    }


def _summary(
    cfg: RLlibConfig,
    game,
    rows: list[dict[str, Any]],
    steps: int,
    train_wall: float,
    t_start: float,
    final: Path,
    ray_version: str,
) -> dict[str, Any]:
    """summary.json of a run: its size, its throughput (in all and after the first iteration,
    which pays for the start-up), where its final checkpoint is and the versions it rests on."""
    later = rows[1:]
    steady = sum(r["env_steps_per_s"] * r["iter_s"] for r in later) / max(
        sum(r["iter_s"] for r in later), 1e-9
    )
    return {
        "game": cfg.game,
        "players": cfg.players,
        "iterations": cfg.iterations,
        "env_steps": steps,
        "env_runners": cfg.env_runners,
        "envs_per_runner": cfg.envs_per_runner,
        "address": cfg.address or "local",
        "train_wall_s": round(train_wall, 1),
        "wall_s": round(time.time() - t_start, 1),
        "env_steps_per_s": round(steps / train_wall, 1),
        "env_steps_per_s_after_first_iteration": round(steady, 1) if later else None,
        "final_checkpoint": str(final),
        "agent_spec": f"rllib:{final}",
        "ray_version": ray_version,
        "rules_data_hash": game.RULES_DATA_HASH,
        "library_version": library_version(),
        "note": rules_note(game),
    }


def _eval_vs_random(cfg: RLlibConfig, ckpt: Path) -> dict[str, Any]:
    res = evaluate(
        cfg.game,
        cfg.players,
        [f"rllib:{ckpt}"] + ["random"] * (cfg.players - 1),
        cfg.eval_games,
        seed=cfg.seed + 1_000_003,
    )
    a = res["agents"][0]
    lo, hi = a["win_rate_ci95"]
    return {"win_rate": round(a["win_rate"], 4), "ci95_lo": round(lo, 4), "ci95_hi": round(hi, 4)}


def _progress_line(row: dict[str, Any], cfg: RLlibConfig) -> str:
    text = (
        f"iter {row['iteration']}/{cfg.iterations}: {row['env_steps']} env steps, "
        f"{row['iter_s']:.1f} s, {row['env_steps_per_s']:.0f} env steps/s"
    )
    if "win_rate" in row:
        text += (
            f", vs random {row['win_rate']:.3f} [{row['ci95_lo']:.3f}, {row['ci95_hi']:.3f}]"
            f" ({cfg.eval_games} games)"
        )
    return text


def build_parser() -> argparse.ArgumentParser:
    """The command-line interface of `python -m training.learn.rllib_train`."""
    d = RLlibConfig()
    p = OneLineParser(
        prog="python -m training.learn.rllib_train",
        description=__doc__,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    p.add_argument("--game", choices=game_names(), default=d.game, help=f"default {d.game}")
    p.add_argument("--players", type=int, default=d.players, help="a player count of the game")
    p.add_argument(
        "--address",
        help="a running Ray cluster: auto or HOST:PORT (default: start a local Ray instance)",
    )
    p.add_argument(
        "--env-runners",
        type=int,
        default=d.env_runners,
        help=f"RLlib sampling actors (0: sample in this process), default {d.env_runners}",
    )
    p.add_argument(
        "--envs-per-runner",
        type=int,
        default=d.envs_per_runner,
        help=f"games each env runner steps together (one batched forward pass), default "
        f"{d.envs_per_runner}",
    )
    p.add_argument("--iterations", type=int, default=d.iterations, help=f"default {d.iterations}")
    p.add_argument("--out", help="output folder, default runs/rllib-<game>-<players>p")
    p.add_argument("--seed", type=int, default=d.seed)
    p.add_argument("--reward", choices=RETURN_KINDS, default=d.reward, help=f"default {d.reward}")
    p.add_argument("--train-batch", type=int, default=d.train_batch, help="env steps/iteration")
    p.add_argument("--minibatch", type=int, default=d.minibatch)
    p.add_argument("--epochs", type=int, default=d.epochs)
    p.add_argument("--learning-rate", type=float, default=d.learning_rate)
    p.add_argument("--ent-coef", type=float, default=d.ent_coef)
    p.add_argument("--net-arch", default=",".join(map(str, d.net_arch)), help="hidden widths")
    p.add_argument("--checkpoint-every", type=int, default=d.checkpoint_every, help="iterations")
    p.add_argument(
        "--eval-every",
        type=int,
        default=d.eval_every,
        help="iterations between evaluations against random (0: none)",
    )
    p.add_argument("--eval-games", type=int, default=d.eval_games)
    return p


def config_from_args(args: argparse.Namespace) -> RLlibConfig:
    """The run's config from parsed arguments (ValueError for a bad one)."""
    try:
        net = [int(x) for x in args.net_arch.split(",")]
    except ValueError:
        raise ValueError(f"--net-arch must look like 128,128, got {args.net_arch!r}") from None
    cfg = RLlibConfig(
        game=args.game,
        players=args.players,
        iterations=args.iterations,
        seed=args.seed,
        out=args.out or f"runs/rllib-{args.game}-{args.players}p",
        address=args.address,
        env_runners=args.env_runners,
        envs_per_runner=args.envs_per_runner,
        reward=args.reward,
        train_batch=args.train_batch,
        minibatch=args.minibatch,
        epochs=args.epochs,
        learning_rate=args.learning_rate,
        ent_coef=args.ent_coef,
        net_arch=net,
        checkpoint_every=args.checkpoint_every,
        eval_every=args.eval_every,
        eval_games=args.eval_games,
    )
    cfg.validate()
    return cfg


def main(argv: list[str] | None = None) -> int:
    """CLI entry point."""
    parser = build_parser()
    args = parser.parse_args(argv)
    try:
        cfg = config_from_args(args)
        check_out(cfg)
        import_ray()
    except (ValueError, RayNotInstalledError) as e:
        parser.error(str(e))
    summary = train(cfg)
    print(json.dumps(summary, indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main())
