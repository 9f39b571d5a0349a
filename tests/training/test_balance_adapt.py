"""Balance studies with agents adapted to a rules variant: the adaptation cache
(training.balance.adapt), the strategic-response figures (training.balance.response) and the
command lines' --adapt."""

from __future__ import annotations

import json
import shutil
from dataclasses import replace
from pathlib import Path

import numpy as np
import pytest
from training_helpers import constructed_stats, tiny_policy_checkpoint

from core.registry import get_game
from training.balance import adapt as ad
from training.balance import response as rs
from training.balance import study, sweep, tune

ROOT = Path(__file__).resolve().parents[2]
MASS12 = ROOT / "docs" / "rules_variants" / "village_mass_bonus_12.json"
SHIPPED = ROOT / "village_env" / "networks"


def variant(tmp_path: Path, name: str, value: int) -> Path:
    path = tmp_path / f"{name}.json"
    doc = {"game": "village", "values": {"MASS_MAJORITY_PRESTIGE": value}}
    path.write_text(json.dumps(doc))
    return path


def test_fixed_spec_adds_rules_any_once():
    assert ad.fixed_spec("az") == "az:rules=any"
    assert ad.fixed_spec("az:sims=100") == "az:sims=100,rules=any"
    assert ad.fixed_spec("az:/n/x,sims=0,rules=any") == "az:/n/x,sims=0,rules=any"
    assert ad.is_az("az") and ad.is_az("az:sims=0") and not ad.is_az("azure")


def test_the_key_changes_with_the_variant_and_the_parent_and_nothing_else(tmp_path):
    a, b = variant(tmp_path, "a", 7), variant(tmp_path, "b", 9)
    a2 = variant(tmp_path, "a2", 7)  # another file, the same rules data
    net2, net3 = SHIPPED / "az-2p", SHIPPED / "az-3p"
    k = ad.adapt_key("village", 2, a, net2, 5)
    assert ad.key_digest(k) == ad.key_digest(ad.adapt_key("village", 2, a2, net2, 5))
    assert ad.key_digest(k) != ad.key_digest(ad.adapt_key("village", 2, b, net2, 5))
    assert ad.key_digest(k) != ad.key_digest(ad.adapt_key("village", 2, a, net3, 5))
    assert ad.key_digest(k) != ad.key_digest(ad.adapt_key("village", 2, a, net2, 6))
    assert k["recipe"]["games"] >= 1 and "workers" not in k["recipe"]  # the parent's own recipe


def test_a_rerun_adapts_nothing_and_a_changed_variant_or_parent_adapts_again(tmp_path, monkeypatch):
    trained = []

    def fake_fine_tune(key, parent, rules_file, folder, say):
        trained.append((key["variant_rules_data_hash"], key["parent_sha256"]))
        folder.mkdir(parents=True)
        record = {"key": key, "seconds": 1.0}
        (folder / ad.DONE).write_text(json.dumps(record))
        return record

    monkeypatch.setattr(ad, "fine_tune", fake_fine_tune)
    cache = tmp_path / "cache"
    a, b = variant(tmp_path, "a", 7), variant(tmp_path, "b", 9)
    quiet = dict(say=lambda line: None)
    first = ad.adapt(["az:sims=0", "heuristic"], "village", 2, a, 1, cache, **quiet)
    assert len(trained) == 1 and len(first) == 1
    assert first[0].fixed == "az:sims=0,rules=any"
    assert first[0].adapted == f"az:{first[0].folder / 'network'},sims=0"
    again = ad.adapt(["az:sims=0"], "village", 2, a, 1, cache, **quiet)
    assert len(trained) == 1 and again[0].folder == first[0].folder  # found, not trained
    ad.adapt(["az:sims=0"], "village", 2, b, 1, cache, **quiet)  # another variant
    parent = tmp_path / "parent"
    shutil.copytree(SHIPPED / "az-2p", parent)
    arrays = dict(np.load(parent / "network.npz"))
    arrays[sorted(arrays)[0]] = arrays[sorted(arrays)[0]] + 1.0
    np.savez(parent / "network.npz", **arrays)  # another parent network
    ad.adapt([f"az:{parent},sims=0"], "village", 2, a, 1, cache, **quiet)
    assert len(trained) == 3 and trained[2][1] != trained[0][1]
    assert len({t for t in trained}) == 3
    (first[0].folder / ad.DONE).unlink()  # an unfinished adaptation is made again
    ad.adapt(["az:sims=0"], "village", 2, a, 1, cache, **quiet)
    assert len(trained) == 4 and trained[3] == trained[0]


