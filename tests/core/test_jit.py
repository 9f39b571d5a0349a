"""core.jit: the numba options the engines rely on still work, and the compile cache cannot go
stale (issue 11: an edit to rules_data.py used to load old compiled code)."""

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


def test_inline_parallel_and_closing_a_dispatcher():
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
    """The issue's reproduction: in a copy of the repo with a warm numba cache, add one customer
    tile to village_env/rules_data.py. The state size depends on it; before the fix the import
    loaded the old compiled code and `step` on a fresh game raised "the game is over"."""
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
