"""Train a MaskablePPO agent on one of our games with self-play against frozen snapshots and bots.

    python -m training.learn.train --game village --players 2 --timesteps 300000 --out runs/v2
    python -m training.learn.train --resume runs/v2 --timesteps 600000   # continue to 600k in all

Writes into OUT: config.json, tb/ (TensorBoard), progress.csv (rolling win rates against each
opponent kind, the learning curve), pool/ (self-play snapshots), checkpoints/ (periodic
checkpoints), final.{zip,policy.npz,json} and summary.json (throughput, RULES_DATA_HASH).
"""

from __future__ import annotations

import argparse
import copy
import csv
import json
import sys
import time
from collections import defaultdict, deque
from dataclasses import asdict, dataclass, field, fields
from functools import partial
from pathlib import Path
from typing import Any

import numpy as np

from core.bots import bot_names
from core.compile import BatchCompile, start_batch_compile
from core.cores import FreeCores, Steady, threads_for_free
from core.registry import check_players, default_game, game_names, get_game
from core.returns import RETURN_KINDS
from core.rules_file import rules_file_data, rules_file_loaded, variant_record
from training.agents.checkpoint import (
    CheckpointError,
    check_sidecar,
    library_version,
    load_actor,
    load_checkpoint,
    looks_like_checkpoint,
    read_sidecar,
    save_checkpoint,
)
from training.arena.cli import OneLineParser
from training.arena.evaluate import rules_note
from training.arena.progress import EVERY_S, interactive, progress_line
from training.learn.env import SingleSeatEnv, parse_pool

VEC_KINDS = ("dummy", "subproc", "batch")
# games per vector step by default: the batch engine steps them all in one call; the others
# pay Python (and with subproc a process) per game
N_ENVS = {"batch": 256, "dummy": 8, "subproc": 8}
SELF = "self"  # the opponent-pool entry that stands for "a frozen past snapshot of the learner"
THREADS_STEADY = 3  # measurements in a row that must ask for a new thread count

# The generic default run, for a game whose spec names none (GameSpec.default_run; Village's and
# Troyes' own are sized to a few minutes of training on 2 CPU cores, docs/training.md). Without
# a `heuristic` bot its share goes to `random`. A game's default run may also set any of
# RUN_SETTINGS (TrainConfig fields); what it leaves out comes from here.
FALLBACK_RUN: dict[str, Any] = {
    "timesteps": 150_000,
    "opponents": "random:0.3,heuristic:0.2,self:0.5",
    "n_epochs": 2,
    "net_arch": [128, 128],
}
FALLBACK_RUN_NO_HEURISTIC = "random:0.5,self:0.5"
RUN_SETTINGS = ("timesteps", "opponents", "n_epochs", "net_arch")  # TrainConfig fields a run sets


def default_run(game_name: str) -> dict[str, Any]:
    """The default run of `game_name`: its spec's `default_run` over FALLBACK_RUN (timesteps,
    opponents, training settings); the opponent pool uses only bots the game has."""
    run = dict(FALLBACK_RUN)
    if "heuristic" not in bot_names(game_name):
        run["opponents"] = FALLBACK_RUN_NO_HEURISTIC
    run.update(get_game(game_name).GAME.spec.default_run)
    return run


