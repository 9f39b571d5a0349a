"""The viewer server's address checks and small input checks: the Host header and the Origin of a
POST are checked against the address the server is bound to (any loopback address, IPv6 too),
a non-loopback address needs --public, a busy port says which and what to do, the list's limit
names its real range, and GET /api/play is a 404 without --play."""

from __future__ import annotations

import socket

import pytest
from view_helpers import Client, serve, stop

from core.registry import game_names, get_game
from training.view import __main__ as cli
from training.view.api import RequestError, Viewer
from training.view.play import PlayConfig, PlayHost, prepare_store
from training.view.server import HostPolicy, ServeError, ViewerServer, make_server

CROSS_SITE = b"403 requests from another site are refused\n"


@pytest.fixture(scope="module")
def store(tmp_path_factory):
    """An empty store of the first registered game and a lineup of `human` and `random`."""
    game = get_game(game_names()[0])
    n = 2 if 2 in game.PLAYER_COUNTS else min(game.PLAYER_COUNTS)
    db = tmp_path_factory.mktemp("view_server") / "play.sqlite"
    prepare_store(db, game)
    return game, db, ("human", *["random"] * (n - 1))


def _serve_play(store, host):
    game, db, seats = store
    play = PlayHost(PlayConfig(game, seats, str(db), seed=1))
    server = serve(db, game, play, host=host)
    return server, play


@pytest.fixture()
def on_127_0_0_2(store):
    """A play-mode server bound to 127.0.0.2 (Linux routes all of 127/8 to loopback)."""
    server, play = _serve_play(store, "127.0.0.2")
    yield server, play, Client(server)
    stop(server)


def _ipv6_loopback() -> bool:
    try:
        with socket.socket(socket.AF_INET6) as s:
            s.bind(("::1", 0))
        return True
    except OSError:
        return False


# -- Host --------------------------------------------------------------------------------------
def test_any_loopback_address_answers_only_its_own_host(on_127_0_0_2):
    """Finding: bound to a loopback address other than 127.0.0.1, the viewer answered requests
    with any Host header (a page of another site could point a name of its own at it)."""
    _server, play, c = on_127_0_0_2
    port = c.port
    refusal = (
        f"403 this server answers only requests addressed to 127.0.0.2:{port} or localhost:{port}\n"
    ).encode()
    assert c.request("/api/store")[0] == 200  # Host: 127.0.0.2:<port>
    assert c.request("/api/store", headers={"Host": f"localhost:{port}"})[0] == 200
    assert c.request("/api/store", headers={"Host": f"LocalHost:{port}"})[0] == 200
    for bad in (
        f"evil.example:{port}",
        "evil.example",
        f"127.0.0.1:{port}",  # another loopback address: not the one bound
        f"127.0.0.2:{port + 1}",
        "127.0.0.2",  # no port: port 80
        f"127.0.0.2:{port}@evil.example",
        f"127.0.0.2.evil.example:{port}",
        f"[::1]:{port}",
        "",
    ):
        for method in ("GET", "POST", "PUT"):
            path = "/api/play" if method == "POST" else "/api/store"
            status, h, body = c.request(path, method, headers={"Host": bad})
            assert (status, body) == (403, refusal), (bad, method, status, body)
            assert h["Content-Type"].startswith("text/plain")
    assert len(play._games) == 0  # no refused POST started a game


def test_ipv6_loopback_takes_its_bracket_forms(store):
    """The Host check of a server bound to ::1: the address in brackets (any spelling of it)
    or localhost, with the port."""
    if not _ipv6_loopback():
        pytest.skip("no IPv6 loopback on this machine")
    server, play = _serve_play(store, "::1")
    try:
        c = Client(server)
        port = c.port
        for good in (f"[::1]:{port}", f"[0:0:0:0:0:0:0:1]:{port}", f"localhost:{port}"):
            assert c.request("/api/store", headers={"Host": good})[0] == 200, good
        for bad in (f"::1:{port}", "[::1]", f"[::2]:{port}", f"127.0.0.1:{port}", f"[::1:{port}"):
            assert c.request("/api/store", headers={"Host": bad})[0] == 403, bad
        status, _h, _b = c.request("/api/play", "POST", headers={"Origin": f"http://[::1]:{port}"})
        assert status == 200
        status, _h, body = c.request(
            "/api/play", "POST", headers={"Origin": f"http://localhost:{port}"}
        )
        assert (status, body) == (403, CROSS_SITE)  # another origin than the Host it sent
        assert len(play._games) == 1
    finally:
        stop(server)


