"""vtrl: every tool of the library under one command, a subcommand per tool.

    vtrl --help                   # every command, one line each
    vtrl evaluate --help          # that tool's own options
    vtrl evaluate --game village --players 2 --agents random heuristic --games 20

`vtrl COMMAND ARGS` runs the tool's main(ARGS) exactly as `python -m MODULE ARGS` does (COMMANDS
names each module; the `python -m` forms keep working unchanged). The tool is imported only when
its command runs, so `vtrl --help` imports neither torch nor numba. While it runs, sys.argv is what
`python -m` would have set (a tool that records its command line reads it there), and its
argument parser is called `vtrl COMMAND` in its usage lines, help and errors.
"""

from __future__ import annotations

import argparse
import contextlib
import difflib
import importlib
import os
import sys
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path

PROG = "vtrl"
DISTRIBUTION = "village-troyes-rl"


@dataclass(frozen=True)
class Command:
    """One subcommand: the tool's module, where its main(argv) lives, and its `python -m` form."""

    name: str
    module: str  # imported only when the command runs; holds main(argv)
    summary: str  # its line in `vtrl --help`
    group: str
    python_m: str = ""  # the module `python -m` runs, when not `module` (a package's __main__)
    # environment defaults the tool's `python -m` form sets before its imports
    env: dict[str, str] = field(default_factory=dict)
    checkout_only: bool = False  # lives in the repository, not in the installed package

    @property
    def form(self) -> str:
        """The command line this one equals."""
        return f"python -m {self.python_m or self.module}"


COMMANDS: tuple[Command, ...] = (
    Command(
        "train",
        "training.learn.train",
        "MaskablePPO self-play against frozen snapshots and bots",
        "learning",
    ),
    Command(
        "main-job",
        "training.learn.main_job",
        "train the default run, evaluate it against the baseline bots, report",
        "learning",
    ),
    Command(
        "rllib",
        "training.learn.rllib_train",
        "self-play PPO on RLlib, one shared policy (the extra [ray])",
        "learning",
    ),
    Command(
        "alphazero",
        "training.alphazero.loop",
        "expert iteration: a policy-value network trained on its own search",
        "learning",
        python_m="training.alphazero",
    ),
    Command(
        "ship",
        "training.alphazero.ship",
        "ship a trained expert-iteration network inside its game's package",
        "learning",
    ),
    Command(
        "evaluate",
        "training.arena.evaluate",
        "agents against each other, seats rotated, seeded; win rates",
        "arena",
    ),
    Command(
        "tournament",
        "training.arena.tournament",
        "a tournament into a game store: line-ups, ratings, report",
        "arena",
    ),
    Command(
        "replay",
        "training.arena.replay",
        "replay, verify, print or export the games of a store",
        "arena",
    ),
    Command(
        "view",
        "training.view.__main__",
        "the browser viewer of a game store; play against agents",
        "arena",
        python_m="training.view",
    ),
    Command(
        "balance",
        "training.balance.study",
        "a balance study: seat advantage, scoring paths, cards, variants",
        "balance",
        python_m="training.balance",
    ),
    Command(
        "sweep",
        "training.balance.sweep",
        "a balance study per value of one or two rules-data keys",
        "balance",
    ),
    Command(
        "tune",
        "training.balance.tune",
        "search rules-data values toward a balance objective, then check",
        "balance",
    ),
    Command(
        "skill",
        "training.balance.skill",
        "how a balance figure moves as the agents get stronger",
        "balance",
    ),
    Command(
        "plan",
        "training.balance.plan",
        "games a study needs; sequential studies; replicates over seeds",
        "balance",
    ),
    Command(
        "restricted",
        "training.balance.restricted",
        "restricted play: what forbidding an action class costs an agent",
        "balance",
    ),
    Command(
        "play",
        "core.play",
        "play and print one seeded game between random bots",
        "engine",
    ),
    Command(
        "compile",
        "core.compile",
        "compile the numba caches of the games ahead of their first use",
        "engine",
    ),
    Command(
        "rules",
        "core.rules_file",
        "check a rules override file; list a game's provisional values",
        "engine",
    ),
    Command(
        "bench",
        "benchmarks.run",
        "throughput beside the peer libraries (needs a repository checkout)",
        "engine",
        # as benchmarks/run.py sets them when run as a command, before numba is imported
        env={"NUMBA_NUM_THREADS": "2", "NUMBA_THREADING_LAYER": "workqueue"},
        checkout_only=True,
    ),
)
BY_NAME: dict[str, Command] = {c.name: c for c in COMMANDS}
GROUPS = {
    "learning": "learning",
    "arena": "agents against agents, game stores and the viewer",
    "balance": "balance studies",
    "engine": "engines, rules data and benchmarks",
}

# the flags that mean the same thing in every command that takes them
CONSISTENT_FLAGS = (
    ("--game NAME", "the game"),
    ("--players N", "the seats at the table"),
    ("--agents SPEC ...", "agent specs (training.agents.registry)"),
    ("--games N", "games to play (bench alone: the games to measure, by name)"),
    ("--seed N", "the base seed"),
    ("--workers N", "processes playing games"),
    ("--db FILE", "the SQLite game store"),
    ("--out DIR", "where the results are written"),
)


