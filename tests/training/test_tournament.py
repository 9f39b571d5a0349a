"""training.arena.tournament: agent specs, the duplicate schedule, workers, resuming, a killed
worker, a killed driver, SPRT, time budgets said out loud, the CLI and its report."""

from __future__ import annotations

import dataclasses
import hashlib
import json
import math
import sqlite3
import subprocess
import sys
from concurrent.futures.process import BrokenProcessPool

import process_helpers as ph
import pytest

import village_env
from core.bots import bot_names
from core.registry import game_names, get_game
from training.agents.registry import (
    AgentSpecError,
    agent_fingerprint,
    machine_dependent,
    make_agent,
)
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
    """One entrant more than the game's fewest players: random, its bot, first-legal (and random
    in the seats past 2)."""
    return ["random", _bot(name), FIRST, *["random"] * (_fewest(name) - 2)]


@pytest.mark.slow  # worker processes or many games: CI runs it, the fast loop skips it
@pytest.mark.parametrize("name", game_names())
def test_one_and_two_workers_give_identical_games_and_ratings(name, tmp_path):
    g, p, specs = get_game(name), _fewest(name), _specs(name)
    games = 2 * p
    run = tn.run_tournament
    r1 = run(name, p, specs, games, tmp_path / "a.sqlite", progress=False)
    r2 = run(name, p, specs, games, tmp_path / "b.sqlite", workers=2, progress=False)
    line_ups = math.comb(len(specs), p)
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
    assert more["played_now"] == (math.comb(len(specs) + 1, p) - line_ups) * games
    assert more["stored_games"] == math.comb(len(specs) + 1, p) * games


@pytest.mark.slow  # worker processes or many games: CI runs it, the fast loop skips it
@pytest.mark.parametrize("name", game_names())
def test_killed_worker_loses_and_duplicates_nothing(name, tmp_path, monkeypatch):
    db = tmp_path / "k.sqlite"
    g, p = get_game(name), _fewest(name)
    games = math.lcm(12, p)  # 12 at 2, 3 or 4 players
    specs = ["random", "py:tournament_agents:killer", *["random"] * (p - 2)]
    ents = tn.resolve_entrants(name, p, specs)
    jobs = tn.schedule(p, ents, "round-robin", games, 0, g.RULES_DATA_HASH)
    victim = jobs[7]
    seat = victim.labels.index(specs[1])
    kill_file = tmp_path / "kill"
    kill_file.write_text(str(victim.agent_seeds[seat]))
    monkeypatch.setenv("TOURNAMENT_TEST_KILL_FILE", str(kill_file))
    with pytest.raises(BrokenProcessPool):
        tn.run_tournament(name, p, specs, games, db, workers=2, progress=False)
    assert not kill_file.exists()  # the worker did die
    partial = _games(db, name)
    assert 0 < len(partial) < len(jobs)
    assert victim.match_key not in {r["match_key"] for r in partial}
    with GameStore(db, name) as st:  # what was stored is whole: it replays
        for rec in st.games():
            replay(g, rec)
    done = tn.run_tournament(name, p, specs, games, db, workers=1, progress=False)
    assert done["played_now"] == len(jobs) - len(partial)
    full = _games(db, name)
    assert len(full) == len(jobs) == len({r["match_key"] for r in full})
    clean = tmp_path / "clean.sqlite"
    tn.run_tournament(name, p, specs, games, clean, workers=1, progress=False)
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
        # a valid --games beside each error: the default (20) is no multiple of 3 players
        base = ["--game", name, "--players", str(p), "--games", str(p)]
        with pytest.raises(SystemExit):
            tn.main([*base, *argv, "--db", str(db), "--no-progress"])
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


# -- time budgets said out loud ----------------------------------------------------------------
CLOCKED = "mcts:time=0.002,iters=3"  # a time budget (capped at 3 iterations: cheap)


