"""The viewer's HTTP server (standard library only): routes, request validation, responses.

Routes (GET and HEAD; POST only for the play routes; anything else 405):

    /                       the page (static/index.html)
    /static/<name>          one of the bundled assets in STATIC (no other file is ever served)
    /games/<game>.js        the page's drawing of the served game, when its view names one
                            (positions.script: a file of the game package, read once at start)
    /api/store              the game of the store, its tournaments and agents (for the filters)
    /api/games?...          the filtered game list (api.Viewer.games)
    /api/games/<id>         one game's replay (api.Viewer.replay)

and with --play (play.PlayHost; 404 without it):

    POST /api/play               start a game against the agents: the human's view (its token)
    GET  /api/play/<token>       the human's view of that game (play.view_payload)
    POST /api/play/<token>/act   {"action": id}: the human's decision; the agents answer

Every refusal is a 4xx with a one-line plain-text reason; an unexpected failure is a 500 that
says only "internal error" (the traceback goes to the server's stderr, never to the client).
"""

from __future__ import annotations

import gzip
import json
import re
import socket
import sys
import traceback
from http import HTTPStatus
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from importlib import resources
from typing import Any
from urllib.parse import parse_qsl

from training.view.api import DEFAULT_LIMIT, RequestError, Viewer
from training.view.play import PlayHost
from training.view.positions import script

# name -> content type; the only files the server reads (from the package, once, at start)
STATIC = {
    "index.html": "text/html; charset=utf-8",
    "viewer.js": "text/javascript; charset=utf-8",
    "viewer.css": "text/css; charset=utf-8",
}
CSP = (
    "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; "
    "connect-src 'self'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'"
)
_ID = re.compile(r"[0-9]{1,12}")
_INT = re.compile(r"-?[0-9]{1,12}")
_TOKEN = re.compile(r"[0-9a-f]{32}")
MAX_BODY = 4096
_LIST_PARAMS = ("tournament", "agent", "seat", "result", "offset", "limit")
MAX_SEAT = 3


def load_static() -> dict[str, bytes]:
    """The bundled assets, read from the installed package."""
    base = resources.files("training.view") / "static"
    return {name: (base / name).read_bytes() for name in STATIC}


def _int_param(name: str, value: str, lo: int, hi: int) -> int:
    if not _INT.fullmatch(value):
        raise RequestError(400, f"{name} must be an integer")
    x = int(value)
    if not lo <= x <= hi:
        raise RequestError(400, f"{name} must be {lo}..{hi}")
    return x


def parse_list_query(query: str) -> dict[str, Any]:
    """The /api/games query string as Viewer.games arguments (RequestError if malformed)."""
    try:
        pairs = parse_qsl(query, keep_blank_values=True, strict_parsing=bool(query))
    except ValueError:
        raise RequestError(400, "malformed query string") from None
    args: dict[str, Any] = {}
    for key, value in pairs:
        if key not in _LIST_PARAMS:
            raise RequestError(400, f"unknown parameter {key[:40]!r}")
        if key in args:
            raise RequestError(400, f"parameter {key!r} given twice")
        if value == "":
            continue
        if key in ("tournament",):
            args[key] = _int_param(key, value, 0, 10**12)
        elif key == "seat":
            args[key] = _int_param(key, value, 0, MAX_SEAT)
        elif key == "offset":
            args[key] = _int_param(key, value, 0, 10**12)
        elif key == "limit":
            args[key] = _int_param(key, value, 1, 10**12)
        elif len(value) > 200 or not value.isprintable():
            raise RequestError(400, f"{key} is not a valid value")
        else:
            args[key] = value
    args.setdefault("limit", DEFAULT_LIMIT)
    return args


