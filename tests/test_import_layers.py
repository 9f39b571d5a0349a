"""The import graph of the library: dependencies point one way, with no cycle (DESIGN D14, D15).
Layers, lowest first: core -> the game packages (core.registry) -> training.agents ->
training.arena -> {training.learn, training.view, training.alphazero} (peers: none imports
another) -> training.balance (studies fine-tune learned agents with the trainers) ->
benchmarks. Every import counts, at module level or inside a
function: an import inside a function still makes the dependency, so it cannot hide a cycle
either. Outside the game packages no module imports a game: everything goes through
core.registry.
"""

from __future__ import annotations

import ast
import importlib.util
import re
from pathlib import Path

import pytest

from core.codegen import TEMPLATES, rendered_file
from core.registry import game_packages

ROOT = Path(__file__).resolve().parent.parent
GAMES = sorted(set(game_packages().values()))
TOP = ("core", "training", "benchmarks", *GAMES)
PEERS = ("training.learn", "training.view", "training.alphazero")


def package_dir(top: str) -> Path:
    """Where package `top` lives (a game may be installed from outside the repository)."""
    spec = importlib.util.find_spec(top)
    assert spec is not None and spec.submodule_search_locations, f"{top} is not a package"
    return Path(next(iter(spec.submodule_search_locations))).resolve()


def module_name(path: Path, top: str) -> str:
    parts = [top, *path.relative_to(package_dir(top)).with_suffix("").parts]
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def modules() -> dict[str, Path]:
    """Every first-party module (name -> file) of the packages in TOP, and the modules rendered
    for each game from core's templates (core.codegen: files in the game's compile cache)."""
    found = {}
    for top in TOP:
        for p in sorted(package_dir(top).rglob("*.py")):
            if "__pycache__" not in p.parts:
                found[module_name(p, top)] = p
    for pkg in GAMES:
        for name in TEMPLATES:
            found[f"{pkg}.engine.{name}"] = rendered_file(name, pkg)
    return found


MODULES = modules()


def resolve(name: str) -> str | None:
    """The first-party module an imported dotted name lives in (the longest known prefix)."""
    parts = name.split(".")
    for k in range(len(parts), 0, -1):
        cand = ".".join(parts[:k])
        if cand in MODULES:
            return cand
    return None


def imports_of(mod: str) -> set[str]:
    """First-party modules `mod` imports anywhere in its file (`from pkg import sub` counts as
    an import of the submodule when `sub` is one)."""
    path = MODULES[mod]
    tree = ast.parse(path.read_text(), str(path))
    is_pkg = path.name == "__init__.py"
    out: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            names = [a.name for a in node.names]
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                pkg = mod.split(".") if is_pkg else mod.split(".")[:-1]
                pkg = pkg[: len(pkg) - (node.level - 1)]
                base = ".".join([*pkg, base] if base else pkg)
            # `from pkg import sub` imports the submodule; `from mod import name` the module
            names = [
                f"{base}.{a.name}" if f"{base}.{a.name}" in MODULES else base for a in node.names
            ]
        else:
            continue
        for n in names:
            target = resolve(n)
            if target is not None and target != mod:
                out.add(target)
    return out


GRAPH = {m: imports_of(m) for m in MODULES}


def layer(mod: str) -> int:
    top = mod.split(".")[0]
    if top == "core":
        return 0
    if top in GAMES:
        return 1
    if top == "benchmarks":
        return 6
    sub = ".".join(mod.split(".")[:2])
    fixed = {"training.agents": 2, "training.arena": 3, "training.balance": 5}
    return fixed.get(sub, 4 if sub in PEERS else 6)


def test_the_graph_sees_the_library():
    assert {"core.game", "core.registry", "training.arena.tournament"} <= set(MODULES)
    assert "core.registry" in GRAPH["core.game"] or "core.registry" in GRAPH["core.bots"]
    assert GAMES, "no registered game"


def test_dependencies_point_down_the_layers():
    wrong = sorted(
        f"{m} (layer {layer(m)}) imports {t} (layer {layer(t)})"
        for m, targets in GRAPH.items()
        for t in targets
        if layer(t) > layer(m)
    )
    assert not wrong, "\n".join(wrong)


def test_the_trainers_and_viewer_are_peers():
    def peer(m):
        return next((p for p in PEERS if m == p or m.startswith(p + ".")), None)

    wrong = sorted(
        f"{m} imports {t}"
        for m, targets in GRAPH.items()
        for t in targets
        if peer(m) and peer(t) and peer(m) != peer(t)
    )
    assert not wrong, "\n".join(wrong)


# modules outside the game packages that still import a game, and why (empty it, never grow it)
KNOWN_GAME_IMPORTS: dict[str, str] = {}


def test_nothing_outside_a_game_package_imports_a_game():
    wrong = sorted(
        f"{m} imports {t}"
        for m, targets in GRAPH.items()
        for t in targets
        if t.split(".")[0] in GAMES
        and m.split(".")[0] != t.split(".")[0]
        and m not in KNOWN_GAME_IMPORTS
    )
    assert not wrong, "\n".join(wrong)
    stale = [m for m in KNOWN_GAME_IMPORTS if not any(t.split(".")[0] in GAMES for t in GRAPH[m])]
    assert not stale, f"no longer imports a game: remove from KNOWN_GAME_IMPORTS: {stale}"


def test_no_import_cycle():
    # Tarjan's strongly connected components over every import (function-level ones included)
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on: set[str] = set()
    cycles: list[list[str]] = []
    counter = [0]

    def visit(v: str) -> None:
        index[v] = low[v] = counter[0]
        counter[0] += 1
        stack.append(v)
        on.add(v)
        for w in GRAPH[v]:
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            comp = []
            while True:
                w = stack.pop()
                on.discard(w)
                comp.append(w)
                if w == v:
                    break
            if len(comp) > 1:
                cycles.append(sorted(comp))

    for v in sorted(GRAPH):
        if v not in index:
            visit(v)
    assert not cycles, "import cycles: " + "; ".join(" <-> ".join(c) for c in cycles)


@pytest.mark.parametrize(
    "src, mod, expected",
    [
        ("from core.registry import get_game\n", "training.arena.evaluate", {"core.registry"}),
        ("from training.arena import store\n", "training.view.api", {"training.arena.store"}),
        ("def f():\n    import core.bots\n", "training.x", {"core.bots"}),
        ("from . import jobs\n", "training.arena.tournament", {"training.arena.jobs"}),
    ],
)
def test_imports_are_read_at_any_depth(tmp_path, monkeypatch, src, mod, expected):
    f = tmp_path / "m.py"
    f.write_text(src)
    monkeypatch.setitem(MODULES, mod, f)
    assert imports_of(mod) == expected


def test_no_game_module_name_is_built_by_hand():
    """A game's package comes from core.registry (game_packages / get_game), never from its name
    plus a suffix: a game registered under another package name must work everywhere."""
    pattern = re.compile(r"\{[^{}]*\}_env\b|[\"']_env[\"']")
    found: dict[str, list[str]] = {}
    for mod, path in MODULES.items():
        if mod.split(".")[0] in GAMES:
            continue
        rel = path.relative_to(ROOT).as_posix() if path.is_relative_to(ROOT) else str(path)
        for i, line in enumerate(path.read_text().splitlines(), 1):
            if pattern.search(line):
                found.setdefault(rel, []).append(f"{rel}:{i}: {line.strip()}")
    wrong = [x for lines in found.values() for x in lines]
    assert not wrong, "\n".join(wrong)