@pytest.mark.parametrize(
    "spec, dependent",
    [
        (CLOCKED, True),
        ("mcts:time=0.5", True),
        ("mcts:iters=30", False),
        ("mcts", False),
        ("random", False),
        ("heuristic", False),
        (FIRST, False),
        ("py:tournament_agents:clocked", True),  # the user protocol's machine_dependent
    ],
)
def test_machine_dependence_is_decided_in_one_place(spec, dependent):
    assert machine_dependent(spec, "village", 2) is dependent


def test_a_time_budget_is_said_out_loud(tmp_path, capsys):
    """Finding: with a time budget (`mcts:time=0.003`) every game differed between --workers 1
    and --workers 2 and nothing said so, while the docs said results never depend on --workers.
    The first line, the leaderboard and the store now say that the results depend on the
    machine and on --workers; a tournament without a time budget says nothing of the kind."""
    db, rep = tmp_path / "t.sqlite", tmp_path / "rep"
    argv = ["--game", "village", "--players", "2", "--games", "2", "--db", str(db)]
    argv += ["--no-progress", "--report", str(rep)]
    assert tn.main([*argv, "--agents", "random", CLOCKED]) == 0
    out = capsys.readouterr().out.splitlines()
    notice = out[0]
    assert notice.startswith("NOT REPRODUCIBLE: ") and CLOCKED in notice
    assert "--workers" in notice and "machine" in notice and "\n" not in notice
    assert out.count(notice) == 2  # the first line, and under the leaderboard
    md = (rep / "leaderboard.md").read_text().splitlines()
    assert md.count(notice) == 1
    res = json.loads((rep / "result.json").read_text())
    assert res["machine_dependent"] == [CLOCKED] and res["notice"] == notice
    with GameStore(db, "village") as st:
        (t,) = st.tournaments()
    assert t["config"]["machine_dependent"] == [CLOCKED]

    # an iteration budget: reproducible, and nothing says otherwise
    assert tn.main([*argv, "--agents", "random", "mcts:iters=3"]) == 0
    out = capsys.readouterr().out
    assert "NOT REPRODUCIBLE" not in out
    assert "NOT REPRODUCIBLE" not in (rep / "leaderboard.md").read_text()
    assert json.loads((rep / "result.json").read_text())["machine_dependent"] == []
    with GameStore(db, "village") as st:
        assert [t["config"]["machine_dependent"] for t in st.tournaments()] == [[CLOCKED], []]


def test_the_store_flag_does_not_change_the_tournament_key(tmp_path):
    """The flag is recorded beside the configuration, not in the key: a store written before the
    flag existed resumes the same tournament."""
    db = tmp_path / "k.sqlite"
    tn.run_tournament("village", 2, ["random", "heuristic"], 2, db, progress=False)
    con = sqlite3.connect(db)
    (key,) = con.execute("SELECT key FROM tournaments").fetchone()
    config = {
        "game": "village",
        "players": 2,
        "format": "round-robin",
        "games_per_lineup": 2,
        "seed": 0,
        "entrants": [[s, agent_fingerprint(s, "village", 2)] for s in ("random", "heuristic")],
        "sprt": None,
    }
    con.close()
    want = hashlib.sha256(json.dumps(config, sort_keys=True).encode()).hexdigest()
    assert key == want[:24]


# -- a killed driver ---------------------------------------------------------------------------
@pytest.mark.slow  # worker processes or many games: CI runs it, the fast loop skips it
@pytest.mark.skipif(not ph.usable(), reason="needs psutil or Linux /proc to find the workers")
@pytest.mark.parametrize("command", ["tournament", "evaluate"])
def test_pool_workers_end_when_the_driver_is_killed(command, tmp_path):
    """Finding: a SIGKILL of the tournament driver left its pool workers alive for ever (parent
    1, blocked on a pipe, about 185 MB each). Every process the driver started (the workers and
    multiprocessing's resource tracker) now ends with it."""
    ph.assert_workers_die_with_driver(ph.gated_command(command, tmp_path), tmp_path, timeout=60)


