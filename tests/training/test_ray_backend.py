"""training.arena.ray_backend: tournaments on a local Ray instance give the process pool's games,
a killed Ray worker loses nothing, checkpoints travel by content, a killed driver leaves nothing
running, and a node killed mid-tournament on a two-node cluster loses and duplicates nothing."""

from __future__ import annotations

import dataclasses
import json
import logging
import os
import shutil
import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest

pytestmark = pytest.mark.slow  # each test starts a local Ray instance (seconds to a minute)

ray = pytest.importorskip(
    "ray", reason='the Ray backend needs the optional extra: pip install -e ".[ray]"'
)

import process_helpers as ph  # noqa: E402
from ray_cluster import cluster as _cluster  # noqa: E402
from ray_cluster import kill_second_node_mid_run  # noqa: E402
from ray_cluster import raylet_of as _raylet_of  # noqa: E402
from tournament_agents import DRIVER_PID_ENV, KILL_FILE_ENV  # noqa: E402

import village_env  # noqa: E402
from training.arena import ray_backend as rb  # noqa: E402
from training.arena import tournament as tn  # noqa: E402
from training.arena.replay import replay  # noqa: E402
from training.arena.store import GameStore  # noqa: E402
from training.balance import study as balance  # noqa: E402

RULES = village_env.RULES_DATA_HASH
FIRST = "py:tournament_agents:first_legal"
HERE = Path(__file__).resolve().parent  # tournament_agents.py
REPO = HERE.parents[1]


@pytest.fixture(scope="module")
def kill_file(tmp_path_factory):
    """One local Ray instance (2 CPUs) for the module. Its workers inherit this environment:
    the tests folder on PYTHONPATH (the `py:tournament_agents:...` agents), the driver's pid
    and the kill file's name (tournament_agents.RayKiller)."""
    path = tmp_path_factory.mktemp("ray") / "kill"
    env = {
        "PYTHONPATH": os.pathsep.join(
            [str(HERE), str(REPO), *filter(None, [os.environ.get("PYTHONPATH")])]
        ),
        KILL_FILE_ENV: str(path),
        DRIVER_PID_ENV: str(os.getpid()),
    }
    saved = {k: os.environ.get(k) for k in env}
    os.environ.update(env)
    assert not ray.is_initialized()
    ray.init(num_cpus=2, include_dashboard=False, logging_level=logging.WARNING)
    try:
        yield path
    finally:
        ray.shutdown()
        for k, v in saved.items():
            if v is None:
                os.environ.pop(k, None)
            else:
                os.environ[k] = v


def _games(db) -> list[dict]:
    """Stored games without what legitimately differs between runs (ids, clocks)."""
    with GameStore(db, GameStore.game_of(db)) as st:
        recs = list(st.games())
    skip = {"id", "wall_seconds", "finished_utc", "tournament_id"}
    out = [{k: v for k, v in dataclasses.asdict(r).items() if k not in skip} for r in recs]
    return sorted(out, key=lambda r: r["match_key"])


def test_ray_gives_the_games_and_ratings_of_one_process(kill_file, tmp_path):
    specs = ["random", "heuristic", FIRST]
    one = tn.run_tournament("village", 2, specs, 4, tmp_path / "p.sqlite", progress=False)
    on_ray = tn.run_tournament(
        "village", 2, specs, 4, tmp_path / "r.sqlite", workers=2, progress=False, backend="ray"
    )
    assert one["played_now"] == on_ray["played_now"] == 12
    assert on_ray["backend"] == "ray"
    assert _games(tmp_path / "p.sqlite") == _games(tmp_path / "r.sqlite")
    assert one["board"] == on_ray["board"]
    assert ray.is_initialized()  # the module's Ray was used, not shut down
    again = tn.run_tournament(
        "village", 2, specs, 4, tmp_path / "r.sqlite", workers=2, progress=False, backend="ray"
    )
    assert again["played_now"] == 0 and again["board"] == one["board"]
    # one task at a time on the 2-CPU Ray (fewer workers than CPUs): the same games
    tn.run_tournament(
        "village", 2, specs, 4, tmp_path / "r1.sqlite", workers=1, progress=False, backend="ray"
    )
    assert _games(tmp_path / "r1.sqlite") == _games(tmp_path / "p.sqlite")


