"""The rendered modules: what every game repeats, written once in core/ as templates and rendered
for each game at first import, into the game's compile cache (core.jit.cache_dir_for), with their
contract imports pointed at the game's modules. Nothing of it is kept in a game's package.

    python -m core.codegen             # render every registered game's modules, print the files
    python -m core.codegen mygame_env  # one game

| template | imported as `<game>_env.engine.` | it imports | used by |
|---|---|---|---|
| core/step_template.py | `step` | the game contract | the step driver (D5) |
| core/api_template.py | `api` | the game contract, step | core.game (the entry points) |
| core/contract_template.py | `contract` | the game contract, step | the loops below |
| core/batch_loops_template.py | `batch_loops` | contract | core.batch (D8) |
| core/search_template.py | `search_loops` | contract | core.search (ISMCTS) |
| core/stats_template.py | `stats_loops` | contract | training.balance (balance) |
| core/bots_template.py | `bot_loops` | contract | core.bots, core.batch (compiled bots) |
| core/selfplay_template.py | `selfplay_loops` | contract, search_loops | core.guided (self-play) |

The game contract (core/game_contract.py) is the one list of names a game defines, in its
`engine/rules.py` or, for kernels that look ahead through the step driver, its
`engine/kernels.py`. A template imports it as `from core.game_contract import (...)`; the
rendering imports each name from the game module that defines it (kernels.py first). A template
imports the rendered contract or step driver on a marked line of its own (`from
core.contract_template import (`, `from core.step_template import (`, `from core.search_template
import (`). In the contract template,
each default after its DEFAULTS line is replaced by the game's own where the game defines the
name.

Why a module per game: a compiled function that takes another as an argument (or closes over
one) cannot be cached by numba, so every process would pay the compile (seconds) again; a module
per game imports the game's functions directly and caches like any engine module (and numba can
inline them).

Where: `core.rendering.RenderedModules`, a finder at the front of ``sys.meta_path`` (installed
when core is imported), answers the import of ``<package>.engine.<name>`` for every registered
game package and every name above by rendering the template into
``<cache dir>/rendered/<name>.py`` and loading that file. The cache directory is keyed by a
digest of every source file of core and of the game (core.jit.source_digest), templates
included, so a rendering can never be stale: any edit gives a new directory. A file is written
only when its text differs (atomically), so its modification time, which numba's disk cache
checks, stays the same from start to start. A file of such a name in a game's own engine folder
is never imported (the finder comes first).
"""

from __future__ import annotations

import ast
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
    "selfplay_loops": _CORE / "selfplay_template.py",
    "contract": _CORE / "contract_template.py",
}
TITLES = {
    "step": "The step driver",
    "api": "The public API's compiled entry points",
    "contract": "The full game contract (adapters and defaults included)",
}
# the marked import lines of the templates -> the game's engine module they import instead
CONTRACTS = {
    "from core.contract_template import (": "contract",
    "from core.step_template import (": "step",
    "from core.search_template import (": "search_loops",
}
GAME_CONTRACT = "core.game_contract"  # imported name by name from the module defining each
GAME_MODULES = ("kernels", "rules")  # where a game defines its contract names, first wins
# the names a game may define in engine/kernels.py (above its step driver); the rest, which the
# step driver and entry points import, only in engine/rules.py
KERNEL_CONSTANTS = ("N_KEYS", "BOT_SCRATCH_I", "BOT_SCRATCH_F")
DEFAULTS = "# DEFAULTS:"  # the line after which contract_template.py's defaults stand
RENDERED = "rendered"  # the folder of the rendered modules inside a game's cache directory


def game_names_defined(package: str) -> dict[str, str]:
    """The top-level names a game package's engine/kernels.py and engine/rules.py define or
    import -> the module (of GAME_MODULES) each is taken from: a kernel name (`k_*`,
    KERNEL_CONSTANTS) from kernels.py where it is there, every name from rules.py otherwise.
    Read from the files, not imported."""
    from core.jit import package_dir

    found: dict[str, str] = {}
    for mod in GAME_MODULES:
        path = package_dir(package.split(".")[0]) / "engine" / f"{mod}.py"
        if not path.is_file():
            continue
        for node in ast.parse(path.read_text(), str(path)).body:
            for name in _bound_names(node):
                if mod == "rules" or name.startswith("k_") or name in KERNEL_CONSTANTS:
                    found.setdefault(name, mod)
    return found


def _bound_names(node: ast.stmt) -> list[str]:
    """The module-level names statement `node` binds, as the guide allows a game to bind them:
    a def or class; an assignment (`X = ...`, `X = Y = ...`, unpacking `X, Y = ...` or
    `[X, *Y] = ...`, an annotated `X: int = ...`, `X += ...`); an import (`import x as X`,
    `from x import X`, `from x import Y as X`; `import x.y` binds `x`, `import *` nothing
    that can be read from the file); and any of these inside a top-level `if`, `try`, `with`,
    `for` or `while` block (their targets too). Not the names inside a function or class."""
    if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
        return [node.name]
    if isinstance(node, ast.Assign):
        return [name for t in node.targets for name in _target_names(t)]
    if isinstance(node, ast.AnnAssign):  # `X: int` alone annotates and binds nothing
        return _target_names(node.target) if node.value is not None else []
    if isinstance(node, ast.AugAssign):
        return _target_names(node.target)
    if isinstance(node, ast.ImportFrom | ast.Import):
        return [(a.asname or a.name).split(".")[0] for a in node.names if a.name != "*"]
    if not isinstance(node, _BLOCKS):
        return []
    names = []
    if isinstance(node, ast.For | ast.AsyncFor):
        names += _target_names(node.target)
    if isinstance(node, ast.With | ast.AsyncWith):
        names += [n for i in node.items if i.optional_vars for n in _target_names(i.optional_vars)]
    blocks = [getattr(node, f, []) for f in ("body", "orelse", "finalbody")]
    blocks += [h.body for h in getattr(node, "handlers", [])]  # try: the except clauses
    return names + [n for block in blocks for stmt in block for n in _bound_names(stmt)]


