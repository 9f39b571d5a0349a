"""training.arena.tournament: agent specs, the duplicate schedule, workers, resuming, a killed
worker,
SPRT, the CLI and its report."""

from __future__ import annotations

import dataclasses
import json
import sys
from concurrent.futures.process import BrokenProcessPool

import pytest

import village_env
from training.agents.registry import AgentSpecError, agent_fingerprint, make_agent
from training.arena import tournament as tn
from training.arena.replay import replay
from training.arena.store import GameStore

RULES = village_env.RULES_DATA_HASH
FIRST = "py:tournament_agents:first_legal"


def _games(db) -> list[dict]:
    """Stored games without what legitimately differs between runs (ids, clocks)."""
    with GameStore(db, "village") as st:
        recs = list(st.games())
    skip = {"id", "wall_seconds", "finished_utc", "tournament_id"}
    out = [{k: v for k, v in dataclasses.asdict(r).items() if k not in skip} for r in recs]
    return sorted(out, key=lambda r: r["match_key"])


# -- agent specs ---------------------------------------------------------------------------------
@pytest.mark.parametrize(
    "spec, why",
    [
        ("nonsense", "neither a bot"),
        ("py:no_such_module_here:f", "cannot import"),
        ("py:tournament_agents:nothing", "no callable"),
        ("py:tournament_agents:not_callable", "no callable"),
        ("py:tournament_agents", "py:package.module:factory"),
        ("py:tournament_agents:broken", "the factory failed"),
        ("mcts:iters=-3", "mcts"),
    ],
)
def test_bad_specs_are_refused_in_one_line(spec, why):
    with pytest.raises(AgentSpecError) as e:
        make_agent(spec, "village", 2)
    msg = str(e.value)
    assert why in msg and "\n" not in msg
    if why == "neither a bot":  # lists what is accepted
        for accepted in ("random", "heuristic", "mcts", "checkpoint PATH", "py:"):
            assert accepted in msg


def test_user_agent_protocol():
    agent = make_agent(FIRST, "village", 2, seed=7)
    s = village_env.new_game(2, 1)
    assert agent.act(s) == int(village_env.legal_mask(s).nonzero()[0][0])
    assert agent.name == "first-legal"
    agent.reset(11)
    assert agent.inner.resets == [11]
    cheat = make_agent("py:tournament_agents:cheater", "village", 2)
    with pytest.raises(AgentSpecError, match="not a legal action"):
        cheat.act(s)


def test_fingerprints_follow_contents_not_names():
    fp = agent_fingerprint
    assert fp("mcts", "village") == fp("mcts:iters=1000", "village")  # the default, spelled out
    assert fp("mcts:iters=100", "village") != fp("mcts:iters=200", "village")
    # Troyes' own search defaults (GameSpec.search_defaults) are part of what `mcts` names there
    assert fp("mcts", "troyes") == fp("mcts:c=0.3,rollout=bot,cutoff=8,quiet=0", "troyes")
    assert fp("mcts", "troyes") != fp("mcts", "village")
    assert fp("heuristic", "village") != fp("random", "village")
    assert fp(FIRST, "village") == "py first-legal v1"  # the agent's own fingerprint


# -- the schedule --------------------------------------------------------------------------------
@pytest.mark.parametrize("players", [2, 3, 4])
def test_rotations_are_a_latin_square_on_one_deal(players):
    ents = tn.resolve_entrants("village", players, ["random", "heuristic", FIRST, "random"])
    jobs = tn.schedule(players, ents, "round-robin", 2 * players, 5, RULES)
    by_block: dict = {}
    for j in jobs:
        by_block.setdefault((j.lineup, j.deal), []).append(j)
    for (_lu, deal), block in by_block.items():
        assert len(block) == players
        assert {j.seed for j in block} == {tn.seed_of(5, deal)}  # the same deal every rotation
        for seat in range(players):  # every member in every seat once
            assert len({j.labels[seat] for j in block}) == players
    # the same deals in every line-up (common random numbers)
    deals = {(j.deal, j.seed) for j in jobs}
    assert len(deals) == 2
    assert len({j.match_key for j in jobs}) == len(jobs)


