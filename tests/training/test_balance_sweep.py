"""Sweeps of rules-data keys (training.balance.sweep): value parsing, the grid, the paired effects
of each point with corrections over the whole sweep, and the command end to end."""

from __future__ import annotations

import json
import sys

import numpy as np
import pytest

from core.registry import get_game
from training.arena.store import GameStore
from training.balance import sweep

sys.path.insert(0, __file__.rsplit("/", 1)[0])
from test_balance_paired import constructed  # noqa: E402


def test_values_are_json_or_an_inclusive_range():
    assert sweep.parse_values(["0:4:1"]) == [0, 1, 2, 3, 4]
    assert sweep.parse_values(["0.5:1.5:0.5"]) == [0.5, 1.0, 1.5]
    assert sweep.parse_values(["1", '"orange"', "[3,3,2]"]) == [1, "orange", [3, 3, 2]]
    for bad, what in (
        (["0:4:0"], "STEP > 0"),
        (["4:0:1"], "HI >= LO"),
        (["a:b:c"], "LO:HI:STEP"),
        (["orange"], "not a JSON value"),
        (["1", "1"], "twice"),
        (["0:1000:1"], "at most"),
    ):
        with pytest.raises(ValueError, match=what):
            sweep.parse_values(bad)


def test_the_grid_of_two_keys_and_its_limits():
    pts = sweep.grid(["A", "B"], [[1, 2], ["x", "y", "z"]])
    assert pts[:3] == [{"A": 1, "B": "x"}, {"A": 1, "B": "y"}, {"A": 1, "B": "z"}]
    assert len(pts) == 6
    with pytest.raises(ValueError, match="one or two"):
        sweep.grid(["A", "B", "C"], [[1], [2], [3]])
    with pytest.raises(ValueError, match="at most"):
        sweep.grid(["A", "B"], [list(range(9)), list(range(9))])


def test_sweep_effects_are_paired_exact_at_the_reference_and_corrected_over_the_sweep():
    """Three points: the reference (no games played: every effect exactly 0), a point that
    changes nothing measurable, and one that moves seat 0's win share by +0.09 (the planted
    edge of test_balance_paired): only that one is significant after the correction."""
    base_win0 = np.zeros(200, bool)
    base_win0[:100] = True
    strong = base_win0.copy()
    strong[100:124] = True
    strong[:6] = False
    base = constructed(base_win0)
    same_play = constructed(base_win0, rules="c" * 16)
    shifted = constructed(strong, rules="b" * 16)
    points = [{"K": 1}, {"K": 2}, {"K": 3}]
    rows = sweep.sweep_rows(base, points, [None, same_play, shifted])
    seat0 = {r["point"]: r for r in rows if r["figure"] == "win share, seat 0"}
    ref = seat0["K=1"]
    assert (ref["diff"], ref["lo"], ref["hi"], ref["p"]) == (0.0, 0.0, 0.0, 1.0)
    assert ref["rules_data_hash"] == base.rules_data_hash
    assert seat0["K=2"]["diff"] == 0.0 and seat0["K=2"]["p_bh"] == 1.0
    top = seat0["K=3"]
    assert top["diff"] == pytest.approx(0.09) and top["p_bh"] < 0.05 and top["adj_lo"] > 0
    assert all(r["p_bh"] >= r["p"] for r in rows)  # adjusted over the whole family
    assert len(rows) == 3 * len([r for r in rows if r["point"] == "K=1"])


def test_sweep_command_end_to_end(tmp_path, capsys):
    out, db = tmp_path / "sweep", tmp_path / "s.sqlite"
    args = ["--game", "village", "--players", "2", "--agents", "random", "--games", "4"]
    args += ["--db", str(db), "--out", str(out), "--no-progress"]
    assert sweep.main([*args, "--key", "STARTING_COINS", "--values", "1:2:1"]) == 0
    res = json.loads((out / "result.json").read_text())
    base_hash = get_game("village").RULES_DATA_HASH
    assert res["base_rules_data_hash"] == base_hash
    assert [p["point"] for p in res["points"]] == ["STARTING_COINS=1", "STARTING_COINS=2"]
    assert res["points"][0]["rules_data_hash"] == base_hash  # the default value: the reference
    with GameStore(db, "village") as st:  # the reference point played nothing of its own
        assert len({r.rules_data_hash for r in st.games()}) == 2
    text = (out / "report.md").read_text()
    assert "## win share, seat 0" in text and base_hash in text
    assert (out / "sweep.png").stat().st_size > 1000 and (out / "sweep.csv").exists()
    assert "2 points x 4 games" in capsys.readouterr().out


def test_sweep_command_refuses_bad_keys_and_figures_before_playing(tmp_path, capsys):
    db = tmp_path / "s.sqlite"
    args = ["--game", "village", "--players", "2", "--agents", "random", "--games", "2"]
    args += ["--db", str(db), "--out", str(tmp_path / "o"), "--no-progress"]
    for extra, what in (
        (["--key", "NO_SUCH_KEY", "--values", "1"], "NO_SUCH_KEY"),
        (["--key", "STARTING_COINS", "--values", "1", "--figures", "nonsense"], "not a figure"),
    ):
        with pytest.raises(SystemExit) as e:
            sweep.main(args + extra)
        assert e.value.code == 2 and what in capsys.readouterr().err
    assert not db.exists()
