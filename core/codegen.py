"""The rendered modules: what every game repeats, written once in core/ as templates and rendered
for each game at first import, into the game's compile cache (core.jit.cache_dir_for), with their
contract imports pointed at the game's modules. Nothing of it is kept in a game's package.

    python -m core.codegen             # render every registered game's modules, print the files
    python -m core.codegen mygame_env  # one game

| template | imported as `<game>_env.engine.` | its contract | used by |
|---|---|---|---|
| core/step_template.py | `step` | rules.py | the step driver (D5) |
| core/api_template.py | `api` | rules.py, step | core.game (the entry points) |
| core/batch_loops_template.py | `batch_loops` | kernels.py | core.batch (D8) |
| core/search_template.py | `search_loops` | kernels.py | core.search (ISMCTS) |
| core/stats_template.py | `stats_loops` | kernels.py | training.balance (balance) |
| core/bots_template.py | `bot_loops` | kernels.py | core.bots, core.batch (compiled bots) |

The contracts: core/rules_contract.py (what `engine/rules.py` names) and
core/kernels_contract.py (what `engine/kernels.py` names). A template imports a contract as
`from core.rules_contract import (` (or `core.kernels_contract`, or `core.step_template` for
the rendered step driver) on a line of its own; the rendering imports the game's module there.

Why a module per game: a compiled function that takes another as an argument (or closes over
one) cannot be cached by numba, so every process would pay the compile (seconds) again; a module
per game imports the game's functions directly and caches like any engine module (and numba can
inline them).

Where: `RenderedModules`, a finder at the front of ``sys.meta_path`` (installed when core is
imported), answers the import of ``<package>.engine.<name>`` for every registered game package
and every name above by rendering the template into ``<cache dir>/rendered/<name>.py`` and loading
that file. The cache directory is keyed by a digest of every source file of core and of the game
(core.jit.source_digest), templates included, so a rendering can never be stale: any edit gives a
new directory. A file is written only when its text differs (atomically), so its modification
time, which numba's disk cache checks, stays the same from start to start. A file of such a name
in a game's own engine folder is never imported (the finder comes first).
"""

from __future__ import annotations

import ast
import importlib.abc
import importlib.util
import os
import sys
import tempfile
from pathlib import Path

from core.registry import game_packages

_CORE = Path(__file__).resolve().parent
TEMPLATES = {  # rendered module name -> template file
    "step": _CORE / "step_template.py",
    "api": _CORE / "api_template.py",
    "batch_loops": _CORE / "batch_loops_template.py",
    "search_loops": _CORE / "search_template.py",
    "stats_loops": _CORE / "stats_template.py",
    "bot_loops": _CORE / "bots_template.py",
}
TITLES = {"step": "The step driver", "api": "The public API's compiled entry points"}
# the marked import lines of the templates -> the game's engine module they import instead
CONTRACTS = {
    "from core.rules_contract import (": "rules",
    "from core.kernels_contract import (": "kernels",
    "from core.step_template import (": "step",
}
RENDERED = "rendered"  # the folder of the rendered modules inside a game's cache directory


def render(module: str, game: str, package: str) -> str:
    """The source of rendered module `module` (a key of TEMPLATES) for one game package (or
    any module in it, e.g. 'village_env.engine.kernels'): the template with its docstring
    replaced and its marked contract imports pointed at the game's engine modules."""
    pkg = package.split(".")[0]
    path = TEMPLATES[module]
    src = path.read_text()
    doc = ast.parse(src).body[0]
    if not (
        isinstance(doc, ast.Expr)
        and isinstance(doc.value, ast.Constant)
        and isinstance(doc.value.value, str)
    ):
        raise ValueError(f"{path} must start with its docstring")
    lines = src.splitlines(keepends=True)
    marked = 0
    for i, line in enumerate(lines):
        target = CONTRACTS.get(line.rstrip("\n"))
        if target is not None:
            lines[i] = f"from {pkg}.engine.{target} import (\n"
            marked += 1
    if not marked:
        raise ValueError(f"{path}: expected a line among {list(CONTRACTS)}")
    body = "".join(lines[doc.end_lineno :])
    title = TITLES.get(module) or module.replace("_", " ").capitalize()
    header = (
        f'"""{title} for {game}: rendered from core/{path.name} by core.codegen at first\n'
        f'import (never edited, never kept in the game package)."""\n'
    )
    return header + body + serial_twins(body)


