"""The viewer in a real browser: headless Chromium, driven by Selenium through
Debian's chromedriver, opens the page of a real store, steps through a stored game with the keys
and the buttons, plays a few legal moves against `random`, and saves screenshots that must not be
blank. `.ci/run` installs Debian's `chromium` and `chromium-driver`; where they (or Selenium, in the
[dev] extra) are missing the whole module is skipped and says why.

Set VIEWER_SCREENSHOTS=DIR to keep the screenshots (docs/viewer.md's pictures come from
`VIEWER_SCREENSHOTS=docs/viewer pytest tests/training/test_view_browser.py`)."""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import numpy as np
import pytest
from game_helpers import fewest
from view_helpers import Client, serve, stop

from core.bots import bot_names
from core.registry import game_names, get_game
from training.arena.store import GameStore
from training.arena.tournament import run_tournament
from training.view.play import PlayConfig, PlayHost, prepare_store

pytestmark = pytest.mark.slow  # a headless browser per test


def _browser_paths() -> tuple[str | None, str | None]:
    chrome = next(
        (p for p in map(shutil.which, ("chromium", "chromium-browser", "google-chrome")) if p),
        None,
    )
    return chrome, shutil.which("chromedriver")


CHROME, DRIVER = _browser_paths()
webdriver = pytest.importorskip(
    "selenium.webdriver", reason="selenium is not installed (pip install -e '.[dev]')"
)
if CHROME is None or DRIVER is None:
    pytest.skip(
        "no headless browser here: the e2e viewer test needs Debian's chromium and "
        "chromium-driver (`apt-get install chromium chromium-driver`; .ci/run installs them)",
        allow_module_level=True,
    )

from PIL import Image  # noqa: E402  (matplotlib's dependency; only needed past the skip)
from selenium.webdriver.chrome.service import Service  # noqa: E402
from selenium.webdriver.common.by import By  # noqa: E402
from selenium.webdriver.common.keys import Keys  # noqa: E402
from selenium.webdriver.support.ui import WebDriverWait  # noqa: E402

WIDTH = 1400
WAIT_S = 60  # generous: the first request of a game compiles its engine in a cold cache
# every registered game at its fewest players; the human sits first in every other game and
# second in the rest, so that both a page waiting for the agent's first move and one starting
# with the human's are seen (random in the other seats)
PLAY_SEATS = {
    name: tuple("human" if k == i % 2 else "random" for k in range(fewest(get_game(name))))
    for i, name in enumerate(game_names())
}


@pytest.fixture(scope="module")
def browser():
    opts = webdriver.ChromeOptions()
    opts.binary_location = CHROME
    for arg in (
        "--headless=new",
        "--no-sandbox",  # CI runs as root, where Chromium's sandbox refuses to start
        "--disable-dev-shm-usage",
        "--disable-gpu",
        f"--window-size={WIDTH},1000",
    ):
        opts.add_argument(arg)
    d = webdriver.Chrome(options=opts, service=Service(DRIVER))
    yield d
    d.quit()


def _wait(d, what, timeout=WAIT_S):
    return WebDriverWait(d, timeout).until(lambda _d: what())


def _text(d, eid):
    return d.find_element(By.ID, eid).text


def _no_page_errors(d):
    """No script error reached the page's error line, and none is in the console."""
    assert not d.find_element(By.ID, "error").is_displayed(), _text(d, "error")
    severe = [e for e in d.get_log("browser") if e["level"] == "SEVERE"]
    assert not severe, severe


def _screenshot(d, name, tmp_path) -> Path:
    """The whole page as a PNG (the window grown to the page's height), checked not blank."""
    height = d.execute_script("return document.documentElement.scrollHeight")
    d.set_window_size(WIDTH, min(int(height) + 140, 4000))  # + the window's own frame
    out = Path(os.environ.get("VIEWER_SCREENSHOTS") or tmp_path)
    out.mkdir(parents=True, exist_ok=True)
    path = out / f"{name}.png"
    assert d.save_screenshot(str(path))
    d.set_window_size(WIDTH, 1000)
    img = np.asarray(Image.open(path).convert("RGB"))
    assert img.shape[0] >= 600 and img.shape[1] >= WIDTH - 20, img.shape
    colours, counts = np.unique(img.reshape(-1, 3), axis=0, return_counts=True)
    assert len(colours) >= 50, f"{path}: only {len(colours)} colours"  # a drawn page, not a fill
    assert counts.max() / counts.sum() < 0.9, f"{path}: one colour covers most of the page"
    return path


@pytest.fixture(scope="module", params=sorted(PLAY_SEATS))
def stored(request, tmp_path_factory):
    """A store of a rotation of `random` against the game's `heuristic` (or a small search) at
    its fewest players (two games at 2 players), served."""
    name = request.param
    game = get_game(name)
    n = fewest(game)
    db = tmp_path_factory.mktemp(f"browser_{name}") / "results.sqlite"
    other = "heuristic" if "heuristic" in bot_names(name) else "mcts:iters=20"
    run_tournament(name, n, ["random"] * (n - 1) + [other], n, db, progress=False)
    server = serve(db, game)
    yield game, db, server
    stop(server)


def _url(server, path="/"):
    host, port = server.server_address[:2]
    return f"http://{host}:{port}{path}"