# the top-level blocks whose statements bind module-level names
_BLOCKS = (ast.If, ast.For, ast.AsyncFor, ast.While, ast.With, ast.AsyncWith, ast.Try, ast.TryStar)


def _target_names(target: ast.expr) -> list[str]:
    """The names an assignment target binds: `X`, each name of `X, (Y, *Z)` or `[X, Y]`; none
    for an attribute or an item (`x.y = ...`, `x[0] = ...`)."""
    if isinstance(target, ast.Name):
        return [target.id]
    if isinstance(target, ast.Starred):
        return _target_names(target.value)
    if isinstance(target, ast.Tuple | ast.List):
        return [name for elt in target.elts for name in _target_names(elt)]
    return []


def _game_imports(names: list[str], pkg: str, defined: dict[str, str]) -> str:
    """`from <pkg>.engine.<module> import (...)` for contract `names`, each from the game module
    that defines it, as ONE line (statements joined by `; `), so that the rendered module keeps
    its template's line numbers; ValueError naming a required name the game does not define."""
    by_module: dict[str, list[str]] = {}
    for name in names:
        if name not in defined:
            raise ValueError(
                f"{pkg}: engine/rules.py (or engine/kernels.py) defines no {name!r}, a name of "
                "the game contract (core/game_contract.py)"
            )
        by_module.setdefault(defined[name], []).append(name)
    return (
        "; ".join(
            f"from {pkg}.engine.{mod} import ({', '.join(got)})" for mod, got in by_module.items()
        )
        + "\n"
    )


def render(module: str, game: str, package: str) -> str:
    """The source of rendered module `module` (a key of TEMPLATES) for one game package (or
    any module in it, e.g. 'village_env.engine.kernels'): the template with its docstring
    replaced and its marked contract imports pointed at the game's engine modules, every line
    where it is in the template (a replaced statement keeps its lines, blank after its first), so
    a traceback or a coverage report of the rendered module names the template's lines; the
    serial twins follow the template's last line."""
    pkg = package.split(".")[0]
    path = TEMPLATES[module]
    src = path.read_text()
    tree = ast.parse(src)
    doc = tree.body[0]
    if not (
        isinstance(doc, ast.Expr)
        and isinstance(doc.value, ast.Constant)
        and isinstance(doc.value.value, str)
    ):
        raise ValueError(f"{path} must start with its docstring")
    lines = src.splitlines(keepends=True)
    defined = game_names_defined(pkg) if GAME_CONTRACT in src else {}
    marked = 0
    for node in tree.body:  # the game contract's names, each from the module defining it
        if isinstance(node, ast.ImportFrom) and node.module == GAME_CONTRACT:
            names = [a.name for a in node.names]
            lines[node.lineno - 1] = _game_imports(names, pkg, defined)
            for i in range(node.lineno, node.end_lineno):
                lines[i] = "\n"
            marked += 1
    if module == "contract":
        _take_the_games_own(lines, tree, pkg, defined)
    for i, line in enumerate(lines):
        target = CONTRACTS.get(line.rstrip("\n"))
        if target is not None:
            lines[i] = f"from {pkg}.engine.{target} import (\n"
            marked += 1
    if not marked:
        raise ValueError(f"{path}: expected a line among {list(CONTRACTS)}")
    body = "".join(lines[doc.end_lineno :])
    title = TITLES.get(module) or module.replace("_", " ").capitalize()
    header = (  # on the docstring's lines: one, then blank ones (a docstring has at least one)
        f'"""{title} for {game}: rendered from core/{path.name} by core.codegen (never edited)."""'
        + "\n" * (doc.end_lineno - doc.lineno + 1)
    )
    return "\n" * (doc.lineno - 1) + header + body + serial_twins(body)


def _take_the_games_own(lines: list[str], tree: ast.Module, pkg: str, defined: dict) -> None:
    """In the contract template's `lines`: every default (a statement after the DEFAULTS line)
    whose name the game defines becomes an import of the game's own."""
    start = next(i for i, line in enumerate(lines) if line.startswith(DEFAULTS))
    for node in tree.body:
        first = _first_line(node)
        names = _bound_names(node)
        if first - 1 <= start or len(names) != 1 or names[0] not in defined:
            continue
        name = names[0]
        lines[first - 1] = f"from {pkg}.engine.{defined[name]} import {name}  # the game's own\n"
        for i in range(first, node.end_lineno):
            lines[i] = "\n"


def _first_line(node: ast.stmt) -> int:
    """The first line of a statement, its decorators included (1-based)."""
    decorators = getattr(node, "decorator_list", None)
    return decorators[0].lineno if decorators else node.lineno


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
        first = _first_line(node)
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
