"""Training smoke (tiny MaskablePPO run), resume, checkpoint sidecars and refusals."""

import dataclasses
import json
import shutil
import tempfile
from pathlib import Path

import numpy as np
import pytest
from training_helpers import GAMES

import training.arena.evaluate as ev
import training.learn.train as tr
from core.registry import game_names, get_game
from training.agents.checkpoint import CheckpointError, load_actor, load_checkpoint, read_sidecar
from training.agents.policy import PolicyAgent, mlp_logits
from training.agents.registry import make_agent
from training.arena.evaluate import play_game

pytestmark = pytest.mark.slow  # MaskablePPO training runs

TINY = [
    "--timesteps",
    "256",
    "--n-envs",
    "2",
    "--n-steps",
    "64",
    "--batch-size",
    "64",
    "--n-epochs",
    "1",
    "--net-arch",
    "32",
    "--snapshot-every",
    "128",
    "--checkpoint-every",
    "128",
    "--opponents",
    "random:1,self:1",
    "--no-progress",
    "--device",
    "cpu",
]


@pytest.fixture(scope="module")
def run_dir(tmp_path_factory):
    out = tmp_path_factory.mktemp("run") / "tiny"
    assert tr.main(TINY + ["--out", str(out), "--seed", "3"]) == 0
    return out


def test_tiny_run_writes_everything(run_dir):
    for name in (
        "config.json",
        "state.json",
        "summary.json",
        "progress.csv",
        "final.zip",
        "final.policy.npz",
        "final.json",
    ):
        assert (run_dir / name).exists(), name
    assert list((run_dir / "tb").rglob("events.out.tfevents*"))
    assert len(list((run_dir / "checkpoints").glob("*.zip"))) >= 2
    assert len(list((run_dir / "pool").glob("*.policy.npz"))) >= 2
    side = read_sidecar(run_dir / "final")
    g = get_game("village")
    assert side["game"] == "village" and side["players"] == 2
    assert side["num_actions"] == g.NUM_ACTIONS and side["obs_size"] == g.OBS_SIZE
    assert side["rules_data_hash"] == g.RULES_DATA_HASH
    assert side["layout_version"] == g.LAYOUT.version
    assert side["actions_version"] == g.ACTIONS.version
    assert side["num_timesteps"] >= 256 and side["library_version"]
    summary = json.loads((run_dir / "summary.json").read_text())
    assert summary["env_steps_per_s"] > 0 and summary["rules_data_hash"] == g.RULES_DATA_HASH


def test_checkpoint_loads_and_plays_a_full_game(run_dir):
    g = get_game("village")
    model, _meta = load_checkpoint(run_dir / "final.zip", g, 2)
    s = g.new_game(2, 4)
    other = make_agent("random", "village", 2, seed=1)
    while not g.is_terminal(s):
        if g.current_player(s) == 0:
            obs = g.observe(s, 0)
            a, _ = model.predict(obs, action_masks=g.legal_mask(s), deterministic=True)
            s = g.step(s, int(a))
        else:
            s = g.step(s, other.act(s))
    assert g.is_terminal(s)
    # the numpy actor (what evaluate uses) matches the torch policy exactly enough
    import torch

    arrays, _ = load_actor(run_dir / "final", g, 2)
    obs = g.observe(g.new_game(2, 9), 0)
    with torch.no_grad():
        t = model.policy.obs_to_tensor(obs)[0]
        feats = model.policy.extract_features(t)
        lat = model.policy.mlp_extractor.forward_actor(feats)
        want = model.policy.action_net(lat).numpy()[0]
    assert np.allclose(mlp_logits(arrays, obs), want, atol=1e-4)
    # and as an agent, through the run folder, in a full game against a bot
    agent = make_agent(str(run_dir), "village", 2, seed=0)
    assert isinstance(agent, PolicyAgent)
    assert g.is_terminal(play_game(g, [agent, other], 5))