def test_replay_a_stored_game(browser, stored, tmp_path):
    game, db, server = stored
    players = fewest(game)  # as many stored games as players (a rotation), a panel a seat
    d = browser
    d.get(_url(server))
    rows = _wait(d, lambda: d.find_elements(By.CSS_SELECTOR, "#games tbody tr") or None)
    assert len(rows) == players
    assert _text(d, "store-line") == f"{game.NAME}: {players} stored games, 1 tournament"
    assert not d.find_element(By.ID, "play-start").is_displayed()  # no play mode on this server
    _screenshot(d, f"{game.NAME}_list", tmp_path)

    with GameStore(db, game.NAME, create=False) as store:
        rec = store.game(1)
    steps = Client(server).json("/api/games/1")["steps"]
    n = rec.decisions
    rows[0].click()
    _wait(d, lambda: _text(d, "step-line") == f"position 0 of {n}")
    assert _text(d, "game-title").startswith(f"{game.NAME} game #1")
    body = d.find_element(By.TAG_NAME, "body")
    m = min(5, n)  # a short game has fewer decisions to step through
    for k in range(1, m + 1):  # the arrow keys step on, one decision at a time
        body.send_keys(Keys.ARROW_RIGHT)
        _wait(d, lambda k=k: _text(d, "step-line") == f"position {k} of {n}")
        assert steps[k - 1]["describe"] in _text(d, "last-decision")
    body.send_keys(Keys.ARROW_LEFT)
    _wait(d, lambda: _text(d, "step-line") == f"position {m - 1} of {n}")
    d.find_element(By.ID, "fwd-step").click()
    _wait(d, lambda: _text(d, "step-line") == f"position {m} of {n}")
    assert d.find_element(By.ID, "slider").get_attribute("value") == str(m)
    board = d.find_element(By.ID, "board")
    if game.GAME.spec.view is not None:  # the game's own drawing
        assert len(board.find_elements(By.CSS_SELECTOR, "*")) > 50  # the position is drawn
    else:  # the generic view: the text board, a line per public segment (positions.py)
        lines = board.find_elements(By.CSS_SELECTOR, "text.board-text")
        public = [s.name for s in game.LAYOUT.segments.values() if not s.hidden]
        assert len(lines) >= len(public)
        drawn = " ".join(t.text for t in lines)
        assert all(f"{name}:" in drawn for name in public), drawn[:300]
    assert len(d.find_elements(By.CSS_SELECTOR, "#panels .panel")) == players
    # a mid-game position for the pictures: a third of the way in
    d.execute_script(
        "const s = document.getElementById('slider'); s.value = arguments[0];"
        "s.dispatchEvent(new Event('input'));",
        n // 3,
    )
    _wait(d, lambda: _text(d, "step-line") == f"position {n // 3} of {n}")
    _screenshot(d, f"{game.NAME}_replay", tmp_path)
    d.find_element(By.ID, "last").click()
    _wait(d, lambda: _text(d, "step-line") == f"position {n} of {n}")
    plot = d.find_element(By.ID, "plot")
    assert len(plot.find_elements(By.CSS_SELECTOR, "polyline, path, line")) >= 2  # a line per seat
    _no_page_errors(d)


@pytest.mark.parametrize("name", sorted(PLAY_SEATS))
def test_play_a_few_moves(browser, name, tmp_path):
    game = get_game(name)
    db = tmp_path / "play.sqlite"
    prepare_store(db, game)
    host = PlayHost(PlayConfig(game, PLAY_SEATS[name], str(db), seed=3))
    server = serve(db, game, host)
    d = browser
    try:
        d.get(_url(server))
        new = _wait(d, lambda: d.find_element(By.ID, "new-game").is_displayed() or None)
        assert new
        assert "you play seat" in _text(d, "play-against")
        d.find_element(By.ID, "new-game").click()
        _wait(d, lambda: _text(d, "play-status") == "Your turn: choose an action")
        seat = PLAY_SEATS[name].index("human")
        assert _text(d, "play-title").startswith(f"{name}: you are seat {seat}")
        moves = 0
        for _ in range(4):  # each move: the first legal action offered
            before = len(d.find_elements(By.CSS_SELECTOR, "#play-log li"))
            buttons = d.find_elements(By.CSS_SELECTOR, "#play-actions button")
            assert buttons and all(b.get_attribute("title").startswith("action ") for b in buttons)
            choice = buttons[0].text
            buttons[0].click()
            moves += 1
            _wait(  # the agents have answered: the human's turn again, or the game is over
                d,
                lambda before=before: (
                    len(d.find_elements(By.CSS_SELECTOR, "#play-log li")) > before
                    and (
                        _text(d, "play-status") == "Your turn: choose an action"
                        or _text(d, "play-status").startswith("Game over")
                    )
                ),
            )
            mine = [li.text for li in d.find_elements(By.CSS_SELECTOR, "#play-log li")]
            assert any(choice in t for t in mine), (choice, mine[:5])
            if _text(d, "play-status").startswith("Game over"):  # a short game
                assert not d.find_elements(By.CSS_SELECTOR, "#play-actions button")
                break
        # the server holds the same game: every decision logged on the page was made there
        token = d.execute_script("return state.play.token")
        pg = host._games[token]
        assert len(pg.log) == len(d.find_elements(By.CSS_SELECTOR, "#play-log li")) >= moves
        _screenshot(d, f"{name}_play", tmp_path)
        _no_page_errors(d)
    finally:
        stop(server)
