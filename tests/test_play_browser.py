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
FLAGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
         "--disable-background-networking", "--disable-component-update", "--disable-sync"]  # fmt: skip


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
