"""The play page in a real browser: headless Chromium from Debian's packages, driven by Playwright, plays a
whole Connect4 game by clicking. Skips, saying why, where Playwright or Chromium is missing."""

import shutil
import socket
import threading
import time

import pytest

from tuner.play import DEFAULT_SPEC

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
        assert page.locator("#opponent").input_value() == DEFAULT_SPEC  # the adaptive default
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
                level = page.locator("#strength")  # in words, the knobs in its tooltip
                assert "its best" in level.text_content() and level.get_attribute("title").startswith("its knobs: z ")
                assert page.locator("#chart .point.estimate").count() == 3
            assert clicks <= 21, "a Connect4 game gives a player at most 21 moves"
        state = page.evaluate("() => fetch('/api/state').then((r) => r.json())")
        assert state["over"] and state["plies"] >= 7
        assert page.locator("#board .piece").count() == state["plies"]  # every disc drawn
        assert page.locator("#board .piece.p1").count() == clicks  # the person's discs are the clicks
        assert page.locator("#chart .point.estimate").count() == len(state["turns"])
        assert "1 game against it" in page.locator("#record").text_content()
        page.screenshot(path=str(tmp_path / "end.png"))
        browser.close()
    assert (tmp_path / "mid-game.png").stat().st_size > 10_000


def _open(p, server, game, opponent, width=1100, custom=False):
    """A page with a new game of `game` against the opponent whose spec is `opponent` (a custom spec typed in,
    with `custom`), the person first."""
    browser = p.chromium.launch(executable_path=CHROMIUM, args=FLAGS)
    page = browser.new_page(viewport={"width": width, "height": 800})
    page.goto(server)
    page.wait_for_selector("body[data-ready]")
    page.select_option("#game", game)
    if custom:
        page.select_option("#opponent", "")
        page.fill("#spec", opponent)
    else:
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


@pytest.mark.parametrize("game", ["breakthrough", "knightthrough", "sheepandwolf"])
def test_a_piece_moves_by_two_clicks(server, game):
    with playwright.sync_playwright() as p:
        browser, page = _open(p, server, game, "mcts1")
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


def test_pentago_moves_by_a_square_then_a_quadrant_s_turn(server):
    with playwright.sync_playwright() as p:
        browser, page = _open(p, server, "pentago", "mcts1")
        assert page.locator("#board .turn").count() == 0
        page.locator('#board .legal[data-row="1"][data-col="1"]').click()  # b2: the square of the marble...
        turns = page.locator("#board .turn")
        assert turns.count() == 8 and turns.first.text_content() == "b2s: turn top-left, anticlockwise"
        assert page.locator("#status").text_content().startswith("Now choose which quadrant turns")
        turns.nth(3).click()  # ...then b2v: the top-right quadrant clockwise
        _settled(page)
        state = page.evaluate("() => fetch('/api/state').then((r) => r.json())")
        assert state["plies"] == 2 and state["board"][1][1] == 1  # b2, a quadrant's centre, stays put in any turn
        browser.close()


def test_pentago_ggp_places_then_turns_as_two_moves(server):
    with playwright.sync_playwright() as p:
        browser, page = _open(p, server, "pentago_ggp", "mcts1")
        page.locator('#board .legal[data-row="1"][data-col="1"]').click()  # b2: a move of its own...
        _settled(page)
        turns = page.locator("#board .turn")
        assert turns.count() == 8 and turns.first.text_content() == "turn top-left, anticlockwise"
        assert page.locator("#status").text_content().startswith("Now choose which quadrant turns")
        page.locator("#board .hole").first.click()  # a square now says what to do instead
        assert page.locator("#error").text_content().startswith("Now choose which quadrant turns")
        turns.nth(3).click()  # ...then v: the top-right quadrant clockwise, and the opponent's marble and turn
        _settled(page)
        state = page.evaluate("() => fetch('/api/state').then((r) => r.json())")
        assert state["plies"] == 4 and state["board"][1][1] == 1 and state["human_to_move"]
        assert page.locator("#board .turn").count() == 0
        browser.close()


def test_go_places_a_stone_and_may_pass(server):
    with playwright.sync_playwright() as p:
        browser, page = _open(p, server, "go9", "mcts1")
        page.locator('#board .legal[data-row="4"][data-col="4"]').click()  # e5, the centre
        _settled(page)
        state = page.evaluate("() => fetch('/api/state').then((r) => r.json())")
        assert state["plies"] == 2 and state["board"][4][4] == 1
        page.click("#pass")
        _settled(page)
        state = page.evaluate("() => fetch('/api/state').then((r) => r.json())")
        assert state["plies"] == 4 and state["board"][4][4] == 1  # the pass, then its reply
        browser.close()


def test_connect5_marks_the_square_clicked(server):
    with playwright.sync_playwright() as p:
        browser, page = _open(p, server, "connect5", "mcts1")
        assert page.locator("#board .legal").count() == 64
        page.locator('#board .legal[data-row="3"][data-col="3"]').click()  # d4
        _settled(page)
        state = page.evaluate("() => fetch('/api/state').then((r) => r.json())")
        assert state["plies"] == 2 and state["board"][3][3] == 1
        assert page.locator("#board .piece").count() == 2
        browser.close()


