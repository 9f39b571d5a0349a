"""Expert iteration: a policy-value network trained on the games of the search it guides.

    python -m training.alphazero --game troyes --players 2 --hours 2 --out runs/az-troyes

With `--warm-games N` the run starts with iteration 0: N games of plain `mcts` (`--warm-mcts`
parameters over the game's defaults; training.alphazero.expert) whose examples (its root visit
shares, the final returns) fill the buffer and train the network for `--warm-steps` minibatches,
the first step of expert iteration, where the expert is tree search without a network. With
`--warm-agent SPEC` those games are played by that agent instead (e.g. the game's `heuristic`),
its choices the policy targets.

With `--init SPEC` the network starts from another one (`az`: the network shipped for
`--players`; `az:PATH` or PATH: a network or run folder), keeping its shape, e.g. a 4-player run
from the 2-player network; every checkpoint's sidecar records that parent (`init`: its folder,
SHA-256, player count, rules hash).

Each iteration plays `--games` self-play games with the current network inside the guided search
(training.alphazero.selfplay, in `--workers` processes, or Ray tasks with `--backend ray`:
training.alphazero.backends; with `--opponent SPEC`, the share
`--opponent-share` of them with the search in one seat and that agent in the others), adds their
examples to a replay buffer of the latest `--buffer` examples, and trains the network on minibatches
drawn from it: cross-entropy of the masked policy against the search's improved policy (the root's
visit shares, or with `--root gumbel` the Gumbel root's completed-Q policy), plus the squared error
of the seat values against the final returns (with `--qmix Q`: (1 - Q) x the final returns + Q x the
search's root values, training.alphazero.selfplay). Every iteration writes `checkpoints/iter_K/`
(the network, its torch and optimiser state, the sidecar with RULES_DATA_HASH); every `--eval-every`
iterations the network plays the ladder (`--ladder`, with the search and alone: tournaments stored
in the run's `ladder.sqlite`, win shares with 95% Wilson intervals and Elo against each ladder
agent, training.alphazero.ladder) and `curve.png` shows them against hours and games played;
`progress.json` gets a row per iteration (with the self-play jobs lost and played again) and
`games.jsonl` a line (each job's seeds, worker and attempts). The run stops after `--hours` of
wall-clock time or `--iterations`, whichever comes first, and writes `final/`. `--resume` goes on
from the latest iteration saved in `--out` (the replay buffer starts empty again).

With `--conditioned` the run trains one network for every player count of `--counts` and every
rules variant of the game's variant space: each group of `--variant-games` self-play games draws a
count and a variant, and the network reads the variant's rules features beside the observation;
with `--distil-games N` it first learns the networks shipped per count
(training.alphazero.conditioned). Its checkpoints record the space (`variant_space`) and the counts
(`players`, a list); `az:PATH` plays them under any rules data of the space.

Determinism: the self-play games of an iteration depend only on the seed, the iteration and the
network (the same with any number of workers); training draws its minibatches from a seeded
generator; torch's CPU kernels are deterministic on one machine. The wall-clock budget decides how
many iterations run, so a run stopped by `--hours` depends on the machine's speed.

Threads: on the CPU the minibatches of an iteration run on as many torch threads (at most
`TRAIN_THREADS`) as other processes left cores free during the previous iteration's minibatches
(core.cores; the first iteration on one), because a second thread that has to wait for
a busy core makes the steps several times slower (benchmarks/az_threads.py); each row of
progress.json says how many ran. `--fixed-threads` keeps `TRAIN_THREADS`. The thread count does
not change the trained weights (checked bit for bit on this network's shapes).
"""

from __future__ import annotations

import argparse
import json
import math
import sys
import time
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

import numpy as np

from core.cores import FreeCores, threads_for_free
from core.guided import GuidedConfig
from core.registry import check_players, get_game
from core.rules_file import rules_file_data, rules_file_loaded, variant_record
from core.search import SearchConfig
from core.variant_space import space_of
from training.agents.az_agent import (
    TORCH_STATE,
    load_network,
    per_count_name,
    write_network,
)
from training.agents.registry import make_agent
from training.alphazero import conditioned as cond
from training.alphazero import supervise
from training.alphazero.backends import make_backend
from training.alphazero.selfplay import FIELDS, Examples
from training.alphazero.supervise import resume_point
from training.arena.ray_backend import BACKENDS, WorkerLostError, check_backend

MAX_HOURS = 48.0
TRAIN_THREADS = 2  # the most torch threads of the minibatch steps on the CPU
DEVICES = ("auto", "cpu", "cuda")


def train_device(name: str, torch) -> str:
    """The torch device the network trains on: `auto` is cuda when torch sees one, else cpu;
    `cuda` without one is refused."""
    if name == "cuda" and not torch.cuda.is_available():
        raise ValueError("--device cuda, but torch sees no CUDA device (use auto or cpu)")
    if name == "auto":
        return "cuda" if torch.cuda.is_available() else "cpu"
    return name