def test_resume_continues_the_run(run_dir, tmp_path):
    copy = tmp_path / "copy"
    shutil.copytree(run_dir, copy)
    assert tr.main(["--resume", str(copy), "--timesteps", "512", "--no-progress"]) == 0
    assert read_sidecar(copy / "final")["num_timesteps"] >= 512
    with pytest.raises(SystemExit):
        tr.main(["--resume", str(copy), "--timesteps", "1024", "--players", "3"])
    with pytest.raises(SystemExit):  # not beyond what is trained
        tr.main(["--resume", str(copy), "--timesteps", "100", "--no-progress"])


@pytest.mark.parametrize("game", GAMES)
def test_tiny_run_per_game_loads_plays_and_resumes(game, tmp_path):
    """The cheap version, for every registered game, of the Village run above: a 128-step run
    writes a checkpoint of that game, it plays a full game as an agent, and the run resumes."""
    g = get_game(game)
    players = min(g.PLAYER_COUNTS)
    out = tmp_path / game
    argv = [a for a in TINY]
    argv[argv.index("--timesteps") + 1] = "128"
    argv[argv.index("--snapshot-every") + 1] = "64"
    argv[argv.index("--checkpoint-every") + 1] = "64"
    argv += ["--game", game, "--players", str(players), "--seed", "1", "--no-tensorboard"]
    assert tr.main(argv + ["--out", str(out)]) == 0
    side = read_sidecar(out / "final")
    assert side["game"] == game and side["players"] == players
    assert side["num_actions"] == g.NUM_ACTIONS and side["obs_size"] == g.OBS_SIZE
    assert side["rules_data_hash"] == g.RULES_DATA_HASH
    assert side["num_timesteps"] >= 128
    agent = make_agent(str(out), game, players, seed=0)
    assert isinstance(agent, PolicyAgent)
    others = [make_agent("random", game, players, seed=k) for k in range(1, players)]
    assert g.is_terminal(play_game(g, [agent, *others], 5))
    assert tr.main(["--resume", str(out), "--timesteps", "256", "--no-progress"]) == 0
    assert read_sidecar(out / "final")["num_timesteps"] >= 256
    with pytest.raises(SystemExit):  # not beyond what is trained
        tr.main(["--resume", str(out), "--timesteps", "100", "--no-progress"])


def _copy_ckpt(run_dir, tmp_path):
    for suf in (".zip", ".policy.npz", ".json"):
        shutil.copy(run_dir / f"final{suf}", tmp_path / f"c{suf}")
    return tmp_path / "c"


def _edit_sidecar(path, **changes):
    side = path.with_suffix(".json")
    meta = json.loads(side.read_text())
    meta.update(changes)
    side.write_text(json.dumps(meta))


@pytest.fixture
def no_unpickle(monkeypatch):
    from sb3_contrib import MaskablePPO

    def boom(*a, **k):
        raise AssertionError("MaskablePPO.load reached: the sidecar check came too late")

    monkeypatch.setattr(MaskablePPO, "load", boom)


@pytest.mark.parametrize(
    "changes, words",
    [
        ({"rules_data_hash": "0123456789abcdef"}, ["rules_data_hash", "0123456789abcdef"]),
        ({"obs_size": 5}, ["obs_size"]),
        ({"num_actions": 7, "layout_version": 99}, ["num_actions", "layout_version"]),
        ({"actions_version": 0}, ["actions_version"]),
        ({"game": "troyes"}, ["troyes"]),
        ({"library_version": "0.0.0-other"}, ["library_version", "0.0.0-other"]),
    ],
)
def test_mismatched_checkpoint_is_refused_before_unpickling(
    run_dir, tmp_path, no_unpickle, changes, words
):
    c = _copy_ckpt(run_dir, tmp_path)
    _edit_sidecar(c, **changes)
    with pytest.raises(CheckpointError) as e:
        load_checkpoint(c, get_game("village"), 2)
    for w in words:
        assert w in str(e.value)
    with pytest.raises((CheckpointError, ValueError)):
        make_agent(str(c), "village", 2)


@pytest.fixture(scope="module")
def troyes_run(tmp_path_factory):
    out = tmp_path_factory.mktemp("run") / "troyes"
    argv = TINY + ["--out", str(out), "--seed", "5", "--game", "troyes"]
    argv[argv.index("random:1,self:1")] = "random:1,heuristic:1,self:1"
    assert tr.main(argv) == 0
    return out


