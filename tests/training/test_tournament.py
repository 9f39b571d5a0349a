"""training.arena.tournament: agent specs, the duplicate schedule, workers, resuming, a killed
worker,
SPRT, the CLI and its report."""

from __future__ import annotations

import dataclasses
import json
import math
import sys
from concurrent.futures.process import BrokenProcessPool

import pytest

import village_env
from core.bots import bot_names
from core.registry import game_names, get_game
from training.agents.registry import AgentSpecError, agent_fingerprint, make_agent
from training.arena import tournament as tn
from training.arena.replay import replay
from training.arena.store import GameStore

RULES = village_env.RULES_DATA_HASH
FIRST = "py:tournament_agents:first_legal"
GAME_PLAYERS = [(n, p) for n in game_names() for p in get_game(n).PLAYER_COUNTS]


def _bot(name: str) -> str:
    """A bot other than random that the game has (not every game has a heuristic)."""
    return "heuristic" if "heuristic" in bot_names(name) else "mcts:iters=20"


def _fewest(name: str) -> int:
    return min(get_game(name).PLAYER_COUNTS)


def _other_game(name: str) -> str:
    return next(n for n in game_names() if n != name)


def _games(db, name: str = "village") -> list[dict]:
    """Stored games without what legitimately differs between runs (ids, clocks)."""
    with GameStore(db, name) as st:
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
@pytest.mark.parametrize("name", game_names())
def test_bad_specs_are_refused_in_one_line(name, spec, why):
    with pytest.raises(AgentSpecError) as e:
        make_agent(spec, name, _fewest(name))
    msg = str(e.value)
    assert why in msg and "\n" not in msg
    if why == "neither a bot":  # lists what is accepted
        for accepted in (*bot_names(name), "mcts", "checkpoint PATH", "py:"):
            assert accepted in msg


@pytest.mark.parametrize("name", game_names())
def test_user_agent_protocol(name):
    g, p = get_game(name), _fewest(name)
    agent = make_agent(FIRST, name, p, seed=7)
    s = g.new_game(p, 1)
    assert agent.act(s) == int(g.legal_mask(s).nonzero()[0][0])
    assert agent.name == "first-legal"
    agent.reset(11)
    assert agent.inner.resets == [11]
    cheat = make_agent("py:tournament_agents:cheater", name, p)
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
@pytest.mark.parametrize("name, players", GAME_PLAYERS)
def test_rotations_are_a_latin_square_on_one_deal(name, players):
    specs = ["random", _bot(name), FIRST, "random"]
    specs += ["random"] * (players - len(specs))  # a game for more than 4 players
    ents = tn.resolve_entrants(name, players, specs)
    jobs = tn.schedule(players, ents, "round-robin", 2 * players, 5, get_game(name).RULES_DATA_HASH)
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


@pytest.mark.parametrize("name, players", GAME_PLAYERS)
def test_adding_an_entrant_keeps_the_existing_games(name, players):
    rules, games = get_game(name).RULES_DATA_HASH, 2 * players
    base = ["random", _bot(name)] + ["random"] * (players - 2)
    a = tn.resolve_entrants(name, players, base)
    b = tn.resolve_entrants(name, players, [*base, FIRST])
    ja = tn.schedule(players, a, "round-robin", games, 0, rules)
    jb = tn.schedule(players, b, "round-robin", games, 0, rules)
    assert len(ja) == games
    assert {j.match_key for j in ja} <= {j.match_key for j in jb}
    assert len(jb) == (players + 1) * len(ja)  # C(players + 1, players) line-ups
    g = tn.schedule(players, b, f"gauntlet:{FIRST}", games, 0, rules)
    assert len(g) == players * games and all(FIRST in j.specs for j in g)
    with pytest.raises(ValueError, match="gauntlet"):
        tn.schedule(players, b, "gauntlet:nobody", games, 0, rules)
    with pytest.raises(ValueError, match="round-robin or gauntlet"):
        tn.schedule(players, b, "swiss", games, 0, rules)


# -- playing, workers, resuming --------------------------------------------------------------------
SPECS = ["random", "heuristic", FIRST]


def _specs(name: str) -> list[str]:
    return ["random", _bot(name), FIRST]


@pytest.mark.parametrize("name", game_names())
def test_one_and_two_workers_give_identical_games_and_ratings(name, tmp_path):
    g, p, specs = get_game(name), _fewest(name), _specs(name)
    games = 2 * p
    run = tn.run_tournament
    r1 = run(name, p, specs, games, tmp_path / "a.sqlite", progress=False)
    r2 = run(name, p, specs, games, tmp_path / "b.sqlite", workers=2, progress=False)
    line_ups = math.comb(3, p)
    assert r1["played_now"] == r2["played_now"] == line_ups * games
    assert _games(tmp_path / "a.sqlite", name) == _games(tmp_path / "b.sqlite", name)
    assert r1["board"] == r2["board"]
    # every stored game replays to its stored scores
    with GameStore(tmp_path / "b.sqlite", name) as st:
        for rec in st.games():
            s, _ = replay(g, rec)
            assert [int(x) for x in g.scores(s)] == rec.scores
    # the same command again plays nothing; a new entrant plays only its own line-ups
    again = run(name, p, specs, games, tmp_path / "a.sqlite", progress=False)
    assert again["played_now"] == 0 and again["board"] == r1["board"]
    more = run(name, p, [*specs, "random"], games, tmp_path / "a.sqlite", progress=False)
    # only the line-ups with the second random are new
    assert more["played_now"] == (math.comb(4, p) - line_ups) * games
    assert more["stored_games"] == math.comb(4, p) * games