@dataclass
class AZConfig:
    """The settings of an expert-iteration run (module docstring; `validate` checks them)."""

    game: str
    out: str
    players: int = 2
    hours: float = 1.0
    iterations: int = 0  # 0: as many as `hours` allows
    games: int = 16  # self-play games per iteration
    sims: int = 32  # simulations per self-play decision
    root: str = "puct"  # the self-play search's root: puct or gumbel (core.guided)
    m: int = 16  # actions a Gumbel root considers
    cscale: float = 0.1  # how much a Gumbel root trusts its Q-values over the logits
    explore: int = 20  # recorded decisions per game drawn from the policy target
    noise: float = 1.0  # Gumbel noise of the self-play root (its scale)
    mix: float = 0.5  # position evaluation's share in a new node's value
    qmix: float = 0.0  # the search's root values' share in the value target
    opponent: str = ""  # an agent spec some games of an iteration are played against
    opponent_share: float = 0.5  # the share of an iteration's games played against it
    c: float = 1.5
    opp: str = "tree"  # how the self-play search plays the other seats (core.guided)
    returns: str = "rank"
    hidden: tuple[int, ...] = (256, 256)
    buffer: int = 60_000
    batch: int = 256
    steps: int = 100  # minibatches per iteration
    lr: float = 1e-3
    weight_decay: float = 1e-4
    workers: int = 2
    device: str = "auto"  # where the network trains: auto (cuda when torch sees one), cpu, cuda
    eval_every: int = 5
    eval_games: int = 40
    eval_sims: int = 100
    ladder: tuple[str, ...] = ("heuristic", "mcts:iters=100", "mcts")
    warm_games: int = 0  # games of plain mcts to start the network from (iteration 0)
    warm_mcts: str = ""  # that mcts's parameters over the game's defaults
    warm_agent: str = ""  # or an agent spec that plays those games instead of mcts
    warm_steps: int = 2000  # minibatches on them before the first iteration
    init: str = ""  # a network to start from (its weights and shape), e.g. az:PATH or az
    seed: int = 0
    adapt_threads: bool = True  # fewer torch threads while other processes keep cores busy
    rules: str = ""  # a rules-data override file (a variant) the whole run plays under
    conditioned: bool = False  # one network over the variant space and `counts` (module doc)
    counts: tuple[int, ...] = ()  # the player counts a conditioned run draws from
    count_shares: tuple[float, ...] = ()  # how often each of `counts` is drawn (empty: evenly)
    own_share: float = 0.25  # the share of a conditioned run's groups at the game's own rules
    near_share: float = 0.5  # the share of its drawn variants near the defaults
    variant_games: int = 4  # self-play games per group (one count, one variant)
    distil_games: int = 0  # games per count of the shipped networks to learn first
    distil_steps: int = 2000  # minibatches on them

    def validate(self) -> None:
        game = get_game(self.game)
        check_players(game, self.players)
        if self.rules:  # a bad file is refused here, in one line naming the key
            rules_file_data(self.rules, game.NAME)

        def need(ok: bool, what: str) -> None:
            if not ok:
                raise ValueError(what)

        need(
            0 < self.hours <= MAX_HOURS, f"--hours must be in (0, {MAX_HOURS:g}], got {self.hours}"
        )
        need(self.iterations >= 0, f"--iterations must be >= 0, got {self.iterations}")
        need(self.warm_games >= 0 and self.warm_steps >= 0, "--warm-games, --warm-steps >= 0")
        SearchConfig.for_game(game, self.warm_mcts)  # its checks
        if self.warm_agent:
            need(not self.warm_mcts, "--warm-agent and --warm-mcts: give one of them")
            make_agent(self.warm_agent, game.NAME, self.players)  # names what is accepted
        need(0.0 <= self.qmix <= 1.0, f"--qmix must be in [0, 1], got {self.qmix}")
        need(
            0.0 <= self.opponent_share <= 1.0,
            f"--opponent-share must be in [0, 1], got {self.opponent_share}",
        )
        if self.opponent:
            make_agent(self.opponent, game.NAME, self.players)  # names what is accepted
        for key in ("games", "sims", "buffer", "batch", "steps", "workers", "eval_games"):
            need(getattr(self, key) >= 1, f"--{key.replace('_', '-')} must be >= 1")
        need(self.eval_every >= 0, "--eval-every must be >= 0 (0: no evaluation)")
        need(
            self.eval_every == 0 or self.eval_games % self.players == 0,
            f"--eval-games must be a multiple of --players ({self.players})",
        )
        self._validate_conditioned(game, need)
        need(self.explore >= 0 and self.noise >= 0, "--explore and --noise must be >= 0")
        need(math.isfinite(self.lr) and self.lr > 0, "--lr must be > 0")
        need(self.device in DEVICES, f"--device must be one of {', '.join(DEVICES)}")
        if self.device == "cuda":
            import torch

            train_device(self.device, torch)
        self.guided()  # GuidedConfig's checks
        need(all(h > 0 for h in self.hidden) and self.hidden, "--hidden needs positive widths")
        if self.init:
            _arrays, meta, _parent = init_network(self.init, game, self.players, bool(self.rules))
            hidden = tuple(int(h) for h in meta["network"]["hidden"])
            need(
                ("variant_space" in meta) == self.conditioned,
                f"--init {self.init}: "
                + (
                    "not a conditioned network (a --conditioned run starts from one, or from "
                    "--distil-games)"
                    if self.conditioned
                    else "a conditioned network: continue it with --conditioned"
                ),
            )
            need(
                hidden == tuple(self.hidden),
                f"--hidden {','.join(map(str, self.hidden))} differs from the --init network's "
                f"{','.join(map(str, hidden))} (a start from a network keeps its shape)",
            )

    def _validate_conditioned(self, game, need) -> None:
        if not self.conditioned:
            need(
                not self.distil_games and not self.counts,
                "--counts and --distil-games train a conditioned network: add --conditioned",
            )
            return
        need(bool(self.counts), "--conditioned needs --counts, e.g. 2,3,4")
        for n in self.counts:
            check_players(game, n)
        need(
            not self.rules,
            "--conditioned trains over the game's variant space; --rules (one variant) is for "
            "an ordinary run",
        )
        need(
            self.eval_every == 0,
            "a --conditioned run plays no ladder: --eval-every 0 (measure its checkpoints with "
            "vtrl tournament at each count)",
        )
        need(self.variant_games >= 1, "--variant-games must be >= 1")
        need(
            not self.count_shares
            or (
                len(self.count_shares) == len(self.counts)
                and all(x >= 0 for x in self.count_shares)
                and sum(self.count_shares) > 0
            ),
            f"--count-shares needs one share >= 0 per count of --counts "
            f"({len(self.counts)}), not all 0; got {','.join(map(str, self.count_shares))}",
        )
        need(
            self.distil_games >= 0 and self.distil_steps >= 0, "--distil-games, --distil-steps >= 0"
        )
        for key in ("own_share", "near_share"):
            v = getattr(self, key)
            need(0.0 <= v <= 1.0, f"--{key.replace('_', '-')} must be in [0, 1], got {v}")
        need(not self.warm_games, "--conditioned starts from --distil-games, not --warm-games")

    def guided(self, sims: int | None = None) -> GuidedConfig:
        return GuidedConfig(
            sims=self.sims if sims is None else sims,
            root=self.root,
            m=self.m,
            cscale=self.cscale,
            c=self.c,
            mix=self.mix,
            returns=self.returns,
            opp=self.opp,
        )


