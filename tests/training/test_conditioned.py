"""Conditioned networks (training.alphazero.net with rules features; training.agents.az_agent
plays them; training.alphazero.conditioned trains them): the bias fold equals the whole forward,
a network plays every count and every variant of its space, and the refusals."""

from __future__ import annotations

import json
import shutil
from dataclasses import replace
from pathlib import Path

import numpy as np
import pytest
import torch
from game_helpers import fewest

from core.mlp import actor_logits, fold_features, pack_actors
from core.registry import game_names, get_game
from core.variant_space import space_of
from training.agents import az_agent
from training.agents.checkpoint import CheckpointError
from training.agents.policy import mlp_logits
from training.agents.registry import make_agent
from training.alphazero import conditioned as cond
from training.alphazero.loop import AZConfig, ReplayBuffer
from training.alphazero.net import for_game
from training.alphazero.selfplay import Examples

ROOT = Path(__file__).resolve().parents[2]
WITH_SPACE = [g for g in game_names() if space_of(get_game(g)).axes]
# the fold groups the first layer's sums otherwise than the whole forward: equal within this
FOLD_RTOL, FOLD_ATOL = 1e-5, 1e-5


def _positions(g, n: int, players: int, seed: int) -> list[np.ndarray]:
    rng = np.random.default_rng(seed)
    s = g.new_game(players, seed=seed)
    out = []
    while len(out) < n and not g.is_terminal(s):
        if g.legal_mask(s).sum() > 1:
            out.append(s.copy())
        s = g.step(s, int(rng.choice(np.flatnonzero(g.legal_mask(s)))))
    return out


def _net(g, hidden=(32, 16)):
    torch.manual_seed(0)
    net = for_game(g, hidden=hidden, features=space_of(g).n_features)
    with torch.no_grad():  # feature columns big enough that a fold left out would show
        net.trunk[0].weight[:, g.OBS_SIZE :] *= 50.0
    return net


def conditioned_network(folder: Path, g, hidden=(32, 16)) -> Path:
    """A conditioned network folder written as the trainer writes one (random weights), at the
    game's fewest players."""
    net = _net(g, hidden)
    space = space_of(g)
    extra = {"players": list(g.PLAYER_COUNTS), "variant_space": space.record(), "search": ""}
    n = fewest(g)
    return az_agent.write_network(folder, net.arrays(), g, n, net.settings(), "rank", extra=extra)


@pytest.mark.parametrize("game", WITH_SPACE)
def test_the_folded_bias_gives_the_whole_forward_and_its_decisions(game):
    g = get_game(game)
    space = space_of(g)
    net = _net(g)
    values = space.sample(np.random.default_rng(5), near=False)
    feat = space.features_of(values)
    folded = fold_features(net.arrays(), g.OBS_SIZE, feat)
    assert folded["W0"].shape == (32, g.OBS_SIZE)
    states = _positions(g, 30, min(g.PLAYER_COUNTS), seed=2)
    obs = np.stack([g.observe(s, g.current_player(s)) for s in states])
    with torch.no_grad():
        logits, vals = net(torch.from_numpy(obs), torch.from_numpy(np.tile(feat, (len(obs), 1))))
    whole = torch.cat([logits, vals], dim=1).numpy()
    np.testing.assert_allclose(mlp_logits(folded, obs), whole, rtol=FOLD_RTOL, atol=FOLD_ATOL)
    w, meta, widest = pack_actors([folded])  # what the search runs
    h = np.zeros((2, widest), dtype=np.float32)
    out = np.zeros(whole.shape[1], dtype=np.float32)
    blind = mlp_logits(fold_features(net.arrays(), g.OBS_SIZE, feat * 0), obs)
    assert np.abs(blind - whole).max() > 1e-2  # the features change the outputs
    for j, s in enumerate(states):
        actor_logits(w, meta, 0, np.ascontiguousarray(obs[j]), h, out)
        np.testing.assert_allclose(out, whole[j], rtol=1e-4, atol=1e-4)
        legal = np.flatnonzero(g.legal_mask(s))
        assert legal[np.argmax(out[legal])] == legal[np.argmax(whole[j][legal])]