def test_a_rules_variant_is_shipped_and_workers_switch_back(kill_file, tmp_path):
    """The variant file travels by content; the next tournament (the default rules data) on the
    same workers is played under the default again (the test after this one checks its games)."""
    variant = tmp_path / "v.json"
    shutil.copy(REPO / "docs" / "rules_variants" / "village_mass_bonus_1.json", variant)
    specs = ["heuristic", "random"]
    kw = dict(progress=False, rules_file=variant)
    want = tn.run_tournament("village", 2, specs, 2, tmp_path / "p.sqlite", **kw)
    got = tn.run_tournament(
        "village", 2, specs, 2, tmp_path / "r.sqlite", workers=2, backend="ray", **kw
    )
    assert got["rules_data_hash"] == want["rules_data_hash"] != RULES
    assert _games(tmp_path / "r.sqlite") == _games(tmp_path / "p.sqlite")
    hashes = {g["rules_data_hash"] for g in _games(tmp_path / "r.sqlite")}
    assert hashes == {want["rules_data_hash"]}


def test_killed_ray_worker_is_retried_or_stops_cleanly(kill_file, tmp_path, monkeypatch):
    specs = ["random", "py:tournament_agents:ray_killer"]
    ents = tn.resolve_entrants("village", 2, specs)
    jobs = tn.schedule(2, ents, "round-robin", 12, 0, RULES)
    victim = jobs[7]
    seed = str(victim.agent_seeds[victim.labels.index(specs[1])])
    clean = tmp_path / "clean.sqlite"
    tn.run_tournament("village", 2, specs, 12, clean, progress=False)  # in this process: no kill
    assert len(_games(clean)) == len(jobs)

    # Ray retries the task whose worker died: the run completes
    kill_file.write_text(seed)
    db = tmp_path / "retried.sqlite"
    r = tn.run_tournament("village", 2, specs, 12, db, workers=2, progress=False, backend="ray")
    assert not kill_file.exists()  # a worker did die
    assert r["played_now"] == len(jobs) and _games(db) == _games(clean)

    # no retries: the run stops after storing every finished chunk; a rerun completes it
    monkeypatch.setattr(rb, "MAX_RETRIES", 0)
    kill_file.write_text(seed)
    db = tmp_path / "stopped.sqlite"
    with pytest.raises(rb.WorkerLostError, match="rerun the same command"):
        tn.run_tournament("village", 2, specs, 12, db, workers=2, progress=False, backend="ray")
    assert not kill_file.exists()
    partial = _games(db)
    assert 0 < len(partial) < len(jobs)
    keys = [g["match_key"] for g in partial]
    assert len(keys) == len(set(keys)) and victim.match_key not in keys
    assert set(keys) <= {j.match_key for j in jobs}
    with GameStore(db, "village") as st:  # what was stored is whole: it replays
        for rec in st.games():
            replay(village_env, rec)
    done = tn.run_tournament("village", 2, specs, 12, db, workers=2, progress=False, backend="ray")
    assert done["played_now"] == len(jobs) - len(partial)
    assert _games(db) == _games(clean)


def test_the_clis_take_the_ray_backend(kill_file, tmp_path, capsys):
    db = tmp_path / "c.sqlite"
    argv = ["--game", "village", "--players", "2", "--games", "2", "--db", str(db)]
    argv += ["--no-progress", "--backend", "ray", "--workers", "2"]
    rep = tmp_path / "rep"
    assert tn.main([*argv, "--agents", "random", "heuristic", "--report", str(rep)]) == 0
    res = json.loads((rep / "result.json").read_text())
    assert res["backend"] == "ray" and res["stored_games"] == 2
    with pytest.raises(SystemExit):  # an agent's own error on a worker stops the run
        tn.main([*argv, "--agents", "random", "py:tournament_agents:cheater"])
    err = capsys.readouterr().err.strip().splitlines()
    assert "not a legal action" in err[-1] and "cheater" in err[-1]  # one line, not a traceback
    # another driver (a fresh process) on the running Ray, by its address
    addr = ray.get_runtime_context().gcs_address
    db2 = tmp_path / "a.sqlite"
    cmd = [sys.executable, "-m", "training.arena.tournament", *argv[:7], str(db2), "--no-progress"]
    cmd += ["--backend", "ray", "--address", addr, "--agents", "random", "heuristic"]
    cmd += ["--report", str(tmp_path / "rep2")]
    run = subprocess.run(cmd, capture_output=True, text=True, timeout=300)
    assert run.returncode == 0, run.stderr[-2000:]
    assert _games(db2) == _games(db)
    variant = tmp_path / "variant.json"
    variant.write_text(json.dumps({"game": "village", "values": {"STARTING_COINS": 3}}))
    bal = ["--game", "village", "--players", "2", "--agents", "random", "--games", "2"]
    bal += ["--db", str(tmp_path / "b.sqlite"), "--out", str(tmp_path / "bal"), "--no-progress"]
    assert balance.main([*bal, "--rules", str(variant), "--backend", "ray"]) == 0
    with GameStore(tmp_path / "b.sqlite", "village") as st:
        hashes = [r.rules_data_hash for r in st.games()]
    assert len(hashes) == 4 and len(set(hashes)) == 2 and RULES in hashes


