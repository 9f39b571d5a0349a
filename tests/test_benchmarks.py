"""`python -m benchmarks.run --quick` runs end to end (peers skipped when not installed)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from core.registry import game_names, get_game

ROOT = Path(__file__).resolve().parents[1]


@pytest.mark.slow  # a whole benchmark run against the peers
def test_quick_benchmark_run(tmp_path):
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    proc = subprocess.run(
        [
            sys.executable,
            "-m",
            "benchmarks.run",
            "--quick",
            "--seconds",
            "0.3",
            "--out",
            str(tmp_path),
        ],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert proc.returncode == 0, proc.stderr[-3000:]
    res = json.loads((tmp_path / "results.json").read_text())
    assert (tmp_path / "results.md").read_text().startswith("# Benchmarks")
    names = {r["name"] for r in res["rows"]}
    assert "village batch B=1024" in names
    assert "village API + observe" in names and "village env()" in names
    for r in res["rows"]:
        if r["group"] != "memory":
            assert r["decisions_per_s"] > 0, r
    assert res["rules_data_hash"]["village"]
    assert res["provisional_rules_data"] is True
    assert "| compiled | village batch B=1024 | ours |" in proc.stdout
    assert any(t["target"].startswith("compiled batch random play") for t in res["targets"])
    search = {r["name"]: r for r in res["rows"] if r["group"] == "search"}
    assert search["village mcts iters=1000, random rollouts"]["median_decision_ms"] > 0
    assert "village random play B=1 (reference)" in search
    assert any(t["target"].startswith("search: median wall time") for t in res["targets"])


def test_ratio_targets_use_the_median_of_alternating_rounds():
    from benchmarks import run as br

    calls = []

    def fake(name, speeds):
        it = iter(speeds)

        def fn(_seconds):
            calls.append(name)
            return {"decisions_per_s": float(next(it)), "games_per_s": 0.0}

        return fn

    b = br.Bench(0.0, quick=True)
    b.row("api", "village API + observe", "ours", fake("ours", [50, 100, 90, 80]))
    b.row(
        "api", "OpenSpiel chess + observation_tensor", "open_spiel", fake("peer", [50, 10, 10, 10])
    )
    del calls[:]
    paired = br.paired_ratios(b, ["village"], rounds=3, seconds=0.0)
    assert calls == ["ours", "peer", "peer", "ours", "ours", "peer"]  # A B, B A, A B
    (p,) = paired.values()
    assert p["ratios"] == [8.0, 9.0, 10.0] and p["median"] == 9.0
    res = {"rows": b.rows, "paired": paired}
    (t,) = [t for t in br.check_targets(res, ["village"]) if t["target"].startswith("single")]
    assert t["value"] == 9.0 and t["rows_ratio"] == 1.0 and t["met"] is True
    assert t["how"] == "paired median of 3"


def test_a_target_on_another_field_keeps_its_rows_ratio():
    from benchmarks import run as br

    rows = [
        {
            "group": "ppo",
            "name": f"village MaskablePPO {n}",
            "decisions_per_s": d,
            "rollout_steps_per_s": r,
        }
        for n, d, r in (("batch VecEnv", 400.0, 900.0), ("SubprocVecEnv(2)", 100.0, 100.0))
    ]
    paired = {
        "ppo:village MaskablePPO batch VecEnv/ppo:village MaskablePPO SubprocVecEnv(2)": {
            "ratios": [5.0],
            "median": 5.0,
        }
    }
    got = {
        t["target"]: t
        for t in br.check_targets({"rows": rows, "paired": paired}, ["village"])
        if t["target"].startswith("MaskablePPO")
    }
    learn, rollout = (got[k] for k in sorted(got, key=lambda k: "rollout" in k))
    assert learn["value"] == 5.0 and learn["rows_ratio"] == 4.0  # the pair's median
    assert rollout["value"] == 9.0 and rollout["how"] == "rows"  # its own field, from the rows


@pytest.mark.parametrize("name", game_names())
def test_api_instruction_counter_parts(tmp_path, name):
    """benchmarks.api_instructions (run under valgrind by hand): its loop is engine_speed's path
    (b) over the given seeds, and it reads callgrind's totals line."""
    from benchmarks import api_instructions as ai
    from benchmarks.engine_speed import api_game

    g = get_game(name)
    p = min(g.PLAYER_COUNTS)
    want = api_game(g, p, 3) + api_game(g, p, 4)
    assert want > 0 and ai.api_loop(g, p, range(3, 5)) == want
    f = tmp_path / "cg.out.1"
    f.write_text("# callgrind format\nevents: Ir\nsummary: 30103748\n")
    assert ai._summary(f) == 30103748
    f.write_text("events: Ir\n")
    with pytest.raises(RuntimeError, match="no totals"):
        ai._summary(f)