def test_other_learned_agents_and_bad_minutes_are_refused(tmp_path):
    ppo = tiny_policy_checkpoint(tmp_path / "ppo", get_game("village"))
    with pytest.raises(ValueError, match="--adapt fine-tunes az networks"):
        ad.check_adaptable([str(ppo), "az"])
    assert ad.check_adaptable(["az", "heuristic", "az"]) == ["az"]
    for bad in (0, -1, ad.MAX_MINUTES + 1):
        with pytest.raises(ValueError, match="--adapt must be in"):
            ad.check_minutes(bad)


@pytest.mark.parametrize(
    "extra,message",
    [
        (["--adapt", "1"], "--adapt needs --rules FILE"),
        (["--adapt", "0", "--rules", str(MASS12)], "--adapt must be in"),
        (["--adapt", "1", "--rules", str(MASS12), "--agents", "PPO"], "fine-tunes az networks"),
    ],
)
def test_the_study_refuses_a_bad_adapt_before_writing_anything(tmp_path, capsys, extra, message):
    ppo = tiny_policy_checkpoint(tmp_path / "ppo", get_game("village"))
    db, out = tmp_path / "s.sqlite", tmp_path / "out"
    agents = ["--agents", "az:sims=0", "heuristic"]
    if "--agents" in extra:
        i = extra.index("--agents")
        agents, extra = ["--agents", str(ppo), "heuristic"], extra[:i]
    argv = ["--game", "village", "--players", "2", *agents, "--games", "2", "--db", str(db)]
    with pytest.raises(SystemExit) as e:
        study.main(argv + ["--out", str(out), "--no-progress", *extra])
    assert e.value.code == 2 and message in capsys.readouterr().err
    assert not db.exists() and not out.exists() and not (tmp_path / "adapted").exists()


def test_strategic_response_figures_on_a_constructed_case():
    g = 20
    base_win = (np.arange(g) % 2 == 0).astype(float)  # seat 0 wins the even deals
    shares = np.zeros((g, 2, 4), np.int64)
    shares[:, 0, :2] = [2, 2]  # fixed: kinds a and b half each
    adapted_actions = np.zeros((g, 2, 4), np.int64)
    adapted_actions[:, 0, :2] = [1, 3]  # adapted: a quarter a, three quarters b
    base = constructed_stats(base_win, actions=shares, digests=np.arange(g))
    fixed = constructed_stats(base_win, actions=shares, digests=np.arange(g) + (np.arange(g) < 5))
    adapted = constructed_stats(np.ones(g), actions=adapted_actions, digests=np.arange(g) + 100)
    res = rs.response(base, fixed, adapted)
    row = {r.figure: r for r in res.rows}["win share, seat 0"]
    assert row.current == row.fixed == 0.5 and row.adapted == 1.0
    assert row.effect_fixed == 0.0 and row.effect_adapted == 0.5 and row.response == 0.5
    sd = np.std(1.0 - base_win, ddof=1) / np.sqrt(g)
    assert row.response_hi - row.response == pytest.approx(2.093024 * sd, rel=1e-5)
    changed = {c.comparison: (c.pairs, c.of) for c in res.changed}
    assert changed == {
        "fixed vs current": (5, g),
        "adapted vs current": (g, g),
        "adapted vs fixed": (g, g),
    }
    mix = {r.kind: r for r in res.actions}
    assert set(mix) == {"a", "b"}  # kinds nobody took are left out
    assert mix["b"].fixed == 0.5 and mix["b"].adapted == 0.75
    assert mix["b"].diff == pytest.approx(0.25) and mix["a"].diff == pytest.approx(-0.25)


def test_relabel_pairs_an_adapted_study_with_the_base():
    st = constructed_stats(np.ones(4))
    renamed = rs.relabel(st, {"heuristic": "az:sims=0"})
    assert set(renamed.labels.values()) == {"az:sims=0"} and st.labels[1] == "heuristic"
    selfplay = replace(st, labels={1: "az:X,sims=0#1", 2: "az:X,sims=0#2"})  # one agent's copies
    renamed = rs.relabel(selfplay, {"az:X,sims=0": "az:sims=0"})
    assert renamed.labels == {1: "az:sims=0#1", 2: "az:sims=0#2"}


def test_the_adaptation_check_says_whether_it_converged_and_by_how_much():
    def result(wins, lo, hi):
        agent = {"spec": "az:A", "games": 200, "win_rate": wins, "win_rate_ci95": [lo, hi]}
        return {"agents": [{**agent, "mean_score": 1.0}, {"spec": "az:rules=any"}]}

    ok = rs.check_row(result(0.7, 0.63, 0.76), 2)
    assert ok.converged and ok.short_by is None and rs.verdict(ok) == "converged"
    no = rs.check_row(result(0.52, 0.45, 0.59), 2)
    assert not no.converged and no.short_by == pytest.approx(0.05)
    assert "did not converge" in rs.verdict(no) and "0.050 below chance" in rs.verdict(no)
    four = rs.check_row(result(0.30, 0.26, 0.35), 4)  # chance 1/4 at four players
    assert four.converged and four.chance == 0.25