def init_network(
    spec: str, game, players: int, any_rules: bool = False
) -> tuple[dict[str, np.ndarray], dict[str, Any], dict[str, Any]]:
    """(arrays, sidecar, parent record) of the network `--init` names: `az` (the network shipped
    for `game` at `players`), `az:PATH` or `PATH` (a network or run folder), checked as any
    network that plays `game` (training.agents.az_agent.load_network: game, fingerprint,
    digests; with `any_rules`, a fine-tune under a rules variant, not its rules data); the
    parent record (its folder, SHA-256, player count, rules hash, iteration) goes into every
    checkpoint's sidecar."""
    from training.agents.az_agent import NETWORK, network_folder, shipped_network
    from training.agents.checkpoint import CheckpointError, file_sha256, split_any_rules

    path = spec[len("az:") :] if spec.startswith("az:") else ("" if spec == "az" else spec)
    path, _sep, rest = path.partition(",")
    try:
        rest, flagged = split_any_rules(rest)
    except ValueError as e:
        raise ValueError(f"--init {spec}: {e}") from None
    if rest:
        raise ValueError(f"--init {spec}: takes a network (az, az:PATH, PATH) and rules=any only")
    any_rules = any_rules or flagged
    try:
        folder = network_folder(path, game) if path else shipped_network(game, players)
        arrays, meta = load_network(folder, game, players, any_rules)
    except CheckpointError as e:
        raise ValueError(f"--init {spec}: {e}") from None
    want = {"obs_size": game.OBS_SIZE, "num_actions": game.NUM_ACTIONS}
    got = {k: meta["network"].get(k) for k in want}
    if got != want:
        raise ValueError(f"--init {spec}: its network has {got}, {game.NAME} needs {want}")
    parent = {
        "spec": spec,
        "folder": str(folder),
        "sha256": file_sha256(folder / NETWORK),
        "players": meta.get("players"),
        "rules_data_hash": meta.get("rules_data_hash"),
        "iteration": meta.get("iteration", (meta.get("trained_from") or {}).get("iteration")),
    }
    return arrays, meta, parent


class ReplayBuffer:
    """The latest `capacity` examples, in a ring; with `features` > 0 each also keeps the rules
    features of the game it came from (a conditioned run)."""

    def __init__(self, capacity: int, game, seats: int, features: int = 0):
        self.capacity, self.size, self.head = int(capacity), 0, 0
        c = self.capacity
        self.obs = np.zeros((c, game.OBS_SIZE), np.float32)
        self.mask = np.zeros((c, game.NUM_ACTIONS), np.bool_)
        self.pi = np.zeros((c, game.NUM_ACTIONS), np.float32)
        self.z = np.zeros((c, seats), np.float32)
        self.zmask = np.zeros((c, seats), np.bool_)
        self.fields = FIELDS + (("feat",) if features else ())
        if features:
            self.feat = np.zeros((c, features), np.float32)

    def add(self, ex: Examples, feat: np.ndarray | None = None) -> None:
        """Add `ex` (and, in a conditioned buffer, `feat`: a row of features per example)."""
        if ("feat" in self.fields) != (feat is not None):
            raise ValueError("a conditioned buffer takes features with the examples, no other")
        for i in range(0, len(ex), self.capacity):
            n = min(len(ex) - i, self.capacity)
            idx = (self.head + np.arange(n)) % self.capacity
            for f in FIELDS:
                getattr(self, f)[idx] = getattr(ex, f)[i : i + n]
            if feat is not None:
                self.feat[idx] = feat[i : i + n]
            self.head = int((self.head + n) % self.capacity)
            self.size = min(self.capacity, self.size + n)

    def sample(self, rng: np.random.Generator, n: int) -> tuple[np.ndarray, ...]:
        idx = rng.integers(0, self.size, n)
        return tuple(getattr(self, f)[idx] for f in self.fields)


def resume_optimiser(opt, saved: dict, cfg: AZConfig) -> None:
    """Load the optimiser's saved moments, then apply this run's --lr and --weight-decay (a saved
    state carries the old ones, which would silently win)."""
    opt.load_state_dict(saved)
    for group in opt.param_groups:
        group["lr"], group["weight_decay"] = cfg.lr, cfg.weight_decay