def test_default_output_is_a_fresh_run_folder_not_the_committed_results():
    import datetime as dt

    from benchmarks import run as br

    when = dt.datetime(2026, 12, 1, 1, 2, 3, tzinfo=dt.timezone.utc)
    for argv in ([], ["--quick"]):
        out = br.output_dir(br.parser().parse_args(argv), now=when)
        assert out == Path("runs") / "benchmarks-20261201T010203Z"
        assert out.resolve() != br.RESULTS.resolve()
    later = br.output_dir(br.parser().parse_args([]), now=when + dt.timedelta(seconds=1))
    assert later != out  # each run its own folder
    # the committed results only on request
    assert br.output_dir(br.parser().parse_args(["--update-committed"])) == br.RESULTS
    assert br.output_dir(br.parser().parse_args(["--out", "x/y"])) == Path("x/y")
    with pytest.raises(SystemExit):
        br.output_dir(br.parser().parse_args(["--update-committed", "--out", "x/y"]))


def test_importing_the_benchmarks_leaves_numba_settings_alone(monkeypatch, tmp_path):
    """Finding: importing benchmarks.run, or calling benchmarks.balance.main in a test process,
    set NUMBA_NUM_THREADS in the environment; numba rereads it on its next compile and refuses
    a thread count other than the one its threads were launched with, so unrelated tests that
    compiled later in the same process failed. The settings are made only when run as a
    command."""
    import importlib

    for key in ("NUMBA_NUM_THREADS", "NUMBA_THREADING_LAYER"):
        monkeypatch.delenv(key, raising=False)
    import benchmarks.balance
    import benchmarks.run

    importlib.reload(benchmarks.run)
    importlib.reload(benchmarks.balance)
    out = tmp_path / "out"
    args = ["--game", "village", "--players", "2", "--games", "2", "--agent", "random"]
    args += ["--db", str(tmp_path / "b.sqlite"), "--workers", "1", "--out", str(out)]
    assert benchmarks.balance.main(args) == 0
    assert "NUMBA_NUM_THREADS" not in os.environ
    assert "NUMBA_THREADING_LAYER" not in os.environ


