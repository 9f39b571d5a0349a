"""training.learn.rllib_train (self-play on RLlib) and the `rllib:PATH` agent: one tiny RLlib
training
iteration per game, its checkpoint played by evaluate and a tournament, the compatibility checks
(tampered, foreign, wrong game, wrong players), the CLI's errors and the missing-extra message.

The training tests need Ray (the optional extra [ray]) and skip without it; they share one
local Ray instance and keep the train batch tiny (the module runs in about a minute on 2 cores).
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
from game_helpers import fewest

import village_env
from core.registry import game_names, get_game
from training.agents.checkpoint import CheckpointError
from training.agents.registry import agent_fingerprint, checkpoint_sidecar, make_agent
from training.agents.rllib_agent import POLICY, RAY_DIR, SIDECAR, checkpoint_dir
from training.arena.evaluate import evaluate
from training.learn import rllib_train as rt

pytestmark = pytest.mark.slow  # Ray and RLlib training runs

GAMES = {name: get_game(name) for name in game_names()}
ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture(scope="module")
def runs(tmp_path_factory):
    """One RLlib training iteration (256 env steps) per game, at its fewest players: {game: run
    folder}."""
    ray = pytest.importorskip("ray", reason='needs the optional extra: pip install -e ".[ray]"')
    base = tmp_path_factory.mktemp("rllib")
    ray.init(address="local", num_cpus=2, include_dashboard=False, log_to_driver=False)
    try:
        out = {}
        for i, game in enumerate(GAMES):
            cfg = rt.RLlibConfig(
                game=game,
                players=fewest(GAMES[game]),
                iterations=1,
                train_batch=256,
                minibatch=128,
                epochs=1,
                net_arch=[32, 32],
                envs_per_runner=1 + i % 2,  # every other game: the vectorised path too
                out=str(base / game),
            )
            summary = rt.train(cfg)
            assert summary["env_steps"] >= 256
            out[game] = base / game
    finally:
        ray.shutdown()
    return out


def _copy(run: Path, dest: Path) -> Path:
    """A copy of the run's final checkpoint folder (to tamper with)."""
    return Path(shutil.copytree(run / "final", dest))


@pytest.mark.parametrize("game", list(GAMES))
def test_checkpoint_plays_in_evaluate(runs, game):
    g = GAMES[game]
    n = fewest(g)
    run = runs[game]
    meta = json.loads((run / "final" / SIDECAR).read_text())
    assert meta["game"] == game and meta["players"] == n
    assert meta["rules_data_hash"] == g.RULES_DATA_HASH
    assert set(meta["files"]) == {POLICY, RAY_DIR}
    for name in ("summary.json", "config.json"):
        assert json.loads((run / name).read_text())["rules_data_hash"] == g.RULES_DATA_HASH
    spec = f"rllib:{run}"  # a run folder names its final checkpoint
    assert checkpoint_sidecar(spec)["game"] == game
    agents = [spec] + ["random"] * (n - 1)
    res = evaluate(None, n, agents, 2 * n, seed=3)  # the game comes from the sidecar
    assert res["game"] == game and res["games"] == 2 * n
    assert res["agents"][0]["trained_players"] == n
    assert res["rules_data_hash"] == g.RULES_DATA_HASH
    # every decision legal, the same for any seed (masked argmax)
    a1, a2 = make_agent(spec, game, n, seed=1), make_agent(spec, game, n, seed=99)
    s = g.new_game(n, 5)
    while not g.is_terminal(s):
        a = a1.act(s)
        assert g.legal_mask(s)[a] and a2.act(s) == a
        s = g.step(s, a)