def losses(net, batch, torch) -> tuple[Any, Any]:
    """(policy loss, value loss) of a minibatch: the cross-entropy of the masked softmax against
    the visit shares, the mean squared error of the values of the seats in play (a batch with a
    sixth array: the rules features a conditioned network reads)."""
    device = next(net.parameters()).device
    obs, mask, pi, z, zmask, *feat = (torch.from_numpy(x).to(device) for x in batch)
    logits, values = net(obs, *feat)
    logits = logits.masked_fill(~mask, -1e9)
    policy = -(pi * torch.log_softmax(logits, dim=1)).sum(dim=1).mean()
    err = (values - z) ** 2 * zmask
    value = err.sum() / zmask.sum().clamp(min=1)
    return policy, value


def train(
    cfg: AZConfig, resume: bool = False, out=None, backend: str = "process", address=None
) -> dict[str, Any]:
    """Run expert iteration (module docstring); returns the final summary. With `cfg.rules` the
    whole run (self-play, training, the ladder, every sidecar's RULES_DATA_HASH) is under that
    rules variant, loaded for the run and unloaded after it. `backend`, `address`: where the
    self-play games are played (training.alphazero.backends: local processes or Ray tasks); the
    run's examples and checkpoints do not depend on it."""
    cfg.validate()
    check_backend(backend, address)
    variant = variant_record(cfg.rules, cfg.game) if cfg.rules else None
    with rules_file_loaded(cfg.rules, cfg.game):
        return _train(cfg, resume, out, variant, (backend, address))


def _train(cfg: AZConfig, resume: bool, out, variant: dict | None, where) -> dict[str, Any]:
    import torch

    run = _Run(cfg, resume, out, variant, where, torch)
    try:
        if not resume:
            run.iteration_zero()
        while run.goes_on():
            run.iteration()
    finally:
        run.pool.close()
        torch.set_num_threads(run.threads_before)
    return run.finish()