def test_host_policy_follows_the_bound_address():
    """What each bound address answers: a loopback address itself and localhost; another
    address only itself; a wildcard (0.0.0.0, ::) any IP address or localhost, never a name
    (a name can be pointed at this machine by anyone's DNS); always the bound port."""
    lo = HostPolicy("127.0.0.1", 8765)
    assert [lo.host_ok(h) for h in ("127.0.0.1:8765", "localhost:8765", "[::1]:8765")] == [
        True,
        True,
        False,
    ]
    one = HostPolicy("192.0.2.7", 8765)
    assert [one.host_ok(h) for h in ("192.0.2.7:8765", "localhost:8765", "192.0.2.8:8765")] == [
        True,
        False,
        False,
    ]
    for wild in (HostPolicy("0.0.0.0", 80), HostPolicy("::", 80)):
        assert wild.host_ok("10.1.2.3") and wild.host_ok("10.1.2.3:80")
        assert wild.host_ok("[fe80::1]:80") and wild.host_ok("localhost")
        assert not wild.host_ok("10.1.2.3:81")
        assert not wild.host_ok("mybox.example") and not wild.host_ok("mybox.example:80")
        assert not wild.host_ok(None) and not wild.host_ok("10.1.2.3:80:80")
    assert one.same_origin("http://192.0.2.7:8765", "192.0.2.7:8765")
    assert not one.same_origin("http://192.0.2.7:8765/", "192.0.2.7:8765")
    assert not one.same_origin("http://192.0.2.7", "192.0.2.7:8765")
    assert HostPolicy("0.0.0.0", 80).same_origin("http://10.1.2.3", "10.1.2.3:80")
    assert not HostPolicy("0.0.0.0", 80).same_origin("http://10.1.2.4", "10.1.2.3")
    assert lo.describe() == "127.0.0.1:8765 or localhost:8765"
    assert HostPolicy("::1", 1).describe() == "[::1]:1 or localhost:1"
    assert HostPolicy("::", 1).describe() == "an IP address of this machine or localhost, port 1"


# -- Origin ------------------------------------------------------------------------------------
def test_cross_site_post_is_refused_on_any_bound_loopback(on_127_0_0_2):
    """Finding: bound to a loopback address other than 127.0.0.1, a POST /api/play whose Origin
    is another site started a game."""
    _server, play, c = on_127_0_0_2
    port = c.port
    for origin in (
        "http://evil.example",
        f"http://evil.example:{port}",
        f"http://localhost:{port}",  # the Host header says 127.0.0.2: another origin
        f"https://127.0.0.2:{port}",
        f"http://127.0.0.2:{port + 1}",
        "null",
    ):
        status, _h, body = c.request("/api/play", "POST", headers={"Origin": origin})
        assert (status, body) == (403, CROSS_SITE), origin
    same = {"Origin": f"http://127.0.0.2:{port}"}
    status, _h, body = c.request(
        "/api/play", "POST", headers={**same, "Sec-Fetch-Site": "cross-site"}
    )
    assert (status, body) == (403, CROSS_SITE)
    assert len(play._games) == 0
    assert c.request("/api/play", "POST", headers=same)[0] == 200
    assert (
        c.request("/api/play", "POST", headers={**same, "Sec-Fetch-Site": "same-origin"})[0] == 200
    )
    host = {"Host": f"localhost:{port}", "Origin": f"http://localhost:{port}"}
    assert c.request("/api/play", "POST", headers=host)[0] == 200
    assert c.request("/api/play", "POST")[0] == 200  # no Origin: not a browser
    assert len(play._games) == 4


# -- the address itself ------------------------------------------------------------------------
def _interrupted(self, *args, **kwargs):
    raise KeyboardInterrupt  # main's Ctrl-C path: it closes the server and returns