def _tiny_checkpoint(path: Path) -> Path:
    """A checkpoint of an untrained actor (random weights; numpy part and sidecar only)."""
    from types import SimpleNamespace

    import torch
    from torch import nn

    from training.agents.checkpoint import save_checkpoint

    torch.manual_seed(0)
    policy = SimpleNamespace(
        features_extractor=None,
        mlp_extractor=SimpleNamespace(
            policy_net=nn.Sequential(nn.Linear(village_env.OBS_SIZE, 16), nn.Tanh())
        ),
        action_net=nn.Linear(16, village_env.NUM_ACTIONS),
    )
    model = SimpleNamespace(policy=policy, num_timesteps=0)
    return save_checkpoint(model, path, village_env, 2, with_zip=False)


def test_checkpoints_are_shipped_by_content(kill_file, tmp_path, monkeypatch):
    ckpt = str(_tiny_checkpoint(tmp_path / "ck" / "tiny"))
    specs = [ckpt, "heuristic"]
    want = tn.run_tournament("village", 2, specs, 4, tmp_path / "p.sqlite", progress=False)

    moved = tmp_path / "moved"
    real_bundle = rb.bundle

    def bundle_then_move(*args):  # the driver reads the files, then they leave that path
        out = real_bundle(*args)
        shutil.move(tmp_path / "ck", moved)
        return out

    monkeypatch.setattr(rb, "bundle", bundle_then_move)
    db = tmp_path / "r.sqlite"
    got = tn.run_tournament("village", 2, specs, 4, db, workers=2, progress=False, backend="ray")
    assert not Path(f"{ckpt}.json").exists()  # the workers could not have read the original
    assert got["played_now"] == 4
    assert _games(db) == _games(tmp_path / "p.sqlite") and got["board"] == want["board"]
    assert got["entrants"] == want["entrants"]  # the original path and fingerprint
    con = sqlite3.connect(db)
    text = "\n".join(str(row) for row in con.execute("SELECT * FROM entrants"))
    con.close()
    assert ckpt in text and rb.CACHE_NAME not in text
    sha, files = real_bundle([f"{moved}/tiny"], None)["agents"][f"{moved}/tiny"]
    assert set(files) == {".json", ".policy.npz"}
    assert (rb.cache_root() / sha / "checkpoint.policy.npz").read_bytes() == files[".policy.npz"]


def test_a_damaged_cache_copy_is_rewritten(tmp_path, monkeypatch):
    monkeypatch.setattr(rb.tempfile, "tempdir", str(tmp_path))
    files = {".json": b"{}", ".policy.npz": b"weights"}
    path = rb.materialise("abc", files, "checkpoint")
    assert path == tmp_path / rb.CACHE_NAME / "abc" / "checkpoint"
    Path(f"{path}.policy.npz").write_bytes(b"truncat")
    assert rb.materialise("abc", files, "checkpoint") == path
    assert Path(f"{path}.policy.npz").read_bytes() == b"weights"
    assert sorted(p.name for p in (tmp_path / rb.CACHE_NAME).iterdir()) == ["abc"]


def test_a_worker_with_other_rules_data_refuses_to_play():
    """A node whose library gives other rules data than the driver's plays nothing and says so in
    one line (a ValueError, which the CLIs print without a traceback)."""
    with pytest.raises(
        rb.RulesMismatchError, match="rules data .* the driver's is 0123456789abcdef"
    ):
        rb.play_chunk("village", 2, [], "0123456789abcdef", rb.bundle([], None))
    assert issubclass(rb.RulesMismatchError, ValueError)