def test_head_to_head_counts_who_finished_ahead_at_the_same_tables():
    """Three agents, four games: A ahead of B in 3 and tied in 1 (share 3.5/4); the agents'
    seats move between games, so the ranks are read through `seats`."""
    from benchmarks.head_to_head import pairwise

    def game(seats, ranks):
        return {"seats": seats, "ranks": ranks}

    result = {
        "agents": [{"agent": "A"}, {"agent": "B"}, {"agent": "C"}],
        "games_played": [
            game([0, 1, 2], [1.0, 2.0, 3.0]),  # A 1st, B 2nd, C 3rd
            game([1, 2, 0], [2.0, 1.0, 3.0]),  # seat 1 (A) 1st, seat 2 (B) 3rd, seat 0 (C) 2nd
            game([2, 0, 1], [1.5, 3.0, 1.5]),  # A and B tie, C last
            game([0, 2, 1], [1.0, 3.0, 2.0]),  # A 1st, B (seat 2) 2nd, C (seat 1) 3rd
        ],
    }
    rows = {(r["first"], r["second"]): r for r in pairwise(result)}
    ab = rows[("A", "B")]
    assert (ab["first_ahead"], ab["second_ahead"], ab["ties"]) == (3, 0, 1)
    assert ab["share"] == 3.5 / 4 and ab["share_ci95"][0] < 3.5 / 4 < ab["share_ci95"][1]
    assert ab["p_sign"] == 0.25  # 3 of 3 decided games: 2 x 0.5**3
    bc = rows[("B", "C")]
    assert (bc["first_ahead"], bc["second_ahead"], bc["ties"]) == (3, 1, 0)
    assert bc["p_sign"] == 0.625  # 2 x P(X >= 3), X ~ Binomial(4, 0.5)
    assert all(r["p_holm"] >= r["p_sign"] for r in rows.values())


@pytest.mark.parametrize("name", game_names())
def test_opponent_cost_rows(tmp_path, name, monkeypatch):
    """benchmarks.opponent_cost: one row per setting, in order, with positive times and the
    network calls a search made (opp=net calls the network for other seats too). Its rows are
    at 2 and 4 players; here at the game's fewest and most (the same for counts 2-4)."""
    from benchmarks import opponent_cost

    counts = get_game(name).PLAYER_COUNTS
    at = {2: min(counts), 4: max(counts)}
    rows = tuple((at[p], hidden, params) for p, hidden, params in opponent_cost.ROWS)
    monkeypatch.setattr(opponent_cost, "ROWS", rows)
    out = tmp_path / "cost.json"
    assert opponent_cost.main(["--games", name, "--seconds", "0.01", "--json", str(out)]) == 0
    rows = json.loads(out.read_text())
    assert [(r["players"], r["params"]) for r in rows] == [
        (p, params) for p, _, params in opponent_cost.ROWS
    ]
    assert all(r["median_ms"] > 0 for r in rows)
    assert all(r["network_calls"] >= 1 for r in rows)
    # with opp=tree every simulation evaluates one leaf: the same calls at the fewest and the most
    # players (2 and 4); so does opp=prior / priormax, whose other seats play the policy stored
    # in their nodes
    prior = [r for r in rows if "opp=prior" in r["params"]]
    assert len(prior) == 2 and all(r["network_calls"] <= 101 for r in rows[:2] + prior)


def test_opponent_cost_refuses_bad_arguments(capsys):
    from benchmarks import opponent_cost

    with pytest.raises(SystemExit):
        opponent_cost.main(["--seconds", "0"])
    assert "--seconds must be > 0" in capsys.readouterr().err


def test_the_selfplay_rows_pair_both_paths_on_the_same_games():
    from benchmarks.selfplay import CHUNK, paired_rates

    name = min(game_names(), key=lambda n: get_game(n).NUM_ACTIONS)  # the quickest to play
    rates = paired_rates(name, min(get_game(name).PLAYER_COUNTS), 0.0, sims=2)
    one, many = rates["one"], rates["many"]
    assert one["games"] == many["games"] == CHUNK  # one chunk each, the same seeds
    assert one["decisions"] == many["decisions"] > 0  # the same games, decision for decision
    ratio = many["games_per_s"] / one["games_per_s"]
    assert one["many_over_one"] == many["many_over_one"] == round(ratio, 3)


@pytest.mark.parametrize("name", game_names())
def test_the_conditioned_job_rows_pair_both_jobs_on_the_same_games(name):
    from benchmarks.selfplay import VARIANT_GAMES, conditioned_rates

    rates = conditioned_rates(name, min(get_game(name).PLAYER_COUNTS), 0.0, sims=2)
    job, variant = rates["job"], rates["variant"]
    assert job["games"] == variant["games"] == VARIANT_GAMES  # one chunk each, the same seeds
    assert job["decisions"] == variant["decisions"] > 0  # the same games
    ratio = variant["games_per_s"] / job["games_per_s"]
    assert job["variant_over_job"] == variant["variant_over_job"] == round(ratio, 3)