def test_tiny_troyes_run_against_its_bots(troyes_run):
    """Troyes trains like Village (the heuristic in the pool), and its checkpoint plays Troyes."""
    out = troyes_run
    g = get_game("troyes")
    side = read_sidecar(out / "final")
    assert side["game"] == "troyes" and side["players"] == 2
    assert side["num_actions"] == g.NUM_ACTIONS and side["obs_size"] == g.OBS_SIZE
    assert side["rules_data_hash"] == g.RULES_DATA_HASH
    agent = make_agent(str(out), "troyes", 2, seed=0)
    s = play_game(g, [agent, make_agent("heuristic", "troyes", 2, seed=1)], 6)
    assert g.is_terminal(s)
    with pytest.raises(CheckpointError, match="troyes"):
        load_checkpoint(out / "final", get_game("village"), 2)


def test_village_checkpoint_is_refused_for_troyes(run_dir, no_unpickle):
    with pytest.raises(CheckpointError, match="village"):
        load_checkpoint(run_dir / "final", get_game("troyes"), 2)


def test_evaluate_takes_the_game_from_the_checkpoint(troyes_run, tmp_path, capsys):
    """No --game and a Troyes checkpoint: Troyes is played."""
    out = tmp_path / "r.json"
    argv = ["--agents", str(troyes_run), "random", "--games", "2", "--json", str(out)]
    assert ev.main(argv + ["--no-progress"]) == 0
    assert json.loads(out.read_text())["game"] == "troyes"
    assert ev.evaluate(None, 2, ["random", str(troyes_run)], 2)["game"] == "troyes"
    assert ev.evaluate(None, 2, ["random", "heuristic"], 2)["game"] == "village"  # no checkpoint


def test_evaluate_refuses_a_checkpoint_of_another_game(run_dir, troyes_run, capsys):
    with pytest.raises(SystemExit):
        ev.main(["--game", "village", "--agents", str(troyes_run), "random", "--games", "2"])
    err = capsys.readouterr().err.strip().splitlines()[-1]
    assert f"--game village, but checkpoint {troyes_run} is a troyes policy" in err
    assert "pass --game troyes or leave --game out" in err
    with pytest.raises(SystemExit):
        ev.main(["--agents", str(run_dir), str(troyes_run), "--games", "2"])
    err = capsys.readouterr().err.strip().splitlines()[-1]
    assert "policies of different games" in err
    assert f"{run_dir} (village)" in err and f"{troyes_run} (troyes)" in err


@pytest.mark.parametrize("name", game_names())
def test_observation_and_action_sizes_do_not_depend_on_the_player_count(name):
    """Why a policy trained at one count may play at another (checkpoint.check_sidecar)."""
    g = get_game(name)
    for n in g.PLAYER_COUNTS:
        s = g.new_game(n, 1)
        assert g.observe(s, 0).shape == (g.OBS_SIZE,), (name, n)
        assert g.legal_mask(s).shape == (g.NUM_ACTIONS,), (name, n)


def test_other_player_count_is_allowed_a_bad_one_refused(run_dir):
    """A 2-player policy acts at 3 and 4 players."""
    g = get_game("village")
    model, meta = load_checkpoint(run_dir / "final", g, 4)
    assert meta["players"] == 2
    s = g.new_game(4, 2)
    a, _ = model.predict(g.observe(s, 0), action_masks=g.legal_mask(s), deterministic=True)
    assert g.legal_mask(s)[int(a)]
    agent = make_agent(str(run_dir), "village", 3, seed=0)
    others = [make_agent("random", "village", 3, seed=k) for k in (1, 2)]
    assert g.is_terminal(play_game(g, [agent, *others], 7))
    with pytest.raises(ValueError, match=r"village: players must be one of \(2, 3, 4\), got 5"):
        load_actor(run_dir / "final", g, 5)


def test_evaluate_at_another_player_count_notes_it_once(run_dir, capsys):
    ckpt = str(run_dir / "final")
    res = ev.evaluate(None, 3, [ckpt, "random", ckpt], games=3)
    assert [a["trained_players"] for a in res["agents"]] == [2, None, 2]
    notes = [x for x in capsys.readouterr().err.splitlines() if x.startswith("note:")]
    assert notes == [
        f"note: {ckpt} was trained at 2 players and plays at 3 here (observation and action "
        "sizes do not depend on the player count)"
    ]
    res = ev.evaluate("village", 2, [ckpt, "random"], games=2)
    assert [a["trained_players"] for a in res["agents"]] == [2, None]
    assert "note:" not in capsys.readouterr().err