class ViewerServer(ThreadingHTTPServer):
    """A ThreadingHTTPServer holding the Viewer and the static assets."""

    daemon_threads = True

    def __init__(
        self,
        address: tuple[str, int],
        viewer: Viewer,
        quiet: bool = False,
        play: PlayHost | None = None,
    ):
        self.viewer = viewer
        self.play = play
        self.static = load_static()
        # the served game's drawing (None: the page's generic one), at the one address
        # `script_url` names; nothing else of the game package is ever served
        drawing = script(viewer.game)
        self.script_url = None if drawing is None else f"/games/{viewer.game.NAME}.js"
        self.script = drawing or b""
        self.quiet = quiet
        if ":" in address[0]:  # an IPv6 address such as ::1
            self.address_family = socket.AF_INET6
        super().__init__(address, Handler)
        host, port = self.server_address[:2]
        # bound to a loopback address: answer only requests addressed to it (a web page of
        # another site that points a name of its own at 127.0.0.1 gets nothing)
        if host in ("127.0.0.1", "::1", "localhost"):
            names = ("127.0.0.1", "localhost", "[::1]")
            self.allowed_hosts: set[str] | None = {f"{h}:{port}" for h in names}
        else:
            self.allowed_hosts = None

    @property
    def url(self) -> str:
        host, port = self.server_address[:2]
        if ":" in host:
            host = f"[{host}]"
        return f"http://{host}:{port}/"


