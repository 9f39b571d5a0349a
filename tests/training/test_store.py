"""The game store (training.arena.store) and replay (training.arena.replay): refusals leave files
unchanged,
games are written whole and never twice, stored games replay to their stored scores."""

from __future__ import annotations

import hashlib
import json
import sqlite3

import pytest

from core.bots import bot_names
from core.registry import game_names, get_game
from training.arena import replay as rp
from training.arena.store import (
    SCHEMA_VERSION,
    GameStore,
    StoreError,
    pack_actions,
    unpack_actions,
)
from training.arena.tournament import resolve_entrants, run_jobs, schedule


def _sha(path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def _specs(name: str) -> list[str]:
    """random and another bot the game has (not every game has a heuristic), one per seat."""
    bot = "heuristic" if "heuristic" in bot_names(name) else "mcts:iters=20"
    return ["random", bot, *["random"] * (_players(name) - 2)]


def _players(name: str) -> int:
    return min(get_game(name).PLAYER_COUNTS)


def _fill(path, name: str) -> list:
    """One deal in every rotation of one line-up, stored (and not stored twice)."""
    p, specs = _players(name), _specs(name)
    ents = resolve_entrants(name, p, specs)
    jobs = schedule(p, ents, "round-robin", p, 3, get_game(name).RULES_DATA_HASH)
    with GameStore(path, name) as st:
        ids = {e.label: st.entrant_id(e.spec, e.fingerprint) for e in ents}
        tid = st.tournament_id("t", p, {"x": 1})
        todo = [(j, [ids[lab] for lab in j.labels]) for j in jobs]
        assert run_jobs(st, name, p, todo, tid, 1, False) == len(jobs)
        assert run_jobs(st, name, p, todo, tid, 1, False) == 0  # never twice
        assert st.count() == len(jobs)
        return list(st.games())


def test_actions_pack_roundtrip():
    acts = [0, 1, 341, 65535]
    assert unpack_actions(pack_actions(acts)) == acts
    assert len(pack_actions(acts)) == 2 * len(acts)


@pytest.mark.parametrize("name", game_names())
def test_stored_games_replay_to_their_scores(tmp_path, name):
    g, p = get_game(name), _players(name)
    recs = _fill(tmp_path / "s.sqlite", name)
    assert len(recs) == p
    assert len({r.seed for r in recs}) == 1  # one deal, every rotation
    if p == 2:
        assert recs[0].seats == recs[1].seats[::-1]
    for rec in recs:
        s, steps = rp.replay(g, rec, describe=True)
        assert [int(x) for x in g.scores(s)] == rec.scores
        assert len(steps) == rec.decisions == len(rec.actions) == len(rec.checks)
        assert rec.rules_data_hash == g.RULES_DATA_HASH
        assert all(st["description"] for st in steps)


@pytest.mark.parametrize("name", game_names())
def test_replay_names_the_first_diverging_decision(tmp_path, name):
    g = get_game(name)
    path = tmp_path / "s.sqlite"
    rec = _fill(path, name)[0]
    # a tampered action: the first decision with another legal choice
    s = g.new_game(_players(name), rec.seed)
    k = 0
    while True:
        a = rec.actions[k]
        legal = [int(x) for x in g.legal_mask(s).nonzero()[0] if x != a]
        if legal:
            break
        s = g.step(s, a)
        k += 1
    tampered = list(rec.actions)
    tampered[k] = legal[0]
    db = sqlite3.connect(path)
    db.execute("UPDATE games SET actions = ? WHERE id = ?", (pack_actions(tampered), rec.id))
    db.commit()
    db.close()
    with GameStore(path, name) as st:
        bad = st.game(rec.id)
    with pytest.raises(rp.ReplayMismatch, match=f"decision {k} "):
        rp.replay(g, bad)
    assert rp.main(["--db", str(path), "--game-id", str(rec.id)]) == 2


@pytest.mark.parametrize("name", game_names())
def test_replay_cli_and_export(tmp_path, capsys, name):
    path = tmp_path / "s.sqlite"
    recs = _fill(path, name)
    assert rp.main(["--db", str(path), "--game-id", str(recs[1].id)]) == 0
    out = capsys.readouterr().out
    assert "verified by replay" in out and "seat 0: " in out
    assert rp.main(["--db", str(path), "--export", str(tmp_path / "g.jsonl")]) == 0
    lines = (tmp_path / "g.jsonl").read_text().splitlines()
    assert len(lines) == len(recs)
    g = json.loads(lines[0])
    assert g["scores"] == recs[0].scores and g["setup"]["seed"] == recs[0].seed
    assert len(g["actions"]) == recs[0].decisions and g["actions"][0]["description"]
    assert {s["entrant"] for s in g["seats"]} == set(_specs(name))
    assert rp.main(["--db", str(path), "--game-id", "999"]) == 2
    assert "no game with id 999" in capsys.readouterr().err


@pytest.mark.parametrize("name", game_names())
def test_other_game_is_refused_and_file_unchanged(tmp_path, name):
    path = tmp_path / "s.sqlite"
    _fill(path, name)
    before = _sha(path)
    other = next(n for n in game_names() if n != name)
    with pytest.raises(StoreError, match=f"store of '{name}' games"):
        GameStore(path, other)
    assert _sha(path) == before


@pytest.mark.parametrize("name", game_names())
def test_newer_schema_is_refused_and_file_unchanged(tmp_path, name):
    path = tmp_path / "s.sqlite"
    GameStore(path, name).close()
    db = sqlite3.connect(path)
    db.execute("UPDATE meta SET value = ? WHERE key = 'schema_version'", (SCHEMA_VERSION + 1,))
    db.commit()
    db.close()
    before = _sha(path)
    with pytest.raises(StoreError, match="newer than this library"):
        GameStore(path, name)
    assert _sha(path) == before


@pytest.mark.parametrize("name", game_names())
@pytest.mark.parametrize("kind", ["text", "foreign-sqlite", "truncated"])
def test_foreign_or_corrupt_file_is_refused_and_unchanged(tmp_path, kind, name):
    path = tmp_path / "s.sqlite"
    if kind == "text":
        path.write_text("game,score\nvillage,3\n")
    elif kind == "foreign-sqlite":
        db = sqlite3.connect(path)
        db.execute("CREATE TABLE games (x INTEGER)")
        db.commit()
        db.close()
    else:
        _fill(path, name)
        data = path.read_bytes()
        path.write_bytes(data[: len(data) // 2])
    before = _sha(path)
    with pytest.raises(StoreError, match="not a game store|corrupt"):
        GameStore(path, name)
    assert _sha(path) == before
    assert rp.main(["--db", str(path), "--game-id", "1"]) == 2
    assert _sha(path) == before
