"""core.jit: the numba options the engines rely on still work, and the compile cache cannot go
stale (an edit to rules_data.py must never load old compiled code)."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import textwrap
from pathlib import Path

import numpy as np
import pytest

import core.jit as cj

ROOT = Path(__file__).resolve().parents[2]


def _add(a, b):
    s = 0
    for i in range(a.shape[0]):
        s += a[i] + b[i]
    return s


def _allocates(n):
    return np.zeros(n).sum()


def test_alloc_false_compiles_without_numba_runtime():
    """`_nrt=False` has no public name: if numba stops honouring it, this fails loudly."""
    import numba

    a = np.arange(5)  # compiled without the cache: numba cannot inspect cached code

    def fresh(**options):
        return numba.njit(**{**cj.njit_options(**options), "cache": False})(_add)

    plain, lean = fresh(), fresh(alloc=False)
    assert plain(a, a) == lean(a, a) == 20
    assert "NRT_" in "".join(plain.inspect_llvm().values())  # reference counting with NRT
    assert "NRT_" not in "".join(lean.inspect_llvm().values())  # none without it


def test_alloc_false_refuses_allocation():
    import numba

    def fresh(**options):  # uncached: a cached index does not tell the two options apart
        return numba.njit(**{**cj.njit_options(**options), "cache": False})(_allocates)

    with pytest.raises(Exception, match="zeros"):
        fresh(alloc=False)(3)
    assert fresh()(3) == 0.0


@pytest.fixture()
def own_cache(monkeypatch, tmp_path):
    """`cj.jit` on this module's functions caches under tmp_path: this test module is not a
    package, so its cache folder would otherwise be made beside core/, in the checkout."""
    d = tmp_path / "numba-cache"
    monkeypatch.setitem(cj._CACHE_DIRS, __name__.split(".")[0], str(d))
    return d


def test_compiling_this_module_leaves_nothing_in_the_checkout(own_cache):
    """Finding: the test run left a `test_jit/` folder in the checkout's root (the numba cache
    of the functions this module compiles with `cj.jit`)."""
    leftover = ROOT / __name__.split(".")[0]
    existed = leftover.exists()
    d = cj.jit(_add)
    assert d(np.arange(3), np.arange(3)) == 6
    assert Path(d.stats.cache_path).resolve().is_relative_to(own_cache.resolve())
    assert list(own_cache.rglob("*.nbi"))  # the cache really is written there
    assert leftover.exists() == existed


def test_inline_parallel_and_closing_a_dispatcher(own_cache):
    from numba import prange, types

    @cj.jit(inline=True)
    def twice(x):
        return 2 * x

    @cj.jit(parallel=True)
    def total(a):
        s = 0
        for i in prange(a.shape[0]):
            s += twice(a[i])
        return s

    assert total(np.arange(4)) == 12
    d = cj.jit(_add)
    arr = types.Array(types.int64, 1, "C")
    cj.compile_exactly([(d, types.int64(arr, arr))])
    assert d(np.arange(3), np.arange(3)) == 6
    with pytest.raises(TypeError):  # a float array: no new specialisation is compiled
        d(np.arange(3.0), np.arange(3.0))


def test_nl_strips_literal_type():
    assert cj.nl(7) == 7


def test_cache_dir_is_keyed_by_every_source(tmp_path):
    d = cj.cache_dir_for("village_env")
    assert cj.source_digest("village_env")[:20] in d
    # a game's digest covers its own package and core, not the other game
    assert cj._deps_of("village_env") == ("core", "village_env")
    assert cj._deps_of("core") == ("core",)
    assert {"core", "village_env", "troyes_env"} <= set(cj._deps_of("training"))
    # the engines' compiled functions really are cached there
    import village_env.engine.api as api

    assert Path(api.api_step.stats.cache_path).resolve().is_relative_to(Path(d).resolve())


_PLAY = textwrap.dedent(
    """
    import numpy as np
    import village_env as V
    from village_env.tables import N_CUSTOMERS
    rng = np.random.default_rng(0)
    s = V.new_game(2, seed=3)
    k = 0
    while not V.is_terminal(s) and k < 400:
        s = V.step(s, int(rng.choice(np.flatnonzero(V.legal_mask(s)))))
        k += 1
    print("tiles", N_CUSTOMERS, "decisions", k)
    """
)


@pytest.mark.slow
def test_editing_rules_data_recompiles(tmp_path):
    """In a copy of the repo with a warm numba cache, add one customer tile to
    village_env/rules_data.py. The state size depends on it; an import that loaded the stale
    compiled code would make `step` on a fresh game raise "the game is over"."""
    for d in ("core", "village_env"):
        shutil.copytree(ROOT / d, tmp_path / d, ignore=shutil.ignore_patterns("__pycache__"))
    env = {k: v for k, v in os.environ.items() if not k.startswith("NUMBA_")}

    def play():
        r = subprocess.run(
            [sys.executable, "-c", _PLAY],
            cwd=tmp_path,
            env=env,
            capture_output=True,
            text=True,
            timeout=600,
        )
        assert r.returncode == 0, r.stderr[-3000:]
        return r.stdout.split()

    first = play()  # compiles and fills the cache
    assert first[:2] == ["tiles", "24"] and int(first[3]) > 50
    assert list((tmp_path / "village_env" / "__pycache__" / "numba").glob("village_env-*"))
    rd = tmp_path / "village_env" / "rules_data.py"
    src = rd.read_text()
    last = '    ({"horse": 1, "ox": 1, "plow": 1}, 10),\n)'
    assert last in src
    rd.write_text(src.replace(last, last[:-1] + '    ({"ox": 2}, 5),\n)'))
    second = play()  # must compile afresh, not load the stale code
    assert second[:2] == ["tiles", "25"] and int(second[3]) > 50
    # the superseded digest's directory is gone; one remains
    cache = tmp_path / "village_env" / "__pycache__" / "numba"
    assert len(list(cache.glob("village_env-*"))) == 1


def test_superseded_cache_directories_are_kept_while_a_live_process_uses_them(tmp_path):
    """An edit gives a new cache directory and the old ones are removed, except one that a
    running process marked in use (a long run started before the edit still saves there)."""
    done = subprocess.run([sys.executable, "-c", "import os; print(os.getpid())"],
                          capture_output=True, text=True, check=True)  # fmt: skip
    dead = int(done.stdout)
    for name, pid in (("pkg-old1", os.getpid()), ("pkg-old2", dead), ("pkg-old3", None)):
        d = tmp_path / name
        (d / "engine").mkdir(parents=True)
        (d / "engine" / "f.nbi").write_text("x")
        if pid is not None:
            (d / cj.IN_USE).mkdir()
            (d / cj.IN_USE / str(pid)).touch()
    (tmp_path / "pkg-new").mkdir()
    cj.prune_superseded(tmp_path, "pkg", "pkg-new")
    left = sorted(p.name for p in tmp_path.iterdir())
    assert left == ["pkg-new", "pkg-old1"]  # in use by this live process; the others removed
    cj.mark_in_use(tmp_path / "pkg-new")
    assert (tmp_path / "pkg-new" / cj.IN_USE / str(os.getpid())).exists()


# --- first start: the compile notice and the warm-up command -----------------------------------


def _first_party_function(module: str):
    """A fresh, uncached compiled function that numba's events attribute to `module`."""
    import numba

    def f(x):
        return x + 1

    f.__module__ = module
    return numba.njit(cache=False)(f)


