"""Play in the browser: whole games against `random` through the HTTP API,
recorded into the store and replayed; the human's payloads hold nothing the human seat cannot see
(states that differ only in that give identical JSON, the human's own Characters are there);
every bad request gets a one-line 4xx; the CLI's refusals."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from view_helpers import Client, json_keys, run_page_smoke, serve, stop

from core.registry import game_names, get_game
from training.arena.store import GameStore
from training.view import __main__ as cli
from training.view.play import PlayConfig, PlayGame, PlayHost, prepare_store, view_payload
from training.view.positions import script


def _seats(i: int, name: str) -> tuple[str, ...]:
    """Two seats where the game allows it; the human first in every other registered game and
    last in the rest (in Troyes, so that the agent moves first there)."""
    counts = get_game(name).PLAYER_COUNTS
    others = ("random",) * ((2 if 2 in counts else min(counts)) - 1)
    return ("human", *others) if i % 2 == 0 else (*others, "human")


SETUPS = {name: _seats(i, name) for i, name in enumerate(game_names())}


def _stored(seats: tuple[str, ...]) -> list[str]:
    """The store's labels of a line-up: the spec, `#k` for its k-th copy after the first."""
    return [s if seats[:i].count(s) == 0 else f"{s}#{seats[: i + 1].count(s)}"
            for i, s in enumerate(seats)]  # fmt: skip


HIDDEN_CHECKS = 30  # decisions whose payload is checked against determinized states


@pytest.fixture(scope="module", params=sorted(SETUPS))
def played(request, tmp_path_factory):
    """A whole game per game, the human always choosing the first legal action; every view."""
    name = request.param
    game = get_game(name)
    db = tmp_path_factory.mktemp(f"play_{name}") / "play.sqlite"
    prepare_store(db, game)
    host = PlayHost(PlayConfig(game, SETUPS[name], str(db), seed=7))
    server = serve(db, game, host)
    c = Client(server)
    v = c.json("/api/play", "POST")
    views, hidden_checked = [v], []
    while not v["over"]:
        assert v["your_turn"] and v["legal"] and v["to_act"] == v["seat"]
        if len(hidden_checked) < HIDDEN_CHECKS:
            hidden_checked.append(_check_hidden(game, host, v))
        v = c.act(v["token"], v["legal"][0]["actions"][0]["id"])
        views.append(v)
    yield game, db, host, c, views, hidden_checked
    stop(server)


def _check_hidden(game, host, v):
    """The view equals the payload of states that differ only in what the human cannot see;
    returns how many of those states differed from the real one."""
    pg = host._games[v["token"]]
    s, seat = pg.state, v["seat"]
    differ = 0
    for seed in (1, 2, 3):
        t = game.determinize(s, seat, seed)
        differ += int((t != s).any())
        other = view_payload(game, t, seat, host.labels, pg.log, pg.token, pg.game_id)
        assert json.loads(json.dumps(other)) == v
    return differ


def test_play_to_the_end_records_and_replays(played):
    game, db, host, c, views, _h = played
    end = views[-1]
    assert end["over"] and not end["legal"] and end["to_act"] is None
    gid = end["result"]["game_id"]
    assert isinstance(gid, int)
    with GameStore(db, game.NAME, create=False) as store:
        rec = store.game(gid)
        entrants = store.entrants()
    assert rec.match_key.startswith("play/") and end["token"] in rec.match_key
    assert rec.decisions == end["decisions"] == len(end["log"]) == len(rec.actions)
    assert rec.scores == end["result"]["scores"] and rec.tournament_id is None
    assert [entrants[e][0] for e in rec.seats] == _stored(SETUPS[game.NAME])
    assert entrants[rec.seats[end["seat"]]] == ("human", "human")
    rep = c.json(f"/api/games/{gid}")  # the replay viewer replays it like any other
    assert [s["action"] for s in rep["steps"]] == rec.actions
    assert [s["describe"] for s in rep["steps"]] == [e["describe"] for e in end["log"]]
    listed = c.json("/api/games")["games"]
    assert [g["id"] for g in listed] == [gid]
    assert [s["agent"] for s in listed[0]["seats"]] == _stored(SETUPS[game.NAME])
    st = c.json("/api/store")
    players = len(SETUPS[game.NAME])
    assert st["play"] == {
        "players": players,
        "seat": end["seat"],
        "agents": host.labels,  # the spec, #k for each copy of one given twice
    }
    seats = SETUPS[game.NAME]
    assert host.labels == [s if seats.count(s) == 1 else f"{s}#{seats[: i + 1].count(s)}"
                           for i, s in enumerate(seats)]  # fmt: skip
    # the view of a finished game is still there; the log is in decision order
    assert c.json(f"/api/play/{end['token']}") == end
    assert [e["decision"] for e in end["log"]] == list(range(len(end["log"])))
    for v in views:  # the legal actions are grouped by segment, each group in id order
        ids = [a["id"] for g in v["legal"] for a in g["actions"]]
        assert ids == sorted(ids) and len(ids) == len(set(ids))
        for g in v["legal"]:
            assert all(game.ACTIONS.decode(a["id"])[0] == g["segment"] for a in g["actions"])


