"""What the viewer tests share (test_view.py, test_view_play.py): an HTTP client for a server
running in a thread, starting and stopping that server, and the keys of a JSON payload."""

from __future__ import annotations

import http.client
import json
import subprocess
import threading
from pathlib import Path

import training.view
from training.view.positions import script
from training.view.server import make_server


class Client:
    def __init__(self, server):
        self.host, self.port = server.server_address[:2]

    def request(self, path, method="GET", body=None, headers=None):
        conn = http.client.HTTPConnection(self.host, self.port, timeout=120)
        try:
            hdrs = dict(headers or {})
            if body is not None and "Content-Type" not in hdrs:
                hdrs["Content-Type"] = "application/json"
            conn.request(method, path, body=body, headers=hdrs)  # the path goes out as written
            r = conn.getresponse()
            return r.status, dict(r.getheaders()), r.read()
        finally:
            conn.close()

    def json(self, path, method="GET", body=None):
        status, _h, data = self.request(path, method, body)
        assert status == 200, (path, status, data)
        return json.loads(data)

    def act(self, token, action):
        return self.json(f"/api/play/{token}/act", "POST", json.dumps({"action": action}))


def serve(db, game, play=None, host="127.0.0.1", public=False):
    """The viewer of store `db` (play mode with a PlayHost) on an ephemeral port of `host`, in a
    thread."""
    server = make_server(str(db), game, host, port=0, quiet=True, play=play, public=public)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    return server


def stop(server):
    server.shutdown()
    server.server_close()
    server.viewer.close()


def json_keys(obj):
    """Every key of a JSON payload, at any depth."""
    if isinstance(obj, dict):
        for k, v in obj.items():
            yield k
            yield from json_keys(v)
    elif isinstance(obj, list):
        for v in obj:
            yield from json_keys(v)


def run_page_smoke(payload: Path, game) -> subprocess.CompletedProcess:
    """viewer.js on a fake DOM in node (view_page_smoke.js) drawing the payload file (a replay,
    or a list of play views) of `game`, with the game's own drawing when its view names one
    (`positions.script`), else with the page's generic one."""
    page = Path(training.view.__file__).parent / "static" / "viewer.js"
    smoke = Path(__file__).parent / "view_page_smoke.js"
    argv = ["node", str(smoke), str(page), str(payload)]
    drawing = script(game)
    if drawing is not None:
        path = payload.with_name(f"{game.NAME}_drawing.js")
        path.write_bytes(drawing)
        argv.append(str(path))
    return subprocess.run(argv, capture_output=True, text=True, timeout=120)