def test_the_measured_variants_are_drawn_from_the_space_by_a_fixed_procedure(tmp_path):
    from benchmarks import conditioned_variants as cv
    from core.variant_space import space_of

    index = cv.write("village", 3, tmp_path)
    assert [r["values"] for r in index["variants"]] == cv.draw("village", 3)
    space = space_of(get_game("village"))
    assert index["variant_space"] == space.record()
    for row in index["variants"]:
        assert (
            1 <= len(row["values"]) <= 3 and space.outside(space.rules_data(row["values"])) is None
        )
        assert (tmp_path / row["file"]).is_file()
    committed = ROOT / "benchmarks" / "results" / "conditioned" / "variants" / "village-drawn.json"
    recorded = json.loads(committed.read_text())
    if recorded["variant_space"]["digest"] == space.digest():  # drawn from this space
        assert [r["values"] for r in recorded["variants"]][:3] == cv.draw("village", 3)


def test_the_conditioned_strength_rows_are_the_issue_s_line_ups():
    from benchmarks import conditioned_strength as cs

    net = "benchmarks/results/conditioned/runs/troyes/final"
    files = cs.variant_files("troyes")
    assert [p.name for p in files][-1] == "troyes_cathedral_4.json" and len(files) == 7
    rows = {r["name"]: r for r in cs.rows("troyes", net, {"own", "mcts", "variants"}, files, {})}
    assert len(rows) == 6 + 14
    assert rows["own-4p"]["agents"][1:] == ["az:az-4p"] * 3
    # the 4-player row searches as az-4p does
    assert rows["own-4p"]["agents"][0] == f"az:{net},root=gumbel,mix=0.5,opp=prior"
    assert rows["mcts-3p"]["agents"] == [f"az:{net},mix=0.5", "mcts", "mcts"]
    v = rows["variant-troyes-drawn-2-4p"]
    assert v["agents"] == [f"az:{net},sims=0"] + ["az:az-4p,rules=any,sims=0"] * 3
    assert v["rules"].endswith("troyes-drawn-2.json")
    assert cs.games_at(3) == 201 and cs.games_at(4) == 200
    given = cs.rows("troyes", net, {"own"}, [], {2: "root=gumbel"})
    assert given[0]["agents"][0] == f"az:{net},root=gumbel"


def test_the_peer_comparison_seats_one_openspiel_search_at_four_and_tables_its_share(tmp_path):
    import argparse
    import json

    from benchmarks import peer_ismcts as pi

    a = argparse.Namespace(game="chipin", players=4, rows="sims", sims=7, ms=50)
    (row,) = pi.rows(a)
    assert row["agents"] == [
        "mcts:iters=7,rollout=random,cutoff=-1,c=2",
        "openspiel:ismcts,sims=7,c=2,fast=1",
    ]
    agents = [
        {"spec": "openspiel:ismcts,sims=7,c=2,fast=1", "win_rate": 0.3, "win_rate_ci95": [0.2, 0.4],
         "mean_rank": 2.0},
        *[{"spec": row["agents"][0], "win_rate": 0.7 / 3, "win_rate_ci95": [0.1, 0.3],
           "mean_rank": 2.5 + k / 10} for k in range(3)],
    ]  # fmt: skip
    (tmp_path / "chipin-4p-sims7.json").write_text(
        json.dumps({"games": 100, "players": 4, "agents": agents})
    )
    (tmp_path / "rates-4p.json").write_text(json.dumps({"ratio_median": 3.0}))  # not a row
    lines = pi.table(tmp_path).splitlines()
    assert lines[2] == "| chipin-4p-sims7 | 100 | 0.300 [0.200, 0.400] | 0.250 | 2.00 / 2.60 |"
    assert len(lines) == 3