class Handler(BaseHTTPRequestHandler):
    server: ViewerServer
    server_version = "village-troyes-viewer"
    sys_version = ""
    error_content_type = "text/plain; charset=utf-8"
    error_message_format = "%(code)d %(message)s\n"

    # -- responses -------------------------------------------------------------------------------
    def _send(self, status: int, body: bytes, ctype: str, encoding: str | None = None) -> None:
        self.send_response(status)
        self.send_header("Content-Type", ctype)
        if encoding:
            self.send_header("Content-Encoding", encoding)
            self.send_header("Vary", "Accept-Encoding")
        self.send_header("Content-Length", str(len(body)))
        self.send_header("Cache-Control", "no-store")
        self.send_header("X-Content-Type-Options", "nosniff")
        self.send_header("Content-Security-Policy", CSP)
        self.send_header("Referrer-Policy", "no-referrer")
        self.end_headers()
        if self.command != "HEAD":
            self.wfile.write(body)

    def _json(self, obj: Any) -> None:
        body = json.dumps(obj, separators=(",", ":")).encode()
        accepts = self.headers.get("Accept-Encoding", "")
        if len(body) > 65536 and "gzip" in [a.split(";")[0].strip() for a in accepts.split(",")]:
            self._send(200, gzip.compress(body, 6), "application/json; charset=utf-8", "gzip")
        else:
            self._send(200, body, "application/json; charset=utf-8")

    def send_error(self, code: int, message: str | None = None, explain: str | None = None) -> None:
        """Every error as one plain line (also the ones http.server raises itself)."""
        try:
            phrase = HTTPStatus(code).phrase
        except ValueError:
            phrase = "error"
        line = " ".join((message or phrase).split())[:300]
        self.close_connection = True
        body = f"{code} {line}\n".encode("utf-8", "replace")
        try:
            self.send_response(code, phrase)
            self.send_header("Content-Type", "text/plain; charset=utf-8")
            self.send_header("Content-Length", str(len(body)))
            self.send_header("X-Content-Type-Options", "nosniff")
            self.send_header("Connection", "close")
            self.end_headers()
            if self.command != "HEAD" and code >= 200 and code not in (204, 304):
                self.wfile.write(body)
        except OSError:
            pass

    def log_message(self, format: str, *args: Any) -> None:
        if not self.server.quiet:
            sys.stderr.write(f"{self.address_string()} - {format % args}\n")

    # -- routing ---------------------------------------------------------------------------------
    def _dispatch(self, route) -> None:
        try:
            self._check_host()
            route()
        except RequestError as e:
            self.send_error(e.status, e.reason)
        except Exception:
            traceback.print_exc(file=sys.stderr)
            self.send_error(500, "internal error")

    def do_GET(self) -> None:
        self._dispatch(self._route)

    do_HEAD = do_GET

    def do_POST(self) -> None:
        self._dispatch(self._route_post)

    def _method_not_allowed(self) -> None:
        self.send_error(405, "only GET and HEAD are served (and POST to the play routes)")

    do_PUT = do_DELETE = do_PATCH = do_OPTIONS = _method_not_allowed

    def _check_host(self) -> None:
        allowed = self.server.allowed_hosts
        if allowed is not None and self.headers.get("Host", "").lower() not in allowed:
            raise RequestError(400, "unexpected Host header (open the address the server printed)")

    def _route(self) -> None:
        path, _, query = self.path.partition("?")
        if "#" in query:
            query = query.partition("#")[0]
        if path == "/" or path == "/index.html":
            return self._static("index.html")
        if path.startswith("/static/"):
            name = path[len("/static/") :]
            if name in STATIC:
                return self._static(name)
            raise RequestError(404, "no such file")
        if path.startswith("/games/"):
            if self.server.script_url is None or path != self.server.script_url:
                raise RequestError(404, "no such file")
            return self._send(200, self.server.script, STATIC["viewer.js"])
        viewer = self.server.viewer
        if path == "/api/store":
            self._no_query(query)
            summary = viewer.summary()
            summary["script"] = self.server.script_url
            play = self.server.play
            if play is not None:
                summary["play"] = {
                    "players": play.config.players,
                    "seat": play.config.human_seat,
                    "agents": list(play.labels),
                }
            return self._json(summary)
        if path == "/api/games":
            return self._json(viewer.games(**parse_list_query(query)))
        if path.startswith("/api/games/"):
            gid = path[len("/api/games/") :]
            if not _ID.fullmatch(gid):
                raise RequestError(400, "a game id is a positive integer")
            self._no_query(query)
            return self._json(viewer.replay(int(gid)))
        if path.startswith("/api/play/"):
            self._no_query(query)
            return self._json(self._play().view(self._token(path[len("/api/play/") :])))
        if path == "/api/play":
            raise RequestError(405, "POST /api/play starts a game")
        raise RequestError(404, "no such page")

    # -- play mode -------------------------------------------------------------------------------
    def _play(self) -> PlayHost:
        if self.server.play is None:
            raise RequestError(404, "this server is not in play mode (start it with --play)")
        return self.server.play

    @staticmethod
    def _token(text: str) -> str:
        if not _TOKEN.fullmatch(text):
            raise RequestError(400, "a game token is 32 hex digits")
        return text

    def _body(self) -> Any:
        """The request's JSON body (None when empty), from this page only (the Origin, when
        sent, must be the server's own; a body must be application/json)."""
        allowed = self.server.allowed_hosts
        origin = self.headers.get("Origin")
        if origin is not None and allowed is not None:
            if origin.lower() not in {f"http://{h}" for h in allowed}:
                raise RequestError(403, "requests from another site are refused")
        if self.headers.get("Transfer-Encoding"):
            raise RequestError(411, "send the body with a Content-Length")
        length = self.headers.get("Content-Length", "0").strip() or "0"
        if not length.isdigit():
            raise RequestError(400, "bad Content-Length")
        n = int(length)
        if n > MAX_BODY:
            raise RequestError(413, f"a request body is at most {MAX_BODY} bytes")
        raw = self.rfile.read(n) if n else b""
        if not raw.strip():
            return None
        ctype = self.headers.get("Content-Type", "").split(";")[0].strip().lower()
        if ctype != "application/json":
            raise RequestError(415, "the body must be application/json")
        try:
            return json.loads(raw)
        except (ValueError, UnicodeDecodeError):
            raise RequestError(400, "the body is not valid JSON") from None

    def _route_post(self) -> None:
        path, _, query = self.path.partition("?")
        if not path.startswith("/api/play"):
            raise RequestError(405, "only the play routes take POST")
        play = self._play()
        self._no_query(query)
        body = self._body()
        if path == "/api/play":
            if body not in (None, {}):
                raise RequestError(400, "POST /api/play takes no parameters")
            return self._json(play.start())
        rest = path[len("/api/play/") :] if path.startswith("/api/play/") else ""
        token, sep, verb = rest.partition("/")
        if not sep or verb != "act":
            raise RequestError(404, "no such page (POST /api/play or /api/play/<token>/act)")
        token = self._token(token)
        if not isinstance(body, dict) or set(body) != {"action"}:
            raise RequestError(400, 'the body must be {"action": <action id>}')
        action = body["action"]
        if not isinstance(action, int) or isinstance(action, bool):
            raise RequestError(400, "action must be an integer action id")
        return self._json(play.act(token, action))

    @staticmethod
    def _no_query(query: str) -> None:
        if query:
            raise RequestError(400, "this address takes no parameters")

    def _static(self, name: str) -> None:
        self._send(200, self.server.static[name], STATIC[name])


def make_server(
    db_path: str,
    game,
    host: str = "127.0.0.1",
    port: int = 8765,
    quiet=False,
    play: PlayHost | None = None,
):
    """A ViewerServer on (host, port) for the store at db_path (port 0: any free port); `play`:
    also serve the play routes (the store is created first if missing)."""
    return ViewerServer((host, port), Viewer(db_path, game), quiet=quiet, play=play)