@dataclass
class TrainConfig:
    """Everything a training run depends on (saved as OUT/config.json; --resume reads it)."""

    game: str = field(default_factory=default_game)
    players: int = 2
    timesteps: int | None = None  # None: the game's default run (default_run)
    seed: int = 0
    out: str | None = None  # None: runs/<game>-<players>p
    opponents: str | None = None  # None: the game's default run (default_run)
    reward: str = "margin"
    n_envs: int | None = None  # None: N_ENVS[vec] (games per vector step)
    vec: str = "batch"  # "batch" (BatchVecEnv), "dummy" (one process), "subproc" (one per env)
    n_steps: int = 32  # per env, per rollout (a rollout: n_envs x n_steps learner steps)
    batch_size: int = 2048
    n_epochs: int | None = None  # None: the game's default run (default_run)
    learning_rate: float = 1e-3
    gamma: float = 0.997
    gae_lambda: float = 0.95
    ent_coef: float = 0.01
    net_arch: list[int] | None = None  # None: the game's default run (default_run)
    pool_size: int = 8  # most recent snapshots the "self" opponents are drawn from
    snapshot_every: int = 100_000
    checkpoint_every: int = 500_000
    device: str = "auto"
    init_from: str | None = None  # start from this checkpoint's weights (then count on from it)
    rules: str | None = None  # a rules-data override file (a variant) the run trains under
    minutes: float | None = None  # a wall-clock budget: stop after it even before --timesteps
    torch_threads: int = 2  # torch threads of the PPO updates (rollouts use one; see train)
    engine_threads: int = 2  # threads of the batch engine's bots (--vec batch; BatchVecEnv)
    adapt_threads: bool = True  # fewer of those threads while other processes keep cores busy
    progress_bar: bool = True
    tensorboard: bool = True
    # how the learner is built (benchmarks.learn turns these off to time the settings today's
    # defaults replaced; no command-line flag): training.learn.sb3_parts' policy and buffer (False:
    # sb3-contrib's own), compiled bots playing every slot in one call (False: one at a time),
    # torch's checks of every distribution's arguments (see train)
    sb3_parts: bool = True
    batched_bots: bool = True
    validate_distributions: bool = False

    def __post_init__(self) -> None:
        if self.n_envs is None:
            self.n_envs = N_ENVS.get(self.vec, N_ENVS["dummy"])
        if self.out is None:
            self.out = f"runs/{self.game}-{self.players}p"
        if any(getattr(self, k) is None for k in RUN_SETTINGS):
            run = default_run(self.game)  # an unknown game: validate() says so
            for k in RUN_SETTINGS:
                if getattr(self, k) is None:
                    setattr(self, k, copy.deepcopy(run[k]))

    def validate(self) -> None:
        """Raise ValueError with a clear message for any bad setting."""
        game = get_game(self.game)
        check_players(game, self.players)
        if self.timesteps <= 0:
            raise ValueError(f"--timesteps must be positive, got {self.timesteps}")
        if self.minutes is not None and not 0 < self.minutes <= 7 * 24 * 60:
            raise ValueError(f"--minutes must be in (0, 10080], got {self.minutes:g}")
        if self.reward not in RETURN_KINDS:
            raise ValueError(f"--reward must be one of {RETURN_KINDS}, got {self.reward!r}")
        if self.vec not in VEC_KINDS:
            raise ValueError(f"--vec must be one of {VEC_KINDS}, got {self.vec!r}")
        for name in (
            "n_envs",
            "n_steps",
            "torch_threads",
            "engine_threads",
            "batch_size",
            "n_epochs",
            "pool_size",
            "snapshot_every",
            "checkpoint_every",
        ):
            if getattr(self, name) <= 0:
                raise ValueError(f"--{name.replace('_', '-')} must be positive")
        if self.device not in ("auto", "cpu") and not self.device.startswith("cuda"):
            raise ValueError(f"--device must be auto, cpu or cuda[:N], got {self.device!r}")
        if not self.net_arch or any(int(h) <= 0 for h in self.net_arch):
            raise ValueError("--net-arch needs positive layer widths, e.g. 128,128")
        if self.rules is not None:
            rules_file_data(self.rules, game.NAME)  # a bad file: one line naming the key
            if self.vec == "subproc":
                raise ValueError(
                    "--rules needs --vec batch or dummy (subprocess envs would play the game's "
                    "own rules data)"
                )
        if self.init_from is not None:  # under --rules: a start from other rules data
            any_rules = self.rules is not None
            check_sidecar(
                read_sidecar(self.init_from),
                game,
                self.players,
                where=f"--init-from {self.init_from}",
                any_rules=any_rules,
            )
            arrays, _meta = load_actor(self.init_from, game, any_rules=any_rules)
            hidden = [int(arrays[f"W{i}"].shape[0]) for i in range(len(arrays["activations"]))]
            if hidden != [int(h) for h in self.net_arch]:
                raise ValueError(
                    f"--init-from {self.init_from} has hidden layers "
                    f"{','.join(map(str, hidden))}, the run {','.join(map(str, self.net_arch))}: "
                    f"pass --net-arch {','.join(map(str, hidden))}"
                )
        pool = parse_pool(self.opponents)
        bots = bot_names(self.game)
        for spec, _w in pool:
            if spec != SELF and spec not in bots:
                if not looks_like_checkpoint(spec):
                    raise ValueError(
                        f"--opponents: {spec!r} is not 'self', a bot ({', '.join(bots)}) or a "
                        "checkpoint path"
                    )


def resolve_device(device: str) -> str:
    """ "auto" -> "cuda" when a GPU is present, else "cpu"."""
    if device != "auto":
        return device
    import torch

    return "cuda" if torch.cuda.is_available() else "cpu"


