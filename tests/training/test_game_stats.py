"""Game statistics by compiled replay (training.balance.game_stats) and the balance study CLI."""

from __future__ import annotations

import importlib
import json

import numpy as np
import pytest

from core.registry import game_names, get_game
from training.arena.store import GameStore
from training.arena.tournament import run_tournament
from training.balance import study as balance
from training.balance.game_stats import GameStats, StatsError, collect, lead_stats

GAMES = game_names()


def test_lead_stats_counts_changes_and_when_the_winner_led_for_good():
    rows = np.array([[1, 0], [1, 2], [3, 2], [4, 4], [6, 4]])
    # sole leaders: 0, 1, 0, (tie), 0 -> two changes; seat 0 leads for good from row 4 of 5
    assert lead_stats(rows, 0) == (2, 0.8)
    assert lead_stats(np.array([[2, 0], [3, 1]]), 0) == (0, 0.0)
    changes, at = lead_stats(rows, -1)
    assert changes == 2 and np.isnan(at)


def _tournament(tmp_path, name, players, games, agents=("random",), rules=None):
    specs = list(agents) * players if len(agents) == 1 else list(agents)
    db = tmp_path / f"{name}.sqlite"
    t = run_tournament(
        name, players, specs, games, db, progress=False, n_boot=20, keep_records=True,
        rules_file=rules,
    )  # fmt: skip
    return t, db


