"""The game viewer (training.view): the JSON API on a real store of every registered game, the
public positions (no hidden segment's content, Troyes' Characters only at the end), the game's own
drawing served from its package, the generic view of a game without one, request validation (4xx
with one plain line, no traceback, no path, no file outside the bundle) and the CLI."""

from __future__ import annotations

import dataclasses
import gzip
import json
import re
import shutil
import sqlite3

import numpy as np
import pytest
from view_helpers import Client, json_keys, run_page_smoke, serve, stop

from core.registry import game_names, get_game
from training.arena.store import GameStore, pack_checks, unpack_checks
from training.arena.tournament import run_tournament
from training.view import __main__ as cli
from training.view.positions import (
    GENERIC_FIELDS,
    fields,
    generic_position,
    position,
    public_board,
    script,
)
from training.view.server import STATIC

GAMES = tuple(game_names())


def _players(game) -> int:
    return 2 if 2 in game.PLAYER_COUNTS else min(game.PLAYER_COUNTS)


@pytest.fixture(scope="module", params=GAMES)
def served(request, tmp_path_factory):
    """Two games (one per seat rotation where more seats play) of `random` against itself (two
    seats where the game allows it), served."""
    name = request.param
    game = get_game(name)
    db = tmp_path_factory.mktemp(f"view_{name}") / "results.sqlite"
    n = _players(game)
    run_tournament(name, n, ["random"] * n, max(2, n), db, progress=False)
    server = serve(db, game)
    yield game, db, Client(server)
    stop(server)


# -- the list -------------------------------------------------------------------------------------
def test_store_summary_and_game_list(served):
    game, _db, c = served
    st = c.json("/api/store")
    n = _players(game)
    assert st["game"] == game.NAME and st["games"] == max(2, n)
    labels = ["random"] + [f"random#{k}" for k in range(2, n + 1)]
    assert st["agents"] == labels
    assert [t["id"] for t in st["tournaments"]] == [1]
    lst = c.json("/api/games")
    assert lst["total"] == max(2, n) and [g["id"] for g in lst["games"]] == list(
        range(1, max(2, n) + 1)
    )
    for g in lst["games"]:
        assert g["tournament"] == 1 and g["players"] == n and g["replayable"]
        assert {s["agent"] for s in g["seats"]} == set(labels)
        assert g["rules_data_hash"] == game.RULES_DATA_HASH and g["decisions"] > 0
        assert g["winner"] == [p for p, s in enumerate(g["win_shares"]) if s > 0]
    # filters
    total = max(2, n)
    assert c.json("/api/games?tournament=1")["total"] == total
    assert c.json("/api/games?agent=random")["total"] == total
    one = c.json("/api/games?agent=random&seat=0")
    assert one["total"] == 1 and one["games"][0]["seats"][0]["agent"] == "random"
    shares = [  # the win share of entrant "random" in each game
        g["win_shares"][[s["agent"] for s in g["seats"]].index("random")] for g in lst["games"]
    ]
    for result, ok in (
        ("win", lambda x: x == 1),
        ("draw", lambda x: 0 < x < 1),
        ("loss", lambda x: x == 0),
    ):
        want = sum(map(ok, shares))
        assert c.json(f"/api/games?agent=random&result={result}")["total"] == want
    page = c.json("/api/games?offset=1&limit=1")
    assert page["total"] == total and [g["id"] for g in page["games"]] == [2]
    assert c.json("/api/games?seat=&agent=")["total"] == total  # blank = no filter