@pytest.mark.parametrize("game", WITH_SPACE)
def test_a_conditioned_network_plays_every_count_and_variant_of_its_space(tmp_path, game):
    g = get_game(game)
    space = space_of(g)
    folder = conditioned_network(tmp_path / "net", g)
    arrays, meta = az_agent.load_network(folder, g, fewest(g))
    spec = f"az:{folder},sims=0"
    for n in g.PLAYER_COUNTS:
        make_agent(spec, game, n, 0)
    values = space.sample(np.random.default_rng(1), near=False)
    with g.GAME.using_rules_data(space.rules_data(values)):
        agent = make_agent(spec, game, max(g.PLAYER_COUNTS), 0)
        want = fold_features(arrays, g.OBS_SIZE, space.features_of(values))
        blind = make_agent(f"{spec},rules=any", game, fewest(g), 0)
        zero = fold_features(arrays, g.OBS_SIZE, np.zeros(space.n_features, np.float32))
    w, _meta, _wid = pack_actors([want])
    np.testing.assert_array_equal(agent.packed[0], w)
    np.testing.assert_array_equal(blind.packed[0], pack_actors([zero])[0])
    assert not np.array_equal(agent.packed[0], blind.packed[0])


def _outside_file(tmp_path: Path, game: str) -> tuple[Path, str]:
    """A valid rules file that changes one key the game's space does not vary."""
    space = space_of(get_game(game))
    rk = space.rules
    for key in rk.all_keys():
        if rk.node(key)[1].labels() or key.split(".")[0] not in space.left_out:
            continue
        old = rk.get(rk.default, key)
        if space.axis(key) is not None or not isinstance(old, int):
            continue
        try:
            rk.apply({key: old + 1})
        except ValueError:
            continue
        path = tmp_path / "outside.json"
        path.write_text(json.dumps({"game": game, "values": {key: old + 1}}))
        return path, key
    raise AssertionError(f"{game}: no key outside the space takes a change")


@pytest.mark.parametrize("game", WITH_SPACE)
def test_rules_outside_the_space_are_refused_and_nothing_is_written(tmp_path, game, capsys):
    from training.arena import evaluate

    g = get_game(game)
    folder = conditioned_network(tmp_path / "net", g)
    path, key = _outside_file(tmp_path, game)
    out = tmp_path / "eval.json"
    n = fewest(g)
    argv = ["--game", game, "--players", str(n), "--agents", f"az:{folder},sims=0",
            *["random"] * (n - 1), "--games", str(n), "--rules", str(path), "--json", str(out),
            "--no-progress"]  # fmt: skip
    with pytest.raises(SystemExit) as e:
        evaluate.main(argv)
    err = capsys.readouterr().err.strip().splitlines()
    assert (
        e.value.code == 2 and f"{key}=" in err[-1] and "fine-tune with --adapt or --init" in err[-1]
    )
    assert not out.exists()
    assert g.RULES_DATA_HASH == space_of(g).base_hash  # the rules in use put back


def test_a_network_of_another_space_or_another_game_is_refused(tmp_path):
    g = get_game("village")
    folder = conditioned_network(tmp_path / "net", g)
    side = json.loads((folder / "checkpoint.json").read_text())
    for change in ({"version": 99}, {"digest": "0" * 16}):
        other = tmp_path / f"other-{len(change)}-{next(iter(change))}"
        shutil.copytree(folder, other)
        doc = {**side, "variant_space": {**side["variant_space"], **change}}
        (other / "checkpoint.json").write_text(json.dumps(doc))
        with pytest.raises(CheckpointError, match="trained over village's variant space version"):
            make_agent(f"az:{other},sims=0", "village", 2, 0)
    troyes = conditioned_network(tmp_path / "troyes", get_game("troyes"))
    with pytest.raises(CheckpointError, match="game: checkpoint has 'troyes'"):
        make_agent(f"az:{troyes},sims=0", "village", 2, 0)