# -- a killed driver, a killed node ----------------------------------------------------------------
@pytest.mark.slow  # starts a local Ray instance in a subprocess; its agents need about a minute
@pytest.mark.skipif(not ph.usable(), reason="needs psutil or Linux /proc to find the processes")
def test_a_killed_driver_leaves_no_local_ray_behind(tmp_path):
    """A SIGKILL of a tournament driver on a local Ray instance (the default of --backend ray)
    leaves nothing running: Ray ends its GCS, raylet and workers with the driver, and the
    raylet's dashboard and runtime-env agents within about a minute (they first try, for 60 s,
    to report the raylet's end to the dead GCS); bounded here at 180 s."""
    argv = ph.gated_command("tournament", tmp_path, "--backend", "ray")
    ph.assert_workers_die_with_driver(argv, tmp_path, timeout=180)


def _driver(argv: list[str], env: dict, log: Path) -> subprocess.Popen:
    with open(log, "w") as f:
        return subprocess.Popen(
            ph.python_module("training.arena.tournament", *argv),
            cwd=ph.REPO,
            env=env,
            stdout=f,
            stderr=subprocess.STDOUT,
        )


@pytest.mark.slow  # a two-node Ray cluster on this machine, a node killed mid-tournament
@pytest.mark.skipif(not ph.usable(), reason="needs psutil or Linux /proc to find the processes")
def test_a_node_killed_mid_tournament_loses_and_duplicates_nothing(tmp_path):
    """Fault injection on a two-node cluster on this machine (a head and a second node of one
    CPU each, started with `ray start`): a tournament runs against it by --address; while one
    game is in flight on each node (the gated agent holds them there), the second node's raylet
    is killed (SIGKILL: its workers die with it). Ray retries the lost task on the head and the
    tournament finishes with every game stored once: the same games (actions, state checks,
    results) as in one process."""
    games = 8  # one line-up, 8 chunks of one game: 2 running, more queued at the kill
    specs = ["random", ph.GATED]
    clean = tmp_path / "one.sqlite"
    tn.run_tournament("village", 2, specs, games, clean, progress=False)  # here: no gate
    want = _games(clean)
    assert len(want) == games
    db = tmp_path / "cluster.sqlite"
    with _cluster(tmp_path, nodes=2) as (address, nodes, gate, env):
        argv = ["--game", "village", "--players", "2", "--agents", *specs, "--games", str(games)]
        argv += ["--db", str(db), "--backend", "ray", "--address", address, "--workers", "2"]
        argv += ["--no-progress", "--report", str(tmp_path / "report")]
        driver = _driver(argv, env, tmp_path / "driver.log")
        rc = kill_second_node_mid_run(driver, gate, nodes, 180, 240)
        out = (tmp_path / "driver.log").read_text()
        assert rc == 0, out[-3000:]
        assert f"{games}/{games} games in {db}" in out
    got = _games(db)
    keys = [g["match_key"] for g in got]
    assert len(keys) == len(set(keys)) == games  # none lost, none duplicated
    assert got == want


@pytest.mark.slow  # a one-node Ray cluster on this machine
@pytest.mark.skipif(not ph.usable(), reason="needs psutil or Linux /proc to find the processes")
def test_a_killed_driver_s_workers_end_on_a_running_cluster(tmp_path):
    """On a running cluster (--address) a SIGKILLed driver's workers end (Ray ends a dead job's
    workers) and the cluster itself stays up: it is the user's, started with `ray start`."""
    with _cluster(tmp_path, nodes=1) as (address, (head,), gate, env):
        raylet = _raylet_of(head)
        argv = ["--game", "village", "--players", "2", "--agents", "random", ph.GATED]
        argv += ["--games", "4", "--db", str(tmp_path / "t.sqlite"), "--backend", "ray"]
        argv += ["--address", address, "--no-progress"]
        driver = _driver(argv, env, tmp_path / "driver.log")
        try:
            inside = ph.wait_markers(gate, 1, 180, driver)  # one CPU: one game in flight
            assert set(inside.values()) == {raylet}
            driver.kill()
            driver.wait(30)
        finally:
            if driver.poll() is None:
                driver.kill()
                driver.wait(30)
        assert ph.wait_gone(set(inside), 60) == set()
        assert ph.alive(raylet) and head.poll() is None
