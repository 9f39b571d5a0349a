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
    batch   the batch engine's loops (make_batch; training's default VecEnv), the compiled
            bots' among them (BatchEngine.play_seats): their one-thread twins, and the parallel
            loops too where numba may use more than one thread (NUMBA_NUM_THREADS)
    search  the search agent's loops (the `mcts` agent)
    bots    the baseline bots (`random`, `heuristic` and the game's own: core.bots)
    loops   the batch engine's one-thread loops a training run uses (reset, step, observe)
    botloop the compiled bots' one-thread loop over a batch (BatchEngine.play_seats)

`loops` and `botloop` are what a one-thread training run compiles before its first step;
`start_batch_compile` compiles them in two processes at once on a cold cache (one core each),
which `python -m training.learn.train` does. Both need the whole rules engine, so each starts
with a different half of it, compiled on its own (`loops` the legal mask, `r_mask` of the rules
contract; `botloop` the move, `r_apply`) and written to the cache, where the other process finds
it when its own loops reach that half: the rules engine is compiled about once, not twice.
"""

from __future__ import annotations

import argparse
import importlib
import io
import os
import subprocess
import sys
import time
from collections.abc import Callable, Sequence

import numba
import numpy as np

from core import jit as _jit
from core.batch import BOT_GREEDY, MIN_SLOTS_PER_THREAD, SEAT_RANDOM, BatchEngine
from core.bots import bot_names, make_bot
from core.codegen import SERIAL
from core.registry import game_names, game_packages, get_game
from core.search import MCTSAgent
from core.workers import die_with_driver

PARTS = ("api", "batch", "search", "bots", "loops", "botloop")
DEFAULT_PARTS = PARTS[:4]  # loops and botloop are within batch


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
    sizes = [2]  # one thread: the loops' serial twins
    if numba.config.NUMBA_NUM_THREADS > 1:  # batches large enough for threads: parallel loops
        sizes.append(2 * MIN_SLOTS_PER_THREAD)
    for size in sizes:
        eng = g.make_batch(size, num_players=min(g.PLAYER_COUNTS), seed=0)
        eng.step(eng.random_actions())
        eng.random_play(20)
        eng.observe(eng.players)
        eng.over()
        idx = np.arange(eng.B, dtype=np.int64)
        codes = np.full((eng.B, eng.spec.max_players), SEAT_RANDOM, dtype=np.int64)
        bot_rngs = np.ones((eng.B, eng.spec.max_players, 4), dtype=np.int64)
        eng.play_seats(idx, codes, bot_rngs, np.zeros(eng.B, dtype=np.int64))


def _rules_half(pkg: str, name: str) -> None:
    """Compile the game's rules-contract function `name` (r_mask or r_apply of
    `<pkg>.engine.rules`, core/game_contract.py) on its own, with the argument types the batch
    loops call it with (a row of the batch engine's state, mask and scratch arrays, an int64
    action), so that the functions it calls are cached under the signatures the loops use."""
    try:
        rules = importlib.import_module(f"{pkg}.engine.rules")
    except ModuleNotFoundError as e:  # a game laid out otherwise: its loops compile it all
        if e.name not in (f"{pkg}.engine", f"{pkg}.engine.rules"):
            raise
        return
    fn = getattr(rules, name)
    g = importlib.import_module(pkg)
    eng = BatchEngine(g.GAME.batch_spec(), 1, min(g.PLAYER_COUNTS), threads=1, start=False)
    s, T, mask, work = eng.states[0], eng.spec.tables(), eng.masks[0], eng._works[0]
    args = (s, T, mask, work) if name == "r_mask" else (s, T, 0, work)
    fn.compile(tuple(numba.typeof(x) for x in args))


def _loops(pkg: str) -> None:
    _rules_half(pkg, "r_mask")  # first: the half `botloop` does not start with
    g = importlib.import_module(pkg)
    eng = g.make_batch(2, num_players=min(g.PLAYER_COUNTS), seed=0, observe=False, threads=1)
    eng.step(np.argmax(eng.masks, axis=1))  # a legal action each (training draws none here)
    eng.observe(eng.players)
    eng.over()


def _botloop(pkg: str) -> None:
    _rules_half(pkg, "r_apply")  # first: the half `loops` does not start with
    g = importlib.import_module(pkg)
    # unstarted slots: compiling play_seats must not wait for the game-start code (`loops`)
    eng = BatchEngine(g.GAME.batch_spec(), 2, min(g.PLAYER_COUNTS), threads=1, start=False)
    codes = np.full((eng.B, eng.spec.max_players), BOT_GREEDY, dtype=np.int64)
    bot_rngs = np.ones((eng.B, eng.spec.max_players, 4), dtype=np.int64)
    eng.play_seats(np.zeros(0, dtype=np.int64), codes, bot_rngs, np.zeros(eng.B, dtype=np.int64))


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
    "loops": _loops,
    "botloop": _botloop,
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


# --- the first start of a training run: two compiling processes ---------------------------------

BATCH_PARTS = ("loops", "botloop")  # what a one-thread training run compiles before its first step
WAIT_LIMIT_S = 1800.0  # a child still compiling after this long is stopped (this process goes on)


def _cached(dispatcher) -> bool:
    """Whether numba's disk cache holds a compiled version of `dispatcher` (its index file)."""
    try:
        return os.path.isfile(dispatcher._cache._cache_file._index_path)
    except AttributeError:  # not a caching dispatcher, or numba changed: take it as not cached
        return False