# -- one-line refusals -------------------------------------------------------------------------
@pytest.mark.parametrize(
    "argv, why",
    [
        (["--agents", "random", "heuristic", "--games", "3"], "multiple of --players"),
        (["--agents", "random", "nonsense", "--games", "2"], "neither a bot"),
        (["--agents", "random", "mcts:iters=0", "--games", "2"], "iters=0 is not allowed"),
        (["--agents", "random", "heuristic", "--workers", "0"], "--workers must be >= 1"),
        (["--agents", "random", "heuristic", "--backend", "spark"], "invalid choice"),
        (["--agents", "random", "heuristic", "--sprt", "x"], "ELO0,ELO1"),
        (["--agents", "random", "heuristic", "--players", "two"], "invalid int value"),
        (["--agents"], "expected at least one argument"),
    ],
)
def test_a_refusal_is_one_line(argv, why, tmp_path, capsys):
    """Finding: the tournament's refusal of bad arguments printed 9 lines of usage before its
    one-line error. A refusal is now one line naming the problem and pointing to --help, from
    argparse's own checks and from ours alike (training.arena.evaluate the same)."""
    db = tmp_path / "o.sqlite"
    with pytest.raises(SystemExit) as e:
        tn.main(["--game", "village", "--db", str(db), "--no-progress", *argv])
    assert e.value.code == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1, err
    assert err[0].startswith("python -m training.arena.tournament: error: ")
    assert why in err[0] and err[0].endswith("(--help lists the options)")
    assert not db.exists()  # refused before the store is created


WATCHED = """
import os, sys, time
from core.workers import die_with_driver
sys.platform = "{platform}"  # "darwin": no prctl, the watchdog thread alone
die_with_driver(os.getppid())
print("armed", flush=True)
time.sleep(600)
"""

MIDDLE = """
import subprocess, sys
worker = subprocess.Popen([sys.executable, "-c", sys.argv[1]], stdout=sys.stdout)
print(worker.pid, flush=True)
worker.wait()
"""


@pytest.mark.skipif(not ph.usable(), reason="needs psutil or Linux /proc to find the workers")
@pytest.mark.parametrize("platform", ["linux", "darwin"])
def test_die_with_driver_ends_an_orphan_on_every_platform(platform, tmp_path):
    """A pool worker ends with its driver on Linux (the kernel's parent death signal, the
    watchdog thread behind it) and elsewhere (here: sys.platform set to darwin, so no prctl: the
    watchdog thread alone, which sees the parent change). The driver is SIGKILLed; the worker
    must end."""
    argv = [sys.executable, "-c", MIDDLE, WATCHED.format(platform=platform)]
    middle = subprocess.Popen(argv, cwd=ph.REPO, stdout=subprocess.PIPE, text=True)
    worker = None
    try:
        worker = int(middle.stdout.readline())
        assert middle.stdout.readline().strip() == "armed"
        middle.kill()
        middle.wait(30)
        assert ph.wait_gone({worker}, 30) == set()
    finally:
        if middle.poll() is None:
            middle.kill()
            middle.wait(30)
        if worker is not None:
            ph.kill_all({worker})
        middle.stdout.close()


@pytest.mark.parametrize("name", game_names())
def test_a_misspelt_agent_gets_a_suggestion_in_a_short_line(name):
    bot = bot_names(name)[0]
    typo = bot[:-2] + bot[-1]  # one letter dropped
    with pytest.raises(AgentSpecError) as e:
        make_agent(typo, name, _fewest(name))
    msg = str(e.value)
    assert f"did you mean {bot!r}?" in msg and len(msg) < 300
    with pytest.raises(AgentSpecError) as e:
        make_agent("xyzzy", name, _fewest(name))
    assert "did you mean" not in str(e.value)