def test_export_matches_the_rllib_module(runs):
    """policy.npz gives the same masked argmax as RLlib's learner module in the checkpoint."""
    import torch
    from ray.rllib.core.rl_module.rl_module import RLModule

    from training.agents.policy import mlp_logits

    ckpt = runs["village"] / "final"
    module = RLModule.from_checkpoint(
        ckpt / RAY_DIR / "learner_group" / "learner" / "rl_module" / rt.MODULE_ID
    )
    with np.load(ckpt / POLICY) as z:
        arrays = {k: z[k] for k in z.files}
    g, rng = village_env, np.random.default_rng(0)
    s, obs, masks = g.new_game(2, 11), [], []
    for _ in range(40):
        obs.append(g.observe(s, g.current_player(s)))
        masks.append(g.legal_mask(s))
        s = g.step(s, int(rng.choice(np.flatnonzero(masks[-1]))))
    o, m = np.stack(obs).astype(np.float32), np.stack(masks)
    with torch.no_grad():
        out = module.forward_inference(
            {"obs": {"observations": torch.tensor(o), "action_mask": torch.tensor(m * 1.0)}}
        )
    theirs = out["action_dist_inputs"].numpy()
    ours = np.stack([mlp_logits(arrays, x) for x in o])
    np.testing.assert_allclose(np.where(m, theirs, 0), np.where(m, ours, 0), atol=1e-4)
    assert (theirs.argmax(1) == np.where(m, ours, -np.inf).argmax(1)).all()


def test_plays_in_a_tournament_by_content(runs, tmp_path):
    from training.arena import tournament as tn

    spec = f"rllib:{runs['village']}"
    copy = f"rllib:{_copy(runs['village'], tmp_path / 'copy')}"
    assert agent_fingerprint(spec, "village", 2) == agent_fingerprint(copy, "village", 2)
    assert agent_fingerprint(spec, "village", 2).startswith("rllib sha256:")
    assert agent_fingerprint(spec, "village", 2) != agent_fingerprint(
        f"rllib:{runs['troyes']}", "troyes", 2
    )
    res = tn.run_tournament(
        "village", 2, [spec, "random"], 2, tmp_path / "t.sqlite", progress=False
    )
    assert res["played_now"] == 2


def test_tampered_checkpoints_are_refused(runs, tmp_path):
    ckpt = _copy(runs["village"], tmp_path / "a")
    data = bytearray((ckpt / POLICY).read_bytes())
    data[-10] ^= 0xFF
    (ckpt / POLICY).write_bytes(bytes(data))
    with pytest.raises(CheckpointError, match=r"policy\.npz: contents do not match"):
        make_agent(f"rllib:{ckpt}", "village", 2)

    ckpt = _copy(runs["village"], tmp_path / "b")
    (ckpt / RAY_DIR / "extra.txt").write_text("x")
    with pytest.raises(CheckpointError, match="RLlib checkpoint's contents do not match"):
        make_agent(f"rllib:{ckpt}", "village", 2)

    ckpt = _copy(runs["village"], tmp_path / "c")
    (ckpt / SIDECAR).write_text("{not json")
    with pytest.raises(CheckpointError, match="corrupt sidecar"):
        make_agent(f"rllib:{ckpt}", "village", 2)

    ckpt = _copy(runs["village"], tmp_path / "d")
    meta = json.loads((ckpt / SIDECAR).read_text())
    (ckpt / SIDECAR).write_text(json.dumps(dict(meta, format="someone-else")))
    with pytest.raises(CheckpointError, match="foreign file"):
        make_agent(f"rllib:{ckpt}", "village", 2)
    for key, value, why in [
        ("rules_data_hash", "0" * 16, "rules_data_hash: checkpoint has '0000"),
        ("library_version", "0.0.1", "library_version: checkpoint has '0.0.1'"),
        ("players", 9, "the sidecar's players 9 is not a player count"),
    ]:
        (ckpt / SIDECAR).write_text(json.dumps(dict(meta, **{key: value})))
        with pytest.raises(CheckpointError, match=why):
            make_agent(f"rllib:{ckpt}", "village", 2)

    (ckpt / SIDECAR).unlink()  # a bare RLlib checkpoint: no fingerprint, refused
    with pytest.raises(
        CheckpointError, match="not a checkpoint written by training.learn.rllib_train"
    ):
        make_agent(f"rllib:{ckpt}", "village", 2)
    with pytest.raises(CheckpointError, match=r"name it rllib:"):  # the prefix forgotten
        make_agent(str(_copy(runs["village"], tmp_path / "e")), "village", 2)
    with pytest.raises(CheckpointError, match="no such checkpoint"):
        make_agent(f"rllib:{tmp_path / 'nothing'}", "village", 2)