def test_an_unconditioned_run_refuses_the_conditioned_flags_and_a_conditioned_one_its_misuse():
    base = dict(game="village", out="x", hours=0.1)
    with pytest.raises(ValueError, match="add --conditioned"):
        AZConfig(**base, counts=(2, 3)).validate()
    with pytest.raises(ValueError, match="needs --counts"):
        AZConfig(**base, conditioned=True).validate()
    with pytest.raises(ValueError, match="plays no ladder"):
        AZConfig(**base, conditioned=True, counts=(2, 3)).validate()
    with pytest.raises(ValueError, match="players must be one of"):
        AZConfig(**base, conditioned=True, counts=(2, 5), eval_every=0).validate()
    cathedral = ROOT / "docs" / "rules_variants" / "village_mass_bonus_12.json"
    with pytest.raises(ValueError, match="--rules \\(one variant\\) is for an ordinary run"):
        AZConfig(
            **base, conditioned=True, counts=(2,), eval_every=0, rules=str(cathedral)
        ).validate()
    AZConfig(**base, conditioned=True, counts=(2, 3, 4), eval_every=0).validate()


def test_eval_games_need_not_divide_by_the_count_when_nothing_is_evaluated():
    # a fine-tune (--adapt) at 3 players keeps the default 40 evaluation games, unplayed
    AZConfig(game="troyes", out="x", players=3, hours=0.1, eval_every=0).validate()
    with pytest.raises(ValueError, match="--eval-games must be a multiple of --players \\(3\\)"):
        AZConfig(game="troyes", out="x", players=3, hours=0.1, eval_every=5).validate()


def test_the_groups_of_an_iteration_depend_on_the_seed_and_the_iteration_only():
    cfg = AZConfig(game="village", out="x", conditioned=True, counts=(2, 3, 4), eval_every=0)
    space = space_of(get_game("village"))
    a = [x.record() for x in cond.draw_groups(space, cfg, 3, 40)]
    assert a == [x.record() for x in cond.draw_groups(space, cfg, 3, 40)]
    assert a != [x.record() for x in cond.draw_groups(space, cfg, 4, 40)]
    assert {x["players"] for x in a} == {2, 3, 4}
    own = sum(not x["values"] for x in a)
    assert 2 <= own <= 20  # the own-rules share, 0.25 of 40 draws
    assert cond.n_groups(32, 4) == 8 and cond.n_groups(5, 4) == 2


def test_count_shares_weigh_the_counts_drawn_and_bad_shares_are_refused():
    base = dict(game="village", out="x", conditioned=True, counts=(2, 3, 4), eval_every=0)
    space = space_of(get_game("village"))
    cfg = AZConfig(**base, count_shares=(1.0, 0.0, 1.0))
    cfg.validate()
    counts = [x.players for x in cond.draw_groups(space, cfg, 3, 200)]
    assert set(counts) == {2, 4}  # a share of 0: never drawn
    cfg = AZConfig(**base, count_shares=(8.0, 1.0, 1.0))
    assert sum(x.players == 2 for x in cond.draw_groups(space, cfg, 3, 200)) > 120  # 0.8 of 200
    for bad in [(1.0, 1.0), (0.0, 0.0, 0.0), (1.0, -1.0, 1.0)]:
        with pytest.raises(ValueError, match="--count-shares needs one share >= 0 per count"):
            AZConfig(**base, count_shares=bad).validate()


def test_a_conditioned_buffer_keeps_each_example_s_features():
    g = get_game("village")
    buf = ReplayBuffer(5, g, 4, features=3)
    n = 7
    ex = Examples(
        np.arange(n)[:, None] * np.ones((n, g.OBS_SIZE), np.float32),
        np.ones((n, g.NUM_ACTIONS), bool), np.zeros((n, g.NUM_ACTIONS), np.float32),
        np.zeros((n, 4), np.float32), np.ones((n, 4), bool),
    )  # fmt: skip
    feat = np.arange(n)[:, None] * np.ones((n, 3), np.float32)
    buf.add(ex, feat)
    obs, _m, _p, _z, _zm, f = buf.sample(np.random.default_rng(0), 50)
    np.testing.assert_array_equal(obs[:, :3], f)  # each row's features travel with it
    assert set(f[:, 0]) == {2, 3, 4, 5, 6}  # the latest five
    with pytest.raises(ValueError, match="takes features with the examples"):
        buf.add(ex)