def test_adding_an_entrant_keeps_the_existing_games():
    a = tn.resolve_entrants("village", 2, ["random", "heuristic"])
    b = tn.resolve_entrants("village", 2, ["random", "heuristic", FIRST])
    ja = tn.schedule(2, a, "round-robin", 4, 0, RULES)
    jb = tn.schedule(2, b, "round-robin", 4, 0, RULES)
    assert {j.match_key for j in ja} <= {j.match_key for j in jb}
    assert len(jb) == 3 * len(ja)
    g = tn.schedule(2, b, f"gauntlet:{FIRST}", 4, 0, RULES)
    assert len(g) == 2 * 4 and all(FIRST in j.specs for j in g)
    with pytest.raises(ValueError, match="gauntlet"):
        tn.schedule(2, b, "gauntlet:nobody", 4, 0, RULES)
    with pytest.raises(ValueError, match="round-robin or gauntlet"):
        tn.schedule(2, b, "swiss", 4, 0, RULES)


# -- playing, workers, resuming --------------------------------------------------------------------
SPECS = ["random", "heuristic", FIRST]


def test_one_and_two_workers_give_identical_games_and_ratings(tmp_path):
    r1 = tn.run_tournament("village", 2, SPECS, 4, tmp_path / "a.sqlite", progress=False)
    r2 = tn.run_tournament("village", 2, SPECS, 4, tmp_path / "b.sqlite", workers=2, progress=False)
    assert r1["played_now"] == r2["played_now"] == 12
    assert _games(tmp_path / "a.sqlite") == _games(tmp_path / "b.sqlite")
    assert r1["board"] == r2["board"]
    # every stored game replays to its stored scores
    with GameStore(tmp_path / "b.sqlite", "village") as st:
        for rec in st.games():
            s, _ = replay(village_env, rec)
            assert [int(x) for x in village_env.scores(s)] == rec.scores
    # the same command again plays nothing; a new entrant plays only its own line-ups
    again = tn.run_tournament("village", 2, SPECS, 4, tmp_path / "a.sqlite", progress=False)
    assert again["played_now"] == 0 and again["board"] == r1["board"]
    more = tn.run_tournament(
        "village", 2, [*SPECS, "random"], 4, tmp_path / "a.sqlite", progress=False
    )
    assert more["played_now"] == 12  # 6 line-ups, the 3 with the second random are new
    assert more["stored_games"] == 24


def test_killed_worker_loses_and_duplicates_nothing(tmp_path, monkeypatch):
    db = tmp_path / "k.sqlite"
    specs = ["random", "py:tournament_agents:killer"]
    ents = tn.resolve_entrants("village", 2, specs)
    jobs = tn.schedule(2, ents, "round-robin", 12, 0, RULES)
    victim = jobs[7]
    seat = victim.labels.index(specs[1])
    kill_file = tmp_path / "kill"
    kill_file.write_text(str(victim.agent_seeds[seat]))
    monkeypatch.setenv("TOURNAMENT_TEST_KILL_FILE", str(kill_file))
    with pytest.raises(BrokenProcessPool):
        tn.run_tournament("village", 2, specs, 12, db, workers=2, progress=False)
    assert not kill_file.exists()  # the worker did die
    partial = _games(db)
    assert 0 < len(partial) < len(jobs)
    assert victim.match_key not in {g["match_key"] for g in partial}
    with GameStore(db, "village") as st:  # what was stored is whole: it replays
        for rec in st.games():
            replay(village_env, rec)
    done = tn.run_tournament("village", 2, specs, 12, db, workers=1, progress=False)
    assert done["played_now"] == len(jobs) - len(partial)
    full = _games(db)
    assert len(full) == len(jobs) == len({g["match_key"] for g in full})
    clean = tmp_path / "clean.sqlite"
    tn.run_tournament("village", 2, specs, 12, clean, workers=1, progress=False)
    assert full == _games(clean)


def test_ctrl_c_leaves_only_whole_games(tmp_path, monkeypatch):
    db = tmp_path / "i.sqlite"
    specs = ["random", "py:tournament_agents:interrupter"]
    ents = tn.resolve_entrants("village", 2, specs)
    jobs = tn.schedule(2, ents, "round-robin", 40, 0, RULES)
    victim = jobs[29]  # in the fourth chunk of 8 games
    kill_file = tmp_path / "kill"
    kill_file.write_text(str(victim.agent_seeds[victim.labels.index(specs[1])]))
    monkeypatch.setenv("TOURNAMENT_TEST_KILL_FILE", str(kill_file))
    with pytest.raises(KeyboardInterrupt):
        tn.run_tournament("village", 2, specs, 40, db, progress=False)
    partial = _games(db)
    assert len(partial) == 24  # the three chunks finished before the interrupted one
    with GameStore(db, "village") as st:
        for rec in st.games():
            replay(village_env, rec)
    done = tn.run_tournament("village", 2, specs, 40, db, progress=False)
    assert done["played_now"] == 16 and len(_games(db)) == 40


