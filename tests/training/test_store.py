"""The game store (training.arena.store) and replay (training.arena.replay): refusals leave files
unchanged,
games are written whole and never twice, stored games replay to their stored scores."""

from __future__ import annotations

import hashlib
import json
import sqlite3

import pytest

import village_env
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


def _fill(path, games=2, specs=("random", "heuristic")) -> list:
    ents = resolve_entrants("village", 2, list(specs))
    jobs = schedule(2, ents, "round-robin", games, 3, village_env.RULES_DATA_HASH)
    with GameStore(path, "village") as st:
        ids = {e.label: st.entrant_id(e.spec, e.fingerprint) for e in ents}
        tid = st.tournament_id("t", 2, {"x": 1})
        todo = [(j, [ids[lab] for lab in j.labels]) for j in jobs]
        assert run_jobs(st, "village", 2, todo, tid, 1, False) == len(jobs)
        assert run_jobs(st, "village", 2, todo, tid, 1, False) == 0  # never twice
        assert st.count() == len(jobs)
        return list(st.games())


def test_actions_pack_roundtrip():
    acts = [0, 1, 341, 65535]
    assert unpack_actions(pack_actions(acts)) == acts
    assert len(pack_actions(acts)) == 2 * len(acts)


def test_stored_games_replay_to_their_scores(tmp_path):
    recs = _fill(tmp_path / "s.sqlite")
    assert len(recs) == 2
    assert recs[0].seed == recs[1].seed  # one deal, both rotations
    assert recs[0].seats == recs[1].seats[::-1]
    for rec in recs:
        s, steps = rp.replay(village_env, rec, describe=True)
        assert [int(x) for x in village_env.scores(s)] == rec.scores
        assert len(steps) == rec.decisions == len(rec.actions) == len(rec.checks)
        assert rec.rules_data_hash == village_env.RULES_DATA_HASH
        assert all(st["description"] for st in steps)


def test_replay_names_the_first_diverging_decision(tmp_path):
    path = tmp_path / "s.sqlite"
    rec = _fill(path)[0]
    # a tampered action: the first decision with another legal choice
    s = village_env.new_game(2, rec.seed)
    k = 0
    while True:
        a = rec.actions[k]
        legal = [int(x) for x in village_env.legal_mask(s).nonzero()[0] if x != a]
        if legal:
            break
        s = village_env.step(s, a)
        k += 1
    tampered = list(rec.actions)
    tampered[k] = legal[0]
    db = sqlite3.connect(path)
    db.execute("UPDATE games SET actions = ? WHERE id = ?", (pack_actions(tampered), rec.id))
    db.commit()
    db.close()
    with GameStore(path, "village") as st:
        bad = st.game(rec.id)
    with pytest.raises(rp.ReplayMismatch, match=f"decision {k} "):
        rp.replay(village_env, bad)
    assert rp.main(["--db", str(path), "--game-id", str(rec.id)]) == 2


def test_replay_cli_and_export(tmp_path, capsys):
    path = tmp_path / "s.sqlite"
    recs = _fill(path)
    assert rp.main(["--db", str(path), "--game-id", str(recs[1].id)]) == 0
    out = capsys.readouterr().out
    assert "verified by replay" in out and "seat 0: " in out
    assert rp.main(["--db", str(path), "--export", str(tmp_path / "g.jsonl")]) == 0
    lines = (tmp_path / "g.jsonl").read_text().splitlines()
    assert len(lines) == len(recs)
    g = json.loads(lines[0])
    assert g["scores"] == recs[0].scores and g["setup"]["seed"] == recs[0].seed
    assert len(g["actions"]) == recs[0].decisions and g["actions"][0]["description"]
    assert {s["entrant"] for s in g["seats"]} == {"random", "heuristic"}
    assert rp.main(["--db", str(path), "--game-id", "999"]) == 2
    assert "no game with id 999" in capsys.readouterr().err


def test_other_game_is_refused_and_file_unchanged(tmp_path):
    path = tmp_path / "s.sqlite"
    _fill(path)
    before = _sha(path)
    with pytest.raises(StoreError, match="store of 'village' games"):
        GameStore(path, "troyes")
    assert _sha(path) == before


def test_newer_schema_is_refused_and_file_unchanged(tmp_path):
    path = tmp_path / "s.sqlite"
    GameStore(path, "village").close()
    db = sqlite3.connect(path)
    db.execute("UPDATE meta SET value = ? WHERE key = 'schema_version'", (SCHEMA_VERSION + 1,))
    db.commit()
    db.close()
    before = _sha(path)
    with pytest.raises(StoreError, match="newer than this library"):
        GameStore(path, "village")
    assert _sha(path) == before


@pytest.mark.parametrize("kind", ["text", "foreign-sqlite", "truncated"])
def test_foreign_or_corrupt_file_is_refused_and_unchanged(tmp_path, kind):
    path = tmp_path / "s.sqlite"
    if kind == "text":
        path.write_text("game,score\nvillage,3\n")
    elif kind == "foreign-sqlite":
        db = sqlite3.connect(path)
        db.execute("CREATE TABLE games (x INTEGER)")
        db.commit()
        db.close()
    else:
        _fill(path)
        data = path.read_bytes()
        path.write_bytes(data[: len(data) // 2])
    before = _sha(path)
    with pytest.raises(StoreError, match="not a game store|corrupt"):
        GameStore(path, "village")
    assert _sha(path) == before
    assert rp.main(["--db", str(path), "--game-id", "1"]) == 2
    assert _sha(path) == before