def test_distillation_examples_are_the_teacher_s_policy_and_values():
    g = get_game("village")
    teacher = cond.teachers_of(g, (2,))[2]
    job = cond.DistilJob("village", 2, {"MASS_MAJORITY_PRESTIGE": 7}, teacher, 5, [11])
    ex = job.run()
    assert len(ex) > 50 and g.RULES_DATA_HASH == space_of(g).base_hash
    out = mlp_logits(teacher, ex.obs[:5])
    for j in range(5):
        legal = ex.mask[j]
        np.testing.assert_allclose(ex.pi[j].sum(), 1.0, rtol=1e-5)
        assert (ex.pi[j][~legal] == 0).all()
        assert np.argmax(ex.pi[j]) == np.flatnonzero(legal)[np.argmax(out[j, :342][legal])]
        np.testing.assert_allclose(ex.z[j, :2], out[j, 342:344], atol=1e-5)
    assert ex.zmask[:, :2].all() and not ex.zmask[:, 2:].any()
    again = cond.DistilJob("village", 2, {"MASS_MAJORITY_PRESTIGE": 7}, teacher, 5, [11]).run()
    np.testing.assert_array_equal(again.obs, ex.obs)


@pytest.mark.slow
def test_a_conditioned_run_distils_trains_over_the_space_and_resumes(tmp_path):
    from training.alphazero.loop import main

    out = tmp_path / "run"
    argv = ["--game", "village", "--conditioned", "--counts", "2,4", "--games", "4",
            "--variant-games", "2", "--sims", "4", "--iterations", "1", "--workers", "1",
            "--eval-every", "0", "--distil-games", "1", "--distil-steps", "3", "--steps", "2",
            "--hidden", "16", "--out", str(out)]  # fmt: skip
    assert main(argv) == 0
    rows = json.loads((out / "progress.json").read_text())
    assert [r["iteration"] for r in rows] == [0, 1] and rows[0]["distil"] == {
        "2": "az-2p",
        "4": "az-4p",
    }
    assert len(rows[1]["groups"]) == 2 and {x["players"] for x in rows[1]["groups"]} <= {2, 4}
    side = json.loads((out / "final" / "checkpoint.json").read_text())
    assert (
        side["players"] == [2, 4]
        and side["variant_space"] == space_of(get_game("village")).record()
    )
    assert side["network"]["features"] == space_of(get_game("village")).n_features
    assert main([*argv[:-1], str(out), "--iterations", "2", "--resume"]) == 0
    rows = json.loads((out / "progress.json").read_text())
    assert [r["iteration"] for r in rows] == [0, 1, 2]
    make_agent(f"az:{out},sims=0", "village", 3, 0)  # any count of the game's