def test_init_from_a_2p_checkpoint_fine_tunes_at_3p(run_dir, tmp_path, capsys):
    """docs/training.md: a run trains at one count; --init-from carries a policy to another."""
    out = tmp_path / "ft3"
    argv = [a for a in TINY]
    argv[argv.index("--timesteps") + 1] = "384"  # counts on from the checkpoint's 256+
    argv += ["--init-from", str(run_dir / "final"), "--players", "3", "--out", str(out)]
    assert tr.main(argv) == 0
    assert "was trained at 2 players; training on at 3" in capsys.readouterr().err
    side = read_sidecar(out / "final")
    assert side["players"] == 3 and side["num_timesteps"] >= 384


def test_a_fine_tune_under_a_rules_variant(run_dir, tmp_path, capsys):
    """--rules FILE --init-from CKPT: the run trains under the variant (its checkpoints carry the
    variant's hash and its config the file); a start from that checkpoint without --rules is
    refused, naming rules=any; subprocess envs cannot take a variant and say so."""
    from core.rules_file import rules_file_data

    name = get_game(read_sidecar(run_dir / "final")["game"]).NAME
    variant = tmp_path / "variant.json"
    if name != "village":  # a variant file needs the game's rules keys
        pytest.skip("the tiny run's game has no variant file here")
    variant.write_text(json.dumps({"game": name, "values": {"STARTING_COINS": 3}}))
    _ns, vhash = rules_file_data(variant, name)
    out = tmp_path / "variant-run"
    argv = [a for a in TINY]
    argv[argv.index("--timesteps") + 1] = "384"
    argv += ["--init-from", str(run_dir / "final"), "--rules", str(variant), "--out", str(out)]
    assert tr.main(argv) == 0
    side = read_sidecar(out / "final")
    assert side["rules_data_hash"] == vhash != get_game(name).RULES_DATA_HASH
    assert side["config"]["rules"] == str(variant)
    # both hashes and the parent's digest, round-tripped through the sidecar
    parent = read_sidecar(run_dir / "final")
    assert side["rules_file"]["base_rules_data_hash"] == get_game(name).RULES_DATA_HASH
    assert side["rules_file"]["values"] == {"STARTING_COINS": 3}
    assert side["init"]["sha256"] == parent["files"][".policy.npz"]
    assert side["init"]["rules_data_hash"] == parent["rules_data_hash"]
    again = [a for a in TINY] + ["--init-from", str(out / "final"), "--out", str(tmp_path / "b")]
    again[again.index("--timesteps") + 1] = "512"
    with pytest.raises(SystemExit):
        tr.main(again)
    assert "rules=any" in capsys.readouterr().err
    with pytest.raises(SystemExit):
        tr.main([*TINY, "--vec", "subproc", "--rules", str(variant), "--out", str(tmp_path / "c")])
    assert "--vec batch or dummy" in capsys.readouterr().err
    assert not (tmp_path / "b").exists() and not (tmp_path / "c").exists()


def test_a_wall_clock_budget_stops_a_fine_tune_and_says_so(run_dir, tmp_path, capsys):
    """--minutes M: the run stops after M minutes of wall-clock even before --timesteps, writes
    its final checkpoint, and the summary says it stopped on the clock (machine-dependent)."""
    out = tmp_path / "clock"
    argv = [a for a in TINY]
    argv[argv.index("--timesteps") + 1] = "1000000"
    argv += ["--init-from", str(run_dir / "final"), "--minutes", "0.002", "--out", str(out)]
    assert tr.main(argv) == 0
    summary = json.loads((out / "summary.json").read_text())
    assert summary["stopped_by"] == "minutes" and "depends on the machine" in summary["notice"]
    assert summary["timesteps"] < 1_000_000 and (out / "final.json").exists()
    with pytest.raises(SystemExit):
        tr.main([*TINY, "--minutes", "0", "--out", str(tmp_path / "zero")])
    assert "--minutes must be in (0, 10080]" in capsys.readouterr().err
    assert not (tmp_path / "zero").exists()