@pytest.mark.parametrize(
    "game, rows, cols",
    [
        ("connect4", None, "0123456"),
        ("othello6", "123456", "abcdef"),
        ("breakthrough", "87654321", "abcdefgh"),
        ("knightthrough", "87654321", "abcdefgh"),
        ("pentago", "123456", "abcdef"),
        ("pentago_ggp", "123456", "abcdef"),
        ("connect5", "12345678", "abcdefgh"),
        ("tictactoe3d", "1234", "abcdefghijklmnop"),
        ("sheepandwolf", "87654321", "abcdefgh"),
        ("go9", "987654321", "abcdefghj"),
    ],
)
def test_every_board_shows_the_coordinates_its_moves_are_written_in(server, game, rows, cols):
    with playwright.sync_playwright() as p:
        browser, page = _open(p, server, game, "random", custom=True)
        labels = "".join(page.locator("#board .coord").all_text_contents())
        assert labels == cols + (rows or "")  # the columns across the top, then the rows down the left
        browser.close()


def test_a_refused_click_says_why(server):
    with playwright.sync_playwright() as p:
        browser, page = _open(p, server, "othello6", "random", custom=True)
        page.locator('#board .cell[data-row="2"][data-col="2"]').click(force=True)  # c3: a centre disc (on top)
        assert page.locator("#error").text_content() == "c3 is taken."
        page.locator('#board .cell[data-row="0"][data-col="0"]').click()  # a1: empty, flips nothing
        assert page.locator("#error").text_content().startswith("a1 is not a legal move: a move must turn over")
        page.locator("#board .legal").first.click()  # a legal move clears it
        _settled(page)
        assert page.locator("#error").text_content() == ""
        browser.close()
        browser, page = _open(p, server, "breakthrough", "random", custom=True)
        page.locator('#board .cell[data-row="4"][data-col="4"]').click()  # an empty square, no piece chosen
        assert page.locator("#error").text_content().startswith("Click one of your pieces")
        browser.close()


def test_the_winning_line_is_marked_and_a_new_game_resets_the_chart(server):
    """Stacking column 0 against Random ends the game soon; a win marks four discs in a row. Then a new game
    against another kind of opponent starts with the chart's knob unnamed, not the last game's."""
    with playwright.sync_playwright() as p:
        browser, page = _open(p, server, "othello6", "az:dda=alphadda1")
        page.locator("#board .legal").first.click()
        _settled(page)
        assert page.locator("#knob-label").text_content() == "its simulations (log)"
        page.select_option("#game", "connect4")
        page.select_option("#opponent", "")
        page.fill("#spec", "random")
        page.click("#new")
        page.wait_for_function("() => document.querySelector('#status').textContent.startsWith('Your move')")
        assert page.locator("#knob-label").text_content() == "its strength knob"
        assert page.locator("#estimate").text_content() == "-"
        while not page.evaluate("() => fetch('/api/state').then((r) => r.json()).then((s) => s.over)"):
            page.locator("#board .legal").first.click()
            _settled(page)
        state = page.evaluate("() => fetch('/api/state').then((r) => r.json())")
        if state["result"] != "draw":
            assert page.locator("#board .piece.win").count() >= 4
            assert len(state["ending"]["cells"]) >= 4
        browser.close()


def test_a_phone_screen_fits_the_page_without_scrolling_sideways(server):
    with playwright.sync_playwright() as p:
        browser, page = _open(p, server, "connect4", "mcts:dsa=both", width=400)
        page.locator("#board .legal").first.click()
        _settled(page)
        assert page.evaluate("() => document.documentElement.scrollWidth") <= 400
        box = page.locator("#board svg").bounding_box()
        assert box["width"] <= 400 and box["width"] > 300  # the board fills the width, no more
        browser.close()


def test_a_game_from_outside_is_played_by_its_move_buttons(server, nim):
    """Nim has no board of pieces: the page shows its own text and a button per legal move."""
    with playwright.sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, args=FLAGS)
        page = browser.new_page(viewport={"width": 1100, "height": 800})
        page.goto(server)
        page.wait_for_selector("body[data-ready]")
        page.select_option("#game", "nim")
        page.select_option("#opponent", "random")
        page.click("#new")
        page.wait_for_function("() => document.querySelector('#status').textContent.startsWith('Your move')")
        assert page.locator("#board pre.position").text_content() == "3 4 5"
        assert page.locator("#board .choice").count() == 12 and "player" in page.locator("#status").text_content()
        status = page.locator("#status")
        moves = 0
        while not any(word in status.text_content() for word in ("won", "lost", "draw")):
            page.locator("#board .choice").last.click()  # the most a heap gives: the last heap emptied
            moves += 1
            page.wait_for_function("() => !document.querySelector('#status').textContent.startsWith('Thinking')")
            assert moves <= 12
        assert (
            page.locator("#board pre.position").text_content() == "0 0 0"
            and page.locator("#board .choice").count() == 0
        )
        browser.close()