def _make_env(game: str, players: int, reward: str, opponents: list[tuple[str, float]]):
    return SingleSeatEnv(game, players, opponents, reward_kind=reward, on_illegal="raise")


def opponent_pool(cfg: TrainConfig, snapshots: list[str]) -> list[tuple[str, float]]:
    """The env's weighted pool: bots and checkpoints as given, "self" spread over snapshots."""
    pool: list[tuple[str, float]] = []
    for spec, w in parse_pool(cfg.opponents):
        if spec == SELF:
            recent = snapshots[-cfg.pool_size :]
            pool += [(s, w / len(recent)) for s in recent] if recent else []
        else:
            pool.append((spec, w))
    if not pool or sum(w for _s, w in pool) <= 0:
        raise ValueError(f"opponent pool {cfg.opponents!r} leaves no opponent with weight > 0")
    return pool


def opponent_kind(name: str, bots: list[str]) -> str:
    """Label of an opponent for the learning curve: a bot name, or "self" for a snapshot."""
    return name if name in bots else SELF


class _SelfPlay:
    """The hooks of the run's SB3 callback (`_self_play_callback` puts them on SB3's
    BaseCallback, imported only when training): snapshots, checkpoints, opponent-pool updates
    and the learning curve (progress.csv)."""

    def __init__(self, cfg: TrainConfig, run: Path, state: dict[str, Any]):
        super().__init__()
        self.cfg, self.run, self.state = cfg, run, state
        self.game = get_game(cfg.game)
        self.bots = bot_names(cfg.game)
        self.windows: dict[str, deque] = defaultdict(lambda: deque(maxlen=200))
        self.episodes = 0
        self.t0 = time.time()
        self.steps0 = 0
        # the cores other processes leave free, read at each rollout's end (cores.py)
        self.free = FreeCores() if cfg.adapt_threads else None
        self.threads = (cfg.torch_threads, cfg.engine_threads)
        # a thread count changes (and is said) only when the measurement holds it for
        # three rollouts in a row
        self.steady = Steady(self.threads, runs=THREADS_STEADY)
        self.stopped_by = "timesteps"
        self.lineage: dict[str, Any] = {}  # the sidecars' init and rules_file (train)

    def _update_pool(self) -> None:
        snaps = [str(self.run / p) for p in self.state["snapshots"]]
        self.training_env.env_method("set_opponents", opponent_pool(self.cfg, snaps))

    def _save_state(self) -> None:
        (self.run / "state.json").write_text(json.dumps(self.state, indent=2))

    def _snapshot(self) -> None:
        n = self.num_timesteps
        path = save_checkpoint(
            self.model,
            self.run / "pool" / f"snap_{n:010d}",
            self.game,
            self.cfg.players,
            {"kind": "snapshot"},
            with_zip=False,
        )
        self.state["snapshots"].append(str(path.relative_to(self.run)))
        self.state["last_snapshot"] = n
        self._update_pool()
        self._save_state()

    def checkpoint(self, name: str | None = None) -> Path:
        n = self.num_timesteps
        path = save_checkpoint(
            self.model,
            self.run / "checkpoints" / (name or f"step_{n:010d}"),
            self.game,
            self.cfg.players,
            {"kind": "checkpoint", "config": asdict(self.cfg), **self.lineage},
        )
        self.state["latest_checkpoint"] = str(path.relative_to(self.run))
        self.state["last_checkpoint"] = n
        self._save_state()
        return path

    def _on_training_end(self) -> None:
        if self.cfg.progress_bar and not interactive() and hasattr(self, "_last_row"):
            line = progress_line(
                "train", self.num_timesteps, self.cfg.timesteps, "step", self._t0_perf
            )
            print(f"{line}; done", file=sys.stderr, flush=True)

    def _on_training_start(self) -> None:
        self.t0, self.steps0 = time.time(), self.num_timesteps
        self._t0_perf = time.perf_counter()
        if not self.state["snapshots"]:
            self._snapshot()  # the untrained policy is the first self-play opponent
        else:
            self._update_pool()

    def _on_step(self) -> bool:
        for info in self.locals.get("infos", []):
            out = info.get("outcome")
            if out is None:
                continue
            kinds = sorted({opponent_kind(o, self.bots) for o in out.get("opponents", ())})
            # 1 win, 1/k for a win shared by k, 0 loss (a VecEnv without win_share: 2p rule)
            win = out.get("win_share", (out["win_loss"] + 1.0) / 2.0)
            kinds = kinds or ["mixed"]
            self.windows["+".join(kinds)].append(win)
            self.windows["all"].append(win)
            self.episodes += 1
        n = self.num_timesteps
        if n - self.state["last_snapshot"] >= self.cfg.snapshot_every:
            self._snapshot()
        if n - self.state["last_checkpoint"] >= self.cfg.checkpoint_every:
            self.checkpoint()
        if self.cfg.minutes is not None and time.time() - self.t0 >= 60 * self.cfg.minutes:
            self.stopped_by = "minutes"  # the rollout under way is not trained on
            return False
        return True

    def _on_rollout_start(self) -> None:
        # Rollouts interleave torch's small forward passes with the compiled engine: a
        # second torch thread there only waits for work. The PPO update's minibatches are
        # large matrix products, where it pays (about 1.8x on 2 cores).
        import torch

        torch.set_num_threads(1)

    def _choose_threads(self) -> None:
        """The threads of the next update and rollout: the configured ones, or as many as the
        cores other processes left free over the last rollouts and updates (at least one),
        changed once THREADS_STEADY measurements in a row ask for the same new count."""
        most = (self.cfg.torch_threads, self.cfg.engine_threads)
        if self.free is None:
            return
        free = self.free.update()
        if free is None:
            return
        threads = self.steady.propose(tuple(threads_for_free(free, k) for k in most))
        if threads != self.threads:
            print(
                f"note: other processes keep about {self.free.cores - free:.1f} of "
                f"{self.free.cores} cores busy: the PPO updates run on {threads[0]} thread(s), "
                f"the bots' loop on {threads[1]} (--fixed-threads keeps {most[0]} and "
                f"{most[1]})",
                file=sys.stderr,
                flush=True,
            )
            self.threads = threads
        env = self.training_env
        while hasattr(env, "venv"):  # VecMonitor around BatchVecEnv
            env = env.venv
        engine = getattr(env, "engine", None)
        if engine is not None and hasattr(engine, "threads"):
            engine.threads = threads[1]

    def _on_rollout_end(self) -> None:
        import torch

        self._choose_threads()
        torch.set_num_threads(self.threads[0])  # the update that follows
        row = {
            "timesteps": self.num_timesteps,
            "episodes": self.episodes,
            "elapsed_s": round(time.time() - self.t0, 1),
            "steps_per_s": round(
                (self.num_timesteps - self.steps0) / max(time.time() - self.t0, 1e-9), 1
            ),
            "threads": f"{self.threads[0]}/{self.threads[1]}",  # updates / bots' loop
        }
        for kind, win in sorted(self.windows.items()):
            if win:
                rate = float(np.mean(win))
                row[f"win_rate_vs_{kind}"] = round(rate, 4)
                self.logger.record(f"selfplay/win_rate_vs_{kind}", rate)
        self._last_row = row
        self._rollouts = getattr(self, "_rollouts", 0) + 1
        if self.cfg.progress_bar and not interactive():  # a log: a clean line now and then
            self._progress_line(row)
        self._append_progress(row)

    def _progress_line(self, row: dict[str, Any]) -> None:
        """A line on stderr, at most every EVERY_S seconds: the progress, the speed and the
        rolling win rates of the learning curve's `row`."""
        now = time.time()
        if now - getattr(self, "_last_line", 0.0) >= EVERY_S:
            self._last_line = now
            # the first rollout has had no update yet: its rate would promise far too
            # little time, so the time left is estimated from the second rollout on
            total = self.cfg.timesteps if self._rollouts > 1 else None
            line = progress_line("train", self.num_timesteps, total, "step", self._t0_perf)
            if total is None:
                line += " (time left: after the first update)"
            rates = ", ".join(
                f"{k.removeprefix('win_rate_vs_')} {v:.2f}"
                for k, v in sorted(row.items())
                if k.startswith("win_rate_vs_")
            )
            print(
                f"{line}; {row['steps_per_s']} steps/s; win rate vs {rates or '-'}",
                file=sys.stderr,
                flush=True,
            )

    def _append_progress(self, row: dict[str, Any]) -> None:
        """The learning curve's `row` appended to progress.csv (rewritten whole: a row may bring
        a column the earlier ones lack)."""
        path = self.run / "progress.csv"
        rows = []
        if path.exists():
            with open(path, newline="") as f:
                rows = list(csv.DictReader(f))
        rows.append({k: str(v) for k, v in row.items()})
        cols = list(dict.fromkeys(k for r in rows for k in r))
        with open(path, "w", newline="") as f:
            w = csv.DictWriter(f, fieldnames=cols)
            w.writeheader()
            w.writerows(rows)