# every game at a middle player count, and Village at its smallest and largest
CASES = [(g, sorted(get_game(g).PLAYER_COUNTS)[len(get_game(g).PLAYER_COUNTS) // 2]) for g in GAMES]
CASES += [("village", 2), ("village", 4)]


@pytest.mark.parametrize("name,players", CASES)
def test_collect_replays_games_to_their_scores_and_resources(tmp_path, name, players):
    game = get_game(name)
    t, _db = _tournament(tmp_path, name, players, 2 * players)
    recs = t["records"]
    st = collect(name, recs)
    assert len(st) == len(recs) == 2 * players
    # points by source add up to each final score
    assert (st.points.sum(axis=2) == st.scores).all()
    assert st.scores.tolist() == [r.scores for r in recs]
    assert (st.decisions == [len(r.actions) for r in recs]).all()
    assert (st.actions.sum(axis=(1, 2)) == st.decisions).all()
    # every tracked resource: start + gained - spent == final (one game, replayed by the API)
    rec = recs[0]
    s0 = game.new_game(players, rec.seed)
    s = s0
    first = [-1] * players  # each seat's first decision, read off the API's replay
    for a in rec.actions:
        seat = game.current_player(s)
        first[seat] = a if first[seat] < 0 else first[seat]
        s = game.step(s, a)
    assert st.first_actions[0].tolist() == first and min(first) >= 0
    stats = game.GAME.spec.stats  # optional: without it, no resources to balance
    resources = importlib.import_module(stats).RESOURCES if stats else ()
    assert st.gained.shape[2] == st.spent.shape[2] == len(resources)
    L = game.LAYOUT
    for r, (_res, seg, k) in enumerate(resources):
        for p in range(players):
            v0, v1 = L.view(s0, seg)[p], L.view(s, seg)[p]
            v0, v1 = (v0, v1) if k is None else (v0[k], v1[k])
            assert int(v0) + st.gained[0, p, r] - st.spent[0, p, r] == int(v1), (seg, k, p)
    assert st.in_play[0].any() or not st.in_play.shape[1]  # a game may track no items
    assert (st.margin >= 0).all() and (st.rounds >= 1).all()
    # game-quality metrics (known answers: tests/training/test_game_quality.py)
    assert (st.branching >= 1).all() and ((st.decision_moves >= 0) & (st.decision_moves <= 1)).all()
    won = (st.win_shares == 1.0).sum(axis=1) == 1
    assert (st.drama[won] >= 0).all() and np.isnan(st.drama[~won]).all()
    assert (st.drama_max[won] >= st.drama[won]).all()


def test_collect_refuses_games_of_other_rules_data_and_mismatching_records(tmp_path):
    t, _db = _tournament(tmp_path, "village", 2, 2)
    recs = t["records"]
    other = [r.__class__(**{**r.__dict__, "rules_data_hash": "0" * 16}) for r in recs]
    with pytest.raises(StatsError, match="rules data"):
        collect("village", other)
    bad = [r.__class__(**{**r.__dict__, "scores": [s + 1 for s in r.scores]}) for r in recs]
    with pytest.raises(StatsError, match="replay ends with scores"):
        collect("village", bad)


def test_stats_save_and_load_round_trip(tmp_path):
    t, _db = _tournament(tmp_path, "troyes", 2, 2)
    st = collect("troyes", t["records"], {1: "a"})
    back = GameStats.load(st.save(tmp_path / "s.npz"))
    assert back.sources == st.sources and back.labels == {1: "a"}
    assert (back.points == st.points).all() and (back.taken == st.taken).all()


@pytest.mark.slow  # worker processes or many games: CI runs it, the fast loop skips it
def test_balance_cli_writes_the_report_and_a_variant_side_by_side(tmp_path, capsys):
    variant = tmp_path / "variant.json"
    variant.write_text(json.dumps({"game": "village", "values": {"STARTING_COINS": 3}}))
    out = tmp_path / "report"
    db = tmp_path / "b.sqlite"
    args = ["--game", "village", "--players", "2", "--agents", "random", "--games", "6"]
    args += ["--db", str(db), "--out", str(out), "--rules", str(variant), "--no-progress"]
    assert balance.main(args) == 0
    text = (out / "report.md").read_text()
    base_hash = get_game("village").RULES_DATA_HASH
    res = json.loads((out / "result.json").read_text())
    var_hash = res["variant"]["analysis"]["rules_data_hash"]
    assert var_hash != base_hash
    assert base_hash in text and var_hash in text  # the report names both
    for figure in ("branching_factor", "decision_moves", "lead_changes_per_round", "drama_max"):
        assert f"| {figure} |" in text, figure  # a row of "How games are decided"
    for f in ("seats.png", "scores.png", "sources.png", "items.png", "shape.png", "variant.png"):
        assert (out / f).stat().st_size > 1000, f
    for f in ("seats.csv", "sources.csv", "items.csv", "variant.csv", "variant_wins.csv"):
        assert (out / f).exists(), f
    comp = res["variant"]["comparison"]
    assert comp["pairs"] == 6 and comp["unpaired_base"] == comp["unpaired_variant"] == 0
    assert "6 deal pairs" in text and "McNemar" in text
    assert (out / "variant" / "report.md").exists()
    assert res["analysis"]["games"] == 6
    with GameStore(db, "village") as st:
        assert {r.rules_data_hash for r in st.games()} == {base_hash, var_hash}
    assert get_game("village").RULES_DATA_HASH == base_hash  # the variant was unloaded


def test_a_balance_study_with_a_time_budget_says_so(tmp_path, capsys):
    """Finding: a time budget (`mcts:time=...`) makes the games depend on the machine and on
    --workers, and nothing said so. The study's first line, its report and the store say it."""
    clocked = "mcts:time=0.002,iters=3"
    out, db = tmp_path / "report", tmp_path / "b.sqlite"
    args = ["--game", "village", "--players", "2", "--agents", clocked, "--games", "2"]
    assert balance.main([*args, "--db", str(db), "--out", str(out), "--no-progress"]) == 0
    first = capsys.readouterr().out.splitlines()[0]
    assert first.startswith("NOT REPRODUCIBLE: ") and clocked in first and "--workers" in first
    assert (out / "report.md").read_text().splitlines().count(first) == 1
    assert json.loads((out / "result.json").read_text())["tournament"]["notice"] == first
    with GameStore(db, "village") as st:
        assert [t["config"]["machine_dependent"] for t in st.tournaments()] == [[clocked]]


def test_balance_cli_refuses_a_bad_variant_file_and_stores_nothing(tmp_path, capsys):
    variant = tmp_path / "bad.json"
    variant.write_text(json.dumps({"game": "village", "values": {"NO_SUCH_KEY": 1}}))
    db = tmp_path / "b.sqlite"
    args = ["--game", "village", "--players", "2", "--agents", "random", "--games", "2"]
    args += ["--db", str(db), "--out", str(tmp_path / "r"), "--rules", str(variant)]
    with pytest.raises(SystemExit) as e:
        balance.main(args + ["--no-progress"])
    assert e.value.code == 2
    assert "NO_SUCH_KEY" in capsys.readouterr().err
    assert not db.exists() or GameStore(db, "village").count() == 0


def test_balance_cli_refuses_a_variant_that_changes_nothing_and_stores_nothing(tmp_path, capsys):
    """A file that sets a key to its default value has the current rules' hash: there is no
    variant to compare, so the study is refused before any game is played."""
    variant = tmp_path / "same.json"
    variant.write_text(json.dumps({"game": "village", "values": {"STARTING_COINS": 1}}))
    db = tmp_path / "b.sqlite"
    args = ["--game", "village", "--players", "2", "--agents", "random", "--games", "2"]
    args += ["--db", str(db), "--out", str(tmp_path / "r"), "--rules", str(variant)]
    with pytest.raises(SystemExit) as e:
        balance.main(args + ["--no-progress"])
    assert e.value.code == 2
    assert "changes nothing" in capsys.readouterr().err
    assert not db.exists() and not (tmp_path / "r").exists()


def test_balance_benchmark_runs_end_to_end(tmp_path):
    from benchmarks import balance as bench

    out = tmp_path / "out"
    args = ["--game", "troyes", "--players", "2", "--games", "4", "--agent", "random"]
    args += ["--db", str(tmp_path / "b.sqlite"), "--workers", "1", "--out", str(out)]
    assert bench.main(args) == 0
    res = json.loads((out / "troyes_2p.json").read_text())
    assert res["games"] == 4 and res["rules_data_hash"] == get_game("troyes").RULES_DATA_HASH
    assert res["seconds"]["total_analysis"] > 0 and res["decisions"] > 0


@pytest.mark.parametrize("name", GAMES)
def test_a_game_with_no_stats_module_and_no_score_sources_gets_the_generic_study(
    tmp_path, monkeypatch, name
):
    """Balance studies work for any game: without a stats module (GameSpec.stats), score sources
    (SCORE_SOURCES + a `score_src` segment) or a `round` segment, a study reads the scores (one
    source, "score"), the actions and the turns, and writes its report."""
    import dataclasses

    from training.balance import game_stats as gs

    game = get_game(name)
    players = min(game.PLAYER_COUNTS)
    monkeypatch.setattr(game.GAME, "spec", dataclasses.replace(game.GAME.spec, stats=None))
    monkeypatch.delattr(game, "SCORE_SOURCES", raising=False)
    monkeypatch.setattr(gs, "round_field", lambda g: (g.GAME.spec.fields.actor, False))
    t, db = _tournament(tmp_path, name, players, 2 * players)
    st = collect(name, t["records"])
    assert st.sources == ("score",) and st.resources == () and st.items == ()
    assert (st.points[:, :, 0] == st.scores).all()
    assert st.gained.shape == (len(st), players, 0) and st.in_play.shape == (len(st), 0)
    assert (st.deaths == 0).all()
    # a round is a turn here: at least one snapshot per change of the seat to act, and the last
    assert (st.rounds >= 1).all() and (st.rounds <= st.decisions + 1).all()
    assert st.actions.sum() == st.decisions.sum()
    out = tmp_path / "report"
    argv = ["--game", name, "--players", str(players), "--agents", "random"]
    argv += ["--games", str(2 * players), "--db", str(db), "--out", str(out), "--no-progress"]
    assert balance.main(argv) == 0
    assert "score" in (out / "report.md").read_text()