def test_init_from_trains_on_with_the_runs_own_settings(run_dir, tmp_path):
    """--init-from takes the checkpoint's weights and step count, not its PPO settings."""
    out = tmp_path / "warm"
    argv = [a for a in TINY]
    argv[argv.index("--timesteps") + 1] = "384"
    argv[argv.index("--n-epochs") + 1] = "2"
    argv[argv.index("--batch-size") + 1] = "32"
    assert tr.main(argv + ["--init-from", str(run_dir / "final"), "--out", str(out)]) == 0
    model, _meta = load_checkpoint(out / "final")
    assert (model.n_epochs, model.batch_size) == (2, 32)  # the checkpoint's are 1 and 64
    start, _ = load_checkpoint(run_dir / "final")
    assert model.num_timesteps >= 384 > start.num_timesteps


def test_init_from_with_other_hidden_layers_is_refused_up_front(run_dir, tmp_path, capsys):
    out = tmp_path / "other"
    argv = [a for a in TINY]
    argv[argv.index("--net-arch") + 1] = "16,16"
    with pytest.raises(SystemExit):
        tr.main(argv + ["--init-from", str(run_dir / "final"), "--out", str(out)])
    err = capsys.readouterr().err.strip().splitlines()[-1]
    assert "has hidden layers 32, the run 16,16: pass --net-arch 32" in err
    assert not out.exists()


def test_corrupt_and_foreign_checkpoints(run_dir, tmp_path, no_unpickle):
    c = _copy_ckpt(run_dir, tmp_path)
    c.with_suffix(".json").write_text("{not json")
    with pytest.raises(CheckpointError, match="corrupt sidecar"):
        load_checkpoint(c)
    c.with_suffix(".json").write_text(json.dumps({"hello": 1}))
    with pytest.raises(CheckpointError, match="foreign"):
        load_checkpoint(c)
    c = _copy_ckpt(run_dir, tmp_path)
    with open(f"{c}.zip", "ab") as f:
        f.write(b"tampered")
    with pytest.raises(CheckpointError, match="SHA-256"):
        load_checkpoint(c)
    lone = tmp_path / "lone.zip"
    shutil.copy(run_dir / "final.zip", lone)
    with pytest.raises(CheckpointError, match="no sidecar"):
        load_checkpoint(lone)