@pytest.mark.parametrize("name", game_names())
def test_killed_worker_loses_and_duplicates_nothing(name, tmp_path, monkeypatch):
    db = tmp_path / "k.sqlite"
    g, p = get_game(name), _fewest(name)
    specs = ["random", "py:tournament_agents:killer", *["random"] * (p - 2)]
    ents = tn.resolve_entrants(name, p, specs)
    jobs = tn.schedule(p, ents, "round-robin", 12, 0, g.RULES_DATA_HASH)
    victim = jobs[7]
    seat = victim.labels.index(specs[1])
    kill_file = tmp_path / "kill"
    kill_file.write_text(str(victim.agent_seeds[seat]))
    monkeypatch.setenv("TOURNAMENT_TEST_KILL_FILE", str(kill_file))
    with pytest.raises(BrokenProcessPool):
        tn.run_tournament(name, p, specs, 12, db, workers=2, progress=False)
    assert not kill_file.exists()  # the worker did die
    partial = _games(db, name)
    assert 0 < len(partial) < len(jobs)
    assert victim.match_key not in {r["match_key"] for r in partial}
    with GameStore(db, name) as st:  # what was stored is whole: it replays
        for rec in st.games():
            replay(g, rec)
    done = tn.run_tournament(name, p, specs, 12, db, workers=1, progress=False)
    assert done["played_now"] == len(jobs) - len(partial)
    full = _games(db, name)
    assert len(full) == len(jobs) == len({r["match_key"] for r in full})
    clean = tmp_path / "clean.sqlite"
    tn.run_tournament(name, p, specs, 12, clean, workers=1, progress=False)
    assert full == _games(clean, name)


@pytest.mark.parametrize("name", game_names())
def test_ctrl_c_leaves_only_whole_games(name, tmp_path, monkeypatch):
    db = tmp_path / "i.sqlite"
    g, p = get_game(name), _fewest(name)
    games = math.lcm(40, p)  # 5 chunks of 8 games (more for a game of at least 3 players)
    specs = ["random", "py:tournament_agents:interrupter", *["random"] * (p - 2)]
    ents = tn.resolve_entrants(name, p, specs)
    jobs = tn.schedule(p, ents, "round-robin", games, 0, g.RULES_DATA_HASH)
    assert len(jobs) == games
    victim = jobs[29]  # in the fourth chunk of 8 games
    kill_file = tmp_path / "kill"
    kill_file.write_text(str(victim.agent_seeds[victim.labels.index(specs[1])]))
    monkeypatch.setenv("TOURNAMENT_TEST_KILL_FILE", str(kill_file))
    with pytest.raises(KeyboardInterrupt):
        tn.run_tournament(name, p, specs, games, db, progress=False)
    partial = _games(db, name)
    assert len(partial) == 24  # the three chunks finished before the interrupted one
    with GameStore(db, name) as st:
        for rec in st.games():
            replay(g, rec)
    done = tn.run_tournament(name, p, specs, games, db, progress=False)
    assert done["played_now"] == games - 24 and len(_games(db, name)) == games


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


@pytest.mark.parametrize("name", game_names())
def test_rules_hashes_are_not_pooled(name, tmp_path):
    db = tmp_path / "r.sqlite"
    p = _fewest(name)
    specs = ["random", _bot(name), *["random"] * (p - 2)]
    tn.run_tournament(name, p, specs, p, db, progress=False)
    import sqlite3

    con = sqlite3.connect(db)  # as if the first games had been played under other rules data
    con.execute("UPDATE games SET rules_data_hash = 'other', match_key = match_key || 'x'")
    con.commit()
    con.close()
    r = tn.run_tournament(name, p, specs, p, db, progress=False)
    assert r["played_now"] == p and r["stored_games"] == p
    pooled = tn.run_tournament(name, p, specs, p, db, pool_rules=True, progress=False)
    assert pooled["stored_games"] == 2 * p


@pytest.mark.parametrize("name", game_names())
def test_cli_report_and_errors(name, tmp_path, capsys):
    db = tmp_path / "c.sqlite"
    bot, rules, other = _bot(name), get_game(name).RULES_DATA_HASH, _other_game(name)
    p = _fewest(name)
    pair = ["random", bot, *["random"] * (p - 2)]
    rc = tn.main(
        ["--game", name, "--players", str(p), "--agents", *pair,
         "--games", str(p), "--db", str(db), "--no-progress", "--report", str(tmp_path / "rep")]
    )  # fmt: skip
    assert rc == 0
    out = capsys.readouterr().out
    assert bot in out and rules in out
    md = (tmp_path / "rep" / "leaderboard.md").read_text()
    assert bot in md and "random" in md and rules in md
    for png in ("ratings.png", "winrates.png"):
        assert (tmp_path / "rep" / png).read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    res = json.loads((tmp_path / "rep" / "result.json").read_text())
    assert res["stored_games"] == p and res["rules_data_hash"] == rules
    for argv, why in [
        (["--agents", *pair[:-1], "bogus"], "neither a bot"),
        (["--agents", *pair, "--games", str(p + 1)], "multiple of --players"),
        (["--agents", *pair[:-1]], "at least --players"),
        (["--agents", *pair, "--format", "swiss"], "round-robin or gauntlet"),
        (["--agents", *["random"] * p, "--game", other], f"store of '{name}' games"),
        (["--agents", *pair, "--sprt", "x"], "ELO0,ELO1"),
    ]:
        with pytest.raises(SystemExit):
            tn.main(["--game", name, "--players", str(p), *argv, "--db", str(db), "--no-progress"])
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