def _self_play_callback():
    """The run's SB3 callback class: _SelfPlay's hooks on SB3's BaseCallback."""
    from stable_baselines3.common.callbacks import BaseCallback

    class SelfPlayCallback(_SelfPlay, BaseCallback):
        """Snapshots, checkpoints, opponent-pool updates and the learning curve (progress.csv)."""

    return SelfPlayCallback


def train(cfg: TrainConfig, resume: bool = False) -> dict[str, Any]:
    """Run (or resume) training as configured; returns the summary written to OUT/summary.json.
    With `cfg.rules` the whole run is under that rules variant (loaded for it, unloaded after;
    every checkpoint's RULES_DATA_HASH is the variant's, its config names the file)."""
    cfg.validate()
    lineage = {}  # what every checkpoint records of the run's start and rules variant
    if cfg.rules:
        lineage["rules_file"] = variant_record(cfg.rules, cfg.game)
    if cfg.init_from:
        lineage["init"] = parent_record(cfg.init_from)
    with rules_file_loaded(cfg.rules, cfg.game):
        return _run(cfg, resume, lineage)


def parent_record(path: str) -> dict[str, Any]:
    """The checkpoint a run starts from (--init-from): its path, its actor's SHA-256 (the
    sidecar's digest of .policy.npz), player count, rules data hash and steps."""
    meta = read_sidecar(path)
    return {
        "path": str(path),
        "sha256": (meta.get("files") or {}).get(".policy.npz"),
        "players": meta.get("players"),
        "rules_data_hash": meta.get("rules_data_hash"),
        "num_timesteps": meta.get("num_timesteps"),
    }


