"""The viewer's HTTP server (standard library only): routes, request validation, responses.

Routes (GET and HEAD; POST only for the play routes; anything else 405 with an Allow header):

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

Every request must name the server in its Host header as `HostPolicy` allows (derived from the
address the server is bound to; else 403), and a POST that comes from a browser must come from
the page itself: an Origin other than the Host's own, or a Sec-Fetch-Site other than same-origin,
is refused (403). The server binds only a loopback address unless started with public=True
(--public): anything else is a ServeError before a socket is bound.

Every refusal is a 4xx with a one-line plain-text reason; an unexpected failure is a 500 that
says only "internal error" (the traceback goes to the server's stderr, never to the client).
"""

from __future__ import annotations

import errno
import gzip
import ipaddress
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

from training.view.api import DEFAULT_LIMIT, MAX_LIMIT, RequestError, Viewer
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
# a host name as a Host header or an Origin may carry it (lower case, no trailing dot)
_NAME = re.compile(r"[a-z0-9](?:[a-z0-9-]*[a-z0-9])?(?:\.[a-z0-9](?:[a-z0-9-]*[a-z0-9])?)*")
_PORT = re.compile(r"[0-9]{1,5}")


class ServeError(ValueError):
    """The server cannot start at that address (not loopback without public=True, a busy
    port, an address not of this machine): a one-line reason."""


class MethodNotAllowed(RequestError):
    """A 405: the resource exists but does not take this method (`allow`: the ones it takes)."""

    def __init__(self, allow: str, reason: str):
        super().__init__(405, reason)
        self.allow = allow


def split_authority(text: str | None) -> tuple[str, int] | None:
    """(host, port) of a Host header or of an origin's host[:port], or None when malformed: the
    host in lower case, an IP address in its canonical form (IPv6 without its brackets), port 80
    when none is given (the one a browser leaves out for http)."""
    if text is None:
        return None
    text = text.lower()
    if text.startswith("["):
        inside, sep, rest = text[1:].partition("]")
        if not sep:
            return None
        try:
            host = str(ipaddress.IPv6Address(inside))
        except ValueError:
            return None
    else:
        host = text.partition(":")[0]
        rest = text[len(host) :]
        try:
            host = str(ipaddress.IPv4Address(host))
        except ValueError:
            if not _NAME.fullmatch(host):
                return None
    if not rest:
        return host, 80
    if rest[0] != ":" or not _PORT.fullmatch(rest[1:]) or int(rest[1:]) > 65535:
        return None
    return host, int(rest[1:])


def _is_ip(host: str) -> bool:
    try:
        ipaddress.ip_address(host)
    except ValueError:
        return False
    return True


class HostPolicy:
    """Which Host headers a server bound to (host, port) answers, always with that port: a
    loopback address itself and `localhost`; another address only itself; a wildcard (0.0.0.0,
    ::) any IP address and `localhost`, never another name (anyone's DNS can point a name of its
    own at this machine, and a page served under that name would then be "same-site" with the
    viewer)."""

    def __init__(self, host: str, port: int):
        ip = ipaddress.ip_address(host)
        self.address = str(ip)
        self.port = port
        self.loopback = ip.is_loopback
        self.wildcard = ip.is_unspecified
        self.hosts = {self.address, "localhost"} if self.loopback else {self.address}

    def host_ok(self, header: str | None) -> bool:
        got = split_authority(header)
        if got is None or got[1] != self.port:
            return False
        if self.wildcard:
            return got[0] == "localhost" or _is_ip(got[0])
        return got[0] in self.hosts

    @staticmethod
    def same_origin(origin: str, host_header: str | None) -> bool:
        """Whether an Origin header is http://<the host and port the Host header names>."""
        scheme, sep, authority = origin.partition("://")
        if not sep or scheme.lower() != "http":
            return False
        got = split_authority(authority)
        return got is not None and got == split_authority(host_header)

    def describe(self) -> str:
        """The Host values this policy takes, in words (for the 403's reason)."""
        if self.wildcard:
            return f"an IP address of this machine or localhost, port {self.port}"
        names = [f"{_bracketed(self.address)}:{self.port}"]
        if self.loopback:
            names.append(f"localhost:{self.port}")
        return " or ".join(names)


