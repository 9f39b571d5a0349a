"""Self-play speed of expert iteration: whole games of the guided search playing every seat
(training.alphazero.selfplay.SelfPlayer.play, compiled, one leaf evaluated at a time), with a
(256, 256) network of random weights and the shipped search settings at the trainer's
SIMS simulations per decision. Rows of `python -m benchmarks.run --groups selfplay`: games,
recorded decisions and network evaluations per second of one core."""

from __future__ import annotations

import dataclasses
import time

from benchmarks.search import guided_network, shipped_search
from core.guided import GuidedConfig
from core.registry import get_game
from training.alphazero.selfplay import SelfPlayer

SIMS = 32  # training.alphazero.loop.AZConfig's default simulations per self-play decision


def selfplay_config(g: str, players: int, sims: int = SIMS) -> GuidedConfig:
    """The shipped network's search settings at `players` with `sims` simulations."""
    return dataclasses.replace(GuidedConfig.parse(shipped_search(g, players)), sims=sims)


def selfplay_rate(g: str, players: int, sims: int = SIMS):
    """Row function: self-play games from seeds 1, 2, ... until `seconds` of busy time."""

    def run(seconds: float) -> dict:
        game = get_game(g)
        cfg = selfplay_config(g, players, sims)
        player = SelfPlayer(g, players, guided_network(game), cfg, explore=20, noise=0.5)
        player.play(0)  # compile or load from the cache outside the clock
        games = decisions = calls = 0
        busy = 0.0
        seed = 1
        while games < 1 or busy < seconds:
            t0 = time.perf_counter()
            ex, _final = player.play(seed)
            busy += time.perf_counter() - t0
            games += 1
            decisions += len(ex)
            calls += player.last["network_calls"]
            seed += 1
        return {
            "decisions_per_s": decisions / busy,
            "games_per_s": games / busy,
            "decisions": int(decisions),
            "games": games,
            "seconds": round(busy, 3),
            "network_evals_per_s": calls / busy,
        }

    return run
