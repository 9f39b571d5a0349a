"""The size of the library's functions: none longer than MAX_LINES lines (from its `def` to its
last line) and none with more than MAX_PARAMS parameters (every positional, keyword-only, *args
and **kwargs parameter counts, self and cls included). A longer function is split into named
steps; a longer parameter list becomes a dataclass named for what it holds.

The library is every .py file of the repository but the tests, benchmarks, docs, notebooks and
runs folders and an example game's tests (examples/*/tests), read with ast (nothing is imported).
Functions decorated with `@jit` or `@jit(...)` (core.jit: compiled kernels, whose loops and
argument lists are laid out for numba) are exempt.
"""

from __future__ import annotations

import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
MAX_LINES = 100
MAX_PARAMS = 12
OUTSIDE = {"tests", "benchmarks", "docs", "notebooks", "runs"}  # top-level folders not scanned
# folders that hold no library source anywhere: caches (a game's rendered modules live in
# __pycache__), build output and environments
SKIPPED = {"__pycache__", "build", "dist", "node_modules", "site-packages"}


def library_files(root: Path = ROOT) -> list[Path]:
    """The library's .py files under `root` (module docstring)."""
    out = []
    for path in sorted(root.rglob("*.py")):
        parts = path.relative_to(root).parts[:-1]
        if parts and parts[0] in OUTSIDE:
            continue
        if len(parts) >= 3 and parts[0] == "examples" and parts[2] == "tests":
            continue
        if any(p.startswith(".") or p in SKIPPED or p.endswith(".egg-info") for p in parts):
            continue
        if any((root.joinpath(*parts[: k + 1]) / "pyvenv.cfg").exists() for k in range(len(parts))):
            continue  # a virtual environment inside the checkout
        out.append(path)
    return out


def is_jit(fn: ast.FunctionDef | ast.AsyncFunctionDef) -> bool:
    """Decorated with `jit` or `jit(...)` (also as an attribute: `cj.jit`)."""
    for dec in fn.decorator_list:
        target = dec.func if isinstance(dec, ast.Call) else dec
        name = target.attr if isinstance(target, ast.Attribute) else getattr(target, "id", None)
        if name == "jit":
            return True
    return False


def n_params(args: ast.arguments) -> int:
    """Every parameter: positional-only, positional, keyword-only, *args and **kwargs."""
    starred = (args.vararg is not None) + (args.kwarg is not None)
    return len(args.posonlyargs) + len(args.args) + len(args.kwonlyargs) + starred


def offenders(root: Path = ROOT) -> list[str]:
    """`path:line name (N lines, M parameters)` of every library function over a limit."""
    out = []
    for path in library_files(root):
        tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
        for node in ast.walk(tree):
            if not isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) or is_jit(node):
                continue
            lines = node.end_lineno - node.lineno + 1
            params = n_params(node.args)
            if lines > MAX_LINES or params > MAX_PARAMS:
                rel = path.relative_to(root).as_posix()
                out.append(f"{rel}:{node.lineno} {node.name} ({lines} lines, {params} parameters)")
    return out


def test_the_scan_reads_the_library():
    files = {p.relative_to(ROOT).as_posix() for p in library_files()}
    assert {"core/jit.py", "training/arena/tournament.py", "village_env/view.py"} <= files
    assert not any(f.startswith(("tests/", "benchmarks/", "docs/")) for f in files)
    assert not any("/tests/" in f for f in files if f.startswith("examples/"))


def test_the_limits_are_measured_as_documented(tmp_path):
    """A planted module: a long function, one with too many parameters (self, *args and
    **kwargs counted), and a long @jit kernel, which is exempt."""
    pkg = tmp_path / "pkg"
    pkg.mkdir()
    body = "\n".join(f"    x{k} = {k}" for k in range(MAX_LINES - 1))
    params = ", ".join(f"a{k}" for k in range(MAX_PARAMS - 2))
    text = (
        f"def long():\n{body}\n\n\n"  # MAX_LINES lines: within the limit
        f"def longer():\n{body}\n    return 0\n\n\n"
        f"class C:\n    def method(self, {params}, *args, **kwargs):\n        pass\n\n\n"
        f"def fits({params}, b, c):\n    pass\n\n\n"
        f"@jit(alloc=False)\ndef kernel():\n{body}\n    return 0\n\n\n"
        f"@cj.jit\ndef kernel2({params}, b, c, d, e):\n    pass\n"
    )
    (pkg / "m.py").write_text(text)
    (tmp_path / "tests").mkdir()
    (tmp_path / "tests" / "t.py").write_text(f"def in_tests():\n{body}\n    return 0\n")
    lines = text.splitlines()
    at = {
        name: 1 + next(i for i, x in enumerate(lines) if f"def {name}(" in x)
        for name in ("longer", "method")
    }
    assert offenders(tmp_path) == [
        f"pkg/m.py:{at['longer']} longer ({MAX_LINES + 1} lines, 0 parameters)",
        f"pkg/m.py:{at['method']} method (2 lines, {MAX_PARAMS + 1} parameters)",
    ]


def test_no_library_function_is_over_the_limits():
    found = offenders()
    assert not found, (
        f"library functions over {MAX_LINES} lines or {MAX_PARAMS} parameters (split them into "
        "named steps; bundle a long parameter list into a dataclass):\n" + "\n".join(found)
    )