def help_text() -> str:
    """`vtrl --help`: every command with its line, by group, and the flags they share."""
    width = max(len(c.name) for c in COMMANDS) + 2
    lines = [
        f"usage: {PROG} [-h] [--version] COMMAND [ARGS ...]",
        "",
        f"Every tool of {DISTRIBUTION} under one command: `{PROG} COMMAND ARGS` runs the tool as",
        f"its `python -m` form does, and `{PROG} COMMAND --help` lists the tool's own options.",
    ]
    for group, title in GROUPS.items():
        lines += ["", f"{title}:"]
        lines += [f"  {c.name:<{width}}{c.summary}" for c in COMMANDS if c.group == group]
    flag_width = max(len(f) for f, _ in CONSISTENT_FLAGS) + 2
    lines += ["", "flags that mean the same in every command that takes them:"]
    lines += [f"  {f:<{flag_width}}{what}" for f, what in CONSISTENT_FLAGS]
    lines += [
        "",
        "options:",
        f"  {'-h, --help':<{flag_width}}show this list and exit",
        f"  {'--version':<{flag_width}}show the installed version and exit",
    ]
    return "\n".join(lines) + "\n"


def version() -> str:
    """The installed distribution's version."""
    from importlib.metadata import PackageNotFoundError
    from importlib.metadata import version as dist_version

    try:
        return dist_version(DISTRIBUTION)
    except PackageNotFoundError:  # run from a checkout that was never installed
        return "unknown (not installed)"


def _refuse(message: str) -> int:
    """One line on stderr, exit status 2 (as argparse refuses a command line)."""
    print(f"{PROG}: error: {message}", file=sys.stderr)
    return 2


def _checkout_roots() -> Iterator[Path]:
    """Folders that may be a repository checkout, the one this package was installed from (an
    editable install) first, then the current directory and those above it."""
    yield Path(__file__).resolve().parent.parent
    cwd = Path.cwd().resolve()
    yield cwd
    yield from cwd.parents


def _import_tool(cmd: Command):
    """The tool's module; a checkout-only tool is looked for in a checkout when it is not
    importable. None (after one line on stderr) when there is none."""
    top = cmd.module.split(".")[0]
    try:
        return importlib.import_module(cmd.module)
    except ModuleNotFoundError as e:
        if not cmd.checkout_only or e.name != top:
            raise
    rel = Path(*cmd.module.split(".")).with_suffix(".py")
    for root in _checkout_roots():
        if (root / rel).is_file() and (root / "pyproject.toml").is_file():
            # appended, not prepended: the installed packages stay the ones imported
            sys.path.append(str(root))
            return importlib.import_module(cmd.module)
    _refuse(
        f"{PROG} {cmd.name} runs from a checkout of the repository ({top}/ is not installed "
        f"with the package): run it inside one, where `{cmd.form}` works too"
    )
    return None


@contextlib.contextmanager
def _running_as(cmd: Command, module_file: str, argv: Sequence[str]) -> Iterator[None]:
    """While the tool runs: sys.argv as `python -m` sets it (the module's file, then the
    arguments), and every argument parser named after the `python -m` form (or, with no prog
    of its own, after the module's file) called `vtrl COMMAND` instead. The tools build their
    parsers inside main() with prog fixed, so their construction is the one place to rename."""
    names = {cmd.form, os.path.basename(module_file)}
    new_name = f"{PROG} {cmd.name}"
    original_init = argparse.ArgumentParser.__init__

    def init(self, *args, **kwargs):
        original_init(self, *args, **kwargs)
        if self.prog in names:
            self.prog = new_name

    saved_argv = sys.argv
    sys.argv = [module_file, *argv]
    argparse.ArgumentParser.__init__ = init
    try:
        yield
    finally:
        argparse.ArgumentParser.__init__ = original_init
        sys.argv = saved_argv


def run(cmd: Command, argv: Sequence[str]) -> int:
    """Run one command's tool with `argv`; its exit status."""
    for key, value in cmd.env.items():
        os.environ.setdefault(key, value)
    module = _import_tool(cmd)
    if module is None:
        return 2
    with _running_as(cmd, module.__file__, argv):
        status = module.main(list(argv))
    return 0 if status is None else status


def main(argv: Sequence[str] | None = None) -> int:
    """`vtrl [--help | --version | COMMAND ARGS ...]`; the command's exit status, 2 on a bad
    command line."""
    args = list(sys.argv[1:] if argv is None else argv)
    choose = f"choose from {', '.join(BY_NAME)} ({PROG} --help says what each does)"
    if not args:
        return _refuse(f"name a command; {choose}")
    first, rest = args[0], args[1:]
    if first in ("-h", "--help"):
        print(help_text(), end="")
        return 0
    if first == "--version":
        print(f"{PROG} {version()} ({DISTRIBUTION})")
        return 0
    if first.startswith("-"):
        return _refuse(f"unknown option {first}: the options go after the command; {choose}")
    cmd = BY_NAME.get(first)
    if cmd is None:
        close = difflib.get_close_matches(first, BY_NAME, n=1)
        hint = f" (did you mean {close[0]}?)" if close else ""
        return _refuse(f"unknown command {first!r}{hint}; {choose}")
    return run(cmd, rest)


if __name__ == "__main__":
    sys.exit(main())