class _Run:
    """An expert-iteration run under way (_train): its network and optimiser, replay buffer,
    self-play backend (`pool`, closed by _train), history and counters; each phase a method.
    `say` prints a line (or the caller's `out`)."""

    def __init__(self, cfg: AZConfig, resume: bool, out, variant: dict | None, where, torch):
        self.cfg, self.torch = cfg, torch
        self.say = out or (lambda line: print(line, flush=True))
        self.game = game = get_game(cfg.game)
        self.root = root = Path(cfg.out)
        root.mkdir(parents=True, exist_ok=True)
        torch.manual_seed(cfg.seed)
        self.space = space_of(game) if cfg.conditioned else None
        self.features = self.space.n_features if self.space is not None else 0
        parent, it0, spent0 = self._network(resume)
        self.lineage = {k: v for k, v in (("init", parent), ("rules_file", variant)) if v}
        (root / "config.json").write_text(json.dumps(asdict(cfg), indent=2))
        self.buf = ReplayBuffer(cfg.buffer, game, self.net.seats, self.features)
        self.rng = np.random.default_rng([cfg.seed, it0])
        self.pool = make_backend(
            where[0],
            cfg.workers,
            cfg.game,
            cfg.rules or None,
            where[1],
            (cfg.opponent, cfg.warm_agent),
        )
        history = self.history
        self.lost_total = int(history[-1].get("lost_total", 0)) if history else 0
        self.feats: list[np.ndarray] = []  # a conditioned run's rules features per example
        self.dropped: list[
            dict
        ] = []  # a conditioned iteration's jobs dropped for a game without end
        self.t0 = time.monotonic() - spent0
        self.deadline = self.t0 + cfg.hours * 3600
        self.it = it0
        self.games_played = int(history[-1]["games"]) if history else 0
        self.cpu = self.device == "cpu"
        self.free = FreeCores() if cfg.adapt_threads and self.cpu else None
        self.threads = 1 if self.free is not None else TRAIN_THREADS
        self.threads_before = torch.get_num_threads()  # given back when the run ends

    def _network(self, resume: bool) -> tuple[dict | None, int, float]:
        """The network and optimiser (new, from --init, or the latest iteration's with
        `resume`) on the training device, and the history so far; (the --init network's record,
        the iteration and the seconds the run had reached)."""
        from training.alphazero.net import PolicyValueNet, for_game

        cfg, game, torch = self.cfg, self.game, self.torch
        net = for_game(game, cfg.hidden, features=self.features)
        parent = None
        if cfg.init:  # its shape (validate checked --hidden) and weights; a fresh optimiser
            arrays0, meta0, parent = init_network(cfg.init, game, cfg.players, bool(cfg.rules))
            net = PolicyValueNet(**meta0["network"])
            net.load_arrays(arrays0)
            self.say(
                f"starting from {parent['folder']} (trained at {parent['players']} players, rules "
                f"data {parent['rules_data_hash']})"
            )
        if cfg.rules:
            self.say(f"under the rules variant {cfg.rules} (rules data {game.RULES_DATA_HASH})")
        opt = torch.optim.AdamW(net.parameters(), lr=cfg.lr, weight_decay=cfg.weight_decay)
        it0, spent0, self.history = 0, 0.0, []
        if resume:
            folder = resume_point(self.root)
            _arrays, meta = load_network(folder, game, cfg.players)
            state = torch.load(folder / TORCH_STATE, weights_only=True, map_location="cpu")
            net = PolicyValueNet(**meta["network"])
            net.load_state_dict(state["net"])
            parent = meta.get("init")
            opt = torch.optim.AdamW(net.parameters(), lr=cfg.lr, weight_decay=cfg.weight_decay)
            resume_optimiser(opt, state["opt"], cfg)
            it0, spent0 = int(meta["iteration"]), float(meta["seconds"])
            progress = self.root / "progress.json"
            self.history = json.loads(progress.read_text()) if progress.exists() else []
            self.say(f"resuming after iteration {it0} ({spent0 / 60:.1f} min)")
        self.device = train_device(cfg.device, torch)
        if self.device != "cpu":  # the optimiser's state follows its parameters
            net.to(self.device)
            opt = torch.optim.AdamW(net.parameters(), lr=cfg.lr, weight_decay=cfg.weight_decay)
            if resume:
                resume_optimiser(opt, state["opt"], cfg)
        self.net, self.opt = net, opt
        return parent, it0, spent0

    def played(self, it: int, kind: str, jobs: list, seeds_of) -> tuple[Examples, int]:
        """The jobs' examples and how many jobs were lost and played again; their provenance
        appended to games.jsonl. For a conditioned run's jobs, `feats` gets the rules features
        of each example."""
        parts, info = self.pool.map(kind, jobs)
        lost = sum(len(i.get("lost", [])) for i in info)
        self.lost_total += lost
        line = {
            "iteration": it,
            "backend": self.pool.name,
            "jobs": [
                {**i, "seeds": seeds_of(j), "examples": len(ex)}
                for j, i, ex in zip(jobs, info, parts, strict=True)
            ],
        }
        with (self.root / "games.jsonl").open("a") as f:
            f.write(json.dumps(line) + "\n")
        if self.space is not None:
            self.feats[:] = [
                np.tile(self.space.features_of(j.values), (len(ex), 1))
                for j, ex in zip(jobs, parts, strict=True)
            ]
        return Examples.concat(parts), lost

    def played_jobs(self, it: int, jobs: list) -> tuple[Examples, int]:
        """A conditioned run's jobs (objects), played: a job with a game without end
        (conditioned.EndlessGameError) is dropped and recorded in `dropped`, the rest played
        again; the run stops if none is left."""
        self.dropped.clear()
        while True:
            try:
                return self.played(it, "job", jobs, lambda j: j.seed_list())
            except cond.EndlessGameError as e:
                bad = [j for j in jobs if j.version == e.version]
                if not bad or len(bad) == len(jobs):
                    raise
                self.say(f"iteration {it}: {e}; its group is dropped")
                self.dropped.append(
                    {"players": bad[0].players, "values": e.values, "why": e.message}
                )
                jobs = [j for j in jobs if j.version != e.version]

    def add(self, ex: Examples) -> None:
        self.buf.add(ex, np.concatenate(self.feats) if self.space is not None else None)

    def fit(self, steps: int) -> tuple[float, float]:
        """`steps` minibatches from the replay buffer; the mean (policy, value) losses. On the
        CPU the next call's threads: as many as other processes left cores free meanwhile."""
        torch, net, opt, free = self.torch, self.net, self.opt, self.free
        if self.cpu:
            torch.set_num_threads(self.threads)
        if free is not None:
            free.update()  # the interval measured: these minibatches (the workers wait)
        net.train()
        pl = vl = 0.0
        for _ in range(steps):
            p_loss, v_loss = losses(net, self.buf.sample(self.rng, self.cfg.batch), torch)
            opt.zero_grad()
            (p_loss + v_loss).backward()
            opt.step()
            pl += p_loss.item() / steps
            vl += v_loss.item() / steps
        net.eval()
        if free is not None:
            left = free.update()
            if left is not None:
                self.threads = threads_for_free(left, TRAIN_THREADS)
        return pl, vl

    def iteration_zero(self) -> None:
        """Iteration 0 of a new run, where it has one: a conditioned run's distillation of the
        shipped networks, and the games of a warm start (plain mcts or --warm-agent)."""
        cfg, game = self.cfg, self.game
        if cfg.conditioned and cfg.distil_games:  # iteration 0: the teachers
            jobs = cond.distil_jobs(game, self.space, cfg, cond.teachers_of(game, cfg.counts))
            games = sum(len(j.seeds) for j in jobs)
            source = {"distil": {str(n): per_count_name(n) for n in cfg.counts}}
            self._iteration_zero("job", jobs, None, games, cfg.distil_steps, source)
        if cfg.warm_games:  # iteration 0: the network learns plain mcts's play
            seeds = [10**9 + cfg.seed * 1_000_003 + k for k in range(cfg.warm_games)]
            jobs = [
                (
                    cfg.game,
                    cfg.players,
                    cfg.warm_mcts,
                    cfg.explore,
                    cfg.returns,
                    cfg.warm_agent,
                    seeds[w :: cfg.workers],
                )
                for w in range(cfg.workers)
                if seeds[w :: cfg.workers]
            ]
            source = {"warm": cfg.warm_agent or f"mcts:{cfg.warm_mcts}"}
            seeds_of = lambda j: list(j[-1])  # noqa: E731
            self._iteration_zero("expert", jobs, seeds_of, cfg.warm_games, cfg.warm_steps, source)

    def _iteration_zero(
        self, kind: str, jobs: list, seeds_of, games: int, steps: int, source: dict
    ) -> None:
        """Iteration 0: the jobs' games (a warm start or distillation) fill the buffer, the
        network trains on them for `steps` minibatches, then the checkpoint and its row."""
        ts = time.monotonic()
        if kind == "job":
            ex, lost = self.played_jobs(0, jobs)
        else:
            ex, lost = self.played(0, kind, jobs, seeds_of)
        self.add(ex)
        self.games_played += games
        t_play = time.monotonic() - ts
        ts = time.monotonic()
        pl, vl = self.fit(steps)
        spent = time.monotonic() - self.t0
        row = {
            "iteration": 0,
            **source,
            "games": self.games_played,
            "examples": len(ex),
            "buffer": self.buf.size,
            "policy_loss": round(pl, 4),
            "value_loss": round(vl, 4),
            "play_s": round(t_play, 1),
            "train_s": round(time.monotonic() - ts, 1),
            "lost": lost,
            "lost_total": self.lost_total,
            "seconds": round(spent, 1),
        }
        if kind == "job" and self.dropped:
            row["dropped"] = list(self.dropped)
        self._checkpoint(row, 0, spent, bool(self.cfg.eval_every))

    def goes_on(self) -> bool:
        """Whether another iteration starts: time is left and --iterations is not reached."""
        cfg = self.cfg
        return time.monotonic() < self.deadline and (
            cfg.iterations == 0 or self.it < cfg.iterations
        )

    def _self_play_jobs(self, it: int) -> tuple[list, list]:
        """Iteration `it`'s self-play jobs, one per worker (a conditioned run's: one per group
        of games of a drawn count and variant), and the groups drawn."""
        cfg = self.cfg
        arrays = self.net.arrays()
        against = round(cfg.opponent_share * cfg.games) if cfg.opponent else 0
        seeds = [(cfg.seed * 1_000_003 + it * 10_007 + k, k < against) for k in range(cfg.games)]
        chunks = [seeds[w :: cfg.workers] for w in range(cfg.workers) if seeds[w :: cfg.workers]]
        if cfg.conditioned:  # a group of games per drawn count and variant
            groups = cond.draw_groups(
                self.space, cfg, it, cond.n_groups(cfg.games, cfg.variant_games)
            )
            return cond.variant_jobs(arrays, groups, cfg, it, seeds), groups
        jobs = [
            (
                cfg.game,
                cfg.players,
                arrays,
                cfg.guided(),
                cfg.explore,
                cfg.noise,
                cfg.qmix,
                cfg.opponent,
                it,
                c,
            )  # fmt: skip
            for c in chunks
        ]
        return jobs, []

    def iteration(self) -> None:
        """One iteration: its self-play games into the buffer, the minibatches on it, then the
        checkpoint and the row of progress.json (and the ladder every --eval-every)."""
        cfg = self.cfg
        self.it += 1
        it = self.it
        jobs, groups = self._self_play_jobs(it)
        ts = time.monotonic()
        if cfg.conditioned:
            ex, lost = self.played_jobs(it, jobs)
        else:
            ex, lost = self.played(it, "play", jobs, lambda j: [[s, bool(a)] for s, a in j[-1]])
        self.add(ex)
        self.games_played += cfg.games
        t_play = time.monotonic() - ts
        ts = time.monotonic()
        used = self.threads
        pl, vl = self.fit(cfg.steps)
        t_train = time.monotonic() - ts
        spent = time.monotonic() - self.t0
        row = {
            "iteration": it,
            "games": self.games_played,
            "examples": len(ex),
            "buffer": self.buf.size,
            "policy_loss": round(pl, 4),
            "value_loss": round(vl, 4),
            "play_s": round(t_play, 1),
            "train_s": round(t_train, 1),
            "threads": used if self.cpu else None,
            "lost": lost,
            "lost_total": self.lost_total,
            "seconds": round(spent, 1),
        }
        if groups:
            row["groups"] = [g.record() for g in groups]
        if cfg.conditioned and self.dropped:
            row["dropped"] = list(self.dropped)
        self._checkpoint(row, it, spent, bool(cfg.eval_every and it % cfg.eval_every == 0))

    def _checkpoint(self, row: dict[str, Any], it: int, spent: float, ladder: bool) -> None:
        """Iteration `it`'s checkpoint, its ladder where `ladder`, its `row` appended to
        progress.json (and curve.png redrawn after a ladder), the row said."""
        cfg, root = self.cfg, self.root
        folder = root / "checkpoints" / f"iter_{it:05d}"
        ck = _save(self.net, self.opt, self.game, cfg, folder, it, spent, self.lineage)
        if ladder:
            row["eval"] = _evaluate(cfg, ck, root)
        self.history.append(row)
        (root / "progress.json").write_text(json.dumps(self.history, indent=1))
        if "eval" in row:
            _curve(self.history, root, cfg, self.game)
        self.say(json.dumps(row))

    def finish(self) -> dict[str, Any]:
        """final/ and the run's summary (written to summary.json)."""
        cfg, root = self.cfg, self.root
        elapsed = time.monotonic() - self.t0
        final = _save(
            self.net, self.opt, self.game, cfg, root / "final", self.it, elapsed, self.lineage
        )
        summary = {
            "final": str(final),
            "iterations": self.it,
            "games": self.games_played,
            "seconds": round(time.monotonic() - self.t0, 1),
            "rules_data_hash": self.game.RULES_DATA_HASH,
        }
        (root / "summary.json").write_text(json.dumps(summary, indent=2))
        return summary