def test_sprt_stops_when_decided(tmp_path):
    r = tn.run_tournament(
        "village",
        2,
        ["heuristic", "random"],
        200,
        tmp_path / "s.sqlite",
        sprt=(0.0, 100.0),
        progress=False,
    )
    assert r["sprt"]["decision"] == "H1"
    assert r["stored_games"] < 200  # stopped early
    assert "heuristic" in r["sprt"]["text"]
    with pytest.raises(ValueError, match="head-to-head"):
        tn.run_tournament("village", 2, SPECS, 4, tmp_path / "x.sqlite", sprt=(0, 50))


def test_rules_hashes_are_not_pooled(tmp_path):
    db = tmp_path / "r.sqlite"
    tn.run_tournament("village", 2, ["random", "heuristic"], 2, db, progress=False)
    import sqlite3

    con = sqlite3.connect(db)  # as if the first games had been played under other rules data
    con.execute("UPDATE games SET rules_data_hash = 'other', match_key = match_key || 'x'")
    con.commit()
    con.close()
    r = tn.run_tournament("village", 2, ["random", "heuristic"], 2, db, progress=False)
    assert r["played_now"] == 2 and r["stored_games"] == 2
    pooled = tn.run_tournament(
        "village", 2, ["random", "heuristic"], 2, db, pool_rules=True, progress=False
    )
    assert pooled["stored_games"] == 4


def test_cli_report_and_errors(tmp_path, capsys):
    db = tmp_path / "c.sqlite"
    rc = tn.main(
        ["--game", "village", "--players", "2", "--agents", "random", "heuristic",
         "--games", "2", "--db", str(db), "--no-progress", "--report", str(tmp_path / "rep")]
    )  # fmt: skip
    assert rc == 0
    out = capsys.readouterr().out
    assert "heuristic" in out and RULES in out
    md = (tmp_path / "rep" / "leaderboard.md").read_text()
    assert "heuristic" in md and "random" in md and RULES in md
    for png in ("ratings.png", "winrates.png"):
        assert (tmp_path / "rep" / png).read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    res = json.loads((tmp_path / "rep" / "result.json").read_text())
    assert res["stored_games"] == 2 and res["rules_data_hash"] == RULES
    for argv, why in [
        (["--agents", "random", "bogus"], "neither a bot"),
        (["--agents", "random", "heuristic", "--games", "3"], "multiple of --players"),
        (["--agents", "random"], "at least --players"),
        (["--agents", "random", "heuristic", "--format", "swiss"], "round-robin or gauntlet"),
        (["--agents", "random", "heuristic", "--game", "troyes"], "store of 'village' games"),
        (["--agents", "random", "heuristic", "--sprt", "x"], "ELO0,ELO1"),
    ]:
        with pytest.raises(SystemExit):
            tn.main([*argv, "--db", str(db), "--no-progress"])
        assert why in capsys.readouterr().err


def test_backend_choices_and_a_missing_ray_are_one_line_errors(tmp_path, capsys, monkeypatch):
    db = str(tmp_path / "b.sqlite")
    argv = ["--agents", "random", "heuristic", "--games", "2", "--db", db, "--no-progress"]
    for extra, why in [
        (["--backend", "spark"], "choose from 'process', 'ray'"),
        (["--address", "auto"], "--address needs --backend ray"),
        (["--backend", "ray", "--address", "not an address"], "auto, HOST:PORT"),
    ]:
        with pytest.raises(SystemExit):
            tn.main([*argv, *extra])
        assert why in capsys.readouterr().err
    with pytest.raises(ValueError, match="one of process, ray"):
        tn.run_tournament("village", 2, SPECS, 2, db, backend="spark")
    monkeypatch.setitem(sys.modules, "ray", None)  # the extra not installed
    with pytest.raises(SystemExit):
        tn.main([*argv, "--backend", "ray"])
    assert 'needs the optional extra: pip install -e ".[ray]"' in capsys.readouterr().err
    assert not (tmp_path / "b.sqlite").exists()  # refused before the store is opened
