"""The `vtrl` command (training.cli): a subcommand per tool, each the same as its `python -m` form,
with the tool's own help under the name `vtrl COMMAND`."""

from __future__ import annotations

import ast
import os
import re
import subprocess
import sys
import sysconfig
from pathlib import Path

import pytest

from training import cli

ROOT = Path(__file__).resolve().parent.parent
NAMES = [c.name for c in cli.COMMANDS]

# an option name some tool may use, and the consistent name it must then offer too
CONSISTENT = {
    "--agent": "--agents",
    "--n-games": "--games",
    "--num-games": "--games",
    "--n-players": "--players",
    "--output": "--out",
    "--dest": "--out",
    "--report": "--out",
    "--store": "--db",
    "--jobs": "--workers",
}


@pytest.fixture(autouse=True)
def _environment_kept():
    """A command may set environment defaults before importing its tool (bench sets numba's
    threads); numba reads them again on every compile, so the test puts them back."""
    import numba  # noqa: F401  (imported under the untouched environment, before any command)

    keys = {k for c in cli.COMMANDS for k in c.env}
    saved = {k: os.environ.get(k) for k in keys}
    yield
    for k, v in saved.items():
        if v is None:
            os.environ.pop(k, None)
        else:
            os.environ[k] = v


def run_cli(argv, capsys) -> tuple[int, str, str]:
    """cli.main(argv) in this process: (exit status, stdout, stderr)."""
    try:
        status = cli.main(argv)
    except SystemExit as e:
        status = e.code
    out, err = capsys.readouterr()
    return status, out, err


def without_compile_notices(err: str) -> str:
    """stderr less core.jit's first-compile notices (a line `PKG: numba is compiling ...` and its
    indented continuation lines), which a cold compile cache adds to any command."""
    kept, in_notice = [], False
    for line in err.splitlines(keepends=True):
        if re.match(r"\S+: numba is compiling ", line):
            in_notice = True
        elif not (in_notice and line.startswith("  ")):
            in_notice = False
            kept.append(line)
    return "".join(kept)


def options(help_text: str) -> set[str]:
    return set(re.findall(r"(?<![\w-])--[a-z][a-z0-9-]*", help_text))


@pytest.mark.parametrize("name", NAMES)
def test_every_command_shows_its_tools_help(name, capsys):
    status, out, err = run_cli([name, "--help"], capsys)
    assert (status, err) == (0, ""), err
    assert out.startswith(f"usage: {cli.PROG} {name} "), out[:200]
    assert "usage: python -m" not in out
    # a tool offering another name for a shared meaning offers the consistent name too
    found = options(out)
    missing = [f"{a} without {b}" for a, b in CONSISTENT.items() if a in found and b not in found]
    assert not missing, missing


def test_python_m_forms_keep_their_names(capsys):
    from training.arena import evaluate

    assert run_cli(["evaluate", "--help"], capsys)[0] == 0
    # the renaming lasts as long as the command: the tool's own parser is unchanged after it
    assert evaluate.build_parser().prog == "python -m training.arena.evaluate"


def test_help_lists_every_command_on_one_line_each(capsys):
    status, out, err = run_cli(["--help"], capsys)
    assert (status, err) == (0, "")
    for c in cli.COMMANDS:
        assert re.search(rf"^  {re.escape(c.name)} +{re.escape(c.summary)}$", out, re.M), c.name
    assert max(len(line) for line in out.splitlines()) <= 100
    assert run_cli(["-h"], capsys)[1] == out


def test_version(capsys):
    from importlib.metadata import version

    status, out, err = run_cli(["--version"], capsys)
    assert (status, err) == (0, "")
    assert out == f"vtrl {version('village-troyes-rl')} (village-troyes-rl)\n"


@pytest.mark.parametrize(
    "argv, says",
    [
        (["evaluat"], "unknown command 'evaluat' (did you mean evaluate?)"),
        (["frobnicate", "--help"], "unknown command 'frobnicate'"),
        ([], "name a command"),
        (["--game", "village"], "unknown option --game"),
    ],
)
def test_a_bad_command_line_is_one_line_and_status_2(argv, says, capsys):
    status, out, err = run_cli(argv, capsys)
    assert (status, out) == (2, "")
    assert err.startswith(f"vtrl: error: {says}") and err.count("\n") == 1, err
    assert "choose from " + ", ".join(NAMES) in err


def test_a_tool_runs_as_its_python_m_form_would(tmp_path, monkeypatch, capsys):
    """sys.argv as `python -m` sets it while the tool runs, the parser renamed, the status passed
    on, and both put back afterwards."""
    (tmp_path / "fake_tool.py").write_text(
        "import argparse, sys\n"
        "seen = {}\n"
        "def main(argv=None):\n"
        "    p = argparse.ArgumentParser(prog='python -m fake_tool')\n"
        "    p.add_argument('--seed', type=int)\n"
        "    seen['argv'] = list(sys.argv)\n"
        "    seen['prog'] = p.prog\n"
        "    return p.parse_args(argv).seed\n"
    )
    monkeypatch.syspath_prepend(str(tmp_path))
    monkeypatch.setitem(cli.BY_NAME, "fake", cli.Command("fake", "fake_tool", "a fake", "engine"))
    argv_before = list(sys.argv)
    assert run_cli(["fake", "--seed", "7"], capsys)[0] == 7
    import fake_tool

    assert fake_tool.seen == {
        "argv": [fake_tool.__file__, "--seed", "7"],
        "prog": "vtrl fake",
    }
    assert sys.argv == argv_before
    status, _, err = run_cli(["fake", "--seed", "x"], capsys)
    assert status == 2 and err.splitlines()[-1].startswith("vtrl fake: error: argument --seed")