def _save(net, opt, game, cfg: AZConfig, folder: Path, it: int, seconds: float, lineage) -> Path:
    """A checkpoint; `lineage`: the sidecar's `init` (the --init network's record,
    init_network) and `rules_file` (the variant trained under, core.rules_file.variant_record)
    where there are; a conditioned run's records its counts and variant space."""
    if cfg.conditioned:
        lineage = {
            **lineage,
            "players": [int(n) for n in cfg.counts],
            "variant_space": space_of(game).record(),
        }
    return write_network(
        folder,
        net.arrays(),
        game,
        cfg.players,
        net.settings(),
        cfg.returns,
        torch_state={"net": net.state_dict(), "opt": opt.state_dict()},
        extra={
            "iteration": it,
            "seconds": round(seconds, 1),
            "training": asdict(cfg),
            "search": cfg.guided(cfg.eval_sims).spec(),
            **lineage,
        },
    )


def _evaluate(cfg: AZConfig, ck: Path, root: Path) -> dict[str, Any]:
    """The checkpoint with `--eval-sims` simulations and alone against the ladder, stored in the
    run's ladder.sqlite (training.alphazero.ladder)."""
    from training.alphazero.ladder import LADDER_DB, evaluate_ladder

    return evaluate_ladder(
        cfg.game, cfg.players, ck, (cfg.eval_sims, 0), cfg.ladder, cfg.eval_games,
        root / LADDER_DB, seed=cfg.seed, workers=cfg.workers, rules_file=cfg.rules or None,
    )  # fmt: skip