# -- the replay ----------------------------------------------------------------------------------
def test_replay_payload(served):
    game, db, c = served
    with GameStore(db, game.NAME, create=False) as store:
        recs = {r.id: r for r in store.games()}
    for gid, rec in recs.items():
        d = c.json(f"/api/games/{gid}")
        assert d["decisions"] == rec.decisions == len(d["steps"])
        assert len(d["positions"]) == rec.decisions + 1 == len(d["score_track"])
        assert d["score_track"][-1] == rec.scores == d["scores"]
        s = game.new_game(rec.players, rec.seed)
        for k, st in enumerate(d["steps"]):
            assert st["decision"] == k and st["action"] == rec.actions[k]
            assert st["seat"] == game.current_player(s)
            assert st["describe"] == game.describe(st["action"], s)
            assert d["positions"][k] == json.loads(json.dumps(position(game, s)))
            s = game.step(s, st["action"])
        for pos in d["positions"]:
            assert set(pos) == set(fields(game))  # every field documented, none other
            assert len(pos["players"]) == rec.players
        assert d["positions"][-1]["to_act"] is None


# -- hidden information --------------------------------------------------------------------------
def _perturbed(game, s, rng):
    t = s.copy()
    for seg in game.LAYOUT.hidden_segments():
        lo, hi = max(seg.lo, -(2**40)), min(seg.hi, 2**40)
        game.LAYOUT.view(t, seg.name)[...] = rng.integers(lo, hi + 1, size=seg.shape or (1,))
    return t


def test_positions_carry_no_hidden_information(served):
    game, db, c = served
    hidden = {seg.name for seg in game.LAYOUT.hidden_segments()}
    assert hidden  # rng at least; Troyes also chars, act_hidden, decks
    rng = np.random.default_rng(5)
    with GameStore(db, game.NAME, create=False) as store:
        rec = store.game(1)
    s = game.new_game(rec.players, rec.seed)
    states = [s]
    for a in rec.actions:
        s = game.step(s, a)
        states.append(s)
    for s in states[:-1]:  # before the end, nothing hidden may change what is sent
        base = position(game, s)
        for _ in range(2):
            assert position(game, _perturbed(game, s, rng)) == base
    payload = c.json("/api/games/1")
    assert not hidden & set(json_keys(payload)), "a hidden segment's name in the payload"
    if game.NAME == "troyes":
        from troyes_env.rules_data import CHARACTER_NAMES

        before = json.dumps([payload["positions"][:-1], payload["steps"]])
        assert not [n for n in CHARACTER_NAMES if n in before], "a secret Character was sent"
        assert all("characters" not in p for pos in payload["positions"][:-1]
                   for p in pos["players"])  # fmt: skip
        final = payload["positions"][-1]["players"]  # the final scoring reveals them
        chars = game.LAYOUT.view(states[-1], "chars")
        for p, pl in enumerate(final):
            assert pl["characters"] == [CHARACTER_NAMES[int(x)] for x in chars[p] if x >= 0]
            assert pl["final"] == rec.scores[p]


# -- requests refused ----------------------------------------------------------------------------
BAD = [
    ("/api/games/abc", 400),
    ("/api/games/-1", 400),
    ("/api/games/1.0", 400),
    ("/api/games/0", 404),
    ("/api/games/99999", 404),
    ("/api/games/1?step=3", 400),
    ("/api/games/1/x", 400),
    ("/api/games?seat=x", 400),
    ("/api/games?seat=4", 400),
    ("/api/games?seat=-1", 400),
    ("/api/games?limit=0", 400),
    ("/api/games?limit=100000", 400),
    ("/api/games?offset=-1", 400),
    ("/api/games?result=maybe", 400),
    ("/api/games?tournament=77", 404),
    ("/api/games?tournament=1e3", 400),
    ("/api/games?agent=nobody", 404),
    ("/api/games?seat=1&seat=0", 400),
    ("/api/games?colour=red", 400),
    ("/api/games?%zz", 400),
    ("/api/store?x=1", 400),
    ("/api/nothing", 404),
    ("/nothing", 404),
    ("/static/", 404),
    ("/static/other.js", 404),
    ("/static/../../etc/passwd", 404),
    ("/static/%2e%2e/%2e%2e/etc/passwd", 404),
    ("/static/..%2f..%2fetc%2fpasswd", 404),
    ("/static/%2E%2E%2F%2E%2E%2Fetc%2Fpasswd", 404),
    ("/static//etc/passwd", 404),
    ("/static/viewer.js/../../../etc/passwd", 404),
    ("/../../etc/passwd", 404),
    ("/%2e%2e/%2e%2e/etc/passwd", 404),
    ("/static/..\\..\\etc\\passwd", 404),
    ("/static/viewer.js%00.html", 404),
    ("/static/index.html/..", 404),
    ("/games/", 404),
    ("/games/other.js", 404),
    ("/games/view.py", 404),
    ("/games/../../etc/passwd", 404),
    ("/games/%2e%2e/%2e%2e/etc/passwd", 404),
    ("/games/..%2fview.py", 404),
    ("/games/village.js/..", 404),
    ("/games/troyes.js%00", 404),
]