def _flip_byte(path: Path) -> None:
    data = bytearray(path.read_bytes())
    data[len(data) // 2] ^= 0xFF
    path.write_bytes(bytes(data))


def _evaluate_cli(*agents: str) -> int:
    return ev.main(["--agents", *agents, "--games", "2", "--no-progress"])


def test_renamed_byte_identical_copy_loads_and_plays(run_dir, tmp_path, capsys):
    """The sidecar's hashes are keyed by part, not file name: a renamed copy still loads."""
    for suf in (".zip", ".policy.npz", ".json"):
        shutil.copy(run_dir / f"final{suf}", tmp_path / f"clean{suf}")
    clean = tmp_path / "clean"
    g = get_game("village")
    _model, meta = load_checkpoint(clean, g, 2)
    assert sorted(meta["files"]) == [".policy.npz", ".zip"]
    agent = make_agent(str(clean), "village", 2, seed=0)
    assert g.is_terminal(play_game(g, [agent, make_agent("random", "village", 2, seed=1)], 5))
    assert _evaluate_cli(f"{clean}.zip", "random") == 0
    assert "clean.zip" in capsys.readouterr().out


def test_sidecar_keyed_by_file_name_still_loads_and_is_checked(run_dir, tmp_path, no_unpickle):
    """Sidecars written before the change keyed the hashes by file name ('final.zip')."""
    c = _copy_ckpt(run_dir, tmp_path)  # c.*, a sidecar naming final.*: renamed too
    hashes = json.loads(c.with_suffix(".json").read_text())["files"]
    _edit_sidecar(c, files={f"final{part}": h for part, h in hashes.items()})
    arrays, _meta = load_actor(c, get_game("village"), 2)
    assert "W0" in arrays
    _flip_byte(Path(f"{c}.zip"))
    with pytest.raises(CheckpointError, match=r"c\.zip: contents do not match"):
        load_actor(c)


@pytest.mark.parametrize("damage", ["truncate", "flip"])
def test_corrupt_zip_is_refused_by_evaluate(run_dir, tmp_path, capsys, damage):
    """evaluate runs the .policy.npz, but a corrupt .zip beside it is refused, by name."""
    c = _copy_ckpt(run_dir, tmp_path)
    z = Path(f"{c}.zip")
    if damage == "truncate":
        z.write_bytes(z.read_bytes()[: z.stat().st_size // 2])
    else:
        _flip_byte(z)
    with pytest.raises(SystemExit):
        _evaluate_cli(str(c), "random")
    assert f"{z}: contents do not match the sidecar's SHA-256" in capsys.readouterr().err
    with pytest.raises(CheckpointError, match=r"c\.zip: contents do not match"):
        make_agent(str(c), "village", 2)


def test_corrupt_policy_npz_is_refused(run_dir, tmp_path, no_unpickle):
    c = _copy_ckpt(run_dir, tmp_path)
    _flip_byte(Path(f"{c}.policy.npz"))
    for load in (load_actor, load_checkpoint, lambda p: make_agent(str(p), "village", 2)):
        with pytest.raises(CheckpointError, match=r"c\.policy\.npz: contents do not match"):
            load(c)


def test_zip_corrupted_after_a_clean_load_is_refused(run_dir, tmp_path):
    """make_agent caches the actor; a change to any file of the checkpoint is checked again."""
    c = _copy_ckpt(run_dir, tmp_path)
    make_agent(str(c), "village", 2)
    _flip_byte(Path(f"{c}.zip"))
    with pytest.raises(CheckpointError, match=r"c\.zip: contents do not match"):
        make_agent(str(c), "village", 2)


def test_actor_cache_does_not_skip_the_game_check(run_dir):
    make_agent(str(run_dir), "village", 2)  # cached
    with pytest.raises(CheckpointError, match="game: checkpoint has 'village'"):
        make_agent(str(run_dir), "troyes", 2)


def test_parts_are_checked_when_present_and_required_when_loaded(run_dir, tmp_path, no_unpickle):
    c = _copy_ckpt(run_dir, tmp_path)
    Path(f"{c}.zip").unlink()
    assert "W0" in load_actor(c)[0]  # the actor needs no .zip (pool snapshots have none)
    with pytest.raises(CheckpointError, match=r"missing c\.zip"):
        load_checkpoint(c)


@pytest.mark.parametrize(
    "files, words",
    [
        (None, "'files' must map .zip, .policy.npz to SHA-256 digests, got None"),
        ({".policy.npz": "0" * 64, "notes.txt": "0"}, "lists 'notes.txt', not a checkpoint part"),
        ({".zip": "0" * 64}, "lists no SHA-256 for c.policy.npz"),
        ({".zip": "0" * 64, "final.zip": "1" * 64}, "two different SHA-256 for .zip"),
    ],
)
def test_bad_files_map_in_the_sidecar_is_refused(run_dir, tmp_path, files, words):
    c = _copy_ckpt(run_dir, tmp_path)
    _edit_sidecar(c, files=files)
    with pytest.raises(CheckpointError) as e:
        load_actor(c)
    assert words in str(e.value)


def test_foreign_sidecar_of_a_renamed_copy_is_refused_by_evaluate(run_dir, tmp_path, capsys):
    c = _copy_ckpt(run_dir, tmp_path)
    c.with_suffix(".json").write_text(json.dumps({"files": {".zip": "0"}}))
    with pytest.raises(SystemExit):
        _evaluate_cli(str(c), "random")
    assert "not a village-troyes-rl/checkpoint sidecar (foreign file)" in capsys.readouterr().err


def test_bad_cli_input_gives_clear_errors(tmp_path, capsys):
    for argv, words in [
        (["--players", "7"], "players must be one of"),
        (["--timesteps", "0"], "--timesteps must be positive"),
        (["--game", "troyes", "--players", "5"], "troyes: players must be one of"),
        (["--game", "chess"], "invalid choice: 'chess'"),
        (["--game", "troyes", "--opponents", "random:1,heuristic:1,ghost:1"], "'ghost' is not"),
        (["--opponents", "random:1,ghost:1"], "'ghost' is not 'self', a bot"),
        (["--net-arch", "a,b"], "--net-arch"),
        (["--resume", str(tmp_path)], "not a training run folder"),
    ]:
        with pytest.raises(SystemExit):
            tr.main(argv + ["--out", str(tmp_path / "x"), "--no-progress"])
        assert words in capsys.readouterr().err


def test_stochastic_policy_agent_samples_legal_actions_and_replays(run_dir):
    g = get_game("village")
    arrays, _ = load_actor(run_dir / "final", g, 2)

    def trace(seed):
        agent = PolicyAgent(g, arrays, seed=seed, deterministic=False)
        s, acts = g.new_game(2, 3), []
        for _ in range(100):
            a = agent.act(s)
            assert g.legal_mask(s)[a]
            acts.append(a)
            s = g.step(s, a)
        return acts

    assert trace(1) == trace(1)
    assert trace(1) != trace(2)


@pytest.mark.parametrize("vec", ["subproc", "batch"])
def test_tiny_run_with_other_vec_envs(tmp_path, vec, monkeypatch):
    out = tmp_path / vec
    argv = [a for a in TINY]
    argv[argv.index("--timesteps") + 1] = "128"
    temp = tmp_path / "systemp"  # where SB3 puts a default log folder
    temp.mkdir()
    if vec == "batch":  # (a subproc VecEnv's forkserver needs a short socket path there)
        monkeypatch.setattr(tempfile, "tempdir", str(temp))
    assert tr.main(argv + ["--vec", vec, "--out", str(out), "--no-tensorboard"]) == 0
    assert not list(temp.glob("SB3-*"))  # no empty SB3 log folder left behind
    assert read_sidecar(out / "final")["num_timesteps"] >= 128
    assert (out / "progress.csv").read_text().startswith("timesteps,")


def test_tournament_takes_the_game_from_a_checkpoint_and_keys_on_its_contents(troyes_run, tmp_path):
    """A checkpoint entrant: the game comes from its sidecar, and its fingerprint is the SHA-256
    of its weights (a retrained checkpoint at the same path is another entrant)."""
    import shutil

    from training.agents.registry import agent_fingerprint
    from training.arena import tournament as tn
    from training.arena.store import GameStore

    ckpt = tmp_path / "ckpt"
    shutil.copytree(troyes_run, ckpt)
    db = tmp_path / "t.sqlite"
    argv = ["--players", "2", "--agents", str(ckpt), "random", "--games", "2", "--db", str(db)]
    assert tn.main([*argv, "--no-progress", "--report", str(tmp_path / "rep")]) == 0
    assert GameStore.game_of(db) == "troyes"
    board = (tmp_path / "rep" / "leaderboard.md").read_text()
    assert "| ckpt |" in board and str(tmp_path) not in board  # the folder's name, not its path
    with GameStore(db, "troyes") as st:
        assert str(ckpt) in [spec for spec, _fp in st.entrants().values()]  # the store keeps it
    fp = agent_fingerprint(str(ckpt), "troyes", 2)
    assert fp.startswith("checkpoint sha256:")
    # the same path with other weights (a later checkpoint of the run): another entrant
    later = sorted((ckpt / "checkpoints").glob("*.policy.npz"))[0]
    for suffix in (".zip", ".policy.npz", ".json"):
        shutil.copy(str(later).replace(".policy.npz", suffix), ckpt / f"final{suffix}")
    assert agent_fingerprint(str(ckpt), "troyes", 2) != fp
    r = tn.run_tournament("troyes", 2, [str(ckpt), "random"], 2, db, progress=False)
    assert r["played_now"] == 2
    with GameStore(db, "troyes") as st:
        assert len([e for e in st.entrants().values() if e[0] == str(ckpt)]) == 2


@pytest.mark.parametrize("game", game_names())
def test_the_default_run_is_per_game_and_explicit_settings_win(game, tmp_path):
    """Each game trains its own default run (its spec's default_run over the generic one;
    docs/training.md "Default settings"): TrainConfig and the CLI take it unless told."""
    run = {**tr.FALLBACK_RUN, **get_game(game).GAME.spec.default_run}
    assert tr.default_run(game)["timesteps"] == run["timesteps"]
    if "opponents" in get_game(game).GAME.spec.default_run or "heuristic" in tr.bot_names(game):
        assert tr.default_run(game)["opponents"] == run["opponents"]
    run = tr.default_run(game)
    # at the game's fewest players (TrainConfig's default, 2, is no count of a game without 2)
    cfg = tr.TrainConfig(game=game, players=min(get_game(game).PLAYER_COUNTS))
    assert {k: getattr(cfg, k) for k in tr.RUN_SETTINGS} == {k: run[k] for k in tr.RUN_SETTINGS}
    assert tr.TrainConfig(game=game, n_epochs=3).n_epochs == 3
    cfg.validate()
    parsed, resume = tr.config_from_args(
        tr.build_parser().parse_args(["--game", game, "--out", str(tmp_path / "d")])
    )
    assert not resume and (parsed.timesteps, parsed.opponents) == (
        run["timesteps"],
        run["opponents"],
    )
    given, _ = tr.config_from_args(
        tr.build_parser().parse_args(
            ["--game", game, "--timesteps", "1234", "--opponents", "random:1", "--out", "x"]
        )
    )
    assert (given.timesteps, given.opponents) == (1234, "random:1")
    assert given.n_epochs == run["n_epochs"]
    assert tr.TrainConfig(game=game, timesteps=77).opponents == run["opponents"]
    # every default pool names only bots of that game (or self) and is accepted
    assert {s for s, _w in tr.parse_pool(run["opponents"])} <= set(tr.bot_names(game)) | {tr.SELF}


def test_a_game_without_its_own_run_or_heuristic_gets_the_generic_default(monkeypatch):
    """The generic default run works for any game: no spec default_run -> FALLBACK_RUN, and a
    game with no `heuristic` bot gets a pool of only random and self."""
    name = game_names()[0]
    game = get_game(name)
    monkeypatch.setattr(game.GAME, "spec", dataclasses.replace(game.GAME.spec, default_run={}))
    assert tr.default_run(name) == tr.FALLBACK_RUN
    monkeypatch.setattr(tr, "bot_names", lambda g: ["random"])
    run = tr.default_run(name)
    assert run["opponents"] == tr.FALLBACK_RUN_NO_HEURISTIC == "random:0.5,self:0.5"
    cfg = tr.TrainConfig(game=name)
    assert (cfg.timesteps, cfg.opponents) == (tr.FALLBACK_RUN["timesteps"], "random:0.5,self:0.5")
    cfg.validate()


def test_timesteps_rounded_up_to_whole_rollouts_says_so(tmp_path, capsys):
    """--timesteps 200 with rollouts of 2 x 64 = 128 steps trains 256: one line says so, and the
    summary keeps both the request and what was trained."""
    argv = list(TINY)
    argv[argv.index("--timesteps") + 1] = "200"
    assert tr.main(argv + ["--out", str(tmp_path / "r"), "--seed", "1"]) == 0
    err = capsys.readouterr().err
    assert (
        "note: --timesteps 200: training collects whole rollouts of 2 envs x 64 steps = 128 "
        "steps, so this run trains 256 steps, to 256 in all"
    ) in err
    summary = json.loads((tmp_path / "r" / "summary.json").read_text())
    assert (summary["timesteps_requested"], summary["timesteps"]) == (200, 256)


def test_the_time_left_is_estimated_only_after_a_first_update(tmp_path, capsys, monkeypatch):
    """In a log, the first progress line (one rollout, no PPO update yet) gives no time left,
    which its rate would underestimate; the lines after it do."""
    monkeypatch.setattr(tr, "EVERY_S", 0.0)
    argv = [a for a in TINY if a != "--no-progress"]
    assert tr.main(argv + ["--out", str(tmp_path / "r"), "--seed", "2"]) == 0
    lines = [x for x in capsys.readouterr().err.splitlines() if x.startswith("train: ")]
    assert "(time left: after the first update)" in lines[0] and "s left" not in lines[0]
    assert all("s left" in x for x in lines[1:]) and len(lines) >= 2