def test_compile_notice_says_once_what_compiles(monkeypatch):
    import io

    from numba.core import event

    monkeypatch.setattr(cj.NOTICE, "enabled", False)  # the process-wide one stays quiet
    out = io.StringIO()
    notice = cj.CompileNotice(stream=out)
    monkeypatch.setattr(cj, "NOTICE_AFTER_S", 0.0)
    with event.install_listener("numba:compile", notice):
        assert _first_party_function("village_env.engine.api")(1) == 2
        assert _first_party_function("village_env.engine.api")(1) == 2  # same module: once
        assert _first_party_function("village_env.engine.batch_loops")(1) == 2
        assert _first_party_function("numpy.fake")(1) == 2  # not ours: nothing
    lines = out.getvalue().splitlines()
    assert lines[0] == (
        "village_env: numba is compiling the rules engine behind the public API (new_game, "
        "step, ...)."
    )
    assert "python -m core.compile" in lines[-2] and cj.cache_dir_for("village_env") in lines[-3]
    assert lines[-1] == (
        "village_env: numba is compiling the batch engine's loops (make_batch, "
        "training) (not cached yet; once)"
    )
    assert notice.functions == {"village_env": 3}


def test_compile_notice_waits_for_a_slow_compile(monkeypatch):
    """A compile shorter than NOTICE_AFTER_S (most small functions) prints nothing."""
    import io

    from numba.core import event

    monkeypatch.setattr(cj.NOTICE, "enabled", False)
    out = io.StringIO()
    notice = cj.CompileNotice(stream=out)
    monkeypatch.setattr(cj, "NOTICE_AFTER_S", 60.0)
    with event.install_listener("numba:compile", notice):
        assert _first_party_function("core.fake")(1) == 2
    assert out.getvalue() == "" and notice.functions == {"core": 1}
    assert notice._timer is None  # cancelled when the compile ended


