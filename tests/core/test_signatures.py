"""The compiled functions of core take their arrays in bundles made by one factory (scratch,
tree, network, slots), so no signature grows long enough for same-typed arrays to be passed in a
changed order unnoticed: each has at most MAX_ARGS positional arguments."""

import ast
from pathlib import Path

CORE = Path(__file__).resolve().parents[2] / "core"
MAX_ARGS = 13


def compiled_functions():
    for path in sorted(CORE.glob("*.py")):
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.FunctionDef) and any(
                "jit" in ast.unparse(d) for d in node.decorator_list
            ):
                yield path.name, node


def test_no_compiled_function_in_core_takes_a_long_argument_list():
    found = list(compiled_functions())
    assert len(found) > 20  # the templates' loops and core's own kernels are all seen
    long = [f"{f}:{n.name} ({len(n.args.args)})" for f, n in found if len(n.args.args) > MAX_ARGS]
    assert not long, f"more than {MAX_ARGS} arguments: {long}"
