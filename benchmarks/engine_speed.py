"""Random-play throughput of a game through three paths, printed as JSON (DESIGN §5).

(a) a fully compiled random-play loop, (b) the public API with `observe` each step, (c) the
PettingZoo AEC `env()`. A decision is one `step` with an agent-chosen action; forced single-
option choices are applied inside step and not counted.

    python -m benchmarks.engine_speed --game village --players 4 --seconds 10
"""

from __future__ import annotations

import argparse
import datetime as dt
import importlib
import json
import os
import platform
import time

import numpy as np

from core.agents import RandomAgent
from core.registry import default_game, game_names, get_game
from core.rng import rng_seed


def _timed(fn, seconds: float):
    """Call fn() (returning (decisions, games)) until `seconds` have passed."""
    dec = games = 0
    t0 = time.perf_counter()
    while time.perf_counter() - t0 < seconds:
        d, g = fn()
        dec += d
        games += g
    el = time.perf_counter() - t0
    return {
        "decisions_per_s": dec / el,
        "games_per_s": games / el,
        "decisions": dec,
        "games": games,
        "seconds": el,
    }


def compiled_loop(game, n: int, seconds: float):
    eng = importlib.import_module(f"{game.__name__}.engine.step")  # rendered for every game
    s = np.zeros(game.LAYOUT.size, dtype=np.int64)
    mask = np.zeros(game.NUM_ACTIONS, dtype=np.bool_)
    rng = np.zeros(4, dtype=np.int64)
    rng_seed(rng, 0, 1, 2, 3)
    work = np.zeros(max(1, game.GAME.spec.work_size), dtype=np.int64)
    eng.play_random_games(game.TABLES, n, 1, 0, s, mask, rng, work)  # compile / warm
    seed = [0]

    def batch():
        seed[0] += 1
        k = eng.play_random_games(game.TABLES, n, 20, seed[0], s, mask, rng, work)
        assert k >= 0, "engine error"
        return k, 20

    return _timed(batch, seconds)


def api_game(game, n: int, seed: int) -> int:
    """One seeded random game through the public API with `observe` each step (path (b));
    returns the decisions made."""
    s = game.new_game(n, seed)
    bot = RandomAgent(seed)
    k = 0
    p = game.current_player(s)
    while p >= 0:  # current_player is -1 once the game is over
        game.observe(s, p)
        s = game.step(s, bot.act_mask(game.legal_mask(s)))
        p = game.current_player(s)
        k += 1
    assert game.is_terminal(s)
    return k


def api_loop(game, n: int, seconds: float):
    seed = [0]

    def one():
        seed[0] += 1
        return api_game(game, n, seed[0]), 1

    one()
    return _timed(one, seconds)


def aec_loop(game, n: int, seconds: float):
    env = game.env(num_players=n)
    seed = [0]

    def one():
        seed[0] += 1
        env.reset(seed=seed[0])
        bot = RandomAgent(seed[0])
        k = 0
        for _agent in env.agent_iter():
            obs, _r, term, trunc, _i = env.last()
            if term or trunc:
                env.step(None)
                continue
            env.step(bot.act_mask(obs["action_mask"]))
            k += 1
        return k, 1

    one()
    return _timed(one, seconds)


def machine_info() -> dict:
    return {
        "python": platform.python_version(),
        "machine": platform.machine(),
        "processor": platform.processor() or platform.machine(),
        "cpus": os.cpu_count(),
        "numpy": np.__version__,
        "numba": importlib.import_module("numba").__version__,
    }


PATHS = {"compiled_random_loop": compiled_loop, "api_with_observe": api_loop, "aec_env": aec_loop}


def run(game_name: str, players: int, seconds: float, repeat: int = 1) -> dict:
    """Each path measured `repeat` times, the paths taking turns; a path's figure is its median
    run (a shared machine varies by tens of percent between identical runs), all runs kept."""
    game = get_game(game_name)
    runs: dict[str, list] = {k: [] for k in PATHS}
    for _ in range(repeat):
        for key, fn in PATHS.items():
            runs[key].append(fn(game, players, seconds))
    out = {
        "game": game_name,
        "players": players,
        "rules_data_hash": game.RULES_DATA_HASH,
        "provisional_rules_data": True,
        "date": dt.datetime.now(dt.timezone.utc).isoformat(timespec="seconds"),
        "machine": machine_info(),
        "threads": 1,
        "repeat": repeat,
    }
    for key, rs in runs.items():
        out[key] = sorted(rs, key=lambda r: r["decisions_per_s"])[(len(rs) - 1) // 2]
        if repeat > 1:
            out[key] = dict(out[key], all_decisions_per_s=[round(r["decisions_per_s"]) for r in rs])
    return out


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--game", default=default_game(), choices=game_names())
    ap.add_argument("--players", type=int, default=4, choices=[2, 3, 4])
    ap.add_argument("--seconds", type=float, default=10.0)
    ap.add_argument("--repeat", type=int, default=1, help="runs per path; the median is reported")
    ap.add_argument("--json", help="also write the result to this file")
    args = ap.parse_args(argv)
    res = run(args.game, args.players, args.seconds, args.repeat)
    text = json.dumps(res, indent=2)
    print(text)
    if args.json:
        with open(args.json, "w") as f:
            f.write(text + "\n")


if __name__ == "__main__":
    os.environ.setdefault("NUMBA_NUM_THREADS", "1")
    main()