def test_payloads_hold_nothing_the_human_cannot_see(played):
    game, _db, host, _c, views, hidden_checked = played
    assert len(hidden_checked) == min(HIDDEN_CHECKS, len(views) - 1)
    seat = views[0]["seat"]
    if game.NAME == "troyes":
        assert sum(hidden_checked) > 0  # the determinized states really differed
        from troyes_env.rules_data import CHARACTER_NAMES

        for v in views[:-1]:
            players = v["position"]["players"]
            mine = players[seat]["characters"]
            assert mine and all(n in CHARACTER_NAMES for n in mine)  # the human's own cards
            assert all("characters" not in p for p in players if p["seat"] != seat)
            text = json.dumps(v)
            assert not [n for n in CHARACTER_NAMES if n in text and n not in mine]
    hidden = {seg.name for seg in game.LAYOUT.hidden_segments()}
    for v in views:
        assert not hidden & set(json_keys(v)), "a hidden segment's name in the payload"


def _one_plain_line(status, headers, body, db):
    assert 400 <= status < 500, (status, body)
    assert headers["Content-Type"].startswith("text/plain")
    text = body.decode()
    assert text.endswith("\n") and text.count("\n") == 1, text
    assert "Traceback" not in text and str(db) not in text and "/" not in text.split(" ", 1)[0]
    assert str(Path(db).parent) not in text


def test_bad_requests_get_a_plain_4xx(played, monkeypatch):
    game, db, _host, c, views, _h = played
    end = views[-1]
    v = c.json("/api/play", "POST")  # a fresh game: the human's turn
    tok = v["token"]
    legal = {a["id"] for g in v["legal"] for a in g["actions"]}
    # an action that is not legal now (a small game may allow every action at the start)
    illegal = next((a for a in range(game.NUM_ACTIONS) if a not in legal), None)
    act = f"/api/play/{tok}/act"
    cases = [
        ("/api/play/xyz", "GET", None, {}, 400),
        ("/api/play/" + "0" * 32, "GET", None, {}, 404),
        ("/api/play/" + "0" * 32 + "/act", "POST", '{"action": 0}', {}, 404),
        ("/api/play/xyz/act", "POST", '{"action": 0}', {}, 400),
        (act, "POST", "{not json", {}, 400),
        (act, "POST", "[1]", {}, 400),
        (act, "POST", '{"action": 0, "x": 1}', {}, 400),
        (act, "POST", '{"action": "3"}', {}, 400),
        (act, "POST", '{"action": true}', {}, 400),
        (act, "POST", '{"action": -1}', {}, 400),
        (act, "POST", json.dumps({"action": game.NUM_ACTIONS}), {}, 400),
        *([(act, "POST", json.dumps({"action": illegal}), {}, 409)] if illegal is not None else []),
        (act, "POST", None, {}, 400),
        (act, "POST", '{"action": 0}', {"Content-Type": "text/plain"}, 415),
        (act, "POST", '{"action": 0}', {"Origin": "http://evil.example"}, 403),
        (act + "?x=1", "POST", '{"action": 0}', {}, 400),
        (f"/api/play/{tok}/undo", "POST", "{}", {}, 404),
        (f"/api/play/{end['token']}/act", "POST", '{"action": 0}', {}, 409),  # after the end
        ("/api/play", "POST", '{"seed": 1}', {}, 400),
        ("/api/play", "GET", None, {}, 405),
        (act, "GET", None, {}, 405),
        (f"/api/play/{tok}", "POST", "{}", {}, 405),
        ("/api/games", "POST", None, {}, 405),
        (act, "PUT", None, {}, 405),
    ]
    for path, method, body, headers, want in cases:
        status, h, data = c.request(path, method, body, headers)
        assert status == want, (path, method, body, status, data)
        _one_plain_line(status, h, data, db)
    status, h, data = c.request(act, "POST", "x" * 5000)
    assert status == 413
    # acting when it is not the human's turn: a game whose agents have not moved yet
    seat = v["seat"]
    if seat != 0:
        monkeypatch.setattr(PlayGame, "run_agents", lambda self: None)
        w = c.json("/api/play", "POST")
        assert w["to_act"] == 0 and not w["your_turn"] and w["legal"] == []
        monkeypatch.undo()
        status, h, data = c.request(  # any action in range: the turn is checked first
            f"/api/play/{w['token']}/act", "POST", json.dumps({"action": sorted(legal)[0]})
        )
        assert status == 409 and b"not your turn" in data
        _one_plain_line(status, h, data, db)
    # the legal action still works after all that
    assert c.act(tok, sorted(legal)[0])["decisions"] >= 1