def _curve(history: list[dict[str, Any]], root: Path, cfg: AZConfig, game) -> None:
    from training.alphazero.ladder import plot_curve

    plot_curve(
        history,
        root / "curve.png",
        f"{cfg.game}, {cfg.players} players, expert iteration; rules {game.RULES_DATA_HASH}",
    )


def build_parser():
    from training.arena.cli import OneLineParser

    d = AZConfig(game="", out="")
    p = OneLineParser(
        prog="python -m training.alphazero",
        description=__doc__,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    _add_run_arguments(p, d)
    _add_self_play_arguments(p, d)
    _add_training_arguments(p, d)
    _add_ladder_arguments(p, d)
    _add_start_arguments(p, d)
    _add_conditioned_arguments(p, d)
    p.add_argument(
        "--fixed-threads",
        action="store_true",
        help=f"train on {TRAIN_THREADS} torch threads even while other processes keep cores busy",
    )
    p.add_argument(
        "--resume", action="store_true", help="go on from the latest iteration saved in --out"
    )
    return p


def _add_run_arguments(p: argparse.ArgumentParser, d: AZConfig) -> None:
    """The game, the run folder, the player count and the run's length."""
    p.add_argument("--game", required=True)
    p.add_argument("--out", required=True, help="the run folder (checkpoints, progress, final/)")
    p.add_argument("--players", type=int, default=d.players)
    p.add_argument("--hours", type=float, default=d.hours, help="wall-clock budget of the run")
    p.add_argument("--iterations", type=int, default=d.iterations, help="0: as --hours allows")


def _add_self_play_arguments(p: argparse.ArgumentParser, d: AZConfig) -> None:
    """The self-play games and their search."""
    p.add_argument("--games", type=int, default=d.games, help="self-play games per iteration")
    p.add_argument("--sims", type=int, default=d.sims, help="simulations per self-play decision")
    p.add_argument("--root", default=d.root, help="the self-play root: puct or gumbel")
    p.add_argument("--m", type=int, default=d.m, help="actions a Gumbel root considers")
    p.add_argument("--cscale", type=float, default=d.cscale, help="a Gumbel root's c_scale")
    p.add_argument(
        "--explore", type=int, default=d.explore, help="decisions per game drawn from the target"
    )
    p.add_argument("--noise", type=float, default=d.noise, help="Gumbel noise scale at the root")
    p.add_argument("--mix", type=float, default=d.mix)
    p.add_argument(
        "--qmix", type=float, default=d.qmix, help="the root values' share in the value target"
    )
    p.add_argument("--c", type=float, default=d.c)
    p.add_argument(
        "--opp",
        default=d.opp,
        help="the search's other seats: tree, net, netmax, prior or priormax (core.guided)",
    )
    p.add_argument(
        "--opponent", default=d.opponent, help="an agent some self-play games are played against"
    )
    p.add_argument(
        "--opponent-share",
        type=float,
        default=d.opponent_share,
        help="the share of an iteration's games played against --opponent",
    )
    p.add_argument("--returns", default=d.returns)


def _add_training_arguments(p: argparse.ArgumentParser, d: AZConfig) -> None:
    """The network and its minibatches, where the games are played, where it trains."""
    p.add_argument(
        "--hidden",
        default=None,
        help=f"hidden layer widths (default {','.join(map(str, d.hidden))}; with --init, its)",
    )
    p.add_argument("--buffer", type=int, default=d.buffer)
    p.add_argument("--batch", type=int, default=d.batch)
    p.add_argument("--steps", type=int, default=d.steps, help="minibatches per iteration")
    p.add_argument("--lr", type=float, default=d.lr)
    p.add_argument(
        "--workers",
        type=int,
        default=d.workers,
        help="self-play processes (with --backend ray: Ray tasks per iteration; a local Ray "
        "instance gets this many CPUs)",
    )
    p.add_argument(
        "--backend",
        choices=BACKENDS,
        default="process",
        help="where self-play games are played: process (local processes) or ray (Ray tasks, "
        "the optional extra [ray]; training.alphazero.backends, docs/scale-out.md)",
    )
    p.add_argument(
        "--address",
        default=None,
        help="with --backend ray: a running Ray cluster, auto or HOST:PORT (default: start a "
        "local Ray instance)",
    )
    p.add_argument("--device", default=d.device, help="where the network trains: auto, cpu, cuda")


def _add_ladder_arguments(p: argparse.ArgumentParser, d: AZConfig) -> None:
    """The ladder the network plays every --eval-every iterations."""
    p.add_argument("--eval-every", type=int, default=d.eval_every)
    p.add_argument("--eval-games", type=int, default=d.eval_games)
    p.add_argument("--eval-sims", type=int, default=d.eval_sims)
    p.add_argument("--ladder", nargs="+", default=list(d.ladder))


def _add_start_arguments(p: argparse.ArgumentParser, d: AZConfig) -> None:
    """What the run starts from: a warm start, a network, the seed, a rules variant."""
    p.add_argument(
        "--warm-games", type=int, default=d.warm_games, help="games of plain mcts to start from"
    )
    p.add_argument("--warm-mcts", default=d.warm_mcts, help="their mcts parameters, e.g. iters=400")
    p.add_argument(
        "--warm-agent", default=d.warm_agent, help="or an agent that plays them, e.g. heuristic"
    )
    p.add_argument("--warm-steps", type=int, default=d.warm_steps, help="minibatches on them")
    p.add_argument(
        "--init",
        default=d.init,
        help="start from this network's weights and shape: az (shipped at --players), az:PATH",
    )
    p.add_argument("--seed", type=int, default=d.seed)
    p.add_argument(
        "--rules",
        metavar="FILE",
        help="train under this rules variant (a rules-data override file, docs/rules_data.md), "
        "e.g. from --init az: a network fine-tuned for the variant",
    )


def _add_conditioned_arguments(p: argparse.ArgumentParser, d: AZConfig) -> None:
    """A conditioned run's counts, variants and distillation."""
    p.add_argument(
        "--conditioned",
        action="store_true",
        help="train one network for every count of --counts and every rules variant of the "
        "game's variant space (training.alphazero.conditioned)",
    )
    p.add_argument("--counts", default="", help="with --conditioned: the player counts, e.g. 2,3,4")
    p.add_argument(
        "--count-shares",
        default="",
        help="with --conditioned: how often each count of --counts is drawn, e.g. 2,1,1 "
        "(normalised; default evenly)",
    )
    p.add_argument(
        "--own-share",
        type=float,
        default=d.own_share,
        help="with --conditioned: the share of game groups at the game's own rules data",
    )
    p.add_argument(
        "--near-share",
        type=float,
        default=d.near_share,
        help="with --conditioned: the share of drawn variants near the defaults",
    )
    p.add_argument(
        "--variant-games",
        type=int,
        default=d.variant_games,
        help="with --conditioned: self-play games per drawn count and variant",
    )
    p.add_argument(
        "--distil-games",
        type=int,
        default=d.distil_games,
        help="with --conditioned: first learn the networks shipped per count from this many of "
        "their games at each count",
    )
    p.add_argument(
        "--distil-steps", type=int, default=d.distil_steps, help="minibatches on those games"
    )


def main(argv: list[str] | None = None) -> int:
    p = build_parser()
    a = p.parse_args(argv)
    try:
        try:
            counts = tuple(int(x) for x in a.counts.split(",") if x.strip())
        except ValueError:
            raise ValueError(f"--counts takes player counts like 2,3,4, got {a.counts!r}") from None
        try:
            shares = tuple(float(x) for x in a.count_shares.split(",") if x.strip())
        except ValueError:
            raise ValueError(
                f"--count-shares takes numbers like 2,1,1, got {a.count_shares!r}"
            ) from None
        if a.hidden is not None:
            hidden = tuple(int(x) for x in a.hidden.split(",") if x.strip())
        elif a.init:  # the start network's shape
            _arrays, meta, _parent = init_network(
                a.init, get_game(a.game), a.players, bool(a.rules)
            )
            hidden = tuple(int(h) for h in meta["network"]["hidden"])
        else:
            hidden = AZConfig(game="", out="").hidden
        cfg = AZConfig(
            game=a.game,
            out=a.out,
            players=a.players,
            hours=a.hours,
            iterations=a.iterations,
            games=a.games,
            sims=a.sims,
            root=a.root,
            m=a.m,
            cscale=a.cscale,
            explore=a.explore,
            noise=a.noise,
            mix=a.mix,
            qmix=a.qmix,
            opponent=a.opponent,
            opponent_share=a.opponent_share,
            c=a.c,
            opp=a.opp,
            returns=a.returns,
            hidden=hidden,
            buffer=a.buffer,
            batch=a.batch,
            steps=a.steps,
            lr=a.lr,
            workers=a.workers,
            device=a.device,
            eval_every=a.eval_every,
            eval_games=a.eval_games,
            eval_sims=a.eval_sims,
            ladder=tuple(a.ladder),
            warm_games=a.warm_games,
            warm_mcts=a.warm_mcts,
            warm_agent=a.warm_agent,
            warm_steps=a.warm_steps,
            init=a.init,
            seed=a.seed,
            adapt_threads=not a.fixed_threads,
            rules=a.rules or "",
            conditioned=a.conditioned,
            counts=counts,
            count_shares=shares,
            own_share=a.own_share,
            near_share=a.near_share,
            variant_games=a.variant_games,
            distil_games=a.distil_games,
            distil_steps=a.distil_steps,
        )
        cfg.validate()
    except ValueError as e:
        p.error(str(e))
    try:
        check_backend(a.backend, a.address)
    except ValueError as e:
        p.error(str(e))
    if a.backend == "ray" and not supervise.is_child():  # Ray may end its driver: watch it
        args = list(sys.argv[1:] if argv is None else argv)
        return supervise.run_child(args, Path(a.out), p.prog)
    if supervise.is_child():
        supervise.end_with_parent()
    try:
        result = train(cfg, resume=a.resume, backend=a.backend, address=a.address)
    except WorkerLostError as e:
        print(f"{p.prog}: {e}", file=sys.stderr)
        return supervise.HANDLED if supervise.is_child() else 1
    print(json.dumps(result, indent=2))
    return 0
