"""A run compiles only what it uses, and as little of it as numba allows: the one-thread twins of
the parallel batch loops, one specialisation per argument type (not per constant value), and the
two-process compile of a training run's first start."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import numba
import pytest

import core.compile as cc
import core.jit as cj
from core.codegen import SERIAL, serial_twins
from core.registry import default_game, game_names, get_game

ROOT = Path(__file__).resolve().parents[2]


def test_serial_twins_of_a_parallel_function():
    src = (
        "@jit(parallel=True)\n"
        "def f(idx, out):\n"
        '    """Doc."""\n'
        "    for j in prange(idx.shape[0]):\n"
        "        out[idx[j]] = 1\n"
        "\n\n"
        "@jit\n"
        "def g(x):\n"
        "    return x\n"
    )
    twins = serial_twins(src)
    assert f"def f{SERIAL}(idx, out):" in twins and "@jit(nogil=True)\n" in twins
    assert "parallel" not in twins and f"def g{SERIAL}" not in twins


@pytest.mark.parametrize("game", game_names())
def test_every_parallel_batch_loop_has_its_serial_twin(game):
    spec = get_game(game).GAME.batch_spec()
    for module in (spec.loops, spec.bots):
        parallel = [
            name
            for name, f in vars(module).items()
            if getattr(f, "targetoptions", {}).get("parallel")
        ]
        assert parallel, module.__name__
        for name in parallel:
            twin = getattr(module, name + SERIAL)
            assert not twin.targetoptions.get("parallel")


def test_a_one_thread_batch_never_compiles_a_parallel_loop():
    """In a fresh process (numba's disk cache shared), a batch engine capped at one thread calls
    only the serial twins: the parallel dispatchers hold no compiled signature."""
    code = (
        "import numpy as np\n"
        "from core.registry import default_game, get_game\n"
        "V = get_game(default_game())\n"
        "from core.batch import SEAT_RANDOM\n"
        "eng = V.make_batch(256, 2, seed=0, threads=1)\n"
        "eng.step(eng.random_actions()); eng.random_play(5); eng.observe(eng.players)\n"
        "codes = np.full((256, eng.spec.max_players), SEAT_RANDOM, dtype=np.int64)\n"
        "eng.play_seats(eng._all, codes, np.ones((256, eng.spec.max_players, 4), np.int64),"
        " np.zeros(256, np.int64))\n"
        "sp = eng.spec\n"
        "out = {m.__name__ + '.' + n: len(f.signatures) for m in (sp.loops, sp.bots)"
        " for n, f in vars(m).items() if hasattr(f, 'signatures')"
        " and (f.targetoptions.get('parallel') or n.endswith('_serial'))}\n"
        "import json; print(json.dumps(out))\n"
    )
    env = {**os.environ, "NUMBA_NUM_THREADS": "2"}
    got = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, env=env, timeout=900
    )
    assert got.returncode == 0, got.stderr
    counts = json.loads(got.stdout.strip().splitlines()[-1])
    used = {k: v for k, v in counts.items() if v}
    assert used and all(k.endswith(SERIAL) for k in used), used
    for name in ("step_slots", "random_play", "play_seats", "reset_slots"):
        assert any(k.endswith(f".{name}{SERIAL}") for k in used), name


def _add_k(x, k):
    return x + k


def test_a_constant_argument_compiles_one_specialisation():
    """numba types a constant argument as Literal[int](k) and compiles a plain dispatcher once per
    value; the library's dispatchers compile once per argument type."""

    def callers(callee):
        @numba.njit
        def caller(x):
            return callee(x, 3) + callee(x, 4)

        return caller

    plain = numba.njit(_add_k)
    assert callers(plain)(1) == 9
    assert len(plain.signatures) == 2  # Literal[int](3), Literal[int](4): what this avoids

    ours = numba.njit(_add_k)
    ours.__class__ = cj.OneSpecialisation
    assert callers(ours)(1) == 9
    assert [str(t) for t in ours.signatures[0]] == ["int64", "int64"]
    assert len(ours.signatures) == 1
    assert ours(2, 5) == 7  # called from Python as before


def test_every_library_function_is_made_by_one_specialisation_dispatchers():
    spec = get_game(game_names()[0]).GAME.batch_spec()
    for module in (spec.loops, spec.bots):
        jitted = [
            f for f in vars(module).values() if isinstance(f, numba.core.dispatcher.Dispatcher)
        ]
        own = [f for f in jitted if f.py_func.__module__ == module.__name__]
        assert own and all(isinstance(f, cj.OneSpecialisation) for f in own)


def test_a_failed_compiling_child_only_costs_time():
    job = cc.BatchCompile(game_names()[0], parts=("no-such-part",))
    assert job.wait() == [2]  # argparse's refusal; the caller goes on and compiles itself


def test_a_compiling_child_exits_when_its_parent_is_gone():
    cmd = ["-m", "core.compile", "--game", game_names()[0], "--parts", "search", "--quiet"]
    got = subprocess.run([sys.executable, *cmd, "--parent", "1"], cwd=ROOT, timeout=120)
    assert got.returncode == 1  # its parent is not pid 1: it exits before compiling anything


def test_nothing_starts_when_the_first_start_is_cached(monkeypatch):
    monkeypatch.setattr(cc, "_cached", lambda dispatcher: True)
    assert cc.start_batch_compile(game_names()[0]) is None


def _python(code: str, env: dict) -> subprocess.CompletedProcess:
    """Run `code` in a fresh interpreter at the repository root; it must succeed."""
    got = subprocess.run(
        [sys.executable, "-c", code],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=1200,
    )
    assert got.returncode == 0, got.stderr
    return got


@pytest.mark.slow
def test_two_compiling_processes_leave_nothing_for_the_run_to_compile(tmp_path):
    """On an empty cache, the two children compile everything a one-thread training run needs
    before its first step: a fresh process then builds the batch engine, lets compiled bots play
    and compiles nothing."""
    env = {**os.environ, "NUMBA_CACHE_DIR": str(tmp_path)}
    game = default_game()
    first = (
        "import core.compile as c\n"
        f"assert c.batch_compile_needed({game!r})\n"
        f"job = c.start_batch_compile({game!r})\n"
        "print(job.wait())\n"
        f"assert not c.batch_compile_needed({game!r})\n"
    )
    got = _python(first, env)
    assert got.stdout.strip().splitlines()[-1] == "[0, 0]"
    assert "two processes" in got.stderr
    then = (
        "import numpy as np\n"
        "from core import jit\n"
        "from core.batch import BOT_GREEDY, SEAT_CALLER\n"
        "from core.registry import get_game\n"
        f"g = get_game({game!r})\n"
        "eng = g.make_batch(8, min(g.PLAYER_COUNTS), seed=1, observe=False, threads=1)\n"
        "codes = np.full((8, eng.spec.max_players), BOT_GREEDY, dtype=np.int64)\n"
        "codes[:, 0] = SEAT_CALLER\n"
        "moves = np.zeros(8, dtype=np.int64)\n"
        "eng.step(np.argmax(eng.masks, axis=1))\n"
        "eng.play_seats(eng._all, codes, np.ones((8, eng.spec.max_players, 4), np.int64), moves)\n"
        "eng.observe(eng.players)\n"
        "assert (moves >= 0).all(), moves\n"
        "print(sum(jit.NOTICE.functions.values()))\n"
    )
    got = _python(then, env)
    assert got.stdout.strip().splitlines()[-1] == "0", got.stderr


@pytest.mark.slow
def test_each_compiling_process_reuses_the_rules_half_the_other_started_with(tmp_path):
    """`loops` starts with the legal mask half of the rules engine (r_mask), `botloop` with the
    move half (r_apply): compiled alone, each half caches the functions it calls under the
    signatures the loops use, so a process that finds both halves cached compiles none of them
    again (numba reports a compile only on a cache miss)."""
    env = {**os.environ, "NUMBA_CACHE_DIR": str(tmp_path)}
    game = min(game_names(), key=lambda g: get_game(g).GAME.batch_spec().state_size)
    record = (
        "import json\n"
        "from numba.core import event\n"
        "import core.compile as c\n"
        "from core.registry import game_packages\n"
        "names = []\n"
        "class L(event.Listener):\n"
        "    def on_start(self, e):\n"
        "        f = e.data['dispatcher'].py_func\n"
        "        names.append(f.__module__ + '.' + f.__qualname__)\n"
        "    def on_end(self, e):\n"
        "        pass\n"
        "event.register('numba:compile', L())\n"
        f"pkg = game_packages()[{game!r}]\n"
    )
    halves = _python(
        record + "c._rules_half(pkg, 'r_mask')\nc._rules_half(pkg, 'r_apply')\n"
        "print(json.dumps(names))\n",
        env,
    )
    loops = _python(record + "c._loops(pkg)\nc._botloop(pkg)\nprint(json.dumps(names))\n", env)
    first = set(json.loads(halves.stdout.strip().splitlines()[-1]))
    then = set(json.loads(loops.stdout.strip().splitlines()[-1]))
    assert any(n.endswith(".r_mask") for n in first) and any(n.endswith(".r_apply") for n in first)
    assert then and not first & then, sorted(first & then)
