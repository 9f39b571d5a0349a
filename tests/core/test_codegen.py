"""The repeated engine modules of every game are rendered from core's templates at first import,
into the game's compile cache (core.codegen): none is kept in a game package, a rendering is
never stale, and a file of such a name left in a game's engine folder is never imported."""

from __future__ import annotations

import importlib
import importlib.util
import os
import sys
from pathlib import Path

import pytest

from core import codegen
from core.codegen import TEMPLATES, render, rendered_file
from core.jit import cache_dir_for, package_dir
from core.registry import game_packages
from core.rendering import RenderedModules

PACKAGES = game_packages()


@pytest.mark.parametrize("module", sorted(TEMPLATES))
@pytest.mark.parametrize("name", list(PACKAGES))
def test_an_imported_module_is_its_templates_rendering_in_the_compile_cache(name, module):
    pkg = PACKAGES[name]
    loaded = importlib.import_module(f"{pkg}.engine.{module}")
    path = Path(loaded.__file__)
    assert path == Path(cache_dir_for(pkg)) / codegen.RENDERED / f"{module}.py"
    assert path.read_text() == render(module, name, pkg)
    assert f"from {pkg}.engine." in path.read_text()
    assert "core.game_contract import" not in path.read_text()
    assert "core.contract_template import" not in path.read_text()


@pytest.mark.parametrize("name", list(PACKAGES))
def test_no_game_package_holds_a_rendered_module(name):
    engine = package_dir(PACKAGES[name]) / "engine"
    kept = sorted(p.name for p in engine.glob("*.py") if p.stem in TEMPLATES)
    assert kept == [], f"{engine}: {kept} would be ignored; remove them"


def test_the_finder_comes_first_so_a_stale_copy_is_never_imported(tmp_path, monkeypatch):
    # a registered game package whose engine folder still holds an old copy of step.py
    game = tmp_path / "oldcopy_env"
    (game / "engine").mkdir(parents=True)
    (game / "__init__.py").write_text("")
    (game / "engine" / "__init__.py").write_text("")
    (game / "engine" / "step.py").write_text("STALE = True\n")
    (game / "engine" / "rules.py").write_text(  # the names the step driver imports
        "ALLOCATES = NUM_ACTIONS = 0\nr_apply = r_init = r_legal = r_mask = r_over = None\n"
    )
    monkeypatch.syspath_prepend(str(tmp_path))
    registered = {**PACKAGES, "oldcopy": "oldcopy_env"}
    monkeypatch.setattr(codegen, "game_packages", lambda: registered)
    monkeypatch.setattr("core.registry.game_packages", lambda: registered)
    monkeypatch.setenv("NUMBA_CACHE_DIR", str(tmp_path / "cache"))
    monkeypatch.setattr("core.jit._CACHE_DIRS", {})
    monkeypatch.setattr("core.jit._DIGESTS", {})
    assert isinstance(sys.meta_path[0], RenderedModules)
    try:
        found = importlib.util.find_spec("oldcopy_env.engine.step")
        origin = Path(found.origin)
        assert origin.name == "step.py" and origin.parent.name == codegen.RENDERED
        assert origin.is_relative_to(tmp_path / "cache")
        assert origin.read_text() == render("step", "oldcopy", "oldcopy_env")
        # a package that is not a registered game is left to the other finders
        assert importlib.util.find_spec("oldcopy_env.engine.other") is None
    finally:
        for m in [m for m in sys.modules if m.startswith("oldcopy_env")]:
            del sys.modules[m]


def test_a_rendering_is_written_once_and_a_changed_file_is_rendered_again(tmp_path, monkeypatch):
    monkeypatch.setenv("NUMBA_CACHE_DIR", str(tmp_path))
    monkeypatch.setattr("core.jit._CACHE_DIRS", {})
    name, pkg = next(iter(PACKAGES.items()))
    path = rendered_file("search_loops", pkg)
    assert path.is_relative_to(tmp_path)
    stamp = path.stat().st_mtime_ns
    os.utime(path, ns=(stamp - 10**9, stamp - 10**9))  # numba's cache keys on this stamp
    assert rendered_file("search_loops", pkg) == path
    assert path.stat().st_mtime_ns == stamp - 10**9, "an unchanged rendering was rewritten"
    path.write_text(path.read_text() + "\nBROKEN = 1\n")
    assert rendered_file("search_loops", pkg).read_text() == render("search_loops", name, pkg)
    assert [p.name for p in path.parent.iterdir()] == ["search_loops.py"]  # no temporary left


def test_the_command_renders_every_game_and_refuses_an_unknown_package(capsys):
    codegen.main([])
    printed = capsys.readouterr().out.split()
    assert len(printed) == len(set(PACKAGES.values())) * len(TEMPLATES)
    assert all(Path(p).is_file() for p in printed)
    with pytest.raises(SystemExit, match="not a registered game package"):
        codegen.main(["no_such_env"])