def _get_only() -> MethodNotAllowed:
    return MethodNotAllowed(
        "GET, HEAD", "only GET and HEAD are served here (POST only to the play routes)"
    )


def _post_only(start: bool) -> MethodNotAllowed:
    """The 405 of /api/play (`start`) or of /api/play/<token>/act."""
    if start:
        return MethodNotAllowed("POST", "POST /api/play starts a game")
    return MethodNotAllowed("POST", "POST /api/play/<token>/act plays an action")


def _play_route(path: str) -> str | None:
    """Which play route `path` is: "start" (/api/play), "view" (/api/play/<x>), "act"
    (/api/play/<x>/act), "other" (anything else under /api/play/), or None (not a play route)."""
    if path == "/api/play":
        return "start"
    if not path.startswith("/api/play/"):
        return None
    token, sep, verb = path[len("/api/play/") :].partition("/")
    if not sep:
        return "view"
    return "act" if verb == "act" and "/" not in token else "other"


def _bracketed(host: str) -> str:
    return f"[{host}]" if ":" in host else host


def _not_loopback(host: str) -> str:
    return (
        f"--host {host!r} is not a loopback address and the viewer has no login (anyone who "
        "can reach it could use it): add --public to serve it to others"
    )


def check_address(host: str, public: bool) -> None:
    """ServeError unless `host` (an address or a name, as bind takes it; "" is every address)
    is a loopback address, or `public`."""
    if public:
        return
    if _is_ip(host) or not host:  # an address as it is; "" binds every address
        addresses = [host or "0.0.0.0"]
    else:  # a name: what bind would resolve it to (IPv4, as the server binds a name)
        try:
            infos = socket.getaddrinfo(host, 0, socket.AF_INET, socket.SOCK_STREAM)
        except (OSError, UnicodeError) as e:
            reason = getattr(e, "strerror", None) or str(e)
            raise ServeError(f"--host {host!r}: cannot resolve it ({reason})") from None
        addresses = [info[4][0] for info in infos]
    if not all(ipaddress.ip_address(a).is_loopback for a in addresses):
        raise ServeError(_not_loopback(host))


def _bind_problem(host: str, port: int, e: Exception) -> str:
    """One line saying why (host, port) cannot be listened on, and what to do."""
    where = f"{_bracketed(host) if host else '*'}:{port}"
    code = getattr(e, "errno", None)
    if code == errno.EADDRINUSE:
        return (
            f"{where} is already in use (another viewer?): pick another --port, or --port 0 "
            "for any free port"
        )
    if code == errno.EADDRNOTAVAIL:
        return f"cannot listen on {where}: {host} is not an address of this machine"
    if code == errno.EACCES:
        return (
            f"cannot listen on {where}: permission denied (ports below 1024 need privileges): "
            "pick another --port, or --port 0 for any free port"
        )
    reason = getattr(e, "strerror", None) or str(e)
    return f"cannot listen on {where}: {' '.join(reason.split())}"


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
            args[key] = _int_param(key, value, 1, MAX_LIMIT)
        elif len(value) > 200 or not value.isprintable():
            raise RequestError(400, f"{key} is not a valid value")
        else:
            args[key] = value
    args.setdefault("limit", DEFAULT_LIMIT)
    return args


