"""A Ray cluster of one-CPU nodes on this machine, for the tests that kill a node
(tests/training/test_ray_backend.py, tests/training/test_alphazero_ray.py)."""

from __future__ import annotations

import contextlib
import os
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import process_helpers as ph
from tournament_agents import GATE_DIR_ENV


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def wait_for_line(log: Path, text: str, proc: subprocess.Popen, timeout: float) -> None:
    end = time.monotonic() + timeout
    while time.monotonic() < end:
        if log.exists() and text in log.read_text(errors="replace"):
            return
        if proc.poll() is not None:
            raise AssertionError(f"ray start ended (exit {proc.returncode}): {log.read_text()}")
        time.sleep(0.2)
    raise AssertionError(f"no {text!r} in {log} after {timeout} s")


CLUSTER_MARK = "GAMESRL_TEST_RAY_CLUSTER"


def ray_start(args: list[str], env: dict, log: Path) -> subprocess.Popen:
    """`ray start --block ...` (one node, in the foreground: SIGTERM stops it and its processes)
    with one CPU and its own agent and metrics ports, so several nodes share this machine."""
    ports = ["--dashboard-agent-listen-port", "--dashboard-agent-grpc-port"]
    ports += ["--runtime-env-agent-port", "--metrics-export-port"]
    # ray's command through this interpreter: its script need not be on PATH
    cmd = [sys.executable, "-m", "ray.scripts.scripts", "start", "--block", "--num-cpus", "1"]
    cmd += args
    cmd += ["--disable-usage-stats", "--object-store-memory", str(100 * 2**20)]
    for flag in ports:
        cmd += [flag, str(free_port())]
    with open(log, "w") as f:
        return subprocess.Popen(cmd, env=env, stdout=f, stderr=subprocess.STDOUT)


def raylet_of(node: subprocess.Popen) -> int:
    """The pid of the raylet that `ray start` process runs."""
    for pid in ph.descendants(node.pid):
        if any(part.endswith("/raylet") for part in ph.cmdline(pid)[:1]):
            return pid
    raise AssertionError(f"no raylet under ray start (pid {node.pid})")


@contextlib.contextmanager
def cluster(tmp_path: Path, nodes: int):
    """A Ray cluster of `nodes` one-CPU nodes on this machine (a head, then `nodes - 1` more),
    in its own temp folder (another `ray.init()` on the machine does not find it) and without
    token authentication. Yields (address, the `ray start` processes, the gate folder of the
    gated agent, the environment its nodes and a driver run with). Stopped afterwards, whatever
    happened: SIGTERM to each `ray start`, then SIGKILL to anything left with this cluster's
    mark in its environment."""
    root = Path(tempfile.mkdtemp(prefix="rt", dir="/tmp"))  # short: Ray's socket paths
    gate = tmp_path / "gate"
    gate.mkdir()
    env = ph.env_with_agents(
        **{GATE_DIR_ENV: str(gate), CLUSTER_MARK: str(root), "RAY_AUTH_MODE": "disabled"}
    )
    env.pop("RAY_ADDRESS", None)
    health = {  # the GCS declares a killed node dead within seconds (default: about 30)
        "RAY_health_check_initial_delay_ms": "1000",
        "RAY_health_check_period_ms": "1000",
        "RAY_health_check_timeout_ms": "1000",
        "RAY_health_check_failure_threshold": "3",
    }
    port = free_port()
    address = f"127.0.0.1:{port}"
    started: list[subprocess.Popen] = []
    try:
        args = ["--head", "--port", str(port), "--temp-dir", str(root)]
        args += ["--include-dashboard", "false", "--ray-client-server-port", str(free_port())]
        for k in range(nodes):
            log = tmp_path / f"node{k}.log"
            started.append(ray_start(args, {**env, **health} if k == 0 else env, log))
            wait_for_line(log, "Ray runtime started", started[-1], 120)
            args = ["--address", address]
        yield address, started, gate, env
    finally:
        (gate / ph.GATE_OPEN).touch()
        for proc in reversed(started):
            if proc.poll() is None:
                proc.terminate()
                try:
                    proc.wait(60)
                except subprocess.TimeoutExpired:
                    proc.kill()
        ph.kill_all(ph.with_environment(CLUSTER_MARK, str(root)))
        shutil.rmtree(root, ignore_errors=True)


def kill_second_node_mid_run(driver: subprocess.Popen, gate: Path, nodes, start: float, end: float):
    """Wait (at most `start` s) until the gated agent holds a game on each of the two `nodes`
    (their `ray start` processes), SIGKILL the second node's raylet (its worker dies with it),
    open the gate and wait (at most `end` s) for `driver`: its exit status. The driver is killed
    if it is still running afterwards, whatever happened."""
    head_raylet, node_raylet = raylet_of(nodes[0]), raylet_of(nodes[1])
    try:
        inside = ph.wait_markers(gate, 2, start, driver)  # a game in flight on each node
        assert set(inside.values()) == {head_raylet, node_raylet}, (inside, head_raylet)
        lost = {pid for pid, parent in inside.items() if parent == node_raylet}
        os.kill(node_raylet, signal.SIGKILL)
        assert ph.wait_gone(lost, 60) == set()  # the second node's worker died with it
        (gate / ph.GATE_OPEN).touch()
        return driver.wait(end)
    finally:
        if driver.poll() is None:
            driver.kill()
            driver.wait(30)