_PROBE = textwrap.dedent(
    """
    import numpy as np
    import core.jit as cj
    cj.NOTICE_AFTER_S = 0.0  # announce at once: these compile in about a second
    from core.rng import rng_seed
    assert cj.nl(3) == 3
    rng_seed(np.zeros(4, dtype=np.int64), 0, 1, 2, 3)
    print("compiled", cj.NOTICE.functions.get("core", 0))
    """
)


def _run_cold_or_warm(code: str, cache: Path, timeout: int) -> subprocess.CompletedProcess:
    env = {k: v for k, v in os.environ.items() if not k.startswith("NUMBA_")}
    env["NUMBA_CACHE_DIR"] = str(cache)
    return subprocess.run(
        [sys.executable, "-c", code],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=timeout,
    )


def test_notice_only_when_the_cache_misses(tmp_path):
    """An empty cache directory: numba compiles and the notice says so; the same directory
    again: everything loads from the cache, no notice."""
    cold = _run_cold_or_warm(_PROBE, tmp_path / "cache", 120)
    assert cold.returncode == 0, cold.stderr[-3000:]
    assert cold.stdout.split() == ["compiled", "2"]
    assert cold.stderr.count("core: numba is compiling") == 2  # two modules: core.jit, core.rng
    assert cold.stderr.count("python -m core.compile") == 1  # explained once
    warm = _run_cold_or_warm(_PROBE, tmp_path / "cache", 120)
    assert warm.returncode == 0, warm.stderr[-3000:]
    assert warm.stdout.split() == ["compiled", "0"]
    assert "numba is compiling" not in warm.stderr


def test_importing_a_game_compiles_nothing(tmp_path):
    """On an empty cache, importing both games (constants, --help, registration) takes no numba
    compile: the entry points compile on the first call that needs them (core.game)."""
    code = (
        "import core.jit as cj, village_env, troyes_env, training.learn.env\n"
        "print(village_env.NUM_ACTIONS > 0, troyes_env.RULES_DATA_HASH != '', "
        "sum(cj.NOTICE.functions.values()))"
    )
    r = _run_cold_or_warm(code, tmp_path / "cache", 120)
    assert r.returncode == 0, r.stderr[-3000:]
    assert r.stdout.split() == ["True", "True", "0"]
    assert "numba is compiling" not in r.stderr


@pytest.mark.slow
def test_first_game_says_it_compiles(tmp_path):
    """The new user's case: the first game on an empty cache compiles for tens of
    seconds and says so on stderr (default NOTICE_AFTER_S); the next start says nothing."""
    code = (
        "import numpy as np, village_env as V\n"
        "s = V.new_game(2, seed=0)\n"
        "V.step(s, int(np.flatnonzero(V.legal_mask(s))[0]))"
    )
    cold = _run_cold_or_warm(code, tmp_path / "cache", 600)
    assert cold.returncode == 0, cold.stderr[-3000:]
    assert cold.stderr.startswith(
        "village_env: numba is compiling the rules engine behind the public API"
    )
    warm = _run_cold_or_warm(code, tmp_path / "cache", 600)
    assert warm.returncode == 0 and "numba is compiling" not in warm.stderr


def test_compile_command(capsys):
    import re

    from core import compile as cc

    assert cc.main(["--game", "village", "--parts", "api,bots"]) == 0
    out = capsys.readouterr().out.splitlines()
    line = r" +\d+\.\d s  \((compiled \d+ functions?|loaded from the cache)\)"
    assert re.fullmatch("village  api    " + line, out[0]), out
    assert re.fullmatch("village  bots   " + line, out[1]), out
    assert re.fullmatch(r"done in \d+\.\d s; compiled code is cached in:", out[2]), out
    assert out[3:] == ["  " + cj.cache_dir_for(p) for p in ("core", "village_env")]
    with pytest.raises(SystemExit):
        cc.main(["--parts", "api,nope"])
    assert "--parts: unknown nope" in capsys.readouterr().err


def test_core_compile_names_the_game(capsys):
    import core.compile as cc

    for name in ("village", "troyes"):
        assert cc.main(["--game", name, "--parts", "api"]) == 0
        assert capsys.readouterr().out.startswith(f"{name:<8} api ")
