"""Numba conventions of the engines, in one place: every compiled function of this library is
made by `jit` below, and this docstring says why each option is used.

Options (all through `jit(...)`):

- ``cache=True`` always: compiled code is kept on disk, so a second start loads it in about a
  second instead of compiling for half a minute.
- ``alloc=False`` (numba's ``_nrt=False``): the function, and everything it calls, is compiled
  without numba's runtime (NRT). Such code cannot allocate (a slice copy, ``np.zeros``, a tuple
  of arrays returned...); it fails to compile instead. In exchange no reference count is taken for
  each array passed from call to call, which was ~15 % of all instructions of a random Troyes
  game, and each array argument of an entry point is unboxed ~0.1 us faster. The rules code uses
  it everywhere; a function that must allocate (final scoring in Village, the compiled game
  loops) keeps the default. ``_nrt`` is a numba option without a public name:
  `tests/core/test_jit.py` fails loudly if numba stops honouring it.
- ``inline=True`` (numba's ``inline="always"``): inlined at numba IR level into every caller;
  used for tiny helpers on the hottest paths (mask bit scans, the RNG).
- ``parallel=True``: ``numba.prange`` loops over the games of a batch (DESIGN D8).

Two more conventions:

- `nl(x)`: numba compiles one specialisation of a function per *literal* argument value (and of
  everything it calls); passing a module constant through ``nl()`` strips its literal type, so
  one specialisation serves every value.
- `compile_exactly`: the public API's entry points are compiled for exactly one signature and
  then closed (``Dispatcher.disable_compile``), so an odd argument (a float state, a strided
  view) raises TypeError at dispatch and the Python wrapper takes its checked path, instead of
  numba silently compiling a new specialisation.

The compile cache cannot go stale. Numba checks only the source file of each cached function: a
cached caller keeps the old code of a callee in another file and every module constant it read
(layout offsets, table sizes derived from ``rules_data.py``). So the cache directory of every
function made here is keyed by a digest of *every* ``.py`` file of its package and of ``core/``,
plus the numba, llvmlite, numpy and Python versions (`source_digest`): any edit anywhere gives a
new, empty directory and numba compiles afresh. This uses only numba's documented cache setting
(``NUMBA_CACHE_DIR`` / ``numba.config.CACHE_DIR``), read when a function is decorated.
Where the directories live: under ``$NUMBA_CACHE_DIR`` when the user set it, else in the
package's own ``__pycache__/numba/`` (old digests there are removed), else in the user's cache
folder when the package folder is read-only.
"""

from __future__ import annotations

import hashlib
import os
import shutil
import sys
import tempfile
from pathlib import Path

import llvmlite
import numba
import numpy as np
from numba import config as _numba_config

__all__ = ["jit", "njit_options", "nl", "compile_exactly", "source_digest", "cache_dir_for"]

_CORE = Path(__file__).resolve().parent
_ROOT = _CORE.parent


def _first_party() -> list[str]:
    """The library's top-level packages (folders beside core/ with an __init__.py)."""
    return sorted(p.name for p in _ROOT.iterdir() if (p / "__init__.py").is_file())


def _deps_of(package: str) -> tuple[str, ...]:
    """Packages whose sources compiled code of `package` may inline or read constants from:
    core only depends on itself, a game package on itself and core; anything else (training's
    compiled bots) on every first-party package."""
    if package == "core":
        return ("core",)
    if package.endswith("_env"):
        return ("core", package)
    return tuple(sorted({*_first_party(), package}))


_DIGESTS: dict[str, str] = {}


def source_digest(package: str) -> str:
    """sha256 (hex) of every .py file of `package`'s dependencies (`_deps_of`) with their paths,
    and of the numba, llvmlite, numpy and Python versions. Computed once per process."""
    got = _DIGESTS.get(package)
    if got is not None:
        return got
    h = hashlib.sha256()
    for v in (numba.__version__, llvmlite.__version__, np.__version__, sys.version):
        h.update(v.encode() + b"\0")
    for dep in _deps_of(package):
        root = _ROOT / dep
        for p in sorted(root.rglob("*.py")):
            h.update(p.relative_to(_ROOT).as_posix().encode() + b"\0")
            h.update(p.read_bytes() + b"\0")
    got = _DIGESTS[package] = h.hexdigest()
    return got


_CACHE_DIRS: dict[str, str] = {}


def _writable(d: Path) -> bool:
    try:
        d.mkdir(parents=True, exist_ok=True)
        with tempfile.TemporaryFile(dir=d):
            pass
        return True
    except OSError:
        return False


def cache_dir_for(package: str) -> str:
    """The numba cache directory of `package`'s compiled functions for the current sources."""
    got = _CACHE_DIRS.get(package)
    if got is not None:
        return got
    name = f"{package}-{source_digest(package)[:20]}"
    user = os.environ.get("NUMBA_CACHE_DIR")
    if user:
        d = Path(user) / "village-troyes-rl" / name
    else:
        base = _ROOT / package / "__pycache__" / "numba"
        if _writable(base):
            for old in base.glob(f"{package}-*"):  # this checkout's own, superseded digests
                if old.name != name:
                    shutil.rmtree(old, ignore_errors=True)
            d = base / name
        else:
            home = os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache"
            d = Path(home) / "village-troyes-rl" / name
    got = _CACHE_DIRS[package] = str(d)
    return got


def njit_options(alloc: bool = True, inline: bool = False, parallel: bool = False) -> dict:
    """The ``numba.njit`` keyword arguments that `jit` passes for these options."""
    opts: dict = {"cache": True}
    if not alloc:
        opts["_nrt"] = False
    if inline:
        opts["inline"] = "always"
    if parallel:
        opts["parallel"] = True
    return opts


def jit(fn=None, *, alloc: bool = True, inline: bool = False, parallel: bool = False):
    """``numba.njit(cache=True, ...)`` with the options above, cached under `cache_dir_for` the
    function's package. Usable bare (``@jit``) or with options (``@jit(alloc=False)``)."""
    opts = njit_options(alloc, inline, parallel)

    def decorate(f):
        package = f.__module__.split(".")[0]
        saved = _numba_config.CACHE_DIR
        _numba_config.CACHE_DIR = cache_dir_for(package)
        try:  # numba picks the cache location while decorating
            return numba.njit(**opts)(f)
        finally:
            _numba_config.CACHE_DIR = saved

    return decorate if fn is None else decorate(fn)


@jit(alloc=False)
def nl(x):
    """x without its literal type (see the module docstring)."""
    return x + 0


def compile_exactly(dispatchers_and_signatures) -> None:
    """Compile (or load from the cache) each (dispatcher, signature) pair, then refuse every
    other specialisation. Called again with other table types, it adds their signatures."""
    for dispatcher, sig in dispatchers_and_signatures:
        dispatcher.disable_compile(False)
        dispatcher.compile(sig)
        dispatcher.disable_compile()