def test_a_shipped_conditioned_network_is_the_default_az_and_the_per_count_ones_play_by_name(
    tmp_path, monkeypatch
):
    from training.alphazero import ship as ship_mod

    g = get_game("village")
    root = tmp_path / "networks"
    shutil.copytree(ROOT / "village_env" / "networks", root)
    monkeypatch.setattr(az_agent, "shipped_folder", lambda game: root)
    monkeypatch.setattr(ship_mod, "shipped_folder", lambda game: root)
    assert az_agent.shipped_networks(g) == {n: root / f"az-{n}p" for n in (2, 3, 4)}
    run = conditioned_network(tmp_path / "run", g)
    side = json.loads((run / "checkpoint.json").read_text())
    side["players"] = [2, 4]
    (run / "checkpoint.json").write_text(json.dumps(side))
    out = ship_mod.ship(run, search="mix=0.5", search_at={4: "root=gumbel,opp=prior"})
    assert out == root / "az"
    meta = json.loads((out / "checkpoint.json").read_text())
    assert meta["players"] == [2, 4] and meta["variant_space"] == side["variant_space"]
    assert meta["search_by_players"] == {"4": "root=gumbel,mix=0.5,opp=prior"}
    # the conditioned network where it was trained, the per-count one elsewhere
    assert az_agent.shipped_networks(g) == {2: out, 3: root / "az-3p", 4: out}
    assert make_agent("az", "village", 4, 0).config.root == "gumbel"
    assert make_agent("az", "village", 2, 0).config.root == "puct"
    for n in (2, 3, 4):
        named = make_agent(f"az:az-{n}p,sims=0", "village", n, 0)
        per_count, _meta = az_agent.load_network(root / f"az-{n}p", g, n)
        np.testing.assert_array_equal(named.packed[0], pack_actors([per_count])[0])
        assert named.name.startswith(f"az:az-{n}p,sims=0")
    fp = az_agent.az_fingerprint("", "village", 2)
    assert fp.startswith(f"az sha256:{az_agent.file_sha256(out / 'network.npz')[:16]}")
    assert az_agent.az_files("az-2p") is None  # part of the installed library
    with pytest.raises(CheckpointError, match="no such network"):
        make_agent("az:az-9p", "village", 2, 0)


def test_a_study_with_a_conditioned_agent_has_a_conditioned_response_without_fine_tuning(
    tmp_path, capsys
):
    from training.balance import study

    folder = conditioned_network(tmp_path / "net", get_game("village"))
    mass12 = ROOT / "docs" / "rules_variants" / "village_mass_bonus_12.json"
    argv = ["--game", "village", "--players", "2", "--agents", f"az:{folder},sims=0",
            "heuristic", "--games", "4", "--rules", str(mass12), "--db",
            str(tmp_path / "s.sqlite"), "--out", str(tmp_path / "out"),
            "--no-progress"]  # fmt: skip
    assert study.main(argv) == 0
    assert "reads the rules of" in capsys.readouterr().out
    report = (tmp_path / "out" / "report.md").read_text()
    assert "## Strategic response: fixed and conditioned agents" in report
    assert "effect, conditioned [95%]" in report and "fine-tuned" not in report
    res = json.loads((tmp_path / "out" / "result.json").read_text())
    (pair,) = res["strategic_response"]["adaptations"]
    assert pair["record"]["how"] == "conditioned"
    assert pair["fixed"].endswith(",rules=any") and "rules=any" not in pair["adapted"]
    assert res["strategic_response"]["pairs"]["response"] == 4
    assert not (tmp_path / "adapted").exists()  # nothing fine-tuned


@pytest.mark.slow
def test_a_sweep_at_three_players_with_a_conditioned_agent_responds_at_every_point(tmp_path):
    from training.balance import sweep

    folder = conditioned_network(tmp_path / "net", get_game("village"))
    argv = ["--game", "village", "--players", "3", "--agents", f"az:{folder},sims=0",
            "--games", "3", "--key", "MASS_MAJORITY_PRESTIGE", "--values", "0", "2", "5", "8",
            "12", "--db", str(tmp_path / "s.sqlite"), "--out", str(tmp_path / "out"),
            "--no-progress"]  # fmt: skip
    assert sweep.main(argv) == 0
    report = (tmp_path / "out" / "report.md").read_text()
    for v in (0, 5, 8, 12):
        assert f"## Strategic response at MASS_MAJORITY_PRESTIGE={v}" in report
    assert report.count("fixed and conditioned agents") == 0  # titled by point
    res = json.loads((tmp_path / "out" / "result.json").read_text())
    hows = {a["record"]["how"] for r in res["responses"] if not r.get("reference")
            for a in r["adaptations"]}  # fmt: skip
    assert hows == {"conditioned"} and not (tmp_path / "adapted").exists()


