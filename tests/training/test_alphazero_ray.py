"""Expert iteration with its self-play on Ray (training.alphazero.backends.RayBackend): the same
network as with local processes, and a node killed mid-run on a two-node cluster costs a replayed
job, never a lost, duplicated or truncated example."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import numpy as np
import pytest

pytestmark = pytest.mark.slow  # each test starts Ray (seconds to a minute)

ray = pytest.importorskip(
    "ray", reason='the Ray backend needs the optional extra: pip install -e ".[ray]"'
)

import process_helpers as ph  # noqa: E402
from ray_cluster import cluster, kill_second_node_mid_run  # noqa: E402

from training.alphazero.loop import AZConfig, train  # noqa: E402


def settings(out: Path, opponent: str = "random") -> AZConfig:
    return AZConfig(
        game="village", out=str(out), players=2, iterations=2, games=2, sims=2, hidden=(8,),
        buffer=2000, batch=16, steps=2, workers=2, eval_every=0, opponent=opponent,
        opponent_share=1.0,
    )  # fmt: skip


def network(run: Path) -> dict[str, np.ndarray]:
    with np.load(run / "final" / "network.npz") as z:
        return {k: z[k] for k in z.files}


def jobs(run: Path) -> list[tuple]:
    """(iteration, seeds, examples) of every job of a run's games.jsonl, in order."""
    out = []
    for line in (run / "games.jsonl").read_text().splitlines():
        x = json.loads(line)
        out += [(x["iteration"], j["seeds"], j["examples"]) for j in x["jobs"]]
    return out


def test_a_ray_run_trains_the_network_of_a_process_run(tmp_path):
    quiet = dict(out=lambda line: None)
    train(settings(tmp_path / "process"), **quiet)
    assert not ray.is_initialized()
    train(settings(tmp_path / "ray"), backend="ray", **quiet)
    assert not ray.is_initialized()  # the local instance it started is shut down
    a, b = network(tmp_path / "process"), network(tmp_path / "ray")
    assert a.keys() == b.keys() and all(np.array_equal(a[k], b[k]) for k in a)
    assert jobs(tmp_path / "process") == jobs(tmp_path / "ray")
    line = json.loads((tmp_path / "ray" / "games.jsonl").read_text().splitlines()[0])
    assert line["backend"] == "ray"


@pytest.mark.skipif(not ph.usable(), reason="needs psutil or Linux /proc to find the processes")
def test_a_node_killed_mid_run_costs_a_replayed_job_and_nothing_else(tmp_path):
    """A two-node cluster on this machine (one CPU each, started with `ray start`); the run plays
    its games against the gated agent, which holds one game in flight on each node; the second
    node's raylet is killed (its worker dies with it). The run finishes its iterations, its
    progress counts the loss, and its network is the process run's: every example came from one
    complete game, none twice."""
    want = tmp_path / "process"
    train(settings(want, ph.GATED), out=lambda line: None)  # no gate here: plays at once
    run = tmp_path / "cluster"
    with cluster(tmp_path, nodes=2) as (address, nodes, gate, env):
        argv = ["--game", "village", "--players", "2", "--iterations", "2", "--games", "2"]
        argv += ["--sims", "2", "--hidden", "8", "--buffer", "2000", "--batch", "16"]
        argv += ["--steps", "2", "--workers", "2", "--eval-every", "0", "--opponent", ph.GATED]
        argv += ["--opponent-share", "1", "--backend", "ray", "--address", address]
        argv += ["--out", str(run)]
        with open(tmp_path / "driver.log", "w") as log:
            driver = subprocess.Popen(
                ph.python_module("training.alphazero", *argv),
                cwd=ph.REPO, env=env, stdout=log, stderr=subprocess.STDOUT,
            )  # fmt: skip
        rc = kill_second_node_mid_run(driver, gate, nodes, 240, 300)
        out = (tmp_path / "driver.log").read_text()
        assert rc == 0, out[-3000:]
    rows = json.loads((run / "progress.json").read_text())
    assert [r["iteration"] for r in rows] == [1, 2]
    assert rows[-1]["lost_total"] >= 1 and rows[0]["lost"] >= 1
    first = json.loads((run / "games.jsonl").read_text().splitlines()[0])
    assert max(j["attempts"] for j in first["jobs"]) >= 2
    assert jobs(run) == jobs(want)  # the same games, each job's examples once
    a, b = network(want), network(run)
    assert all(np.array_equal(a[k], b[k]) for k in a)
