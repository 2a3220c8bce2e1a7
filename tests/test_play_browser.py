"""The play page in a real browser: headless Chromium from Debian's packages, driven by Playwright, plays a
whole Connect4 game by clicking. Skips, saying why, where Playwright or Chromium is missing."""

import shutil
import socket
import threading
import time

import pytest

playwright = pytest.importorskip("playwright.sync_api", reason="needs playwright (the test extra)")
CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")
pytestmark = [
    pytest.mark.slow,
    pytest.mark.skipif(CHROMIUM is None, reason="needs Debian's chromium package (apt-get install chromium)"),
]
FLAGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]


@pytest.fixture
def server(tmp_path):
    """The app on a free loopback port in a thread; yields its URL."""
    import uvicorn

    from tuner.play.web import make_app

    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    app = make_app(profiles=tmp_path / "profiles.sqlite", seed=0, hint="mcts:simulations=100")
    server = uvicorn.Server(uvicorn.Config(app, host="127.0.0.1", port=port, log_level="warning"))
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    deadline = time.monotonic() + 30
    while not server.started and time.monotonic() < deadline:
        time.sleep(0.05)
    assert server.started, "the server did not start"
    yield f"http://127.0.0.1:{port}/"
    server.should_exit = True
    thread.join(10)


def test_a_whole_game_by_clicking(server, tmp_path):
    with playwright.sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, args=FLAGS)
        page = browser.new_page(viewport={"width": 1100, "height": 800})
        page.goto(server)
        page.wait_for_selector("body[data-ready]")
        assert page.locator("#game").input_value() == "connect4"
        assert page.locator("#opponent").input_value() == "mcts:dsa=both"  # the adaptive default
        page.fill("#profile", "ada")
        page.click("#new")
        status = page.locator("#status")
        page.wait_for_function("() => document.querySelector('#status').textContent.startsWith('Your move')")
        clicks = 0
        while not any(word in status.text_content() for word in ("won", "lost", "draw")):
            page.locator("#board .legal").first.click()
            clicks += 1
            page.wait_for_function("() => !document.querySelector('#status').textContent.startsWith('Thinking')")
            if clicks == 3:
                page.screenshot(path=str(tmp_path / "mid-game.png"))
                assert page.locator("#strength").text_content().startswith("z ")
                assert page.locator("#chart .point.estimate").count() == 3
            assert clicks <= 21, "a Connect4 game gives a player at most 21 moves"
        state = page.evaluate("() => fetch('/api/state').then((r) => r.json())")
        assert state["over"] and state["plies"] >= 7
        assert page.locator("#board .piece").count() == state["plies"]  # every disc drawn
        assert page.locator("#board .piece.p1").count() == clicks  # the person's discs are the clicks
        assert page.locator("#chart .point.estimate").count() == len(state["turns"])
        assert "1 games against it" in page.locator("#record").text_content()
        page.screenshot(path=str(tmp_path / "end.png"))
        browser.close()
    assert (tmp_path / "mid-game.png").stat().st_size > 10_000


def _open(p, server, game, opponent):
    """A page with a new game of `game` against the opponent whose spec is `opponent`, the person first."""
    browser = p.chromium.launch(executable_path=CHROMIUM, args=FLAGS)
    page = browser.new_page(viewport={"width": 1100, "height": 800})
    page.goto(server)
    page.wait_for_selector("body[data-ready]")
    page.select_option("#game", game)
    page.select_option("#opponent", opponent)
    page.click("#new")
    page.wait_for_function("() => document.querySelector('#status').textContent.startsWith('Your move')")
    return browser, page


def _settled(page):
    page.wait_for_function("() => !document.querySelector('#status').textContent.startsWith('Thinking')")


def test_othello_moves_by_clicking_a_marked_square_and_alphadda_charts_its_simulations(server):
    with playwright.sync_playwright() as p:
        browser, page = _open(p, server, "othello6", "az:dda=alphadda1")
        for move in range(3):
            assert page.locator("#board .legal").count() >= 1  # legal moves are marked
            page.locator("#board .legal").first.click()
            _settled(page)
            discs = page.locator("#board .piece").count()
            assert discs == 4 + 2 * (move + 1)  # every move, the person's and the reply, adds one disc
        assert page.locator("#knob-label").text_content() == "its simulations (log)"  # AlphaDDA1's knob
        assert "simulations" in page.locator("#strength").text_content()
        browser.close()


def test_breakthrough_moves_a_piece_by_two_clicks(server):
    with playwright.sync_playwright() as p:
        browser, page = _open(p, server, "breakthrough", "mcts1")
        before = page.evaluate("() => fetch('/api/state').then((r) => r.json())")
        page.locator("#board .mine").first.click()  # choose a piece...
        targets = page.locator("#board .target")
        assert targets.count() >= 1
        targets.first.click()  # ...and where it goes
        _settled(page)
        after = page.evaluate("() => fetch('/api/state').then((r) => r.json())")
        assert after["plies"] == before["plies"] + 2
        row, col = before["legal"][0]["from"]  # the first piece on the page that can move: the one clicked
        assert before["board"][row][col] == 1 and after["board"][row][col] == 0  # it left its square
        browser.close()