def test_play_routes_need_play_mode(played, tmp_path):
    game, db, *_ = played
    server = serve(db, game, None)
    try:
        c = Client(server)
        for path, method in (
            ("/api/play", "POST"),
            ("/api/play", "GET"),
            ("/api/play/" + "a" * 32, "GET"),
            ("/api/play/" + "a" * 32 + "/act", "POST"),
            ("/api/play/" + "a" * 32 + "/act", "GET"),
            ("/api/play", "PUT"),
        ):
            status, h, data = c.request(path, method)
            assert status == 404 and b"--play" in data
            _one_plain_line(status, h, data, db)
        assert "play" not in c.json("/api/store")
    finally:
        stop(server)


@pytest.mark.skipif(shutil.which("node") is None, reason="node is not installed")
def test_page_script_draws_play_views(played, tmp_path):
    game, _db, _host, _c, views, _h = played
    payload = tmp_path / "views.json"
    payload.write_text(json.dumps(views[:40] + views[-1:]))
    out = run_page_smoke(payload, game)
    assert out.returncode == 0, out.stderr
    assert "ok play" in out.stdout
    drawn_by = game.NAME if script(game) is not None else "generic"
    assert out.stdout.strip().endswith(f"drawn by {drawn_by}"), out.stdout


V = ["--play", "--game", "village", "--players"]


@pytest.mark.parametrize(
    "argv,needle",
    [
        ([*V, "2"], "--agents"),
        ([*V, "2", "--agents", "random", "random"], "one 'human'"),
        ([*V, "2", "--agents", "human", "human"], "one 'human'"),
        ([*V, "3", "--agents", "human", "random"], "3 specs"),
        ([*V, "9", "--agents", "human", "random"], "--players"),
        ([*V, "2", "--agents", "human", "nobot"], "nobot"),
        (["--play", "--game", "chess", "--players", "2", "--agents", "human"], "chess"),
        (["--agents", "human", "random"], "only go with --play"),
    ],
)
def test_cli_refusals(tmp_path, capsys, argv, needle):
    with pytest.raises(SystemExit) as e:
        cli.main(["--db", str(tmp_path / "p.sqlite"), *argv])
    assert e.value.code == 2
    err = capsys.readouterr().err
    assert needle in err and "Traceback" not in err


def test_cli_play_store_of_another_game(tmp_path, capsys):
    db = tmp_path / "v.sqlite"
    prepare_store(db, get_game("village"))
    with pytest.raises(SystemExit):
        cli.main(["--db", str(db), "--play", "--game", "troyes", "--players", "2",
                  "--agents", "human", "random"])  # fmt: skip
    assert "village" in capsys.readouterr().err


def test_play_against_a_network_agent(tmp_path):
    """The play mode seats an `az` agent (a policy-value network inside the guided search) like
    any other spec: the human's moves and the agent's replies go on to the end."""
    import torch

    from training.agents.az_agent import write_network
    from training.alphazero.net import for_game

    name = game_names()[0]
    game = get_game(name)
    torch.manual_seed(0)
    net = for_game(game, hidden=(16,))
    folder = write_network(tmp_path / "net", net.arrays(), game, 2, net.settings(), "rank")
    db = tmp_path / "play.sqlite"
    prepare_store(db, game)
    seats = ("human", f"az:{folder},sims=4")
    host = PlayHost(PlayConfig(game, seats, str(db), seed=3))
    server = serve(db, game, host)
    try:
        c = Client(server)
        v = c.json("/api/play", "POST")
        while not v["over"]:
            v = c.act(v["token"], v["legal"][0]["actions"][0]["id"])
        agent_moves = [e for e in v["log"] if e.get("seat") == 1]
        assert v["result"]["game_id"] is not None and agent_moves
    finally:
        stop(server)
