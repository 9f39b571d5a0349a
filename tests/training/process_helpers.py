"""Processes of this machine for the tests that kill a driver or a node: psutil when it is
installed, else Linux's /proc. `usable()` says whether either is there (the tests skip otherwise).
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

try:
    import psutil
except ImportError:  # not a dependency of the library: /proc does on Linux
    psutil = None

HERE = Path(__file__).resolve().parent  # tournament_agents.py
REPO = HERE.parents[1]
GATE_OPEN = "open"


def usable() -> bool:
    return psutil is not None or Path("/proc/self/stat").exists()


def _table() -> dict[int, tuple[int, str]]:
    """pid -> (parent pid, state letter) of every process, from /proc."""
    out = {}
    for d in os.listdir("/proc"):
        if not d.isdigit():
            continue
        try:
            text = Path(f"/proc/{d}/stat").read_text()
        except OSError:  # it ended meanwhile
            continue
        rest = text[text.rindex(")") + 2 :].split()  # after "pid (name) "
        out[int(d)] = (int(rest[1]), rest[0])
    return out


def descendants(pid: int) -> set[int]:
    """Every process started by `pid`, its children's children included."""
    if psutil is not None:
        try:
            return {p.pid for p in psutil.Process(pid).children(recursive=True)}
        except psutil.NoSuchProcess:
            return set()
    table = _table()
    found: set[int] = set()
    frontier = [pid]
    while frontier:
        parent = frontier.pop()
        for child, (ppid, _state) in table.items():
            if ppid == parent and child not in found:
                found.add(child)
                frontier.append(child)
    return found


def cmdline(pid: int) -> list[str]:
    """The command line of `pid` ([] if it ended)."""
    if psutil is not None:
        try:
            return psutil.Process(pid).cmdline()
        except psutil.Error:
            return []
    try:
        return Path(f"/proc/{pid}/cmdline").read_bytes().decode(errors="replace").split("\0")[:-1]
    except OSError:
        return []


def with_environment(key: str, value: str) -> set[int]:
    """Every process of this user whose environment has key=value (what a test started, and
    what those processes started in turn, with that mark)."""
    mark = f"{key}={value}"
    found = set()
    if psutil is not None:
        for p in psutil.process_iter():
            try:
                if p.environ().get(key) == value:
                    found.add(p.pid)
            except psutil.Error:
                continue
        return found - {os.getpid()}
    for d in os.listdir("/proc"):
        if d.isdigit():
            try:
                env = Path(f"/proc/{d}/environ").read_bytes().decode(errors="replace")
            except OSError:  # ended, or another user's
                continue
            if mark in env.split("\0"):
                found.add(int(d))
    return found - {os.getpid()}


def alive(pid: int) -> bool:
    """Whether `pid` runs (a zombie, ended but not yet reaped, does not)."""
    if psutil is not None:
        try:
            return psutil.Process(pid).status() != psutil.STATUS_ZOMBIE
        except psutil.NoSuchProcess:
            return False
    entry = _table().get(pid)
    return entry is not None and entry[1] not in ("Z", "X")


def wait_gone(pids: set[int], timeout: float) -> set[int]:
    """Poll until none of `pids` runs or `timeout` seconds passed; the ones still running."""
    end = time.monotonic() + timeout
    left = set(pids)
    while left:
        left = {p for p in left if alive(p)}
        if not left or time.monotonic() > end:
            break
        time.sleep(0.25)
    return left


def kill_all(pids: set[int]) -> None:
    """SIGKILL each of `pids` that still runs (a failed test's leftovers)."""
    for p in pids:
        if alive(p):
            try:
                os.kill(p, signal.SIGKILL)
            except ProcessLookupError:
                pass


def gate_markers(gate: Path) -> dict[int, int]:
    """{pid: parent pid} of the processes inside a gated game (tournament_agents.Gated)."""
    out = {}
    for f in gate.glob("pid-*"):
        try:
            out[int(f.name[4:])] = int(f.read_text())
        except ValueError:  # being written
            continue
    return out


def wait_markers(gate: Path, count: int, timeout: float, proc: subprocess.Popen) -> dict:
    """Wait until `count` processes are inside a gated game; fails if `proc` ends first."""
    end = time.monotonic() + timeout
    while time.monotonic() < end:
        got = gate_markers(gate)
        if len(got) >= count:
            return got
        if proc.poll() is not None:
            raise AssertionError(f"the command ended early (exit {proc.returncode})")
        time.sleep(0.2)
    raise AssertionError(f"fewer than {count} processes started a game in {timeout} s")


def env_with_agents(**extra: str) -> dict[str, str]:
    """This environment plus the tests folder on PYTHONPATH (the `py:tournament_agents:...`
    agents), and `extra`."""
    path = [str(HERE), str(REPO), *filter(None, [os.environ.get("PYTHONPATH")])]
    return dict(os.environ, PYTHONPATH=os.pathsep.join(path), **extra)


def python_module(module: str, *args: str) -> list[str]:
    return [sys.executable, "-m", module, *args]


GATED = "py:tournament_agents:gated"


def gated_command(command: str, tmp_path: Path, *extra: str) -> list[str]:
    """A tournament (`command` "tournament") or evaluation ("evaluate") of `random` against the
    gated agent: 4 games in 2 workers; `extra` arguments appended."""
    common = ["--game", "village", "--players", "2", "--agents", "random", GATED, "--games", "4"]
    common += ["--workers", "2", "--no-progress", *extra]
    if command == "tournament":
        return python_module("training.arena.tournament", *common, "--db", str(tmp_path / "t.db"))
    return python_module("training.arena.evaluate", *common)


def assert_workers_die_with_driver(argv: list[str], tmp_path: Path, timeout: float) -> None:
    """Start `argv` (a driver), wait until two of its workers are inside a game (the gated agent
    holds them there), SIGKILL the driver, and assert that every process it had started ends
    within `timeout` seconds (polled: a bound, not a speed). Leftovers are killed afterwards."""
    from tournament_agents import GATE_DIR_ENV

    gate = tmp_path / "gate"
    gate.mkdir()
    env = env_with_agents(**{GATE_DIR_ENV: str(gate)})
    with open(tmp_path / "driver.log", "w") as log:
        driver = subprocess.Popen(argv, cwd=REPO, env=env, stdout=log, stderr=subprocess.STDOUT)
    started: set[int] = set()
    try:
        inside = wait_markers(gate, 2, 300, driver)
        started = descendants(driver.pid)
        assert set(inside) <= started, (inside, started)
        driver.kill()
        driver.wait(30)
        left = wait_gone(started, timeout)
        named = {p: " ".join(cmdline(p))[:80] for p in left}
        assert not left, f"still running {timeout} s after the driver was killed: {named}"
    finally:
        (gate / GATE_OPEN).touch()
        if driver.poll() is None:
            driver.kill()
            driver.wait(30)
        kill_all(started)
