"""Rules tuning (training.balance.ntbea, training.balance.tune): NTBEA finds the known optimum of
a noisy synthetic objective; the losses, the paired bootstrap, Holm's adjustment, the one-step
deviation check and the return to fewer changes give known answers on constructed data; the
command runs end to end and refuses bad input before playing."""

from __future__ import annotations

import json
import sys

import numpy as np
import pytest

from training.balance import ntbea as nt
from training.balance import tune

sys.path.insert(0, __file__.rsplit("/", 1)[0])
from test_balance_paired import constructed  # noqa: E402


def test_ntbea_finds_the_optimum_of_a_noisy_synthetic_objective():
    """216 points, optimum (4, 1, 3), noise sd 2 against steps of 1 near the optimum: with 150
    evaluations the recommendation is the optimum for most seeds and next to it for the rest,
    where 150 random points would see the optimum in about half of the runs."""
    found, near = 0, 0
    for seed in range(10):
        rng = np.random.default_rng(100 + seed)

        def f(x, rng=rng):
            return -((x[0] - 4) ** 2 + (x[1] - 1) ** 2 + (x[2] - 3) ** 2) + rng.normal(0, 2)

        best = nt.ntbea((6, 6, 6), f, 150, seed=seed).best
        found += best == (4, 1, 3)
        near += sum(abs(a - b) for a, b in zip(best, (4, 1, 3), strict=True)) <= 1
    assert found >= 7 and near == 10


def test_ntbea_is_deterministic_and_refuses_an_empty_budget():
    def f(x):
        return -abs(x[0] - 2)

    a = nt.ntbea((5,), f, 10, seed=3)
    assert a == nt.ntbea((5,), f, 10, seed=3) and a.best == (2,)
    with pytest.raises(ValueError, match="budget"):
        nt.ntbea((5,), f, 0)


def test_objective_losses_on_known_values():
    win0 = np.array([True] * 6 + [False] * 4)  # seat 0 wins 0.6
    st = constructed(win0)
    fair = tune.parse_objective("seat-fairness")
    assert fair.loss(fair.columns(st).mean(0)) == pytest.approx(0.1)
    margin = tune.parse_objective("margin:3")
    assert margin.loss(margin.columns(st).mean(0)) == pytest.approx(2.0)  # margins are 5
    rounds = tune.parse_objective("rounds:12.5")
    assert rounds.loss(rounds.columns(st).mean(0)) == pytest.approx(2.5)  # 10 rounds
    lift = tune.parse_objective("item-lift:customer:T5", ("customer:T4 x=1", "customer:T5 y=2"))
    assert lift.item == "customer:T5 y=2"
    for bad, what in (("fairness", "use one of"), ("margin:x", ">= 0"), ("item-lift:Z", "no item")):
        with pytest.raises(ValueError, match=what):
            tune.parse_objective(bad, ("A", "B"))


def test_holm_adjustment_on_known_values():
    assert tune.holm([0.01, 0.04, 0.03, None]) == pytest.approx([0.03, 0.06, 0.06, None])


def synthetic_columns(edges: dict[tuple, float], n: int = 2000, seed: int = 0):
    """columns(point) for seat fairness at 2 players: on each of n shared deals a uniform u
    decides the winner (seat 0 when u < 0.5 + edge of the point), so points are paired."""
    u = np.random.default_rng(seed).random(n)

    def columns(point):
        w0 = (u < 0.5 + edges[point]).astype(np.float64)
        return np.stack([w0, 1.0 - w0], axis=1)

    return columns