def test_a_game_without_a_required_name_is_refused_by_name(tmp_path, monkeypatch):
    game = tmp_path / "partial_env"
    (game / "engine").mkdir(parents=True)
    (game / "__init__.py").write_text("")
    (game / "engine" / "__init__.py").write_text("")
    (game / "engine" / "rules.py").write_text("ALLOCATES = False\nN_KEYS = 1\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    with pytest.raises(ValueError, match="partial_env: engine/rules.py .* defines no 'GAME_ID'"):
        render("contract", "partial", "partial_env")


def test_every_binding_the_guide_allows_is_seen(tmp_path, monkeypatch):
    """A contract name bound by unpacking, an annotation, an import (`as` too), a def or class,
    or inside a top-level block is found; one only annotated, only inside a function, or only
    through `import *` is not."""
    game = tmp_path / "bindings_env"
    (game / "engine").mkdir(parents=True)
    (game / "__init__.py").write_text("")
    (game / "engine" / "__init__.py").write_text("")
    (game / "engine" / "rules.py").write_text(
        "from math import *\n"
        "from os import sep as S_NP, getcwd\n"
        "import os.path as S_VERSION\n"
        "import json\n"
        "ALLOCATES, MASK_WRITES_STATE = False, False\n"
        "[STATE_SIZE, *REST] = 1, 2\n"
        "(VERSION, (GAME_ID, S_GAME_ID)) = 1, (0, -1)\n"
        "NUM_ACTIONS: int = 2\n"
        "ANNOTATED_ONLY: int\n"
        "NUM_ACTIONS += 0\n"
        "x.attribute = y[0] = 0\n"
        "def r_init(s):\n"
        "    INSIDE = 1\n"
        "class r_over:\n"
        "    pass\n"
        "if True:\n"
        "    r_mask = None\n"
        "else:\n"
        "    r_legal = None\n"
        "try:\n"
        "    from numba import njit as r_apply\n"
        "except ImportError:\n"
        "    r_observe = None\n"
        "finally:\n"
        "    FINALLY = 1\n"
        "for LOOP in ():\n"
        "    IN_LOOP = 1\n"
        "with open(__file__) as (WITH_A, WITH_B):\n"
        "    pass\n"
    )
    monkeypatch.syspath_prepend(str(tmp_path))
    found = set(codegen.game_names_defined("bindings_env"))
    bound = "S_NP getcwd S_VERSION json ALLOCATES MASK_WRITES_STATE STATE_SIZE REST VERSION"
    bound += " GAME_ID S_GAME_ID NUM_ACTIONS r_init r_over r_mask r_legal r_apply r_observe"
    bound += " FINALLY LOOP IN_LOOP WITH_A WITH_B"
    assert found == set(bound.split())
    assert not found & {"ANNOTATED_ONLY", "INSIDE", "x", "y", "attribute", "*", "pi", "os"}


def test_the_games_own_names_replace_the_defaults():
    """Each optional name comes from the game where it defines it, else from the template."""
    from core import contract_template

    for name, pkg in PACKAGES.items():
        defined = codegen.game_names_defined(pkg)
        src = render("contract", name, pkg)
        for opt in (
            "WORK_SIZE",
            "S_TRUNC",
            "k_truncated",
            "k_quiet",
            "k_bot_values",
            "k_own_bot_values",
        ):
            own = f"from {pkg}.engine.{defined.get(opt)} import {opt}  # the game's own"
            assert (own in src) == (opt in defined), (name, opt)
            assert (f"def {opt}(" in src or f"{opt} = " in src) == (opt not in defined)
        assert set(contract_template.__all__) <= set(dir(contract_template))


@pytest.mark.parametrize("module", sorted(TEMPLATES))
@pytest.mark.parametrize("name", list(PACKAGES))
def test_a_rendered_module_keeps_its_template_s_line_numbers(name, module):
    """Every line of the template that rendering keeps is at the same line number: what it
    replaces (the docstring, the contract imports, a default the game defines) keeps its lines,
    and the serial twins come after the template's last line."""
    import ast

    text = TEMPLATES[module].read_text()
    template, rendered = text.splitlines(), render(module, name, PACKAGES[name]).splitlines()
    doc_end = ast.parse(text).body[0].end_lineno
    assert len(rendered) >= len(template)
    for i, line in enumerate(template[doc_end:], start=doc_end):
        got = rendered[i]
        # kept where it was, or a replaced statement's first line (an import) or later lines
        assert got in (line, "") or got.startswith("from "), (module, name, i + 1, got)
    same = sum(a == b for a, b in zip(template, rendered, strict=False))
    assert same >= len(template) - 50  # what rendering replaces is a few statements


@pytest.mark.slow  # an interpreter in NUMBA_DISABLE_JIT mode
def test_a_traceback_from_a_rendered_module_names_the_template_s_line():
    import subprocess

    code = (
        "import traceback\n"
        "from chipin_env.engine import api\n"
        "try:\n"
        "    api.state_ok(None)\n"
        "except AttributeError as e:\n"
        "    f = traceback.extract_tb(e.__traceback__)[-1]\n"
        "    print(f.filename)\n"
        "    print(f.lineno)\n"
    )
    env = {**os.environ, "NUMBA_DISABLE_JIT": "1"}
    run = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True,
                         timeout=300)  # fmt: skip
    assert run.returncode == 0, run.stderr[-2000:]
    filename, lineno = run.stdout.split()[-2:]
    assert filename == str(rendered_file("api", "chipin_env"))
    line = TEMPLATES["api"].read_text().splitlines()[int(lineno) - 1]
    assert "s.shape[0] == STATE_SIZE" in line  # the template's line of the failing expression