class ViewerServer(ThreadingHTTPServer):
    """A ThreadingHTTPServer holding the Viewer and the static assets, bound to `address` and
    listening once the address passed the checks (ServeError otherwise: nothing is left bound).
    `public`: allow an address other than loopback."""

    daemon_threads = True

    def __init__(
        self,
        address: tuple[str, int],
        viewer: Viewer,
        quiet: bool = False,
        play: PlayHost | None = None,
        public: bool = False,
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
        self.public = public
        host, port = address
        if ":" in host:  # an IPv6 address such as ::1
            self.address_family = socket.AF_INET6
        check_address(host, public)
        super().__init__(address, Handler, bind_and_activate=False)
        try:
            self.server_bind()
            # the address really bound (a name resolves here) decides what is answered: only
            # requests addressed to it, so a page of another site that points a name of its own
            # at this machine gets nothing
            self.policy = HostPolicy(*self.server_address[:2])
            if not (self.policy.loopback or public):
                raise ServeError(_not_loopback(host))
            self.server_activate()
        except (OSError, OverflowError) as e:
            self.server_close()
            raise ServeError(_bind_problem(host, port, e)) from None
        except BaseException:
            self.server_close()
            raise

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
        self._refuse(code, message)

    def _refuse(self, code: int, message: str | None, allow: str | None = None) -> None:
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
            if allow is not None:
                self.send_header("Allow", allow)
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
            self._refuse(e.status, e.reason, getattr(e, "allow", None))
        except Exception:
            traceback.print_exc(file=sys.stderr)
            self.send_error(500, "internal error")

    def do_GET(self) -> None:
        self._dispatch(self._route)

    do_HEAD = do_GET

    def do_POST(self) -> None:
        self._dispatch(self._route_post)

    def _method_not_allowed(self) -> None:
        self._dispatch(self._refuse_method)

    do_PUT = do_DELETE = do_PATCH = do_OPTIONS = _method_not_allowed

    def _refuse_method(self) -> None:
        route = _play_route(self.path.partition("?")[0])
        if route is not None:
            self._play()  # without --play no play route exists: 404
            if route in ("start", "act"):
                raise _post_only(route == "start")
        raise _get_only()

    def _check_host(self) -> None:
        policy = self.server.policy
        hosts = self.headers.get_all("Host") or []
        if len(hosts) != 1 or not policy.host_ok(hosts[0]):
            raise RequestError(
                403, f"this server answers only requests addressed to {policy.describe()}"
            )

    def _check_origin(self) -> None:
        """A state-changing request from a browser must come from the page itself: its Origin
        (when sent) is the Host's own http origin, its Sec-Fetch-Site (when sent) same-origin or
        none (typed in by the user). A client that sends neither is not a browser page."""
        origin = self.headers.get("Origin")
        site = self.headers.get("Sec-Fetch-Site")
        if (
            origin is not None and not HostPolicy.same_origin(origin, self.headers.get("Host"))
        ) or (site is not None and site.strip().lower() not in ("same-origin", "none")):
            raise RequestError(403, "requests from another site are refused")

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
            play = self._play()
            if _play_route(path) == "act":
                raise _post_only(False)
            self._no_query(query)
            return self._json(play.view(self._token(path[len("/api/play/") :])))
        if path == "/api/play":
            self._play()  # without --play it does not exist: 404
            raise _post_only(True)
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
        """The request's JSON body (None when empty; a body must be application/json)."""
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
        self._check_origin()
        route = _play_route(path)
        if route is None:
            raise _get_only()
        play = self._play()
        if route == "view":  # /api/play/<token> is the game's view: GET only
            raise _get_only()
        if route == "other":
            raise RequestError(404, "no such page (POST /api/play or /api/play/<token>/act)")
        self._no_query(query)
        body = self._body()
        if route == "start":
            if body not in (None, {}):
                raise RequestError(400, "POST /api/play takes no parameters")
            return self._json(play.start())
        token = self._token(path[len("/api/play/") : -len("/act")])
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
    public: bool = False,
):
    """A ViewerServer on (host, port) for the store at db_path (port 0: any free port); `play`:
    also serve the play routes (the store is created first if missing); `public`: allow a host
    other than a loopback address (--public). ServeError when it cannot start there."""
    viewer = Viewer(db_path, game)
    try:
        return ViewerServer((host, port), viewer, quiet=quiet, play=play, public=public)
    except BaseException:
        viewer.close()
        raise
