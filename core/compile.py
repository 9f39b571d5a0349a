"""Compile (or load from numba's disk cache) everything a game needs, ahead of its first use.

    python -m core.compile                      # every registered game, every part
    python -m core.compile --game village       # one game
    python -m core.compile --parts api,batch    # only some parts

The engines are compiled by numba on first use and cached on disk (core/jit.py says where). The
first start after installing or editing the code therefore waits while numba compiles; this
command does that wait up front and prints how long each part took, and whether it was compiled
or only loaded from the cache. Parts, each exercised through its ordinary entry points so the
compiled signatures are exactly the ones real calls use:

    api     the public API: a seeded random game with observe / legal_mask / step, then scores,
            returns, invariants, to_bytes / from_bytes (which validates), determinize (every
            program that plays the game needs it; its first call compiles or loads it)
    batch   the batch engine's parallel loops (make_batch; training's default VecEnv), the
            compiled bots' among them (BatchEngine.play_seats)
    search  the search agent's loops (the `mcts` agent)
    bots    the baseline bots (`random`, `heuristic` and the game's own: core.bots)
"""

from __future__ import annotations

import argparse
import importlib
import sys
import time
from collections.abc import Callable, Sequence

import numpy as np

from core import jit as _jit
from core.batch import SEAT_RANDOM
from core.bots import bot_names, make_bot
from core.registry import game_names, game_packages
from core.search import MCTSAgent

PARTS = ("api", "batch", "search", "bots")


def _api(pkg: str) -> None:
    g = importlib.import_module(pkg)
    n = min(g.PLAYER_COUNTS)
    s0 = g.new_game(n, seed=0)
    rng = np.random.default_rng(0)
    s, k = s0, 0
    while not g.is_terminal(s) and k < 5000:
        g.observe(s, g.current_player(s))
        s = g.step(s, int(rng.choice(np.flatnonzero(g.legal_mask(s)))))
        k += 1
    g.legal_mask(s0)  # the compiled call (no memo for this state)
    for kind in ("win_loss", "rank", "margin"):
        g.returns(s, kind)
    g.tiebreaks(s)
    g.check_invariants(s0)
    g.from_bytes(g.to_bytes(s0))
    g.determinize(s0, 0, 1)
    g.perturb_hidden(s0, 1)


def _batch(pkg: str) -> None:
    g = importlib.import_module(pkg)
    eng = g.make_batch(2, num_players=min(g.PLAYER_COUNTS), seed=0)
    eng.step(eng.random_actions())
    eng.random_play(20)
    eng.observe(eng.players)
    eng.over()
    idx = np.arange(eng.B, dtype=np.int64)
    codes = np.full((eng.B, eng.spec.max_players), SEAT_RANDOM, dtype=np.int64)
    bot_rngs = np.ones((eng.B, eng.spec.max_players, 4), dtype=np.int64)
    eng.play_seats(idx, codes, bot_rngs, np.zeros(eng.B, dtype=np.int64))


def _search(pkg: str) -> None:
    g = importlib.import_module(pkg)
    MCTSAgent(g, "iters=16", seed=0).act(g.new_game(min(g.PLAYER_COUNTS), seed=0))


def _bots(pkg: str) -> str | None:
    g = importlib.import_module(pkg)
    name = next(n for n, p in game_packages().items() if p == pkg)
    s = g.new_game(min(g.PLAYER_COUNTS), seed=0)
    for bot in bot_names(name):
        b = make_bot(name, bot, seed=0)
        t = s
        for _ in range(3):
            if g.is_terminal(t):
                break
            t = g.step(t, b.act(t))


_RUN: dict[str, Callable[[str], str | None]] = {
    "api": _api,
    "batch": _batch,
    "search": _search,
    "bots": _bots,
}


def compile_game(name: str, parts: Sequence[str] = PARTS, out=None) -> dict[str, float]:
    """Compile (or load) `parts` of game `name`; prints a line per part; returns seconds per
    part."""
    out = out or sys.stdout
    pkg = game_packages()[name]
    took: dict[str, float] = {}
    for part in parts:
        print(f"{name:<8} {part:<7}", end=" ", file=out, flush=True)
        before = sum(_jit.NOTICE.functions.values())
        t0 = time.perf_counter()
        enabled, _jit.NOTICE.enabled = _jit.NOTICE.enabled, False  # these lines say it
        try:
            skipped = _RUN[part](pkg)
        finally:
            _jit.NOTICE.enabled = enabled
        if skipped:
            print(skipped, file=out, flush=True)
            continue
        took[part] = time.perf_counter() - t0
        compiled = sum(_jit.NOTICE.functions.values()) - before
        how = "loaded from the cache"
        if compiled:
            how = f"compiled {compiled} function{'s' if compiled > 1 else ''}"
        print(f"{took[part]:6.1f} s  ({how})", file=out, flush=True)
    return took


def main(argv: list[str] | None = None) -> int:
    """CLI entry point."""
    p = argparse.ArgumentParser(
        prog="python -m core.compile",
        description=__doc__,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    p.add_argument(
        "--game",
        action="append",
        choices=game_names(),
        help="a game to compile (repeatable; default: every registered game)",
    )
    p.add_argument(
        "--parts",
        default=",".join(PARTS),
        help=f"comma-separated parts to compile (default: all of {','.join(PARTS)})",
    )
    args = p.parse_args(argv)
    parts = [x.strip() for x in args.parts.split(",") if x.strip()]
    bad = [x for x in parts if x not in PARTS]
    if bad or not parts:
        p.error(f"--parts: unknown {', '.join(bad) or '(none given)'}; choose from {PARTS}")
    games = args.game or game_names()
    start = time.perf_counter()
    for name in games:
        compile_game(name, parts)
    total = time.perf_counter() - start
    print(f"done in {total:.1f} s; compiled code is cached in:")
    for pkg in ["core", *(game_packages()[g] for g in games)]:
        print(f"  {_jit.cache_dir_for(pkg)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