def _one_plain_line(body: bytes, db) -> None:
    text = body.decode()
    assert text.endswith("\n") and text.count("\n") == 1, text
    assert "Traceback" not in text and 'File "' not in text
    assert str(db) not in text and str(db.parent) not in text and "root:" not in text
    assert "/etc" not in text and "<" not in text


@pytest.mark.parametrize("path,status", BAD)
def test_bad_requests_get_a_plain_4xx(served, path, status):
    _game, db, c = served
    got, headers, body = c.request(path)
    assert got == status, (path, got, body)
    assert headers["Content-Type"].startswith("text/plain")
    _one_plain_line(body, db)


def test_methods_hosts_and_garbage(served):
    _game, db, c = served
    for method in ("POST", "PUT", "DELETE"):
        status, _h, body = c.request("/api/games", method)
        assert status == 405
        _one_plain_line(body, db)
    status, _h, body = c.request("/api/games", headers={"Host": "evil.example:80"})
    assert status == 403
    _one_plain_line(body, db)
    status, _h, body = c.request("/api/games/" + "9" * 5000)
    assert 400 <= status < 500
    status, _h, _b = c.request("/api/games", "HEAD")
    assert status == 200


def test_static_assets_only_the_bundle(served):
    _game, _db, c = served
    status, h, page = c.request("/")
    assert status == 200 and h["Content-Type"].startswith("text/html")
    assert b"/static/viewer.js" in page and b"/static/viewer.css" in page
    assert "default-src 'none'" in h["Content-Security-Policy"]
    for name, ctype in STATIC.items():
        status, h, body = c.request(f"/static/{name}")
        assert status == 200 and h["Content-Type"] == ctype and body
        _no_external_urls(body)


def _no_external_urls(body: bytes) -> None:
    urls = set(re.findall(rb"(?:https?:)?//[A-Za-z0-9.-]+\.[a-z]{2,}[^\s\"'<>)]*", body))
    assert urls <= {b"http://www.w3.org/2000/svg"}, urls  # a namespace name, never fetched


def test_the_games_drawing_is_served_from_its_package(served):
    """The page loads the drawing the game's view names (`/api/store` says where); the server
    serves that one file of the game package and no other game's."""
    game, _db, c = served
    drawing = script(game)
    url = c.json("/api/store")["script"]
    if drawing is None:
        assert url is None
    else:
        assert url == f"/games/{game.NAME}.js"
        status, h, body = c.request(url)
        assert status == 200 and h["Content-Type"] == STATIC["viewer.js"] and body == drawing
        assert f'registerGame("{game.NAME}",'.encode() in body
        assert "default-src 'none'" in h["Content-Security-Policy"]
        _no_external_urls(body)
    for other in GAMES:  # another game's drawing is not this server's to serve
        if other != game.NAME:
            assert c.request(f"/games/{other}.js")[0] == 404


def test_gzip_when_asked(served):
    _game, _db, c = served
    plain = c.json("/api/games/1")
    big = len(c.request("/api/games/1")[2]) > 65536  # a small game's replay goes out as it is
    status, h, body = c.request("/api/games/1", headers={"Accept-Encoding": "gzip"})
    assert status == 200 and h.get("Content-Encoding") == ("gzip" if big else None)
    assert json.loads(gzip.decompress(body) if big else body) == plain