def _run(cfg: TrainConfig, resume: bool, lineage: dict) -> dict[str, Any]:
    from threadpoolctl import threadpool_limits

    cfg.validate()  # again under the variant: what the run starts from is checked against it
    # On a cold compile cache, what the first step needs compiles in two processes meanwhile.
    compiling = None
    if cfg.vec == "batch":
        compiling = start_batch_compile(cfg.game)
    import torch.distributions

    # torch checks every distribution's arguments when it builds one: MaskablePPO builds one per
    # vector step and per minibatch, and the checks cost as much as the sampling. The masks and
    # logits come from our own code, so the checks are off while training.
    validate = torch.distributions.Distribution._validate_args
    threads = torch.get_num_threads()
    torch.distributions.Distribution.set_default_validate_args(cfg.validate_distributions)
    try:
        # numpy's BLAS gets one thread: the frozen snapshots' forward passes during rollouts are
        # tiny matrix products, and a second OpenBLAS thread competing with torch on a 2-core box
        # made a Troyes --vec batch run 1.7x slower (248 vs 412 env steps/s, 2026-11-30).
        with threadpool_limits(limits=1, user_api="blas"):
            return _train(cfg, resume, compiling, lineage)
    finally:
        if compiling is not None:
            compiling.stop()
        torch.distributions.Distribution.set_default_validate_args(validate)
        torch.set_num_threads(threads)


def _train(
    cfg: TrainConfig, resume: bool, compiling: BatchCompile | None, lineage: dict
) -> dict[str, Any]:
    if not resume and (Path(cfg.out) / "state.json").exists():
        raise ValueError(
            f"{cfg.out} already holds a training run; use --resume {cfg.out} or another --out"
        )
    # what training imports, up front: a missing extra fails before anything is written
    import sb3_contrib  # noqa: F401
    import stable_baselines3.common.vec_env  # noqa: F401
    import torch

    import training.learn.sb3_parts  # noqa: F401

    torch.set_num_threads(1)  # rollouts: one thread (SelfPlayCallback switches for the updates)
    game = get_game(cfg.game)
    run = Path(cfg.out)
    device = resolve_device(cfg.device)
    run.mkdir(parents=True, exist_ok=True)
    state_path = run / "state.json"
    if resume:
        state = json.loads(state_path.read_text())
    else:
        state = {
            "snapshots": [],
            "last_snapshot": 0,
            "last_checkpoint": 0,
            "latest_checkpoint": None,
        }
    (run / "config.json").write_text(json.dumps(asdict(cfg), indent=2))
    venv = _vec_env(cfg, run, compiling)
    tb = str(run / "tb") if cfg.tensorboard else None
    if resume:
        latest = state.get("latest_checkpoint")
        if not latest:
            raise CheckpointError(f"{run}: nothing to resume (no checkpoint recorded)")
        model, _meta = load_checkpoint(run / latest, game, cfg.players, env=venv, device=device)
        model.tensorboard_log = tb
    else:
        model = _new_model(cfg, game, venv, device, tb)
    if tb is None:
        model.set_logger(silent_logger())
    if not resume:
        state["last_snapshot"] = state["last_checkpoint"] = int(model.num_timesteps)
    remaining = _remaining_steps(cfg, model)
    cb = _self_play_callback()(cfg, run, state)
    cb.lineage = lineage
    t0 = time.time()
    steps0 = model.num_timesteps
    model.learn(
        total_timesteps=remaining,
        callback=cb,
        progress_bar=cfg.progress_bar and interactive(),  # else periodic lines (callback)
        reset_num_timesteps=not (resume or cfg.init_from),
        tb_log_name="ppo",
    )
    wall = time.time() - t0
    cb.checkpoint()
    final = save_checkpoint(
        model,
        run / "final",
        game,
        cfg.players,
        {"kind": "final", "config": asdict(cfg), **lineage},
    )
    venv.close()
    summary = _summary(cfg, game, model, steps0, wall, cb.stopped_by, device, final)
    (run / "summary.json").write_text(json.dumps(summary, indent=2))
    return summary


