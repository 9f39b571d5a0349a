"""Self-play speed of expert iteration: whole games of the guided search playing every seat, with
a (256, 256) network of random weights and the shipped search settings at the trainer's SIMS
simulations per decision, played two ways on the same seeds in one run:
training.alphazero.selfplay.SelfPlayer.play_one (pv_selfplay: the search agents play with, one
network call per leaf) and SelfPlayer.play_many (pv_selfplay_many: the same games, bit for bit,
each game's network outputs kept by observation, an eight-input forward of the hidden layers and
only the outputs the search reads computed; what the trainer uses). Rows of `python -m
benchmarks.run --groups selfplay`: games, recorded decisions and network evaluations per second
of one core, and the paired ratio of the two.

`conditioned_rates` pairs the trainer's two kinds of self-play job on the same seeds: an ordinary
run's job (one SelfPlayer per worker, reused from job to job) and a conditioned run's
(training.alphazero.conditioned.VariantJob: a group of VARIANT_GAMES games under its variant,
its own SelfPlayer, the network's rules features folded in). At the game's own rules, with a
conditioned network whose folded first layer is the ordinary one's, both play the same games,
checked; the ratio is what the conditioned run's per-job work costs."""

from __future__ import annotations

import dataclasses
import time

import numpy as np

from benchmarks.search import guided_network, shipped_search
from core.guided import GuidedConfig
from core.mlp import fold_features
from core.registry import get_game
from core.variant_space import space_of
from training.alphazero.conditioned import VariantJob
from training.alphazero.selfplay import FIELDS, Examples, SelfPlayer

SIMS = 32  # training.alphazero.loop.AZConfig's default simulations per self-play decision
CHUNK = 8  # games each path plays in turn
VARIANT_GAMES = 4  # a conditioned run's games per group (training.alphazero.loop's default)
_PAIRED: dict = {}  # (game, players, seconds) -> both paths' figures, measured once


def selfplay_config(g: str, players: int, sims: int = SIMS) -> GuidedConfig:
    """The shipped network's search settings at `players` with `sims` simulations."""
    return dataclasses.replace(GuidedConfig.parse(shipped_search(g, players)), sims=sims)


def paired_rates(g: str, players: int, seconds: float, sims: int = SIMS) -> dict[str, dict]:
    """Both self-play paths on the same games: chunks of CHUNK seeds (1, 2, ...), each chunk
    played by `play_one` (each game's search seeded by its seed, as the trainer does) and by
    `play_many`, the order of the two alternating from chunk to chunk, until each path has
    `seconds` of busy time. {"one": figures, "many": figures}; both carry the ratio of the
    games per second, many / one. RuntimeError if the two paths gave different games (the same
    examples, the same final state)."""
    key = (g, players, seconds, sims)
    if key in _PAIRED:
        return _PAIRED[key]
    game = get_game(g)
    cfg = selfplay_config(g, players, sims)
    player = SelfPlayer(g, players, guided_network(game), cfg, explore=20, noise=0.5)
    player.play_one(0)  # compile or load from the cache outside the clock
    player.play_many([0], batch=1)
    busy = {"one": 0.0, "many": 0.0}
    count = {k: {"games": 0, "decisions": 0, "calls": 0} for k in busy}

    def one(seeds):
        out = []
        for s in seeds:
            out.append(player.play_one(s))
            count["one"]["calls"] += player.last["network_calls"]
        return out

    def many(seeds):
        out = player.play_many(seeds)
        count["many"]["calls"] += player.last["network_calls"]
        return out

    chunk = 0
    while chunk == 0 or min(busy.values()) < seconds:
        seeds = list(range(1 + chunk * CHUNK, 1 + (chunk + 1) * CHUNK))
        games = {}
        for name in ("one", "many") if chunk % 2 == 0 else ("many", "one"):
            t0 = time.perf_counter()
            played = (one if name == "one" else many)(seeds)
            busy[name] += time.perf_counter() - t0
            count[name]["games"] += len(played)
            count[name]["decisions"] += sum(len(ex) for ex, _ in played)
            games[name] = played
        for s, (ex_a, final_a), (ex_b, final_b) in zip(
            seeds, games["one"], games["many"], strict=True
        ):
            same = np.array_equal(final_a, final_b) and all(
                np.array_equal(getattr(ex_a, f), getattr(ex_b, f)) for f in FIELDS
            )
            if not same:
                raise RuntimeError(f"{g}: play_one and play_many gave different games for seed {s}")
        chunk += 1
    rates = {}
    for name, c in count.items():
        t = busy[name]
        rates[name] = {
            "decisions_per_s": c["decisions"] / t,
            "games_per_s": c["games"] / t,
            "decisions": c["decisions"],
            "games": c["games"],
            "seconds": round(t, 3),
            "network_evals_per_s": c["calls"] / t,
        }
    ratio = rates["many"]["games_per_s"] / rates["one"]["games_per_s"]
    for r in rates.values():
        r["many_over_one"] = round(ratio, 3)
    _PAIRED[key] = rates
    return rates


