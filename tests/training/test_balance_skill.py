"""Skill traces (training.balance.skill): budgets and search families read from specs, the
regression on log2(budget) against exact data, the figures of constructed games, and the command
end to end with its refusals."""

from __future__ import annotations

import json
import sys
from dataclasses import replace

import numpy as np
import pytest

from training.balance import skill
from training.balance.results import FigureRow

sys.path.insert(0, __file__.rsplit("/", 1)[0])
from test_balance_paired import constructed  # noqa: E402


def test_budgets_and_families_of_specs():
    assert skill.budget_of("mcts:iters=400") == 400
    assert skill.budget_of("mcts:c=0.7,iters=50,rollout=greedy") == 50
    assert skill.budget_of("az:net,sims=100") == 100
    assert skill.budget_of("heuristic") is None and skill.budget_of("mcts:iters=4x") is None
    assert skill.search_family("mcts:iters=400") == "mcts"
    assert skill.search_family("mcts:c=0.7,iters=50,rollout=greedy") == "mcts:c=0.7,rollout=greedy"
    assert skill.search_family("mcts:iters=50,c=0.7") == "mcts:c=0.7"


def test_the_trend_on_exact_data_recovers_slope_and_prediction():
    """A figure that rises by exactly 0.02 per doubling, equal intervals: slope 0.02, and one
    doubling beyond 800 (1600) predicts 0.40 + 0.02 * log2(1600 / 100) = 0.48."""
    budgets = [100, 200, 400, 800]
    rows = [
        FigureRow("s", 0.40 + 0.02 * k, 0.40 + 0.02 * k - 0.05, 0.40 + 0.02 * k + 0.05, "", 100)
        for k in range(4)
    ]
    fit = skill.extrapolate(budgets, rows)
    assert fit.slope_per_doubling == pytest.approx(0.02)
    assert fit.next_budget == 1600 and fit.predicted == pytest.approx(0.48)
    assert fit.slope_lo < 0.02 < fit.slope_hi and fit.predicted_lo < 0.48
    assert skill.extrapolate(budgets[:2], rows[:2]) is None  # two levels: no trend


def test_the_next_budget_is_one_exact_doubling_and_a_share_stays_inside_0_1():
    """log2 of 25, 50, 100 is not exact in floats: 2 ** (log2(100) + 1) is 199.99...; a share
    rising 0.3 per doubling is predicted past 1, and its interval is clipped to [0, 1]."""
    budgets = [25, 50, 100]
    rows = [
        FigureRow("s", 0.3 + 0.3 * k, 0.25 + 0.3 * k, 0.35 + 0.3 * k, "win share", 100)
        for k in range(3)
    ]
    fit = skill.extrapolate(budgets, rows)
    assert fit.next_budget == 200
    assert fit.predicted == fit.predicted_hi == 1.0 and 0.0 <= fit.predicted_lo <= 1.0
    margin = [replace(r, mean=3 - 3 * k, unit="points") for k, r in enumerate(rows)]
    fit = skill.extrapolate(budgets, margin)
    assert fit.predicted == fit.predicted_lo == 0.0  # a margin is never negative


def test_figures_of_constructed_games():
    st = constructed(np.array([True] * 6 + [False] * 4))  # seat 0 wins 6 of 10, margins 5
    seats = skill.figure_rows(st, "seats")
    assert [r.mean for r in seats] == [0.6, 0.4] and seats[0].lo < 0.6 < seats[0].hi
    (src,) = skill.figure_rows(st, "sources")  # one source: every point from it
    assert (src.mean, src.lo, src.hi) == (1.0, 1.0, 1.0)
    (margin,) = skill.figure_rows(st, "margin")
    assert margin.mean == 5.0
    with pytest.raises(ValueError, match="no item"):
        skill.check_figures(["item:Z"], ("A",))
    with pytest.raises(ValueError, match="use seats"):
        skill.check_figures(["lift"], ("A",))


def test_skill_command_end_to_end_and_its_refusals(tmp_path, capsys):
    out, db = tmp_path / "skill", tmp_path / "k.sqlite"
    args = ["--game", "village", "--players", "2", "--games", "4", "--db", str(db)]
    args += ["--out", str(out), "--no-progress"]
    ok = [*args, "--agents", "random", "heuristic", "--figures", "seats", "margin"]
    assert skill.main([*ok, "--check-strength"]) == 0
    res = json.loads((out / "result.json").read_text())
    assert [lv["agent"] for lv in res["levels"]] == ["random", "heuristic"]
    assert res["levels"][1]["vs_previous"]["games"] == 4
    assert "Does the ladder rise?" in (out / "report.md").read_text()
    assert (out / "skill.png").stat().st_size > 1000
    capsys.readouterr()
    for extra, what in (
        (["--agents", "random"], "at least two"),
        (["--agents", "random", "heuristic", "--figures", "item:NOPE"], "no item"),
    ):
        with pytest.raises(SystemExit) as e:
            skill.main([*args, *extra])
        assert e.value.code == 2 and what in capsys.readouterr().err