def batch_compile_needed(name: str) -> bool:
    """Whether the one-thread batch loops or the compiled bots' loop of game `name` still have
    to be compiled (are not in the compile cache)."""
    spec = get_game(name).GAME.batch_spec()
    loops = ("reset_slots", "step_slots", "observe_slots")
    return not all(_cached(getattr(spec.loops, f + SERIAL)) for f in loops) or not _cached(
        getattr(spec.bots, "play_seats" + SERIAL)
    )


class BatchCompile:
    """Child processes compiling parts of a game (`python -m core.compile --quiet`); `wait`
    blocks until every one has ended. A child ends with this process (core.workers)."""

    def __init__(self, name: str, parts: Sequence[str] = BATCH_PARTS):
        env = dict(os.environ)
        roots = {
            str(_jit.package_dir("core").parent),
            str(_jit.package_dir(game_packages()[name]).parent),
        }
        env["PYTHONPATH"] = os.pathsep.join([*sorted(roots), env.get("PYTHONPATH", "")]).rstrip(
            os.pathsep
        )
        self.children = [
            subprocess.Popen(
                [
                    sys.executable,
                    "-m",
                    "core.compile",
                    "--game",
                    name,
                    "--parts",
                    part,
                    "--quiet",
                    "--parent",
                    str(os.getpid()),
                ],
                env=env,
                stdout=subprocess.DEVNULL,
                stderr=subprocess.DEVNULL,
            )
            for part in parts
        ]

    def wait(self, limit_s: float = WAIT_LIMIT_S) -> list[int]:
        """Wait for every child (at most `limit_s` in all; one still running then is stopped);
        returns their exit codes. A child that failed only costs time: what it did not compile,
        this process compiles on first use."""
        deadline = time.monotonic() + limit_s
        codes = []
        try:
            for child in self.children:
                try:
                    codes.append(child.wait(timeout=max(0.0, deadline - time.monotonic())))
                except subprocess.TimeoutExpired:
                    child.kill()
                    codes.append(child.wait())
        finally:
            self.stop()
        return codes

    def stop(self) -> None:
        """Stop every child still running."""
        for child in self.children:
            if child.poll() is None:
                child.kill()
                child.wait()


def start_batch_compile(name: str, out=None) -> BatchCompile | None:
    """On a cold compile cache, start compiling what a one-thread training run of game `name`
    needs before its first step (BATCH_PARTS) in two child processes, one per part, and say so
    on `out` (stderr); returns the handle to `wait` on before using the batch engine, or None
    when it is all cached already."""
    if not batch_compile_needed(name):
        return None
    pkg = game_packages()[name]
    print(
        f"{pkg}: numba is compiling the batch engine and the compiled bots in two processes "
        f"(not cached yet; once, about a minute on 2 CPU cores)\n"
        f"  into {_jit.cache_dir_for(pkg)}",
        file=out or sys.stderr,
        flush=True,
    )
    return BatchCompile(name)


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
        default=",".join(DEFAULT_PARTS),
        help=f"comma-separated parts to compile, of {','.join(PARTS)} "
        f"(default: {','.join(DEFAULT_PARTS)})",
    )
    p.add_argument("--quiet", action="store_true", help="print nothing")
    p.add_argument("--parent", type=int, help=argparse.SUPPRESS)  # exit when this pid is gone
    args = p.parse_args(argv)
    if args.parent is not None:
        die_with_driver(args.parent)
    parts = [x.strip() for x in args.parts.split(",") if x.strip()]
    bad = [x for x in parts if x not in PARTS]
    if bad or not parts:
        p.error(f"--parts: unknown {', '.join(bad) or '(none given)'}; choose from {PARTS}")
    games = args.game or game_names()
    start = time.perf_counter()
    out = io.StringIO() if args.quiet else sys.stdout
    for name in games:
        compile_game(name, parts, out)
    total = time.perf_counter() - start
    if args.quiet:
        return 0
    print(f"done in {total:.1f} s; compiled code is cached in:")
    for pkg in ["core", *(game_packages()[g] for g in games)]:
        print(f"  {_jit.cache_dir_for(pkg)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