# -- replays that do not match ------------------------------------------------------------------
def test_replay_mismatch_is_409(served, tmp_path):
    game, db, _c = served
    other = tmp_path / "other.sqlite"
    shutil.copy(db, other)
    con = sqlite3.connect(other)
    con.execute("UPDATE games SET rules_data_hash = 'feedfacefeedface' WHERE id = 1")
    (blob,) = con.execute("SELECT checks FROM games WHERE id = 2").fetchone()
    checks = unpack_checks(blob)
    checks[3] ^= 1
    con.execute("UPDATE games SET checks = ? WHERE id = 2", (pack_checks(checks),))
    con.commit()
    con.close()
    server = serve(other, game)
    try:
        c = Client(server)
        status, _h, body = c.request("/api/games/1")
        assert status == 409 and b"feedfacefeedface" in body
        _one_plain_line(body, other)
        status, _h, body = c.request("/api/games/2")
        assert status == 409 and b"decision 3" in body
        _one_plain_line(body, other)
        games = max(2, _players(game))
        replayable = [g["replayable"] for g in c.json("/api/games")["games"]]
        assert replayable == [False] + [True] * (games - 1)
    finally:
        stop(server)


# -- the command line ----------------------------------------------------------------------------
def test_cli_defaults_and_refusals(tmp_path, capsys):
    args = cli.build_parser().parse_args(["--db", "x.sqlite"])
    assert (args.host, args.port) == ("127.0.0.1", 8765)
    assert cli.main(["--db", str(tmp_path / "missing.sqlite")]) == 2
    assert "no such game store" in capsys.readouterr().err
    junk = tmp_path / "junk.sqlite"
    junk.write_text("not a store")
    assert cli.main(["--db", str(junk)]) == 2
    assert cli.main(["--db", str(junk), "--port", "70000"]) == 2


# -- the page's script ---------------------------------------------------------------------------
@pytest.mark.skipif(shutil.which("node") is None, reason="node is not installed")
def test_page_script_draws_every_position(served, tmp_path):
    """viewer.js on a fake DOM (view_page_smoke.js) draws every position of a replay without a
    runtime error or an undefined / NaN in its text (the real browser: test_view_browser.py)."""
    game, _db, c = served
    payload = tmp_path / "game.json"
    payload.write_bytes(c.request("/api/games/1")[2])
    out = run_page_smoke(payload, game)
    assert out.returncode == 0, out.stderr[-2000:]
    assert out.stdout.startswith("ok ")
    drawn_by = game.NAME if script(game) is not None else "generic"
    assert out.stdout.strip().endswith(f"drawn by {drawn_by}"), out.stdout


def test_village_position_follows_a_loaded_rules_variant():
    """The viewer draws the tables in use: a loaded variant's lap length, roads, rewards,
    chronicle and customer values, never the module defaults."""
    import village_env
    from village_env import rules_data as vrd
    from village_env.tables import rules_with

    edges = list(vrd.TRAVEL_EDGES)
    a, b, *rest = edges[0]
    edges[0] = (b, a, *rest)
    variant = rules_with(
        LAP_LENGTH=vrd.LAP_LENGTH + 2,
        TRAVEL_EDGES=tuple(edges),
        CITY_REWARDS=(("coins", 4), *vrd.CITY_REWARDS[1:]),
        CHRONICLE={**vrd.CHRONICLE, vrd.SECTIONS[0]: (3, 1, 1)},
        GRAVES=(5, 2, 2),
        CUSTOMERS=tuple((dem, value + 10) for dem, value in vrd.CUSTOMERS),
    )
    g = get_game("village")
    try:
        village_env.load_rules_data(variant)
        pos = position(g, g.new_game(2, 0))
    finally:
        village_env.load_rules_data()
    assert pos["players"][0]["lap_length"] == vrd.LAP_LENGTH + 2
    assert (pos["travel"]["roads"][0]["from"], pos["travel"]["roads"][0]["to"]) == (b, a)
    assert pos["travel"]["cities"][0]["reward"] == {"kind": "coins", "amount": 4}
    assert pos["chronicle"]["sections"][0]["spaces"] == 5 and pos["chronicle"]["graves"] == 9
    tiles = [t for t in pos["market"]["stalls"] if t is not None]
    assert tiles and all(
        t["prestige"] == vrd.CUSTOMERS[int(t["tile"][1:]) - 1][1] + 10 for t in tiles
    )
    assert position(g, g.new_game(2, 0))["players"][0]["lap_length"] == vrd.LAP_LENGTH


