"""The generated loops modules: the generic compiled loops written once in core/ as templates,
copied into each game's engine folder with their kernels import pointed at the game's module.

    python -m core.codegen                         # every registered game, every template
    python -m core.codegen mygame_env.engine.kernels

| template | copied to | used by |
|---|---|---|
| core/batch_loops_template.py | `<game>_env/engine/batch_loops.py` | core.batch (DESIGN D8) |
| core/search_template.py | `<game>_env/engine/search_loops.py` | core.search (ISMCTS) |
| core/stats_template.py | `<game>_env/engine/stats_loops.py` | training.balance.game_stats
(balance) |

Why copies: a compiled function that takes another as an argument (or closes over one) cannot be
cached by numba, so every process would pay the compile (seconds) again; a copy per game imports
the game's kernels directly and caches like any engine module. Tests check the copies are current
(tests/test_batch.py, tests/core/test_search.py).
"""

from __future__ import annotations

import ast
import importlib
from pathlib import Path

_CORE = Path(__file__).resolve().parent
TEMPLATES = {  # generated module name -> (template file, the test that checks the copies)
    "batch_loops": (_CORE / "batch_loops_template.py", "tests/test_batch.py"),
    "search_loops": (_CORE / "search_template.py", "tests/core/test_search.py"),
    "stats_loops": (_CORE / "stats_template.py", "tests/training/test_game_stats.py"),
}
KERNELS_IMPORT = "from core.kernels_contract import ("  # the marked line of every template


def render(module: str, game: str, kernels_module: str) -> str:
    """The source of generated module `module` ("batch_loops" or "search_loops") for one game's
    kernels module: the template with its docstring replaced and its kernels import re-pointed."""
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
    marked = [i for i, line in enumerate(lines) if line.rstrip("\n") == KERNELS_IMPORT]
    if len(marked) != 1:
        raise ValueError(f"{path}: expected one line {KERNELS_IMPORT!r}")
    lines[marked[0]] = f"from {kernels_module} import (\n"
    title = module.replace("_", " ").capitalize()
    header = (
        f'"""{title} for {game}: GENERATED from core/{path.name} by\n'
        f"`python -m core.codegen {kernels_module}`, do not edit\n"
        f'({test} checks it is current)."""\n'
    )
    return header + "".join(lines[doc.end_lineno :])


def write(kernels_module: str) -> list[Path]:
    """Regenerate every generated module of a kernels module like 'village_env.engine.kernels'."""
    from core.registry import game_packages

    pkg = kernels_module.split(".")[0]
    # the folder the import system finds the package in: a game may live outside this repository
    folder = Path(importlib.import_module(pkg).__file__).parent / "engine"
    names = [name for name, p in game_packages().items() if p == pkg]
    game = names[0] if names else pkg  # a package not registered (yet): its own name
    out = []
    for module in TEMPLATES:
        path = folder / f"{module}.py"
        path.write_text(render(module, game, kernels_module))
        out.append(path)
    return out


def main(argv: list[str] | None = None) -> None:
    import sys

    from core.registry import game_packages

    mods = sys.argv[1:] if argv is None else argv
    every_game = [f"{pkg}.engine.kernels" for pkg in game_packages().values()]
    for mod in mods or every_game:
        for path in write(mod):
            print(path)


if __name__ == "__main__":
    main()