def test_wrong_game_or_players_is_refused(runs):
    spec = f"rllib:{runs['village']}"
    with pytest.raises(CheckpointError, match="game: checkpoint has 'village', this library has"):
        make_agent(spec, "troyes", 2)
    with pytest.raises(ValueError, match="is a village policy"):
        evaluate("troyes", 2, [spec, "random"], 4)
    with pytest.raises(CheckpointError, match=r"players must be one of \(2, 3, 4\), got 7"):
        make_agent(spec, "village", 7)
    # like our own checkpoints, a policy trained at 2 plays at 3 (sizes do not depend on it)
    res = evaluate("village", 3, [spec, "random", "random"], 3, seed=1)
    assert res["agents"][0]["trained_players"] == 2


def test_playing_needs_no_ray(runs):
    """An rllib: agent plays with Ray unimportable (tournaments, evaluate on any machine)."""
    code = (
        "import sys; sys.modules['ray'] = None\n"
        "from training.arena.evaluate import evaluate\n"
        f"r = evaluate('village', 2, ['rllib:{runs['village']}', 'random'], 2)\n"
        "assert r['games'] == 2 and 'torch' not in sys.modules, sorted(sys.modules)\n"
    )
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    subprocess.run([sys.executable, "-c", code], check=True, env=env, cwd=ROOT, timeout=300)


# -- CLI -----------------------------------------------------------------------------------------
@pytest.mark.parametrize(
    "argv, why",
    [
        (["--game", "chess"], "argument --game: invalid choice: 'chess' (choose from"),
        (["--players", "7"], "players must be one of (2, 3, 4), got 7"),
        (["--game", "troyes", "--players", "1"], "players must be one of"),
        (["--reward", "points"], "argument --reward: invalid choice: 'points' (choose from"),
        (["--env-runners", "-1"], "--env-runners must be >= 0, got -1"),
        (["--iterations", "0"], "--iterations must be >= 1, got 0"),
        (["--envs-per-runner", "0"], "--envs-per-runner must be >= 1, got 0"),
        (["--net-arch", "wide"], "--net-arch must look like 128,128"),
        (["--minibatch", "9000"], "must not exceed --train-batch"),
        (["--eval-every", "1", "--eval-games", "5"], "multiple of --players (2)"),
    ],
)
def test_cli_errors(argv, why, capsys):
    with pytest.raises(SystemExit) as e:
        rt.main(argv)
    assert e.value.code == 2
    err = capsys.readouterr().err
    assert why in err, err
    if "--game" in why:
        assert "'village'" in err and "'troyes'" in err


def test_an_existing_run_is_not_overwritten(runs, capsys):
    with pytest.raises(SystemExit):
        rt.main(["--out", str(runs["village"])])
    assert "already holds a run; pass another --out" in capsys.readouterr().err


def test_missing_extra_is_named(monkeypatch, capsys):
    monkeypatch.setitem(sys.modules, "ray", None)
    with pytest.raises(rt.RayNotInstalledError, match=r'pip install -e "\.\[ray\]"'):
        rt.import_ray()
    with pytest.raises(SystemExit):
        rt.main(["--iterations", "1"])
    assert 'needs the optional extra: pip install -e ".[ray]"' in capsys.readouterr().err


def test_checkpoint_dir_resolution(runs):
    run = runs["troyes"]
    assert checkpoint_dir(run) == run / "final"
    assert checkpoint_dir(run / "final" / SIDECAR) == run / "final"
    assert checkpoint_dir(run / "final" / RAY_DIR) == run / "final"