@pytest.mark.slow
def test_a_sweep_with_adapt_reports_every_point_and_a_rerun_adapts_nothing(tmp_path, capsys):
    argv = [  # self-play: one agent, a copy in each seat
        "--game", "village", "--players", "2", "--agents", "az:sims=0",
        "--games", "4", "--key", "MASS_MAJORITY_PRESTIGE", "--values", "2", "7", "12",
        "--adapt", "0.05", "--db", str(tmp_path / "s.sqlite"), "--out", str(tmp_path / "out"),
        "--no-progress",
    ]  # fmt: skip
    assert sweep.main(argv) == 0
    first = capsys.readouterr().out
    assert first.count("adapting az:sims=0") == 2  # the reference point needs none
    report = (tmp_path / "out" / "report.md").read_text()
    for v in (2, 7, 12):
        assert f"## Strategic response at MASS_MAJORITY_PRESTIGE={v}" in report
    assert report.count("Adaptation check under the variant") == 2
    assert all(
        r["pairs"]["response"] == 4
        for r in json.loads((tmp_path / "out" / "result.json").read_text())["responses"]
        if not r.get("reference")
    )
    res = json.loads((tmp_path / "out" / "result.json").read_text())
    adapted = [r for r in res["responses"] if not r.get("reference")]
    for r in adapted:
        rec = r["adaptations"][0]["record"]
        side = json.loads((Path(rec["network"]) / "checkpoint.json").read_text())
        assert side["rules_data_hash"] == rec["key"]["variant_rules_data_hash"]
        assert side["trained_from"]["init"]["sha256"] == rec["key"]["parent_sha256"]
    assert sweep.main(argv) == 0
    again = capsys.readouterr().out
    assert "adapting" not in again and again.count("found in") == 2


@pytest.mark.slow
def test_tune_with_adapt_reports_the_loss_with_adapted_agents(tmp_path, capsys):
    space = tmp_path / "space.json"
    space.write_text(json.dumps({"game": "village", "keys": {"MASS_MAJORITY_PRESTIGE": [2, 12]}}))
    argv = [
        "--game", "village", "--players", "2", "--agents", "az:sims=0", "heuristic",
        "--space", str(space), "--objective", "margin:60", "--games", "8", "--budget", "2",
        "--check-games", "8", "--adapt", "0.05", "--db", str(tmp_path / "t.sqlite"),
        "--out", str(tmp_path / "out"), "--no-progress",
    ]  # fmt: skip
    assert tune.main(argv) == 0
    res = json.loads((tmp_path / "out" / "result.json").read_text())
    a = res["adapted"]
    assert res["final_overrides"] == {"MASS_MAJORITY_PRESTIGE": 12}  # margins near 60 need 12
    assert a["loss_fixed"] == pytest.approx(res["final_loss"])  # the same games as the check
    assert a["adapted_minus_fixed"]["n"] == 8
    report = (tmp_path / "out" / "report.md").read_text()
    assert "## With adapted agents" in report and "Adaptation check under the variant" in report


@pytest.mark.slow
def test_adapt_works_at_three_players(tmp_path, capsys):
    # the fine-tune keeps the trainer's 40 evaluation games, which 3 does not divide; it plays
    # no evaluation, so they are not held against it
    cathedral = ROOT / "docs" / "rules_variants" / "troyes_cathedral_4.json"
    argv = [
        "--game", "troyes", "--players", "3", "--agents", "az:sims=0", "--games", "3",
        "--rules", str(cathedral), "--adapt", "0.05", "--db", str(tmp_path / "s.sqlite"),
        "--out", str(tmp_path / "out"), "--no-progress",
    ]  # fmt: skip
    assert study.main(argv) == 0
    assert capsys.readouterr().out.count("adapting az:sims=0") == 1
    report = (tmp_path / "out" / "report.md").read_text()
    assert "Strategic response" in report and "Adaptation check under the variant" in report
    res = json.loads((tmp_path / "out" / "result.json").read_text())
    (adapted,) = res["strategic_response"]["adaptations"]
    assert adapted["record"]["how"] == "fine-tuned"
    side = json.loads((Path(adapted["record"]["network"]) / "checkpoint.json").read_text())
    assert side["players"] == 3 and side["trained_from"]["training"]["players"] == 3
