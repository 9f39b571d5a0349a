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
  it everywhere; a function that must allocate (the compiled game loops of the batch engine and
  the benchmarks) keeps the default. ``_nrt`` is a numba option without a public name:
  `tests/core/test_jit.py` fails loudly if numba stops honouring it.
- ``inline=True`` (numba's ``inline="always"``): inlined at numba IR level into every caller;
  used for tiny helpers on the hottest paths (mask bit scans, the RNG).
- ``parallel=True``: ``numba.prange`` loops over the games of a batch (DESIGN D8).
- ``nogil=True``: the function releases the GIL while it runs, so Python threads can run it on
  disjoint data at once (the batch loops' one-thread twins, core.batch's "split" threading).

Every function is made by `OneSpecialisation`, numba's dispatcher compiling one specialisation
per argument type: a plain dispatcher called from compiled code with a constant argument (a layout
offset, a seat number) compiles itself, and everything it calls, once per constant value, which
was a quarter of the functions compiled before a training run's first step.

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
package's own ``__pycache__/numba/`` (old digests there are removed once no live process uses
them: `prune_superseded`), else in the user's cache
folder when the package folder is read-only.

First start: compiling takes tens of seconds, so a compile that is still running after
`NOTICE_AFTER_S` prints one line on stderr saying what is compiled, about how long it takes and
where it is cached (`CompileNotice`, once per module of compiled code per process). It listens to
numba's ``numba:compile`` event, which numba raises only after its disk cache had nothing for the
function (a cache miss), so a warm start prints nothing and pays nothing.
`python -m core.compile` compiles everything a game needs ahead of time.
"""

from __future__ import annotations

import functools
import hashlib
import importlib.util
import os
import shutil
import sys
import tempfile
import threading
import time
from pathlib import Path

import llvmlite
import numba
import numpy as np
from numba import config as _numba_config
from numba.core import event as _numba_event
from numba.core import types
from numba.core.registry import CPUDispatcher

__all__ = [
    "jit",
    "njit_options",
    "nl",
    "compile_exactly",
    "OneSpecialisation",
    "source_digest",
    "cache_dir_for",
    "package_dir",
    "CompileNotice",
    "NOTICE",
]

_CORE = Path(__file__).resolve().parent
_ROOT = _CORE.parent


def _first_party() -> list[str]:
    """The library's top-level packages: folders beside core/ with an __init__.py, and every
    registered game package wherever it is installed (core.registry: entry points included)."""
    from core.registry import game_packages

    beside = {p.name for p in _ROOT.iterdir() if (p / "__init__.py").is_file()}
    return sorted(beside | set(game_packages().values()))


@functools.lru_cache(maxsize=None)
def _game_packages() -> frozenset[str]:
    from core.registry import game_packages

    return frozenset(game_packages().values())


@functools.lru_cache(maxsize=None)
def package_dir(package: str) -> Path:
    """The folder of top-level package `package`, found by the import system (a game may live
    in another distribution, outside this repository) without importing it; a name the import
    system cannot place (a script's ``__main__``) is taken as a folder beside core/."""
    if package == "core":
        return _CORE
    try:
        spec = importlib.util.find_spec(package)
    except (ImportError, ValueError):
        spec = None
    if spec is None or not spec.submodule_search_locations:
        return _ROOT / package
    return Path(next(iter(spec.submodule_search_locations))).resolve()


def _deps_of(package: str) -> tuple[str, ...]:
    """Packages whose sources compiled code of `package` may inline or read constants from:
    core only depends on itself, a game package (core.registry) on itself and core; anything
    else (training's compiled bots) on every first-party package."""
    if package == "core":
        return ("core",)
    if package in _game_packages():
        return ("core", package)
    return tuple(sorted({*_first_party(), package}))


_DIGESTS: dict[str, str] = {}


def source_digest(package: str) -> str:
    """sha256 (hex) of every .py file of `package`'s dependencies (`_deps_of`) outside
    ``__pycache__`` with their paths (relative to the folder holding each package), and of the
    numba, llvmlite, numpy and Python versions. Computed once per process."""
    got = _DIGESTS.get(package)
    if got is not None:
        return got
    h = hashlib.sha256()
    for v in (numba.__version__, llvmlite.__version__, np.__version__, sys.version):
        h.update(v.encode() + b"\0")
    for dep in _deps_of(package):
        root = package_dir(dep)
        for p in sorted(root.rglob("*.py")):
            if "__pycache__" in p.parts:  # the rendered modules (core.codegen) live there
                continue
            h.update(p.relative_to(root.parent).as_posix().encode() + b"\0")
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


IN_USE = ".in_use"  # a cache directory's markers: one empty file per process that uses it


def mark_in_use(d: Path) -> None:
    """Record that this process uses cache directory `d` (an empty file named by its pid), so
    that another process does not remove it while this one may still write to it."""
    try:
        (d / IN_USE).mkdir(parents=True, exist_ok=True)
        (d / IN_USE / str(os.getpid())).touch()
    except OSError:
        pass


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except (PermissionError, OSError):
        return True  # it exists (another user's), or we cannot tell: keep
    return True


def prune_superseded(base: Path, package: str, name: str) -> None:
    """Remove this checkout's superseded cache directories of `package` (those not named `name`)
    unless a live process marked one in use: a long run started before an edit keeps the
    directory its compiled code is saved to (numba fails on a save into a removed directory)."""
    for old in base.glob(f"{package}-*"):
        if old.name == name:
            continue
        pids = [p.name for p in (old / IN_USE).glob("*")] if (old / IN_USE).is_dir() else []
        if any(pid.isdigit() and _alive(int(pid)) for pid in pids):
            continue
        shutil.rmtree(old, ignore_errors=True)


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
        base = package_dir(package) / "__pycache__" / "numba"
        if _writable(base):
            prune_superseded(base, package, name)
            d = base / name
            mark_in_use(d)
        else:
            home = os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache"
            d = Path(home) / "village-troyes-rl" / name
    got = _CACHE_DIRS[package] = str(d)
    return got


def njit_options(
    alloc: bool = True, inline: bool = False, parallel: bool = False, nogil: bool = False
) -> dict:
    """The ``numba.njit`` keyword arguments that `jit` passes for these options."""
    opts: dict = {"cache": True}
    if not alloc:
        opts["_nrt"] = False
    if inline:
        opts["inline"] = "always"
    if parallel:
        opts["parallel"] = True
    if nogil:
        opts["nogil"] = True
    return opts


def jit(
    fn=None,
    *,
    alloc: bool = True,
    inline: bool = False,
    parallel: bool = False,
    nogil: bool = False,
):
    """``numba.njit(cache=True, ...)`` with the options above, cached under `cache_dir_for` the
    function's package. Usable bare (``@jit``) or with options (``@jit(alloc=False)``)."""
    opts = njit_options(alloc, inline, parallel, nogil)

    def decorate(f):
        package = f.__module__.split(".")[0]
        saved = _numba_config.CACHE_DIR
        _numba_config.CACHE_DIR = cache_dir_for(package)
        try:  # numba picks the cache location while decorating
            d = numba.njit(**opts)(f)
        finally:
            _numba_config.CACHE_DIR = saved
        if isinstance(d, CPUDispatcher):  # NUMBA_DISABLE_JIT=1: the plain Python function
            d.__class__ = OneSpecialisation
        return d

    return decorate if fn is None else decorate(fn)


class OneSpecialisation(CPUDispatcher):
    """A dispatcher that compiles one specialisation per argument *type* when called from
    compiled code, not one per literal value: numba types a constant argument (a layout offset,
    a seat number) as ``Literal[int](k)`` and would compile the callee, and everything it calls
    with that argument, once per value. Inlining by LLVM still propagates the constants."""

    def get_call_template(self, args, kws):
        args = tuple(types.unliteral(a) for a in args)
        kws = {k: types.unliteral(v) for k, v in kws.items()}
        return super().get_call_template(args, kws)


@jit(alloc=False)
def nl(x):
    """x without its literal type (see the module docstring)."""
    return x + 0


def compile_exactly(dispatchers_and_signatures) -> None:
    """Compile (or load from the cache) each (dispatcher, signature) pair, then refuse every
    other specialisation. Called again with other table types, it adds their signatures."""
    for dispatcher, sig in dispatchers_and_signatures:
        if not isinstance(dispatcher, CPUDispatcher):  # NUMBA_DISABLE_JIT=1: nothing to compile
            continue
        dispatcher.disable_compile(False)
        dispatcher.compile(sig)
        dispatcher.disable_compile()


# --- first start: say what numba is compiling ----------------------------------------------------

NOTICE_AFTER_S = 1.0  # a compile still running after this long is announced (0: at once)

# what the compiled code of a module is for, by module name after the package
_WHAT = {
    "engine.api": "the rules engine behind the public API (new_game, step, ...)",
    "engine.batch_loops": "the batch engine's loops (make_batch, training)",
    "engine.search_loops": "the search agent's loops (mcts)",
    "engine.contract": "the engine kernels of the bots and the search",
}


class CompileNotice(_numba_event.Listener):
    """Announces on stderr a numba compile of this library that is still running after
    `NOTICE_AFTER_S` (see the module docstring): the first one of the process at length (what,
    why, about how long, where it is cached, how to compile ahead of time), later ones of other
    modules in one line each; every module once.

    numba raises ``numba:compile`` only on a cache miss, nested for the functions a compiled
    function calls; the outermost one names what is compiled. `seconds` and `functions` count the
    outermost compiles per package (python -m core.compile reports them); `enabled` False keeps
    it quiet (python -m core.compile prints its own lines)."""

    def __init__(self, stream=None):
        self.stream = stream  # None: sys.stderr at the time of printing
        self.enabled = True
        self.depth = 0
        self.announced: set[str] = set()
        self.seconds: dict[str, float] = {}
        self.functions: dict[str, int] = {}
        self._timer: threading.Timer | None = None
        self._started = 0.0
        self._current: str | None = None  # package of the compile in progress (first-party)
        self._lock = threading.Lock()

    def on_start(self, event):
        self.depth += 1  # numba holds its compiler lock: one compiling thread at a time
        if self.depth != 1:
            return
        self._started = time.perf_counter()
        self._current = None
        try:
            module = event.data["dispatcher"].py_func.__module__
        except (AttributeError, KeyError, TypeError):
            return
        package = module.split(".")[0]
        if package not in _first_party_set():
            return
        self._current = package
        if module in self.announced or not self.enabled:
            return
        if NOTICE_AFTER_S <= 0:
            self._say(module)
        else:
            self._timer = threading.Timer(NOTICE_AFTER_S, self._say, (module,))
            self._timer.daemon = True
            self._timer.start()

    def on_end(self, event):
        self.depth -= 1
        if self.depth != 0:
            return
        with self._lock:
            if self._timer is not None:
                self._timer.cancel()
                self._timer = None
        package = self._current
        if package is not None:
            took = time.perf_counter() - self._started
            self.seconds[package] = self.seconds.get(package, 0.0) + took
            self.functions[package] = self.functions.get(package, 0) + 1

    def _say(self, module: str) -> None:
        with self._lock:
            self._timer = None
            if module in self.announced or not self.enabled:
                return
            first = not self.announced
            self.announced.add(module)
        package, _, rest = module.partition(".")
        what = _WHAT.get(rest, f"the compiled code of {module}")
        if first:
            text = (
                f"{package}: numba is compiling {what}.\n"
                "  It is not in the compile cache yet (first start, or the code or numba "
                "changed): this takes\n"
                "  up to a minute or two per part on 2 CPU cores, once; later starts load it "
                "in about a second\n"
                f"  from {cache_dir_for(package)}\n"
                "  To compile everything ahead of time: python -m core.compile"
            )
        else:
            text = f"{package}: numba is compiling {what} (not cached yet; once)"
        print(text, file=self.stream or sys.stderr, flush=True)


@functools.lru_cache(maxsize=1)
def _first_party_set() -> frozenset[str]:
    return frozenset(_first_party())  # on the first compile (the registry reads entry points)


NOTICE = CompileNotice()
_numba_event.register("numba:compile", NOTICE)
