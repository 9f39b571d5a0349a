"""The compiled functions of the repository (core, training, the games, the example and test
games) take their arrays in bundles made by one factory (scratch, tree, network, slots), so no
signature grows long enough for same-typed arrays to be passed in a changed order unnoticed: each
has at most MAX_ARGS positional arguments."""

import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
MAX_ARGS = 13


def sources():
    """Every Python file of the repository but tests' own modules and rendered caches."""
    for path in sorted(ROOT.rglob("*.py")):
        parts = path.relative_to(ROOT).parts
        if "__pycache__" in parts or parts[0] in ("build", "runs", "site", ".git"):
            continue
        if parts[0] == "tests" and "games" not in parts:
            continue
        yield path


def compiled_functions():
    for path in sources():
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.FunctionDef) and any(
                "jit" in ast.unparse(d) for d in node.decorator_list
            ):
                yield str(path.relative_to(ROOT)), node


def test_no_compiled_function_takes_a_long_argument_list():
    found = list(compiled_functions())
    homes = {f.split("/")[0] for f, _n in found}
    assert {"core", "village_env", "troyes_env", "examples", "tests"} <= homes  # all are seen
    long = [f"{f}:{n.name} ({len(n.args.args)})" for f, n in found if len(n.args.args) > MAX_ARGS]
    assert not long, f"more than {MAX_ARGS} arguments: {long}"