@pytest.mark.slow
def test_tune_with_a_conditioned_agent_searches_with_it_and_reports_both_losses(tmp_path):
    from training.balance import tune

    folder = conditioned_network(tmp_path / "net", get_game("village"))
    space = tmp_path / "space.json"
    space.write_text(json.dumps({"game": "village", "keys": {"MASS_MAJORITY_PRESTIGE": [5, 12]}}))
    base = tmp_path / "base.json"  # a starting point off the defaults: the check always runs
    base.write_text(json.dumps({"game": "village", "values": {"MASS_MAJORITY_PRESTIGE": 5}}))
    argv = ["--game", "village", "--players", "2", "--agents", f"az:{folder},sims=0",
            "heuristic", "--space", str(space), "--base", str(base), "--objective", "margin:60",
            "--games", "8",
            "--budget", "2", "--check-games", "8", "--db", str(tmp_path / "t.sqlite"), "--out",
            str(tmp_path / "out"), "--no-progress"]  # fmt: skip
    assert tune.main(argv) == 0
    res = json.loads((tmp_path / "out" / "result.json").read_text())
    a = res["adapted"]
    assert a["adapted_minus_fixed"]["n"] == 8 and "loss_fixed" in a
    report = (tmp_path / "out" / "report.md").read_text()
    assert "## With conditioned agents" in report and "conditioned - fixed" in report
    outside = tmp_path / "outside.json"
    outside.write_text(json.dumps({"game": "village", "keys": {"MASS_MAJORITY_PRESTIGE": [5, 13]}}))
    with pytest.raises(SystemExit):
        tune.main([*argv[: argv.index("--space") + 1], str(outside),
                   *argv[argv.index("--space") + 2 : -3], "--out", str(tmp_path / "o2"),
                   "--no-progress"])  # fmt: skip
    assert not (tmp_path / "o2").exists()


class _InProcess:
    """A backend that runs the jobs here, one after another (for tests that patch a job)."""

    name = "process"

    def map(self, kind, jobs):
        from training.alphazero.backends import run_job

        out = [run_job(kind, j) for j in jobs]
        return [ex for ex, _w in out], [{"worker": w, "attempts": 1} for _ex, w in out]

    def close(self):
        pass


def test_a_group_with_a_game_without_end_is_dropped_and_recorded(tmp_path, monkeypatch):
    from training.alphazero import loop
    from training.alphazero.selfplay import GameTooLongError

    monkeypatch.setattr(loop, "make_backend", lambda *a, **k: _InProcess())
    real = cond.play_variant

    def endless_first_group(job):
        if job.version == (1, 0):
            raise GameTooLongError("village: a self-play game left more than 16384 examples")
        return real(job)

    monkeypatch.setattr(cond, "play_variant", endless_first_group)
    cfg = AZConfig(
        game="village", out=str(tmp_path / "run"), conditioned=True, counts=(2,), games=4,
        variant_games=2, sims=2, iterations=1, workers=1, eval_every=0, steps=1, hidden=(8,),
        hours=0.5,
    )  # fmt: skip
    loop.train(cfg, out=lambda line: None)
    (row,) = json.loads((tmp_path / "run" / "progress.json").read_text())
    groups = cond.draw_groups(space_of(get_game("village")), cfg, 1, 2)
    assert row["dropped"] == [
        {"players": 2, "values": groups[0].values, "why": "village: a self-play game left more "
         "than 16384 examples"}
    ]  # fmt: skip
    assert row["examples"] > 0  # the other group's games
    monkeypatch.setattr(
        cond, "play_variant", lambda job: endless_first_group(replace(job, version=(1, 0)))
    )
    with pytest.raises(cond.EndlessGameError, match="under the variant"):
        loop.train(replace(cfg, out=str(tmp_path / "run2")), out=lambda line: None)


def test_adapt_refuses_to_fine_tune_a_conditioned_network_outside_its_space(tmp_path):
    from training.balance import adapt as ad

    folder = conditioned_network(tmp_path / "net", get_game("village"))
    path, key = _outside_file(tmp_path, "village")
    spec = f"az:{folder},sims=0"
    with pytest.raises(ValueError, match="lies outside its variant space.*az:az-2p"):
        ad.adapt([spec], "village", 2, path, 1, tmp_path / "cache", say=lambda line: None)
    assert ad.adapt([spec], "village", 2, path, None, tmp_path / "cache") == []  # left fixed
    assert not (tmp_path / "cache").exists()
