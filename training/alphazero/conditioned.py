"""Expert iteration over a game's variant space: one conditioned network (training.alphazero.net,
`features` > 0) for every player count and every rules variant of the space
(core.variant_space), trained by `python -m training.alphazero --conditioned`.

Each iteration's self-play games come in groups of `--variant-games`; each group draws, from a
generator seeded by (seed, iteration), a player count from `--counts` (evenly, or as
`--count-shares` weighs them) and a variant: the game's
own rules data with probability `--own-share`, else `VariantSpace.sample` (one to three keys
moved, `--near-share` of them near their default, the rest anywhere in their range). The group is
one job: its worker loads the variant's rules data for the job's games only
(`Game.using_rules_data`) and plays them with the network's rules features folded into its first
layer (core.mlp.fold_features), the arrays the agent plays at evaluation too. The examples carry
the group's features into the replay buffer.

Distillation (`--distil-games N`, iteration 0 of a new run): the networks shipped per player
count (the teachers) play N games at each count, under variants drawn as above, the first
`--explore` decisions of each drawn from the teacher's policy, the rest its most likely action;
every decision with more than one legal action becomes an example whose targets are the teacher's
policy over the legal actions and its seat values, and the conditioned network trains on them for
`--distil-steps` minibatches before self-play starts. So the new network starts where the shipped
ones are at the game's own rules, blind to the rules at first.
"""

from __future__ import annotations

import json
import math
from dataclasses import dataclass, field, replace
from typing import Any

import numpy as np

from core.guided import GuidedConfig
from core.mlp import fold_features
from core.registry import get_game
from core.variant_space import VariantSpace, space_of
from training.agents.az_agent import load_network, network_folder, per_count_name
from training.agents.policy import masked_probs, mlp_logits
from training.alphazero.backends import play_games
from training.alphazero.selfplay import MAX_ROWS, Examples, GameTooLongError

DISTIL_SEED = 41  # the stream of a distillation game's exploration draws


@dataclass(frozen=True)
class Group:
    """One group of an iteration's games: the player count and the variant ({key: value}, empty
    for the game's own rules data) they are played at, and their features."""

    players: int
    values: dict[str, int]
    features: np.ndarray = field(repr=False)

    def record(self) -> dict[str, Any]:
        return {"players": self.players, "values": dict(self.values)}


def draw_groups(space: VariantSpace, cfg, it: int, n_groups: int) -> list[Group]:
    """The groups of iteration `it` (module docstring), from (cfg.seed, it) alone."""
    rng = np.random.default_rng([int(cfg.seed), int(it), 31])
    out = []
    for _ in range(n_groups):
        n = int(cfg.counts[_count_index(rng, cfg)])
        own = not space.axes or rng.random() < cfg.own_share
        values = {} if own else space.sample(rng, near=bool(rng.random() < cfg.near_share))
        out.append(Group(n, values, space.features_of(values)))
    return out


def _count_index(rng: np.random.Generator, cfg) -> int:
    """Which of cfg.counts a group plays: evenly, or by cfg.count_shares."""
    shares = getattr(cfg, "count_shares", ())
    if not shares or len(cfg.counts) == 1:
        return int(rng.integers(0, len(cfg.counts)))
    p = np.asarray(shares, dtype=np.float64)
    return int(rng.choice(len(p), p=p / p.sum()))


def n_groups(games: int, per_group: int) -> int:
    return max(1, math.ceil(games / per_group))


class EndlessGameError(RuntimeError):
    """A game of a job (its `version`) under the variant `values` went past the examples a game
    may leave: rules data that lets a game run without end. The run drops that job's games,
    records it, and goes on (training.alphazero.loop)."""

    def __init__(self, version, values: dict[str, int], message: str):
        super().__init__(version, values, message)
        self.version, self.values, self.message = version, values, message

    def __str__(self) -> str:
        return f"{self.message} under the variant {json.dumps(self.values)}"


def under_variant(game_name: str, values: dict[str, int]):
    """A `with` block that plays `game_name` under the variant `values` (empty: its own rules
    data) and puts the rules data in use before back after it."""
    game = get_game(game_name)
    return game.GAME.using_rules_data(space_of(game).rules_data(values) if values else None)


def run_job(job, play) -> Examples:
    """`play(job)`, a game too long raised as the job's EndlessGameError (its version, its
    variant)."""
    try:
        return play(job)
    except GameTooLongError as e:
        raise EndlessGameError(job.version, job.values, str(e)) from None


@dataclass(frozen=True)
class VariantJob:
    """A job of a conditioned run: `seeds` ((seed, against the opponent?) each) played at
    `players` seats under the variant `values`, with the network `arrays` (features folded)."""

    game: str
    players: int
    values: dict[str, int]
    arrays: dict[str, np.ndarray] = field(repr=False)
    config: GuidedConfig
    explore: int
    noise: float
    qmix: float
    opponent: str
    version: tuple
    seeds: list

    def seed_list(self) -> list:
        return [[s, bool(a)] for s, a in self.seeds]

    def run(self) -> Examples:
        return run_job(self, play_variant)