def test_a_checkout_tool_is_found_in_a_checkout_or_refused(tmp_path, monkeypatch, capsys):
    """bench's module lives in the repository, not the installed package: looked for in a
    checkout, else one line saying so and status 2."""
    cmd = cli.Command("fake-bench", "fake_bench_pkg.run", "a fake", "engine", checkout_only=True)
    monkeypatch.setitem(cli.BY_NAME, cmd.name, cmd)
    monkeypatch.setattr(sys, "path", list(sys.path))
    monkeypatch.setattr(cli, "_checkout_roots", lambda: iter([tmp_path]))
    status, out, err = run_cli([cmd.name], capsys)
    assert (status, out) == (2, "") and err.count("\n") == 1
    assert "runs from a checkout of the repository" in err and "python -m fake_bench_pkg.run" in err

    (tmp_path / "pyproject.toml").write_text("")
    (tmp_path / "fake_bench_pkg").mkdir()
    (tmp_path / "fake_bench_pkg" / "__init__.py").write_text("")
    (tmp_path / "fake_bench_pkg" / "run.py").write_text("def main(argv):\n    print(argv)\n")
    assert run_cli([cmd.name, "--quick"], capsys)[:2] == (0, "['--quick']\n")
    assert sys.path[-1] == str(tmp_path)  # appended: the installed packages still come first


@pytest.mark.parametrize(
    "name, alias",
    [("restricted", "--agents"), ("tournament", "--out"), ("ship", "--out"), ("bench", "--game")],
)
def test_consistent_flag_aliases(name, alias, capsys):
    assert alias in options(run_cli([name, "--help"], capsys)[1])


def test_consistent_flag_aliases_keep_the_old_destinations():
    from benchmarks import run as bench
    from training.arena import tournament
    from training.balance import restricted

    args = restricted.build_parser().parse_args(
        "--game chipin --players 2 --agents random --forbid take --games 2 --db d --out o".split()
    )
    assert args.agent == "random"
    args = tournament.build_parser().parse_args("--agents random --db d --out rep".split())
    assert args.report == "rep"
    assert bench.parser().parse_args(["--game", "village"]).games == "village"


def test_the_cli_module_imports_only_the_standard_library():
    """So `vtrl --help` starts at once: a tool (torch, numba, a game) is imported by name only
    when its command runs."""
    tree = ast.parse(Path(cli.__file__).read_text())
    tops = {
        (a.name if isinstance(n, ast.Import) else n.module).split(".")[0]
        for n in ast.walk(tree)
        if isinstance(n, (ast.Import, ast.ImportFrom)) and not getattr(n, "level", 0)
        for a in n.names
    }
    assert tops - {"__future__"} <= set(sys.stdlib_module_names), tops


def test_the_installed_console_script(tmp_path):
    script = Path(sysconfig.get_path("scripts")) / "vtrl"
    assert script.is_file(), f"no {script}: `pip install -e .` installs the vtrl command"
    r = subprocess.run(
        [str(script), "--help"], capture_output=True, text=True, cwd=tmp_path, timeout=60
    )
    assert (r.returncode, r.stderr) == (0, "")
    assert r.stdout == cli.help_text()


def test_compile_notices_are_told_apart_from_other_output():
    cold = (
        "village_env: numba is compiling the rules engine behind the public API.\n"
        "  It is not in the compile cache yet\n"
        "  To compile everything ahead of time: python -m core.compile\n"
        "troyes_env: numba is compiling the compiled code of troyes_env.engine.x (not cached yet; "
        "once)\n"
    )
    assert without_compile_notices(cold) == ""
    assert without_compile_notices(cold + "error: bad\n  detail\n") == "error: bad\n  detail\n"


def test_a_real_run_equals_the_python_m_form(tmp_path, monkeypatch, capsys):
    args = "--game village --players 2 --agents random heuristic --games 2 --seed 3 --no-progress"
    monkeypatch.chdir(tmp_path)
    status, out, err = run_cli(["evaluate", *args.split()], capsys)
    assert (status, without_compile_notices(err)) == (0, "")
    env = dict(os.environ, PYTHONPATH=str(ROOT), OMP_NUM_THREADS="1")
    r = subprocess.run(
        [sys.executable, "-m", "training.arena.evaluate", *args.split()],
        capture_output=True,
        text=True,
        cwd=tmp_path,
        env=env,
        timeout=120,
    )
    assert (r.returncode, without_compile_notices(r.stderr)) == (0, "")
    assert out == r.stdout
    assert out.startswith("village, 2 players, 2 games (seed 3)")


@pytest.mark.parametrize("name", ["view", "replay"])
def test_a_refusal_after_parsing_names_the_command_typed(name, tmp_path, capsys):
    """A missing store is refused after the arguments parse: the line names `vtrl NAME`, as
    typed, not the module behind it."""
    more = ["--verify-all"] if name == "replay" else []
    status, _out, err = run_cli([name, "--db", str(tmp_path / "none.sqlite"), *more], capsys)
    assert status == 2
    assert err == f"vtrl {name}: error: {tmp_path / 'none.sqlite'}: no such game store\n"
