"""Where expert iteration's self-play runs (training.alphazero.backends): the driver's handling of
lost Ray tasks, in-process with a stand-in for Ray, and a run's record of its games."""

from __future__ import annotations

import json

import numpy as np
import pytest

from training.alphazero import backends as bk
from training.alphazero.loop import AZConfig, train
from training.arena.ray_backend import WorkerLostError


class RayError(Exception):
    pass


class RayTaskError(RayError):
    def __init__(self, cause):
        super().__init__(str(cause))
        self.cause = cause


class NodeDiedError(RayError):
    pass


class FakeRay:
    """Ray's wait/get/cancel over refs that finish in submission order; `fail[i]` lists what the
    attempts of job i raise before one returns."""

    class exceptions:
        RayError = RayError
        RayTaskError = RayTaskError

    def __init__(self, fail: dict[int, list[Exception]]):
        self.fail = {i: list(v) for i, v in fail.items()}
        self.submitted: list[int] = []
        self.cancelled: list = []

    def submit(self, i: int):
        self.submitted.append(i)
        return (i, len(self.submitted))

    def wait(self, refs, num_returns=1):
        first = min(refs, key=lambda r: r[1])
        return [first], [r for r in refs if r != first]

    def get(self, ref):
        i = ref[0]
        if self.fail.get(i):
            raise self.fail[i].pop(0)
        return f"examples {i}", f"node:{i}"

    def cancel(self, ref):
        self.cancelled.append(ref)


def test_a_lost_job_is_played_again_and_counted_once_per_loss():
    ray = FakeRay({1: [NodeDiedError("node 2"), NodeDiedError("node 2")]})
    results, info = bk.gather(ray, ray.submit, 3)
    assert results == ["examples 0", "examples 1", "examples 2"]  # each job once, in job order
    assert [i["attempts"] for i in info] == [1, 3, 1]
    assert info[1]["lost"] == ["NodeDiedError", "NodeDiedError"] and info[1]["worker"] == "node:1"
    assert sorted(ray.submitted) == [0, 1, 1, 1, 2]


def test_a_job_lost_too_often_stops_the_run_and_cancels_the_rest():
    ray = FakeRay({0: [NodeDiedError("x")] * bk.MAX_ATTEMPTS})
    with pytest.raises(WorkerLostError, match=f"lost {bk.MAX_ATTEMPTS} times.*--resume"):
        bk.gather(ray, ray.submit, 3)
    assert ray.submitted.count(0) == bk.MAX_ATTEMPTS


def test_an_error_inside_a_task_is_raised_as_it_was_not_retried():
    ray = FakeRay({2: [RayTaskError(ValueError("illegal action 7"))]})
    with pytest.raises(ValueError, match="illegal action 7"):
        bk.gather(ray, ray.submit, 3)
    assert ray.submitted.count(2) == 1


def test_a_run_records_the_games_of_every_iteration(tmp_path):
    """games.jsonl: per iteration and job, the seeds (and whether against the opponent), the
    worker, its attempts and examples; the progress rows count losses (none here)."""
    cfg = AZConfig(
        game="village", out=str(tmp_path / "run"), players=2, iterations=2, games=3, sims=2,
        hidden=(8,), buffer=2000, batch=16, steps=1, workers=2, eval_every=0,
        opponent="random", opponent_share=0.34,
    )  # fmt: skip
    train(cfg, out=lambda line: None)
    lines = [json.loads(x) for x in (tmp_path / "run" / "games.jsonl").read_text().splitlines()]
    assert [x["iteration"] for x in lines] == [1, 2] and lines[0]["backend"] == "process"
    for x in lines:
        seeds = sorted(s for j in x["jobs"] for s, _a in j["seeds"])
        it = x["iteration"]
        assert seeds == [cfg.seed * 1_000_003 + it * 10_007 + k for k in range(3)]
        assert sum(a for j in x["jobs"] for _s, a in j["seeds"]) == 1  # one game of three
        assert all(
            j["attempts"] == 1 and ":" in j["worker"] and j["examples"] > 0 for j in x["jobs"]
        )
    rows = json.loads((tmp_path / "run" / "progress.json").read_text())
    assert [r["lost"] for r in rows] == [0, 0] and rows[-1]["lost_total"] == 0
    assert [r["examples"] for r in rows] == [sum(j["examples"] for j in x["jobs"]) for x in lines]
    assert np.isfinite(rows[-1]["policy_loss"])


def test_a_backend_is_one_of_the_known_ones():
    with pytest.raises(ValueError, match="--backend must be one of process, ray"):
        train(AZConfig(game="village", out="x"), backend="cluster")
    with pytest.raises(ValueError, match="--address needs --backend ray"):
        train(AZConfig(game="village", out="x"), address="auto")