def variant_jobs(net_arrays: dict, groups: list[Group], cfg, it: int, seeds: list):
    """The jobs of iteration `it`: its self-play `seeds` dealt to the groups in turn."""
    obs_size = get_game(cfg.game).OBS_SIZE
    jobs = []
    for g, group in enumerate(groups):
        mine = seeds[g :: len(groups)]
        if not mine:
            continue
        jobs.append(
            VariantJob(
                cfg.game, group.players, group.values,
                fold_features(net_arrays, obs_size, group.features), cfg.guided(), cfg.explore,
                cfg.noise, cfg.qmix, cfg.opponent, (it, g), mine,
            )
        )  # fmt: skip
    return jobs


def play_variant(job: VariantJob) -> Examples:
    """In a worker: the job's games under its variant's rules data (training.alphazero.backends
    play_games), the rules data in use before put back after."""
    with under_variant(job.game, job.values):
        args = (
            job.game, job.players, job.arrays, job.config, job.explore, job.noise, job.qmix,
            job.opponent, job.version, job.seeds,
        )  # fmt: skip
        return play_games(args)


@dataclass(frozen=True)
class DistilJob:
    """Distillation games: `seeds` at `players` seats under `values`, played by the teacher
    network `arrays` (an ordinary network over the observation)."""

    game: str
    players: int
    values: dict[str, int]
    arrays: dict[str, np.ndarray] = field(repr=False)
    explore: int
    seeds: list
    version: tuple = ()

    def seed_list(self) -> list:
        return list(self.seeds)

    def run(self) -> Examples:
        return run_job(self, distil_games)


def distil_games(job: DistilJob) -> Examples:
    """In a worker: the job's games played by the teacher (module docstring), its examples."""
    game = get_game(job.game)
    seats, n = max(game.PLAYER_COUNTS), job.players
    obs, masks = [], []
    with under_variant(job.game, job.values):
        for seed in job.seeds:
            draw = np.random.default_rng([int(seed), DISTIL_SEED])
            s = game.new_game(n, int(seed))
            decisions = 0
            while not game.is_terminal(s):
                mask = np.asarray(game.legal_mask(s), dtype=np.bool_)
                legal = np.flatnonzero(mask)
                if legal.size == 1:
                    s = game.step(s, int(legal[0]))
                    continue
                if decisions >= MAX_ROWS:  # as self-play refuses such a game
                    raise GameTooLongError(
                        f"{game.NAME}: a distillation game left more than {MAX_ROWS} examples "
                        f"(seed {seed}, {n} players, variant {job.values})"
                    )
                me = int(game.current_player(s))
                o = np.asarray(game.observe(s, me), dtype=np.float32)
                out = mlp_logits(job.arrays, o)[: game.NUM_ACTIONS]
                if decisions < job.explore:
                    act = int(draw.choice(mask.size, p=masked_probs(out, mask)))
                else:
                    act = int(legal[np.argmax(out[legal])])
                obs.append(o)
                masks.append(mask)
                decisions += 1
                s = game.step(s, act)
    if not obs:
        zero = np.zeros((0, game.NUM_ACTIONS))
        return Examples(
            np.zeros((0, game.OBS_SIZE), np.float32), zero.astype(np.bool_),
            zero.astype(np.float32), np.zeros((0, seats), np.float32),
            np.zeros((0, seats), np.bool_),
        )  # fmt: skip
    o, m = np.stack(obs), np.stack(masks)
    out = mlp_logits(job.arrays, o)
    logits, values = out[:, : game.NUM_ACTIONS], out[:, game.NUM_ACTIONS :]
    z = np.where(m, logits.astype(np.float64), -np.inf)
    z -= z.max(axis=1, keepdims=True)
    pi = np.exp(z)
    pi /= pi.sum(axis=1, keepdims=True)
    zmask = np.zeros((len(o), seats), np.bool_)
    zmask[:, :n] = True
    v = np.where(zmask, values, 0.0).astype(np.float32)
    return Examples(o, m, pi.astype(np.float32), v, zmask)


def distil_jobs(game, space: VariantSpace, cfg, teachers: dict[int, dict]) -> list[DistilJob]:
    """The distillation jobs: cfg.distil_games games at each count, in groups of
    cfg.variant_games under variants drawn as self-play's are (iteration 0's generator)."""
    per = max(1, int(cfg.variant_games))
    count = 0
    jobs = []
    for n in cfg.counts:
        k = n_groups(cfg.distil_games, per)
        for group in draw_groups(space, _only(cfg, n), 10**6 + n, k):
            seeds = [2 * 10**9 + cfg.seed * 1_000_003 + count + j for j in range(per)]
            count += per
            version = (0, len(jobs))
            jobs.append(
                DistilJob(game.NAME, n, group.values, teachers[n], cfg.explore, seeds, version)
            )
    return jobs


def _only(cfg, n: int):
    """cfg with its counts narrowed to `n` (a distillation job plays one count)."""
    return replace(cfg, counts=(int(n),), count_shares=())


def teachers_of(game, counts) -> dict[int, dict]:
    """{count: the arrays of the network shipped for that count} (`az-<N>p`,
    training.agents.az_agent), ordinary networks over the observation."""
    out = {}
    for n in counts:
        folder = network_folder(per_count_name(n), game)
        arrays, _meta = load_network(folder, game, n, any_rules=True)
        out[int(n)] = arrays
    return out