PARALLEL = "@jit(parallel=True)"
SERIAL = "_serial"


def serial_twins(src: str) -> str:
    """For every `@jit(parallel=True)` function of `src`, the same function compiled without
    threads, named with SERIAL appended (numba runs a `prange` as a `range` there), releasing
    the GIL. The batch engine calls a twin whenever it runs a loop on one thread, and from
    several Python threads on disjoint slots in its "split" threading, so such a run never waits
    for numba to compile a parallel loop, which costs several times the serial compile."""
    lines = src.splitlines(keepends=True)
    out = []
    for node in ast.parse(src).body:
        if not isinstance(node, ast.FunctionDef):
            continue
        first = node.decorator_list[0].lineno if node.decorator_list else node.lineno
        if lines[first - 1].strip() != PARALLEL:
            continue
        fn = lines[first - 1 : node.end_lineno]
        fn[0] = fn[0].replace(PARALLEL, "@jit(nogil=True)")
        at = node.lineno - first
        fn[at] = fn[at].replace(f"def {node.name}(", f"def {node.name}{SERIAL}(", 1)
        out.append(f"\n\n# {node.name} on one thread (core.codegen.serial_twins)\n")
        out += fn
    return "".join(out)


def _game_of(package: str) -> str | None:
    """The registered name of game package `package`, or None if no game is registered there."""
    return next((name for name, p in game_packages().items() if p == package), None)


def rendered_file(module: str, package: str) -> Path:
    """The file of rendered module `module` (a key of TEMPLATES) of game package `package`,
    written into the game's compile cache if it is missing or differs from `render`'s text."""
    from core.jit import cache_dir_for

    game = _game_of(package) or package
    src = render(module, game, package)
    folder = Path(cache_dir_for(package)) / RENDERED
    path = folder / f"{module}.py"
    try:
        if path.read_text() == src:
            return path
    except OSError:
        pass
    folder.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=folder, prefix=f".{module}-", suffix=".tmp")
    try:
        with os.fdopen(fd, "w") as f:
            f.write(src)
        os.chmod(tmp, 0o644)  # as a module file (mkstemp makes it private)
        os.replace(tmp, path)  # atomic: a process importing it at once sees one whole file
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise
    return path


class RenderedModules(importlib.abc.MetaPathFinder):
    """Answers ``import <package>.engine.<name>`` for a registered game package and a name of
    TEMPLATES with the rendered file (`rendered_file`); every other import goes on to the next
    finder."""

    def find_spec(self, fullname, path=None, target=None):
        parts = fullname.split(".")
        if len(parts) != 3 or parts[1] != "engine" or parts[2] not in TEMPLATES:
            return None
        if parts[0] not in game_packages().values():
            return None
        return importlib.util.spec_from_file_location(fullname, rendered_file(parts[2], parts[0]))


def install() -> None:
    """Put one `RenderedModules` at the front of ``sys.meta_path`` (once per process)."""
    if not any(isinstance(f, RenderedModules) for f in sys.meta_path):
        sys.meta_path.insert(0, RenderedModules())


def main(argv: list[str] | None = None) -> None:
    pkgs = sys.argv[1:] if argv is None else argv
    known = set(game_packages().values())
    for pkg in pkgs or sorted(known):
        if pkg not in known:
            raise SystemExit(
                f"{pkg!r} is not a registered game package; known: {', '.join(sorted(known))}"
            )
        for module in TEMPLATES:
            print(rendered_file(module, pkg))


if __name__ == "__main__":
    main()