@pytest.mark.parametrize("host", ["0.0.0.0", "::", "192.0.2.7", ""])
def test_non_loopback_host_needs_public(store, tmp_path, capsys, monkeypatch, host):
    """A --host that is not a loopback address is refused in one line (naming --public) before
    anything is bound or created."""
    monkeypatch.setattr(ViewerServer, "serve_forever", _interrupted)  # never serve for ever
    game, db, seats = store
    assert cli.main(["--db", str(db), "--host", host, "--port", "0"]) == 2
    out = capsys.readouterr()
    assert out.out == ""
    assert out.err == (
        f"python -m training.view: error: --host {host!r} is not a loopback address and the "
        "viewer has no login (anyone who can reach it could use it): add --public to serve "
        "it to others\n"
    )
    new = tmp_path / "new.sqlite"
    argv = ["--db", str(new), "--host", host, "--play", "--game", game.NAME]
    argv += ["--players", str(len(seats)), "--agents", *seats]
    assert cli.main(argv) == 2
    assert not new.exists()
    capsys.readouterr()
    with pytest.raises(ServeError, match="not a loopback address"):
        make_server(str(db), game, host, 0)


def test_public_warns_and_loopback_does_not(store, capsys, monkeypatch):
    """--public on a wildcard address starts with a one-line warning on stderr; a loopback
    address (other than 127.0.0.1 too) starts without one."""
    monkeypatch.setattr(ViewerServer, "serve_forever", _interrupted)
    _game, db, _seats = store
    assert cli.main(["--db", str(db), "--host", "127.0.0.2", "--port", "0"]) == 0
    out = capsys.readouterr()
    assert out.err == "" and "serving on http://127.0.0.2:" in out.out
    assert cli.main(["--db", str(db), "--host", "0.0.0.0", "--port", "0", "--public"]) == 0
    out = capsys.readouterr()
    lines = out.err.splitlines()
    assert len(lines) == 1 and "serving on http://0.0.0.0:" in out.out
    port = out.out.split("http://0.0.0.0:")[1].split("/")[0]
    assert lines[0] == (
        "python -m training.view: warning: --public: the viewer has no login; anyone who can "
        f"reach port {port} of this machine can read this store"
    )


def test_busy_port_says_which_and_what_to_do(store, capsys):
    """Finding: a second viewer on a busy port said only "[Errno 98] Address already in use"."""
    _game, db, _seats = store
    with socket.socket() as busy:
        busy.bind(("127.0.0.1", 0))
        busy.listen()
        port = busy.getsockname()[1]
        assert cli.main(["--db", str(db), "--port", str(port)]) == 2
    out = capsys.readouterr()
    assert out.out == ""
    assert out.err == (
        f"python -m training.view: error: 127.0.0.1:{port} is already in use (another viewer?): "
        "pick another --port, or --port 0 for any free port\n"
    )


# -- small input checks ------------------------------------------------------------------------
def test_limit_refusal_names_the_real_range(on_127_0_0_2):
    """Finding: `limit=0` was refused with "limit must be 1..1000000000000" while the most is
    500."""
    _server, _play, c = on_127_0_0_2
    for bad in ("0", "501", "999999999999"):
        status, _h, body = c.request(f"/api/games?limit={bad}")
        assert (status, body) == (400, b"400 limit must be 1..500\n"), bad
    assert c.json("/api/games?limit=500")["limit"] == 500
    assert c.json("/api/games?limit=1")["limit"] == 1


def test_viewer_refuses_a_negative_offset(store):
    """Viewer.games (the library call behind /api/games) refuses an offset below 0 instead of
    slicing from the end of the list."""
    game, db, _seats = store
    viewer = Viewer(str(db), game)
    try:
        with pytest.raises(RequestError, match="^offset must be 0 or more$"):
            viewer.games(offset=-1)
        assert viewer.games(offset=0)["games"] == []
    finally:
        viewer.close()


def test_get_api_play_is_404_without_play_mode(store, on_127_0_0_2):
    """Finding: GET /api/play answered 405 on a server without --play, where every play route
    is documented as 404 (the resource does not exist there); with --play it exists and takes
    POST only: 405 with an Allow header."""
    game, db, _seats = store
    server = serve(db, game)
    try:
        status, h, body = Client(server).request("/api/play")
        assert (status, body) == (
            404,
            b"404 this server is not in play mode (start it with --play)\n",
        )
    finally:
        stop(server)
    _server, _play, c = on_127_0_0_2
    status, h, body = c.request("/api/play")
    assert (status, h["Allow"], body) == (405, "POST", b"405 POST /api/play starts a game\n")
    status, h, _b = c.request("/api/games", "POST")
    assert (status, h["Allow"]) == (405, "GET, HEAD")
