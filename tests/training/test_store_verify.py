"""The store verifies everything it is read for: ranks and win shares agree with the stored scores
and tie-breaks, the action and state-check blobs are whole and one per decision, `--verify-all`
replays every game and lists exactly the bad ones, `--export` never leaves a partial file, an
empty --db is refused untouched, and reading a store (or stopping a --play server) leaves no side
files beside it. Each test tampers a real store of a short tournament with sqlite3."""

from __future__ import annotations

import hashlib
import http.client
import json
import os
import re
import shutil
import signal
import sqlite3
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from core.registry import get_game
from training.arena import replay as rp
from training.arena import tournament as tn
from training.arena.evaluate import ranks, standing, win_shares
from training.arena.store import GameStore, StoreError
from training.view import __main__ as view_cli

REPO = Path(__file__).resolve().parents[2]
GAME = "village"
ARGS = ["--game", GAME, "--players", "2", "--agents", "random", "heuristic", "--games", "4"]
ARGS += ["--seed", "0", "--workers", "1", "--no-progress"]
LISTED = re.compile(r"^game (\d+) \(seed (\d+)\): \S")


def _sha(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


@pytest.fixture(scope="module")
def base(tmp_path_factory) -> Path:
    """A store of four games of `random` against `heuristic` (two deals, both seatings)."""
    d = tmp_path_factory.mktemp("verify_base")
    db = d / "base.sqlite"
    assert tn.main([*ARGS, "--db", str(db), "--report", str(d / "report")]) == 0
    return db


@pytest.fixture
def store(base, tmp_path) -> Path:
    """A fresh copy of the base store, alone in its folder."""
    d = tmp_path / "db"
    d.mkdir()
    shutil.copy(base, d / "s.sqlite")
    return d / "s.sqlite"


def _games(path: Path) -> list[dict]:
    db = sqlite3.connect(path)
    try:
        q = "SELECT id, seed, scores, ranks, win_shares, decisions FROM games ORDER BY id"
        rows = db.execute(q).fetchall()
    finally:
        db.close()
    keys = ("id", "seed", "scores", "ranks", "win_shares", "decisions")
    out = [dict(zip(keys, r, strict=True)) for r in rows]
    for g in out:
        for k in ("scores", "ranks", "win_shares"):
            g[k] = json.loads(g[k])
    return out


def _sql(path: Path, statement: str, args: tuple = ()) -> None:
    db = sqlite3.connect(path)
    try:
        db.execute(statement, args)
        db.commit()
    finally:
        db.close()


def _verify_all(path: Path, capsys, *extra: str) -> tuple[int, list[tuple[int, int]], str]:
    """--verify-all's exit status, the (game id, seed) of every game it lists, and its stdout."""
    rc = rp.main(["--db", str(path), "--verify-all", *extra])
    cap = capsys.readouterr()
    assert "Traceback" not in cap.err
    listed = [(int(m[1]), int(m[2])) for m in map(LISTED.match, cap.out.splitlines()) if m]
    return rc, listed, cap.out


def _replay_refuses(path: Path, g: dict, capsys, needle: str) -> None:
    """`--game-id` of game g exits 2 with one line naming the game and the reason."""
    assert rp.main(["--db", str(path), "--game-id", str(g["id"])]) == 2
    cap = capsys.readouterr()
    assert cap.out == ""
    lines = cap.err.splitlines()
    assert len(lines) == 1, cap.err
    assert f"game {g['id']} (seed {g['seed']})" in lines[0] and needle in lines[0]


def _one_game(game, players: int, seed: int) -> np.ndarray:
    """A finished game of random legal moves (a numpy generator, no agents)."""
    rng = np.random.default_rng(seed)
    s = game.new_game(players, seed)
    while not game.is_terminal(s):
        s = game.step(s, int(rng.choice(np.flatnonzero(game.legal_mask(s)))))
    return s


# -- ranks and win shares from the scores --------------------------------------------------------
def test_standing_ties_share_rank_and_win_share():
    """Finding: ranks and win shares were stored but never derived from the scores again; the
    rule (ties share the average position and the win) must hold for every tie shape."""
    no_tb = np.zeros((4, 0), np.int64)
    assert standing([5, 5, 1, 1], no_tb) == ([1.5, 1.5, 3.5, 3.5], [0.5, 0.5, 0.0, 0.0])
    assert standing([3, 9, 9, 9], no_tb) == ([4.0, 2.0, 2.0, 2.0], [0.0, 1 / 3, 1 / 3, 1 / 3])
    assert standing([7, 2, 7, 0], no_tb) == ([1.5, 3.0, 1.5, 4.0], [0.5, 0.0, 0.5, 0.0])
    # a tie-breaker decides a tied score: no shared place, no shared win
    assert standing([5, 5], [[1, 0], [0, 9]]) == ([1.0, 2.0], [1.0, 0.0])
    assert standing([5, 5], [[1, 2], [1, 2]]) == ([1.5, 1.5], [0.5, 0.5])
    assert standing([4], [[0]]) == ([1.0], [1.0])
    with pytest.raises(ValueError, match="one row of tie-breakers per seat"):
        standing([1, 2], [[0], [0], [0]])


def test_four_player_ranks_are_exact_halves():
    """Finding: four-player ranks came out of float32 returns as 1.9999999850988388 and
    3.000000014901161 instead of 2.0 and 3.0."""
    game = get_game(GAME)
    s = _one_game(game, 4, 11)
    keys = [
        (int(sc), *map(int, tb)) for sc, tb in zip(game.scores(s), game.tiebreaks(s), strict=True)
    ]
    better = [sum(k > mine for k in keys) for mine in keys]
    tied = [sum(k == mine for k in keys) for mine in keys]
    expected = [1 + b + (t - 1) / 2 for b, t in zip(better, tied, strict=True)]
    best = max(keys)
    shares = [1 / keys.count(best) if k == best else 0.0 for k in keys]
    assert [float(x) for x in ranks(game, s)] == expected
    assert [float(x) for x in win_shares(game, s)] == shares


def test_flipped_ranks_are_refused_by_the_tournament_rerun(store, capsys):
    """Finding: an `UPDATE games SET ranks=...` flipped the leaderboard on the next run of the
    same tournament (which played nothing and rated the edited ranks)."""
    g = _games(store)[1]
    _sql(store, "UPDATE games SET ranks = ? WHERE id = ?", (json.dumps(g["ranks"][::-1]), g["id"]))
    before = _sha(store)
    with pytest.raises(SystemExit) as e:
        tn.main([*ARGS, "--db", str(store), "--report", str(store.parent / "r")])
    assert e.value.code == 2
    err = capsys.readouterr().err.splitlines()[-1]
    assert f"game {g['id']} (seed {g['seed']}): stored ranks {g['ranks'][::-1]}" in err
    assert f"disagree with its scores {g['scores']}" in err
    assert _sha(store) == before and not (store.parent / "r").exists()
    with GameStore(store, GAME, read_only=True) as st, pytest.raises(StoreError) as e2:
        list(st.games())
    assert f"game {g['id']} (seed {g['seed']})" in str(e2.value)


def test_flipped_win_shares_are_refused_by_the_balance_study(store):
    """Finding: flipped stored win shares moved a balance study's seat shares (0.5/0.5 became
    0.667/0.333) because balance read them as stored."""
    from training.balance.play import run_study

    g = _games(store)[0]
    flipped = g["win_shares"][::-1]
    _sql(store, "UPDATE games SET win_shares = ? WHERE id = ?", (json.dumps(flipped), g["id"]))
    with pytest.raises(StoreError) as e:
        run_study(GAME, 2, ["random", "heuristic"], 4, store, progress=False)
    msg = str(e.value)
    assert "\n" not in msg
    assert f"game {g['id']} (seed {g['seed']}): stored win shares {flipped}" in msg


def test_derived_ranks_are_what_the_records_carry(store):
    """Finding: readers got the ranks and win shares as stored; they are the ones derived from
    the scores (and equal the stored ones in an untouched store)."""
    rows = _games(store)
    with GameStore(store, GAME, read_only=True) as st:
        recs = list(st.games())
    assert [r.id for r in recs] == [g["id"] for g in rows]
    for rec, g in zip(recs, rows, strict=True):
        assert (rec.ranks, rec.win_shares) == standing(rec.scores, rec.tiebreaks)
        assert (rec.ranks, rec.win_shares) == (g["ranks"], g["win_shares"])


def test_a_reader_part_way_through_does_not_block_a_writer(store, monkeypatch):
    """Finding: with the rollback journal, a reader paused inside the store's game iterator (a
    long --verify-all) held a read lock, and a tournament writing to the same store failed with
    "database is locked"; games are read in batches, no lock held between them."""
    import training.arena.store as store_module

    monkeypatch.setattr(store_module, "_BATCH", 3)  # 4 games: two batches
    with GameStore(store, GAME, read_only=True) as st:
        games = st.read_games()
        first = next(games)
        writer = sqlite3.connect(store, timeout=0)
        writer.execute("UPDATE meta SET value = value WHERE key = 'game'")
        writer.commit()
        writer.close()
        rest = list(games)
    assert [first.id, *(r.id for r in rest)] == [g["id"] for g in _games(store)]


# -- blobs -----------------------------------------------------------------------------------------
def test_truncated_crc_blob_is_refused(store, capsys):
    """Finding: a game whose CRC blob was cut to 7 entries (273 decisions) still printed
    "verified by replay"."""
    g = _games(store)[1]
    _sql(store, "UPDATE games SET checks = substr(checks, 1, 28) WHERE id = ?", (g["id"],))
    before = _sha(store)
    reason = f"the state checks blob holds 7 CRCs for {g['decisions']} decisions"
    with GameStore(store, GAME, read_only=True) as st, pytest.raises(StoreError) as e:
        st.game(g["id"])
    assert str(e.value) == f"{store}: game {g['id']} (seed {g['seed']}): {reason}"
    _replay_refuses(store, g, capsys, reason)
    rc, listed, _out = _verify_all(store, capsys)
    assert (rc, listed) == (1, [(g["id"], g["seed"])])
    assert _sha(store) == before


BLOBS = {
    "odd-length actions": (
        "UPDATE games SET actions = substr(actions, 1, length(actions) - 1) WHERE id = ?",
        "the actions blob has {b} bytes, not whole 2-byte actions",
    ),
    "one action short": (
        "UPDATE games SET actions = substr(actions, 1, length(actions) - 2) WHERE id = ?",
        "the actions blob holds {d1} actions for {d} decisions",
    ),
    "text actions": (
        "UPDATE games SET actions = 'not a blob' WHERE id = ?",
        "actions is text, not a blob",
    ),
    "actions as text that is not UTF-8": (  # blob || blob is TEXT in SQLite
        "UPDATE games SET actions = actions || x'ff00' WHERE id = ?",
        "actions is text that is not UTF-8, not a blob",
    ),
    "match key not UTF-8": (
        "UPDATE games SET match_key = CAST(x'ff' AS TEXT) WHERE id = ?",
        "match_key is text that is not UTF-8, not text",
    ),
    "integer checks": ("UPDATE games SET checks = 7 WHERE id = ?", "checks is integer, not a blob"),
    "checks not whole CRCs": (
        "UPDATE games SET checks = substr(checks, 1, length(checks) - 1) WHERE id = ?",
        "the state checks blob has {c} bytes, not whole 4-byte CRCs",
    ),
    "decisions as text": (
        "UPDATE games SET decisions = 'many' WHERE id = ?",
        "decisions is text, not an integer",
    ),
    "scores not JSON": (
        "UPDATE games SET scores = '[1, 2' WHERE id = ?",
        "scores is not a JSON list",
    ),
    "one score missing": (
        "UPDATE games SET scores = '[1]' WHERE id = ?",
        "scores holds 1 value for 2 players",
    ),
}


@pytest.mark.parametrize("kind", sorted(BLOBS))
def test_malformed_record_is_refused_naming_the_game(store, capsys, kind):
    """Finding: an odd-length actions blob gave a traceback in replay and a TEXT value where a
    blob belongs an OperationalError; a malformed record is refused with one line naming it."""
    g = _games(store)[2]
    statement, reason = BLOBS[kind]
    d = g["decisions"]
    reason = reason.format(b=2 * d - 1, d1=d - 1, d=d, c=4 * d - 1)
    _sql(store, statement, (g["id"],))
    with GameStore(store, GAME, read_only=True) as st:
        with pytest.raises(StoreError) as e:
            st.game(g["id"])
        assert str(e.value) == f"{store}: game {g['id']} (seed {g['seed']}): {reason}"
        with pytest.raises(StoreError, match=re.escape(f"game {g['id']} (seed {g['seed']})")):
            list(st.games())
        assert st.game(g["id"] - 1).id == g["id"] - 1  # the others still read
    _replay_refuses(store, g, capsys, reason)
    rc, listed, _out = _verify_all(store, capsys)
    assert (rc, listed) == (1, [(g["id"], g["seed"])])


def test_add_games_refuses_an_inconsistent_record(store):
    """Finding: the store wrote whatever ranks, win shares and checks a record carried."""
    with GameStore(store, GAME, read_only=True) as st:
        rec = st.game(1)
    before = _sha(store)
    bad = [
        ({"match_key": "x1", "ranks": rec.ranks[::-1]}, "ranks"),
        ({"match_key": "x2", "win_shares": [0.5, 0.5]}, "win shares"),
        ({"match_key": "x3", "checks": rec.checks[:-1]}, "state checks"),
        ({"match_key": "x4", "decisions": rec.decisions + 1}, "decisions"),
    ]
    with GameStore(store, GAME) as st:
        for change, needle in bad:
            r = rec.__class__(**{**rec.__dict__, "id": None, **change})
            with pytest.raises(ValueError, match=f"match key {change['match_key']}: .*{needle}"):
                st.add_games([r])
        assert st.count() == 4
    assert _sha(store) == before


# -- one command verifies every game -------------------------------------------------------------
def test_verify_all_lists_exactly_the_bad_games(store, capsys):
    """Finding: no command verified every game of a store."""
    rc, listed, out = _verify_all(store, capsys)
    assert (rc, listed) == (0, [])
    assert out.splitlines()[-1].startswith("4 of 4 games verified by replay")
    rows = _games(store)
    a, b = rows[0], rows[3]
    # b: scores, ranks and win shares flipped together: consistent, caught only by the replay
    flip = {k: json.dumps(b[k][::-1]) for k in ("scores", "ranks", "win_shares")}
    _sql(store, "UPDATE games SET checks = substr(checks, 5) WHERE id = ?", (a["id"],))
    _sql(
        store,
        "UPDATE games SET scores = ?, ranks = ?, win_shares = ? WHERE id = ?",
        (flip["scores"], flip["ranks"], flip["win_shares"], b["id"]),
    )
    before = _sha(store)
    rc, listed, out = _verify_all(store, capsys)
    assert (rc, listed) == (1, [(a["id"], a["seed"]), (b["id"], b["seed"])])
    assert f"replayed scores {b['scores']} != stored {b['scores'][::-1]}" in out
    assert out.splitlines()[-1] == f"2 of 4 games failed verification (games {a['id']}, {b['id']})"
    assert _sha(store) == before and os.listdir(store.parent) == ["s.sqlite"]


def test_verify_all_needs_the_rules_data_of_variant_games(store, capsys, tmp_path):
    """Finding: games played under other rules data (a balance study's variant) cannot be
    verified with the default rules; --verify-all says so and verifies them given --rules."""
    variant = REPO / "docs" / "rules_variants" / "village_mass_bonus_1.json"
    report = str(tmp_path / "r")
    assert tn.main([*ARGS, "--db", str(store), "--rules", str(variant), "--report", report]) == 0
    capsys.readouterr()
    rc, listed, out = _verify_all(store, capsys)
    assert (rc, listed) == (1, [])
    last = out.splitlines()[-1]
    assert re.fullmatch(
        r"4 of 8 games verified by replay; 4 games played under rules_data_hash [0-9a-f]{16} "
        r"were not verified \(pass --rules FILE with that rules data\)",
        last,
    ), last
    rc, listed, out = _verify_all(store, capsys, "--rules", str(variant))
    assert (rc, listed) == (0, [])
    assert out.splitlines()[-1].startswith("8 of 8 games verified by replay")


# -- export --------------------------------------------------------------------------------------
def test_export_refuses_before_writing_anything(store, capsys):
    """Finding: --export stopped at the first bad game and left a one-line partial file."""
    out = store.parent.parent / "out"
    out.mkdir()
    target = out / "games.jsonl"
    target.write_text("an older export\n")
    g = _games(store)[1]
    _sql(store, "UPDATE games SET checks = substr(checks, 1, 28) WHERE id = ?", (g["id"],))
    assert rp.main(["--db", str(store), "--export", str(target)]) == 1
    cap = capsys.readouterr()
    assert cap.out == ""
    err = cap.err.splitlines()
    head = f"game {g['id']} (seed {g['seed']}): the state checks blob holds 7 CRCs"
    assert err[0].startswith(head)
    assert err[-1] == (
        f"python -m training.arena.replay: error: 1 of 4 games failed verification "
        f"(games {g['id']}); nothing exported"
    )
    assert os.listdir(out) == ["games.jsonl"] and target.read_text() == "an older export\n"


def test_export_stopped_midway_leaves_no_file(store, capsys, monkeypatch):
    """Finding: the export was written in place, so a stop midway (Ctrl-C, a full disk) left a
    partial file that looked complete; it goes to a temporary file renamed once every game is
    in."""
    target = store.parent.parent / "games.jsonl"
    real, calls = rp.game_json, []

    def stop_at_the_third(*args, **kwargs):
        calls.append(1)
        if len(calls) == 3:
            raise KeyboardInterrupt
        return real(*args, **kwargs)

    monkeypatch.setattr(rp, "game_json", stop_at_the_third)
    assert rp.main(["--db", str(store), "--export", str(target)]) == 130
    assert capsys.readouterr().err.startswith("python -m training.arena.replay: interrupted")
    assert sorted(os.listdir(target.parent)) == ["db"]
    monkeypatch.setattr(rp, "game_json", real)
    assert rp.main(["--db", str(store), "--export", str(target)]) == 0
    assert capsys.readouterr().out == f"exported 4 games (each verified by replay) to {target}\n"
    lines = [json.loads(x) for x in target.read_text().splitlines()]
    assert [g["id"] for g in lines] == [g["id"] for g in _games(store)]
    assert sorted(os.listdir(target.parent)) == ["db", "games.jsonl"]


# -- empty files and side files ------------------------------------------------------------------
def _empty_commands(db: Path, tmp_path: Path):
    report = str(tmp_path / "report")
    yield "store", lambda: GameStore(db, GAME)
    yield "game_of", lambda: GameStore.game_of(db)
    yield "tournament", lambda: tn.main([*ARGS, "--db", str(db), "--report", report])
    yield "replay", lambda: rp.main(["--db", str(db), "--game-id", "1"])
    yield "verify-all", lambda: rp.main(["--db", str(db), "--verify-all"])
    yield "view", lambda: view_cli.main(["--db", str(db)])
    play = ["--play", "--game", GAME, "--players", "2", "--agents", "human", "random"]
    yield "view --play", lambda: view_cli.main(["--db", str(db), *play])


def test_empty_db_file_is_refused_and_left_untouched(tmp_path, capsys):
    """Finding: a zero-length --db file silently became a new store."""
    d = tmp_path / "db"
    d.mkdir()
    db = d / "empty.sqlite"
    db.write_bytes(b"")
    for what, call in _empty_commands(db, tmp_path):
        try:
            rc = call()
        except StoreError as e:
            assert str(e) == f"{db}: not a game store (an empty file); refusing to touch it", what
            rc = "raised"
        except SystemExit as e:
            rc = e.code
        cap = capsys.readouterr()
        assert rc in (2, "raised"), what
        if rc == 2:
            assert "not a game store (an empty file)" in cap.err.splitlines()[-1], what
        assert os.listdir(d) == ["empty.sqlite"] and db.stat().st_size == 0, what
    assert not (tmp_path / "report").exists()


def _wal_copy(store: Path) -> Path:
    """The store as an older version left it: in WAL journal mode, no side files."""
    _sql(store, "PRAGMA journal_mode = WAL")
    assert store.read_bytes()[18:20] == b"\x02\x02" and os.listdir(store.parent) == ["s.sqlite"]
    return store


@pytest.mark.parametrize("kind", ["store", "wal-mode store", "corrupt wal-mode store"])
def test_reading_leaves_no_files_beside_the_store(store, capsys, kind):
    """Finding: replay on a corrupt file left -wal/-shm files beside it (and so did any
    read-only open of a store in WAL mode)."""
    if kind != "store":
        _wal_copy(store)
    if kind.startswith("corrupt"):
        data = store.read_bytes()
        store.write_bytes(data[: len(data) // 2])
    before = _sha(store)
    ok = kind != "corrupt wal-mode store"
    assert rp.main(["--db", str(store), "--game-id", "2"]) == (0 if ok else 2)
    assert rp.main(["--db", str(store), "--game-id", "2", "--json"]) == (0 if ok else 2)
    assert rp.main(["--db", str(store), "--verify-all"]) == (0 if ok else 2)
    if ok:
        assert GameStore.game_of(store) == GAME
        with GameStore(store, GAME, read_only=True) as st:
            assert st.count() == 4
    capsys.readouterr()
    assert os.listdir(store.parent) == ["s.sqlite"] and _sha(store) == before


def test_writing_converts_a_wal_mode_store(store):
    """Finding: stores were kept in WAL journal mode, whose -wal/-shm files outlive a killed
    process; a store opened for writing is switched to a rollback journal."""
    _wal_copy(store)
    other = sqlite3.connect(store)  # another reader: the switch waits for the next open
    assert other.execute("SELECT COUNT(*) FROM games").fetchone() == (4,)
    with GameStore(store, GAME) as st:
        assert st.db.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
        assert st.entrant_id("random", "another fingerprint") == 3
    other.close()
    with GameStore(store, GAME) as st:
        assert st.db.execute("PRAGMA journal_mode").fetchone()[0] == "delete"
        assert st.count() == 4
    assert store.read_bytes()[18:20] == b"\x01\x01"
    assert os.listdir(store.parent) == ["s.sqlite"]


# -- the --play server ---------------------------------------------------------------------------
@pytest.mark.slow
@pytest.mark.parametrize("sig", ["SIGTERM", "SIGINT"])
def test_play_server_stopped_by_a_signal_leaves_no_side_files(tmp_path, sig):
    """Finding: a --play server killed with SIGTERM (or stopped with Ctrl-C) left -shm/-wal files
    beside its store."""
    d = tmp_path / "db"
    d.mkdir()
    db = d / "play.sqlite"
    cmd = [sys.executable, "-m", "training.view", "--db", str(db), "--port", "0", "--play"]
    cmd += ["--game", GAME, "--players", "2", "--agents", "human", "random", "--seed", "3"]
    with open(tmp_path / "stderr.txt", "w") as err:
        proc = subprocess.Popen(cmd, cwd=REPO, stdout=subprocess.PIPE, stderr=err, text=True)
    try:
        line = proc.stdout.readline()
        m = re.search(r"serving on http://([\d.]+):(\d+)", line)
        assert m, (line, (tmp_path / "stderr.txt").read_text())
        host, port = m[1], int(m[2])

        def call(path, body=None):
            conn = http.client.HTTPConnection(host, port, timeout=120)
            try:
                hdrs = {"Content-Type": "application/json"}
                conn.request("POST", path, body=body, headers=hdrs)
                r = conn.getresponse()
                assert r.status == 200
                return json.loads(r.read())
            finally:
                conn.close()

        v = call("/api/play")
        while not v["over"]:
            a = v["legal"][0]["actions"][0]["id"]
            v = call(f"/api/play/{v['token']}/act", json.dumps({"action": a}))
        proc.send_signal(getattr(signal, sig))
        # a guard against a hang, not a timing check: on a cold compile cache and two busy cores
        # one run took longer than a minute to stop (cause not found)
        assert proc.wait(timeout=300) == 0
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    assert os.listdir(d) == ["play.sqlite"]
    with GameStore(db, GAME, read_only=True) as st:
        assert [r.id for r in st.games()] == [v["result"]["game_id"]]
    assert os.listdir(d) == ["play.sqlite"]


def test_viewer_lists_derived_ranks_and_names_a_tampered_game(store):
    """Finding: the viewer's game list read the stored ranks and win shares directly, so an
    edited row showed edited results; now the list reads through the store's checks, a game that
    disagrees with its scores is listed apart with its reason, and its replay answers 409."""
    from training.view.api import RequestError, Viewer

    games = _games(store)
    g = games[1]
    flipped = json.dumps(g["win_shares"][::-1])
    _sql(store, "UPDATE games SET win_shares = ? WHERE id = ?", (flipped, g["id"]))
    viewer = Viewer(str(store), get_game(GAME))
    try:
        listed = viewer.games()
        assert [x["id"] for x in listed["games"]] == [x["id"] for x in games if x is not g]
        for x, want in zip(listed["games"], [x for x in games if x is not g], strict=True):
            assert x["ranks"] == want["ranks"] and x["win_shares"] == want["win_shares"]
        assert [(b["id"], b["seed"]) for b in listed["bad_games"]] == [(g["id"], g["seed"])]
        assert "win shares" in listed["bad_games"][0]["reason"]
        with pytest.raises(RequestError) as e:
            viewer.replay(g["id"])
        assert e.value.status == 409 and f"game {g['id']} (seed {g['seed']})" in e.value.reason
    finally:
        viewer.close()