def paired_rate(g: str, players: int, path: str, sims: int = SIMS):
    """Row function: one path's figures ("one" or "many") of paired_rates."""
    return lambda seconds: paired_rates(g, players, seconds, sims)[path]


def conditioned_network(game) -> tuple[dict, dict]:
    """(ordinary network, conditioned network): guided_network's arrays, and the same with a
    random column per rules feature appended to W0, so that folding zero features gives back
    the ordinary one exactly."""
    base = guided_network(game)
    n = space_of(game).n_features
    extra = np.random.default_rng(1).standard_normal((base["W0"].shape[0], n)).astype(np.float32)
    return base, {**base, "W0": np.concatenate([base["W0"], extra], axis=1)}


def conditioned_rates(g: str, players: int, seconds: float, sims: int = SIMS) -> dict[str, dict]:
    """The ordinary and the conditioned self-play job (module docstring) on the same seeds, in
    chunks of VARIANT_GAMES, the order alternating, until each has `seconds` of busy time.
    {"job": figures, "variant": figures}, both with the ratio variant / job of the games per
    second. RuntimeError if they gave different games."""
    key = ("conditioned", g, players, seconds, sims)
    if key in _PAIRED:
        return _PAIRED[key]
    game = get_game(g)
    cfg = selfplay_config(g, players, sims)
    base, cond = conditioned_network(game)
    folded = fold_features(cond, game.OBS_SIZE, np.zeros(space_of(game).n_features, np.float32))
    if not all(np.array_equal(folded[k], base[k]) for k in base):
        raise RuntimeError(f"{g}: the folded network is not the ordinary one")
    player = SelfPlayer(g, players, base, cfg, explore=20, noise=0.5, qmix=0.5)

    def job(seeds, chunk):  # a worker's SelfPlayer, reused (training.alphazero.backends)
        return Examples.concat([ex for ex, _ in player.play_many(seeds)])

    def variant(seeds, chunk):
        vj = VariantJob(
            g, players, {}, folded, cfg, 20, 0.5, 0.5, "", (chunk,), [(s, False) for s in seeds]
        )
        return vj.run()

    job([0], -1)  # compile or load from the cache outside the clock
    variant([0], -1)
    busy = {"job": 0.0, "variant": 0.0}
    count = {k: {"games": 0, "decisions": 0} for k in busy}
    chunk = 0
    while chunk == 0 or min(busy.values()) < seconds:
        seeds = list(range(1 + chunk * VARIANT_GAMES, 1 + (chunk + 1) * VARIANT_GAMES))
        out = {}
        for name in ("job", "variant") if chunk % 2 == 0 else ("variant", "job"):
            t0 = time.perf_counter()
            out[name] = (job if name == "job" else variant)(seeds, chunk)
            busy[name] += time.perf_counter() - t0
            count[name]["games"] += len(seeds)
            count[name]["decisions"] += len(out[name])
        if not all(
            np.array_equal(getattr(out["job"], f), getattr(out["variant"], f)) for f in FIELDS
        ):
            raise RuntimeError(f"{g}: the two jobs gave different games for seeds {seeds}")
        chunk += 1
    rates = {
        name: {
            "games_per_s": c["games"] / busy[name],
            "decisions_per_s": c["decisions"] / busy[name],
            "games": c["games"],
            "decisions": c["decisions"],
            "seconds": round(busy[name], 3),
        }
        for name, c in count.items()
    }
    ratio = rates["variant"]["games_per_s"] / rates["job"]["games_per_s"]
    for r in rates.values():
        r["variant_over_job"] = round(ratio, 3)
    _PAIRED[key] = rates
    return rates


def conditioned_rate(g: str, players: int, path: str, sims: int = SIMS):
    """Row function: one job kind's figures ("job" or "variant") of conditioned_rates."""
    return lambda seconds: conditioned_rates(g, players, seconds, sims)[path]