def _vec_env(cfg: TrainConfig, run: Path, compiling: BatchCompile | None):
    """The run's vectorised env (cfg.vec: the compiled batch engine, subprocesses or one
    process), playing the pool's bots until the first snapshot joins; monitored into
    monitor.csv."""
    from stable_baselines3.common.vec_env import DummyVecEnv, SubprocVecEnv, VecMonitor

    bots_only = [(s, w) for s, w in parse_pool(cfg.opponents) if s != SELF] or [("random", 1.0)]
    fns = [
        partial(_make_env, cfg.game, cfg.players, cfg.reward, bots_only) for _ in range(cfg.n_envs)
    ]
    if cfg.vec == "batch":  # B games in the compiled batch engine (core.batch, DESIGN D8)
        from training.learn.batch_vec_env import BatchVecEnv  # imports SB3

        if compiling is not None:
            compiling.wait()
        venv = BatchVecEnv(
            cfg.game,
            cfg.n_envs,
            cfg.players,
            bots_only,
            cfg.reward,
            cfg.seed,
            batched_bots=cfg.batched_bots,
            threads=cfg.engine_threads,
        )
    elif cfg.vec == "subproc" and cfg.n_envs > 1:
        venv = SubprocVecEnv(fns)
    else:
        venv = DummyVecEnv(fns)
    return VecMonitor(venv, str(run / "monitor.csv"))


def _new_model(cfg: TrainConfig, game, venv, device: str, tb: str | None):
    """A new MaskablePPO model as configured (seeded), with the weights and step count of
    cfg.init_from where the run starts from a checkpoint (this run's settings, a fresh
    optimiser)."""
    import torch
    from sb3_contrib import MaskablePPO

    from training.learn.sb3_parts import FlatRolloutBuffer, MaskedPolicy

    torch.manual_seed(cfg.seed)
    model = MaskablePPO(
        MaskedPolicy if cfg.sb3_parts else "MlpPolicy",
        venv,
        rollout_buffer_class=FlatRolloutBuffer if cfg.sb3_parts else None,
        learning_rate=cfg.learning_rate,
        n_steps=cfg.n_steps,
        batch_size=cfg.batch_size,
        n_epochs=cfg.n_epochs,
        gamma=cfg.gamma,
        gae_lambda=cfg.gae_lambda,
        ent_coef=cfg.ent_coef,
        seed=cfg.seed,
        device=device,
        tensorboard_log=tb,
        verbose=0,
        policy_kwargs={"net_arch": {"pi": list(cfg.net_arch), "vf": list(cfg.net_arch)}},
    )
    if cfg.init_from:  # its weights and step count; this run's settings and a fresh optimiser
        start, meta = load_checkpoint(
            cfg.init_from, game, cfg.players, device=device, any_rules=cfg.rules is not None
        )
        try:
            model.policy.load_state_dict(start.policy.state_dict())
        except RuntimeError as e:  # a value network unlike the policy network
            first = str(e).strip().splitlines()[0]
            raise ValueError(
                f"--init-from {cfg.init_from}: its networks do not fit: {first}"
            ) from None
        model.num_timesteps = int(start.num_timesteps)
        if meta.get("players") != cfg.players:
            print(
                f"note: --init-from {cfg.init_from} was trained at {meta.get('players')} "
                f"players; training on at {cfg.players}",
                file=sys.stderr,
            )
    return model


