"""The generated modules: what every game repeats, written once in core/ as templates and copied
into each game's engine folder with their contract imports pointed at the game's modules.

    python -m core.codegen                         # every registered game, every template
    python -m core.codegen mygame_env              # one game

| template | copied to `<game>_env/engine/` | its contract | used by |
|---|---|---|---|
| core/step_template.py | `step.py` | rules.py | the step driver (D5) |
| core/api_template.py | `api.py` | rules.py, step.py | core.game (the entry points) |
| core/batch_loops_template.py | `batch_loops.py` | kernels.py | core.batch (D8) |
| core/search_template.py | `search_loops.py` | kernels.py | core.search (ISMCTS) |
| core/stats_template.py | `stats_loops.py` | kernels.py | training.balance (balance) |
| core/bots_template.py | `bot_loops.py` | kernels.py | core.bots, core.batch (compiled bots) |

The contracts: core/rules_contract.py (what `engine/rules.py` names) and
core/kernels_contract.py (what `engine/kernels.py` names). A template imports a contract as
`from core.rules_contract import (` (or `core.kernels_contract`, or `core.step_template` for
the generated step driver) on a line of its own; the copy imports the game's module there.

Why copies: a compiled function that takes another as an argument (or closes over one) cannot be
cached by numba, so every process would pay the compile (seconds) again; a copy per game imports
the game's functions directly and caches like any engine module (and numba can inline them).
Tests check the copies are current (tests/test_api_entry_points.py, tests/test_batch.py,
tests/core/test_search.py, tests/training/test_game_stats.py,
tests/training/test_compiled_bots.py).
"""

from __future__ import annotations

import ast
import importlib.util
from pathlib import Path

from core.registry import game_packages

_CORE = Path(__file__).resolve().parent
TEMPLATES = {  # generated module name -> (template file, the test that checks the copies)
    "step": (_CORE / "step_template.py", "tests/test_api_entry_points.py"),
    "api": (_CORE / "api_template.py", "tests/test_api_entry_points.py"),
    "batch_loops": (_CORE / "batch_loops_template.py", "tests/test_batch.py"),
    "search_loops": (_CORE / "search_template.py", "tests/core/test_search.py"),
    "stats_loops": (_CORE / "stats_template.py", "tests/training/test_game_stats.py"),
    "bot_loops": (_CORE / "bots_template.py", "tests/training/test_compiled_bots.py"),
}
TITLES = {"step": "The step driver", "api": "The public API's compiled entry points"}
# the marked import lines of the templates -> the game's engine module they import instead
CONTRACTS = {
    "from core.rules_contract import (": "rules",
    "from core.kernels_contract import (": "kernels",
    "from core.step_template import (": "step",
}


def render(module: str, game: str, package: str) -> str:
    """The source of generated module `module` (a key of TEMPLATES) for one game package (or
    any module in it, e.g. 'village_env.engine.kernels'): the template with its docstring
    replaced and its marked contract imports pointed at the game's engine modules."""
    pkg = package.split(".")[0]
    path, test = TEMPLATES[module]
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
        f'"""{title} for {game}: GENERATED from core/{path.name} by\n'
        f"`python -m core.codegen {pkg}`, do not edit\n"
        f'({test} checks it is current)."""\n'
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


def write(package: str) -> list[Path]:
    """Regenerate every generated module of a game package like 'village_env' (a module in it,
    e.g. 'village_env.engine.kernels', names its package). The package is located, not
    imported: a new game imports only once its generated modules exist."""
    pkg = package.split(".")[0]
    found = importlib.util.find_spec(pkg)
    if found is None or not found.submodule_search_locations:
        raise ValueError(f"{pkg!r} is not an importable package")
    folder = Path(list(found.submodule_search_locations)[0]) / "engine"
    names = [name for name, p in game_packages().items() if p == pkg]
    game = names[0] if names else pkg  # a package not registered (yet): its own name
    out = []
    for module in TEMPLATES:
        path = folder / f"{module}.py"
        path.write_text(render(module, game, pkg))
        out.append(path)
    return out


def main(argv: list[str] | None = None) -> None:
    import sys

    pkgs = sys.argv[1:] if argv is None else argv
    for pkg in pkgs or list(game_packages().values()):
        for path in write(pkg):
            print(path)


if __name__ == "__main__":
    main()