def test_the_check_moves_to_a_significantly_better_deviation_then_confirms_it():
    """One key with three values; seat 0's edge is +0.10, +0.04 and 0.00: the check of value 0
    finds value 2 significantly fairer; the check of value 2 finds nothing better."""
    obj = tune.parse_objective("seat-fairness")
    columns = synthetic_columns({(0,): 0.10, (1,): 0.04, (2,): 0.0})
    first = tune.check(obj, columns, (0,), (3,))
    assert first.better == (2,)
    rows = {r.point: r for r in first.rows}
    assert rows[(2,)].diff < 0 and rows[(2,)].p_holm < 0.05
    second = tune.check(obj, columns, (2,), (3,))
    assert second.better is None
    same = tune.paired_loss_difference(obj, columns((0,)), columns((0,)))
    assert (same.diff, same.lo, same.hi, same.p) == (0.0, 0.0, 0.0, 1.0)


def test_fewer_changes_reverts_a_key_that_does_not_matter():
    """Two keys: the first removes the edge, the second changes nothing; from (1, 1) with the
    current rules at (0, 0), the second key goes back and the first stays."""
    obj = tune.parse_objective("seat-fairness")
    edges = {(0, 0): 0.10, (0, 1): 0.10, (1, 0): 0.0, (1, 1): 0.0}
    point, log = tune.simplify(obj, synthetic_columns(edges), (1, 1), (0, 0))
    assert point == (1, 0)
    assert [(r.dimension, r.reverted) for r in log] == [(0, False), (1, True)]


def test_tune_command_end_to_end_and_its_refusals(tmp_path, capsys):
    space = tmp_path / "space.json"
    space.write_text(json.dumps({"game": "village", "keys": {"STARTING_COINS": [2]}}))
    out, db = tmp_path / "tune", tmp_path / "t.sqlite"
    args = ["--game", "village", "--players", "2", "--agents", "random", "--games", "4"]
    args += ["--db", str(db), "--out", str(out), "--no-progress", "--check-games", "4"]
    ok = [*args, "--space", str(space), "--objective", "seat-fairness", "--budget", "3"]
    assert tune.main(ok) == 0
    res = json.loads((out / "result.json").read_text())
    assert res["sizes"] == [2] and res["current"] == [0]  # the current value 1 was added
    tuned = json.loads((out / "tuned.json").read_text())
    assert tuned["game"] == "village" and set(tuned["values"]) <= {"STARTING_COINS"}
    assert "Rules tuning" in (out / "report.md").read_text()
    assert (out / "tune.png").stat().st_size > 1000
    assert "tuned:" in capsys.readouterr().out
    base = tmp_path / "base.json"  # start from a variant: its value is the starting point
    base.write_text(json.dumps({"game": "village", "values": {"STARTING_COINS": 3}}))
    out2 = tmp_path / "tune2"
    based = [a if a != str(out) else str(out2) for a in ok]
    assert tune.main([*based, "--base", str(base)]) == 0
    res = json.loads((out2 / "result.json").read_text())
    assert res["current"] == [0] and res["sizes"] == [2]  # 3 added first, then 2
    assert "default rules with" in (out2 / "report.md").read_text()
    values = json.loads((out2 / "tuned.json").read_text())["values"]
    assert values in ({"STARTING_COINS": 3}, {"STARTING_COINS": 2})
    bad_space = tmp_path / "bad.json"
    bad_db = tmp_path / "none.sqlite"
    for content, objective, what in (
        ({"game": "village", "keys": {"NO_SUCH_KEY": [1]}}, "seat-fairness", "NO_SUCH_KEY"),
        ({"game": "village", "keys": {"STARTING_COINS": [-5]}}, "seat-fairness", "STARTING"),
        ({"game": "troyes", "keys": {"STARTING_COINS": [2]}}, "seat-fairness", "not 'village'"),
        ({"game": "village", "keys": {"STARTING_COINS": [2]}}, "length:3", "use one of"),
    ):
        bad_space.write_text(json.dumps(content))
        cmd = [a if a != str(db) else str(bad_db) for a in args]
        with pytest.raises(SystemExit) as e:
            tune.main([*cmd, "--space", str(bad_space), "--objective", objective])
        assert e.value.code == 2 and what in capsys.readouterr().err
    assert not bad_db.exists()