def _remaining_steps(cfg: TrainConfig, model) -> int:
    """The steps left to cfg.timesteps (a ValueError where none are); a note on stderr where
    whole rollouts take the run beyond it."""
    remaining = cfg.timesteps - model.num_timesteps
    if remaining <= 0:
        raise ValueError(
            f"--timesteps {cfg.timesteps} is not beyond the {model.num_timesteps} "
            "already trained in this run"
        )
    rollout = cfg.n_envs * cfg.n_steps
    planned = -(-remaining // rollout) * rollout  # MaskablePPO collects whole rollouts
    if planned != remaining:
        print(
            f"note: --timesteps {cfg.timesteps}: training collects whole rollouts of "
            f"{cfg.n_envs} envs x {cfg.n_steps} steps = {rollout} steps, so this run trains "
            f"{planned} steps, to {model.num_timesteps + planned} in all",
            file=sys.stderr,
        )
    return remaining


def _summary(
    cfg: TrainConfig,
    game,
    model,
    steps0: int,
    wall: float,
    stopped_by: str,
    device: str,
    final: Path,
) -> dict[str, Any]:
    """summary.json of a run: the steps trained (in all and in this call, from `steps0`) in
    `wall` seconds, why it stopped, the final checkpoint and the rules data."""
    summary = {
        "game": cfg.game,
        "players": cfg.players,
        "timesteps": int(model.num_timesteps),
        "timesteps_requested": int(cfg.timesteps),
        "trained_this_call": int(model.num_timesteps - steps0),
        "wall_s": round(wall, 1),
        "stopped_by": stopped_by,
        "env_steps_per_s": round((model.num_timesteps - steps0) / wall, 1),
        "device": device,
        "final_checkpoint": str(final),
        "rules_data_hash": game.RULES_DATA_HASH,
        "library_version": library_version(),
        "note": rules_note(game),
    }
    if stopped_by == "minutes":
        summary["notice"] = (
            f"stopped by --minutes {cfg.minutes:g} before --timesteps: how far it got depends on "
            "the machine's speed and load"
        )
    return summary


def silent_logger():
    """An SB3 logger that writes nothing: without one, every `learn` call of a model with no
    TensorBoard folder creates an empty SB3-<date> folder in the system temp directory."""
    from stable_baselines3.common.logger import Logger

    return Logger(folder=None, output_formats=[])


def _defaults(key: str) -> str:
    return "; ".join(f"{g} {default_run(g)[key]}" for g in game_names())


def build_parser() -> argparse.ArgumentParser:
    """The command-line interface of `python -m training.learn.train`."""
    d = TrainConfig()
    p = OneLineParser(
        prog="python -m training.learn.train",
        description=__doc__,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    p.add_argument("--game", choices=game_names(), help=f"default {d.game}")
    p.add_argument("--players", type=int, help=f"2-4, default {d.players}")
    p.add_argument(
        "--timesteps",
        type=int,
        help=f"total learner steps, default per game: {_defaults('timesteps')}",
    )
    p.add_argument("--seed", type=int, help=f"default {d.seed}")
    p.add_argument("--out", help="output folder, default runs/<game>-<players>p")
    p.add_argument("--resume", metavar="DIR", help="continue the run in DIR (reads its config)")
    p.add_argument(
        "--opponents",
        help=f"weighted pool, default per game: {_defaults('opponents')}; entries are "
        "bot names, checkpoint paths or 'self' (frozen past snapshots)",
    )
    p.add_argument("--reward", choices=RETURN_KINDS, help=f"returns kind, default {d.reward}")
    p.add_argument(
        "--n-envs",
        type=int,
        help="games per vector step, default "
        + ", ".join(f"{n} with --vec {v}" for v, n in N_ENVS.items()),
    )
    p.add_argument(
        "--vec",
        choices=VEC_KINDS,
        help=f"default {d.vec}: the compiled batch engine (docs/training.md compares the three)",
    )
    p.add_argument("--n-steps", type=int, help=f"rollout steps per env, default {d.n_steps}")
    p.add_argument("--batch-size", type=int, help=f"default {d.batch_size}")
    p.add_argument(
        "--n-epochs", type=int, help=f"epochs per update, default per game: {_defaults('n_epochs')}"
    )
    p.add_argument("--learning-rate", type=float, help=f"default {d.learning_rate}")
    p.add_argument("--ent-coef", type=float, help=f"default {d.ent_coef}")
    p.add_argument(
        "--net-arch",
        help="hidden layer widths, default per game: "
        + "; ".join(f"{g} {','.join(map(str, default_run(g)['net_arch']))}" for g in game_names()),
    )
    p.add_argument("--pool-size", type=int, help=f"snapshots kept in play, default {d.pool_size}")
    p.add_argument("--snapshot-every", type=int, help=f"default {d.snapshot_every}")
    p.add_argument("--checkpoint-every", type=int, help=f"default {d.checkpoint_every}")
    p.add_argument(
        "--init-from",
        metavar="CKPT",
        help="start from a checkpoint's weights (--timesteps counts on from it)",
    )
    p.add_argument(
        "--rules",
        metavar="FILE",
        help="train under this rules variant (docs/rules_data.md); with --init-from, a fine-tune "
        "of a checkpoint trained under other rules data",
    )
    p.add_argument(
        "--minutes",
        type=float,
        help="a wall-clock budget: stop after this many minutes even before --timesteps (how far "
        "it gets then depends on the machine; the summary says so)",
    )
    p.add_argument("--device", help="auto (GPU when present), cpu or cuda; default auto")
    p.add_argument(
        "--torch-threads",
        type=int,
        help=f"torch CPU threads of the PPO updates (rollouts use one), default {d.torch_threads}",
    )
    p.add_argument(
        "--engine-threads",
        type=int,
        help=f"threads the batch engine shares its bot opponents' decisions among (--vec batch), "
        f"default {d.engine_threads}; the other engine loops run on one",
    )
    p.add_argument(
        "--fixed-threads",
        action="store_true",
        help="keep --torch-threads and --engine-threads even while other processes keep the "
        "cores busy (by default the trainer then runs those loops on fewer threads)",
    )
    p.add_argument("--no-progress", action="store_true", help="no progress bar")
    p.add_argument("--no-tensorboard", action="store_true", help="no TensorBoard logs")
    return p


def config_from_args(args: argparse.Namespace) -> tuple[TrainConfig, bool]:
    """(config, resume?) from parsed arguments; --resume starts from the run's saved config."""
    names = {f.name for f in fields(TrainConfig)}
    given = {k: v for k, v in vars(args).items() if k in names and v is not None}
    if args.net_arch is not None:
        try:
            given["net_arch"] = [int(x) for x in args.net_arch.split(",")]
        except ValueError:
            raise ValueError(f"--net-arch must look like 128,128, got {args.net_arch!r}") from None
    if args.resume:
        run = Path(args.resume)
        if not (run / "config.json").exists() or not (run / "state.json").exists():
            raise ValueError(
                f"--resume {run}: not a training run folder (no config.json/state.json)"
            )
        saved = json.loads((run / "config.json").read_text())
        allowed = {
            "timesteps",
            "minutes",
            "device",
            "torch_threads",
            "engine_threads",
            "progress_bar",
            "tensorboard",
        }
        clash = sorted(k for k in given if k not in allowed and given[k] != saved.get(k))
        if clash:
            raise ValueError(f"--resume keeps the run's settings; cannot change {', '.join(clash)}")
        cfg = TrainConfig(**{**saved, **given, "out": str(run)})
        state = json.loads((run / "state.json").read_text())
        if not state.get("latest_checkpoint"):
            raise ValueError(f"--resume {run}: no checkpoint recorded in state.json")
        done = read_sidecar(run / state["latest_checkpoint"]).get("num_timesteps", 0)
        if cfg.timesteps <= done:
            raise ValueError(
                f"--resume: --timesteps is the new total and must exceed the "
                f"{done} steps already trained (got {cfg.timesteps})"
            )
        return cfg, True
    cfg = TrainConfig(**given)
    if (Path(cfg.out) / "state.json").exists():
        raise ValueError(
            f"{cfg.out} already holds a training run; use --resume {cfg.out} or another --out"
        )
    return cfg, False


def main(argv: list[str] | None = None) -> int:
    """CLI entry point."""
    parser = build_parser()
    args = parser.parse_args(argv)
    try:
        cfg, resume = config_from_args(args)
        cfg.progress_bar = not args.no_progress
        cfg.adapt_threads = not args.fixed_threads
        cfg.tensorboard = not args.no_tensorboard
        cfg.validate()
    except (ValueError, CheckpointError) as e:
        parser.error(str(e))
    try:
        summary = train(cfg, resume=resume)
    except (ValueError, CheckpointError) as e:
        parser.error(str(e))
    print(json.dumps(summary, indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main())