# -- the generic view ----------------------------------------------------------------------------
@pytest.fixture()
def generic(served, monkeypatch):
    """The served store's game as if its spec named no view: the generic one, on a new server
    (the first one's replay cache holds the game's own positions)."""
    game, db, _c = served
    monkeypatch.setattr(game.GAME, "spec", dataclasses.replace(game.GAME.spec, view=None))
    server = serve(db, game)
    yield game, db, Client(server)
    stop(server)


def test_generic_view_of_a_game_without_its_own(generic, tmp_path):
    game, db, c = generic
    assert fields(game) == GENERIC_FIELDS and script(game) is None
    assert c.json("/api/store")["script"] is None
    assert c.request(f"/games/{game.NAME}.js")[0] == 404
    payload = c.json("/api/games/1")
    with GameStore(db, game.NAME, create=False) as store:
        rec = store.game(1)
    states = _states(game, rec)
    public = {seg.name for seg in game.LAYOUT.segments.values() if not seg.hidden}
    for k, (s, pos) in enumerate(zip(states, payload["positions"], strict=True)):
        assert set(pos) == set(GENERIC_FIELDS)
        assert pos == json.loads(json.dumps(generic_position(game, s)))
        assert pos["game"] == game.NAME and pos["phase"] == game.phase_name(s)
        assert pos["scores"] == payload["score_track"][k] == [p["score"] for p in pos["players"]]
        assert pos["over"] == (k == rec.decisions) and (pos["to_act"] is None) == pos["over"]
        names = [line.split(":")[0] for line in pos["board"].splitlines()]
        assert names == [n for n in game.LAYOUT.segments if n in public]
    if shutil.which("node") is not None:
        out = tmp_path / "game.json"
        out.write_text(json.dumps(payload))
        run = run_page_smoke(out, game)
        assert run.returncode == 0, run.stderr[-2000:]
        assert run.stdout.strip().endswith("drawn by generic"), run.stdout


def test_the_generic_board_shows_the_seats_at_the_table_only():
    game = get_game("chipin")  # no view of its own; chips, score... are marked per seat
    chips = game.rules_data.STARTING_CHIPS[2]
    lines = dict(
        line.split(": ", 1) for line in public_board(game, game.new_game(2, 3)).splitlines()
    )
    assert lines["chips"] == f"{chips} {chips}"  # two seats, not the layout's four
    assert lines["score_src"] == f"{chips} 0 | {chips} 0"
    assert len(lines["owner"].split()) == game.LAYOUT.segments["owner"].size  # per card, kept


def test_generic_view_carries_no_hidden_information(generic):
    """Unlike a game's own view, the generic one reveals nothing even at the end: every position,
    the final one included, is the same whatever the hidden segments hold."""
    game, db, c = generic
    rng = np.random.default_rng(11)
    with GameStore(db, game.NAME, create=False) as store:
        rec = store.game(2)
    for s in _states(game, rec):
        base = generic_position(game, s)
        for _ in range(2):
            assert generic_position(game, _perturbed(game, s, rng)) == base
    payload = c.json("/api/games/2")
    hidden = {seg.name for seg in game.LAYOUT.hidden_segments()}
    assert not hidden & set(json_keys(payload))
    for pos in payload["positions"]:
        assert not hidden & {line.split(":")[0] for line in pos["board"].splitlines()}


def _states(game, rec) -> list[np.ndarray]:
    s = game.new_game(rec.players, rec.seed)
    states = [s]
    for a in rec.actions:
        s = game.step(s, a)
        states.append(s)
    return states
