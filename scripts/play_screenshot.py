"""Take docs/play.png: the play page mid-game, as a person sees it (headless Debian chromium, Playwright).

Usage: .venv/bin/python scripts/play_screenshot.py [--game connect4] [--out docs/play.png] [--moves 6] [--seed 0]
       [--width 1100] [--opponent SPEC]
docs/ holds three: play.png (the defaults), play-othello6.png (--game othello6 --opponent az:dda=alphadda1) and
play-narrow.png (--width 400 --moves 3: a phone).
"""

import argparse
import shutil
import socket
import tempfile
import threading
import time
from pathlib import Path

import uvicorn
from playwright.sync_api import sync_playwright

from tuner.play.web import make_app

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


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--game", default="connect4", help="the game (connect4)")
    parser.add_argument("--out", default="docs/play.png", help="where the screenshot goes (docs/play.png)")
    parser.add_argument("--moves", type=int, default=6, help="the person's moves before the picture (6)")
    parser.add_argument("--seed", type=int, default=0, help="the server's seed (0)")
    parser.add_argument("--width", type=int, default=1100, help="the window's width in pixels (1100)")
    parser.add_argument("--opponent", help="an opponent spec of the page's list (default: the page's default)")
    args = parser.parse_args()
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    app = make_app(profiles=Path(tempfile.mkdtemp()) / "profiles.sqlite", seed=args.seed)
    server = uvicorn.Server(uvicorn.Config(app, host="127.0.0.1", port=port, log_level="warning"))
    threading.Thread(target=server.run, daemon=True).start()
    while not server.started:
        time.sleep(0.05)
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=shutil.which("chromium"), args=FLAGS)
        page = browser.new_page(viewport={"width": args.width, "height": 820})
        page.goto(f"http://127.0.0.1:{port}/")
        page.wait_for_selector("body[data-ready]")
        page.select_option("#game", args.game)
        if args.opponent:
            page.select_option("#opponent", args.opponent)
        page.fill("#profile", "ada")
        page.click("#new")
        page.wait_for_function("() => document.querySelector('#status').textContent.startsWith('Your move')")
        for k in range(args.moves):
            if args.game == "breakthrough":  # a piece, then where it goes
                pieces = page.locator("#board .mine")
                pieces.nth((3 * k + 2) % pieces.count()).click()
            legal = page.locator("#board .legal")
            legal.nth([3, 3, 2, 4, 2, 4, 5, 1][k % 8] % legal.count()).click()
            page.wait_for_function("() => !document.querySelector('#status').textContent.startsWith('Thinking')")
        Path(args.out).parent.mkdir(parents=True, exist_ok=True)
        page.screenshot(path=args.out, full_page=args.width < 600)
        browser.close()
    server.should_exit = True
    print(f"wrote {args.out}")


if __name__ == "__main__":
    main()
