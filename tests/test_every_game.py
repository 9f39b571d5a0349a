"""Every registered game through every generic path, through its package and the registry alone
(the plug-in contract, DESIGN D14): evaluation, a tournament and its verified replay, the `mcts`
agent, a tiny training run, a balance study, the viewer's JSON and the benchmarks' engine rows.

Village and Troyes have deeper tests of each path; this module is what proves that a new game
(the example `chipin`, or one registered by a user's entry point) gets all of them by writing its
package. Nothing here names a game.
"""

from __future__ import annotations

import json

import numpy as np
import pytest

from benchmarks import engine_speed
from core.bots import bot_names
from core.registry import game_names, get_game
from training.arena.evaluate import evaluate
from training.arena.replay import replay
from training.arena.store import GameStore
from training.arena.tournament import run_tournament
from training.balance import study
from training.learn.train import TrainConfig, train
from training.view.positions import position

GAMES = game_names()


def _players(name: str) -> int:
    return min(get_game(name).PLAYER_COUNTS)


def _second_agent(name: str) -> str:
    """A stronger agent than `random` that every game has: its heuristic, else a tiny search."""
    return "heuristic" if "heuristic" in bot_names(name) else "mcts:iters=20"


@pytest.mark.parametrize("name", GAMES)
def test_evaluate_a_tournament_and_its_replay(name, tmp_path):
    n = _players(name)
    agents = ["random"] * (n - 1) + [_second_agent(name)]  # one agent a seat
    ev = evaluate(name, n, agents, games=2 * n, seed=0)
    assert ev["games"] == 2 * n and ev["game"] == name
    shares = sum(a["win_rate"] for a in ev["agents"])
    assert 0.0 < shares <= 1.0 + 1e-9  # ties are shared, never counted twice
    db = tmp_path / "t.sqlite"
    specs = ["random", "mcts:iters=20", agents[-1]] if n == 2 else ["random", *agents]
    r = run_tournament(name, n, specs, n, db, progress=False)
    assert r["played_now"] > 0
    with GameStore(db, name, create=False) as store:
        ids = [rec.id for rec in store.games()]
        assert len(ids) == r["played_now"]
        for gid in ids:
            rec = store.game(gid)
            seen = []  # re-simulated and checked against the store (ReplayMismatch otherwise)
            final, steps = replay(get_game(name), rec, visit=seen.append)
            assert len(seen) == len(steps) + 1 == rec.decisions + 1
            assert [int(x) for x in get_game(name).scores(final)] == rec.scores


@pytest.mark.parametrize("name", GAMES)
def test_the_viewer_json_of_every_position(name):
    game = get_game(name)
    rng = np.random.default_rng(0)
    s = game.new_game(_players(name), seed=1)
    while True:
        pos = json.loads(json.dumps(position(game, s)))
        assert pos["game"] == name
        if game.is_terminal(s):
            break
        s = game.step(s, int(rng.choice(np.flatnonzero(game.legal_mask(s)))))


@pytest.mark.slow  # the benchmark's engine rows, each measured for a while
@pytest.mark.parametrize("name", GAMES)
def test_the_benchmark_engine_rows(name):
    game = get_game(name)
    n = max(game.PLAYER_COUNTS)
    for row in (engine_speed.compiled_loop, engine_speed.api_loop, engine_speed.aec_loop):
        out = row(game, n, 0.05)
        assert out["decisions"] > 0 and out["games"] >= 0, (row.__name__, out)


@pytest.mark.slow
@pytest.mark.parametrize("name", GAMES)
def test_a_tiny_training_run_and_a_balance_study(name, tmp_path):
    cfg = TrainConfig(
        game=name,
        players=_players(name),
        timesteps=512,
        n_envs=2,
        n_steps=128,
        batch_size=128,
        snapshot_every=256,
        checkpoint_every=512,
        out=str(tmp_path / "run"),
        progress_bar=False,
        tensorboard=False,
    )
    summary = train(cfg)
    assert summary["timesteps"] >= 512
    agents = [summary["final_checkpoint"]] + ["random"] * (cfg.players - 1)
    ev = evaluate(name, cfg.players, agents, 2 * cfg.players)
    assert ev["games"] == 2 * cfg.players
    out = tmp_path / "balance"
    argv = ["--game", name, "--players", str(_players(name)), "--agents", "random"]
    argv += ["--games", str(2 * _players(name)), "--db", str(tmp_path / "b.sqlite")]
    assert study.main([*argv, "--out", str(out), "--no-progress"]) == 0
    report = (out / "report.md").read_text()
    assert name in report and get_game(name).RULES_DATA_HASH in report


@pytest.mark.parametrize("name", GAMES)
def test_a_balance_report_says_what_a_game_does_not_count_instead_of_empty_tables(name, tmp_path):
    out = tmp_path / "balance"
    n = _players(name)
    argv = ["--game", name, "--players", str(n), "--agents", "random", "--games", str(2 * n)]
    argv += ["--db", str(tmp_path / "b.sqlite"), "--out", str(out), "--no-progress"]
    assert study.main(argv) == 0
    report = (out / "report.md").read_text()
    result = json.loads((out / "result.json").read_text())
    has_items = bool(result["analysis"]["items"]) if "analysis" in result else None
    items_table = "| item | comparison |" in report
    resources_table = "| resource | gained |" in report
    assert items_table != (f"{name} names no items" in report)
    assert resources_table != (f"{name} counts no resources" in report)
    if get_game(name).GAME.spec.stats is None:  # no statistics module: neither table
        assert not items_table and not resources_table
    assert has_items is None or has_items == items_table
