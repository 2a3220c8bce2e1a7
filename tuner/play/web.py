"""`sparring serve`: a local web page where a person plays the adaptive opponent by clicking the board.

A Starlette app. Each browser session (a cookie) owns one `Opponent` on the server; the searches run
in worker threads, off the event loop, one request at a time per session, many sessions at once.
Requests and answers are JSON; a malformed or illegal request gets a 4xx with `{"error": one line}`
and changes nothing. Only JSON bodies are accepted, so another site's page cannot post a move
through the person's browser (a cross-site JSON post needs a CORS preflight, which this app refuses).

Endpoints: GET / (the page), GET /api/options (games and opponents), GET /api/state, POST /api/new
{game, opponent, first, profile}, POST /api/move {move}, POST /api/undo, POST /api/hint, POST /api/resign.
"""

from __future__ import annotations

import itertools
import json
import math
import secrets
import threading
from collections import OrderedDict
from pathlib import Path

from starlette.applications import Starlette
from starlette.concurrency import run_in_threadpool
from starlette.middleware import Middleware
from starlette.middleware.trustedhost import TrustedHostMiddleware
from starlette.requests import Request
from starlette.responses import FileResponse, JSONResponse
from starlette.routing import Mount, Route
from starlette.staticfiles import StaticFiles

import games
from games.rng import derive_seeds
from nets.shipped import NET_FREE, shipped_nets
from tuner import agents
from tuner.play.opponent import DEFAULT_SPEC, Opponent, OutOfTurn, describe_strength
from tuner.play.profiles import ProfileError, Profiles

STATIC = Path(__file__).parent / "static"
COOKIE = "sparring_session"
MAX_SESSIONS = 64  # the least recently used idle session is dropped beyond this (an az one holds ~20 MB)
MAX_BODY = 16_384  # bytes of a request body
LIMITS = {
    "simulations": 100_000,
    "n_max": 100_000,
    "time": 30.0,
    "depth": 8,
    "endgame": 10,
    "nh": 100,
    "leaves": 64,
}  # the most a page may ask of one opponent move, per spec key
AZ_SIMULATIONS = 2_000  # az: about 2 s a move on one CPU core
LOOPBACK = ("127.0.0.1", "localhost", "::1", "[::1]")


class RequestError(Exception):
    """A request the page cannot serve: its HTTP status and one line."""

    def __init__(self, status: int, message: str):
        super().__init__(message)
        self.status = status


def opponents(game: games.Game) -> list[dict]:
    """The opponents the page offers for `game`: the adaptive default first; AlphaZero's where a net ships."""
    offer = [
        ("Adaptive MCTS: learns your level over games and within each, and follows you as you change", DEFAULT_SPEC),
        ("Adaptive MCTS as Wu et al. made it, over games and within each", "mcts:dsa=both"),
        ("Adaptive MCTS, within each game only (Wu et al.'s intra-game)", "mcts:dsa=intra"),
        ("AlphaDDA1: AlphaZero that spends fewer simulations while winning", "az:dda=alphadda1"),
        ("AlphaDDA1Z: AlphaDDA1 that can play down to Random's level", "az:dda=alphadda1z"),
        ("AlphaZero at full strength", "az"),
        ("MCTS1: 300 simulations, fixed strength", "mcts1"),
        ("Random moves", "random"),
    ]
    out = []
    for label, spec in offer:
        try:
            agents.check_spec(game, spec)
        except ValueError:
            continue  # e.g. no shipped net for this game
        out.append({"label": label, "spec": spec})
    return out


def check_spec(game: games.Game, spec: str) -> str:
    """`spec` if the page may build it: a valid spec, a shipped or net-free network only (never a file
    path from a request), and within LIMITS (a search that never ends would hold its session for good)."""
    try:
        parsed = agents.check_spec(game, spec)
    except ValueError as error:
        raise RequestError(400, str(error)) from None
    o = parsed.options
    net = o.get("net")
    if net is not None and net not in NET_FREE and net not in shipped_nets():
        raise RequestError(
            400,
            "the page plays shipped nets only (leave net= out): start `sparring serve` "
            "elsewhere or use `sparring play` for a checkpoint of your own",
        )
    limits = {**LIMITS, **({"simulations": AZ_SIMULATIONS, "n_max": AZ_SIMULATIONS} if parsed.name == "az" else {})}
    for key, most in limits.items():
        if (o.get(key) or 0) > most:
            raise RequestError(400, f"{key}={o[key]} is more than the page allows ({most}); use `sparring play`")
    if o.get("tuner", "none") != "none":
        raise RequestError(
            400, "the page plays no on-line tuners (their settings can ask for any amount of work); use `sparring play`"
        )
    return spec


def _finite(strength: dict) -> dict:
    """The knobs with infinities as None (JSON has none); describe_strength says them in words."""
    return {k: (v if math.isfinite(v) else None) for k, v in strength.items()}


FAR_ROWS = {"breakthrough": (-1, 0), "knightthrough": (0, -1)}  # the row each player races to (-1: the last)
LINES = {"connect4": 4, "connect5": 5, "pentago": 5, "pentago_ggp": 5}  # the games won by a line, and its length
RANKS_UP = {*FAR_ROWS, "sheepandwolf", "go9"}  # the games whose ranks count up from the bottom row, as chess's
LETTERS = {"go9": "abcdefghj"}  # Go's columns skip i


def coordinates(game) -> dict | None:
    """The labels of the board's rows and columns in the game's notation (None: it names no rows), as the
    moves and hints are written: Connect4 by column 0-6, Othello a1 top left, the chess-like games (Breakthrough,
    Knightthrough, Sheep and Wolf) and Go a8 or a9 top left."""
    if not game.drawn:
        return None
    rows, cols = game.board_shape
    letters = list(LETTERS[game.name]) if game.name in LETTERS else [chr(ord("a") + c) for c in range(cols)]
    if game.name == "connect4":
        return {"rows": None, "cols": [str(c) for c in range(cols)]}
    if game.name in RANKS_UP:
        return {"rows": [str(rows - r) for r in range(rows)], "cols": letters}
    return {"rows": [str(r + 1) for r in range(rows)], "cols": letters}


def ending(game, board: list[list[int]], returns) -> dict:
    """How the game ended, to show it: the winning line of Connect4, Connect 5 or Pentago, Breakthrough's or
    Knightthrough's pieces on the far row (the squares to mark), Othello's final count of discs."""
    cells, count = [], None
    winner = None if returns[0] == returns[1] else (1 if returns[0] > returns[1] else 2)
    rows, cols = len(board), len(board[0])
    if game.name in LINES and winner:
        for r, c in itertools.product(range(rows), range(cols)):
            for dr, dc in ((0, 1), (1, 0), (1, 1), (1, -1)):
                line = [(r + k * dr, c + k * dc) for k in range(LINES[game.name])]
                if all(0 <= y < rows and 0 <= x < cols and board[y][x] == winner for y, x in line):
                    cells += [list(cell) for cell in line if list(cell) not in cells]
    elif game.name in FAR_ROWS and winner:
        far = FAR_ROWS[game.name][winner - 1] % rows
        cells = [[far, c] for c in range(cols) if board[far][c] == winner]
    elif game.name.startswith("othello"):
        count = [sum(row.count(p) for row in board) for p in (1, 2)]
    return {"cells": cells, "count": count}


def _loadable(name: str) -> games.Game | None:
    """The game `name`, or None where loading it fails (another package's game may be broken: the page goes on
    with the others)."""
    try:
        return games.load(name)
    except Exception:  # whatever a broken package raises on import or construction
        return None


def view(opponent: Opponent) -> dict:
    """What the page draws: the board (as pieces, or as the game's text where it has no board of pieces: a game
    from outside), the person's legal moves with their squares, the opponent's moves with their strength and
    estimate, the result and the person's record."""
    state, game = opponent.state, opponent.game
    board = None
    if game.drawn:
        p0, p1 = state.planes()
        board = (p0.astype(int) + 2 * p1.astype(int)).tolist()  # 0 empty, 1 player 0's piece, 2 player 1's

    def move(action):
        start, end = state.action_squares(action)
        return {"action": action, "text": state.action_to_string(action), "from": start, "to": end}

    history = state.history()
    last = None
    if history:
        before = game.new_initial_state()
        for action in history[:-1]:
            before.apply_action(action)
        start, end = before.action_squares(history[-1])
        last = {"action": history[-1], "text": before.action_to_string(history[-1]), "from": start, "to": end}
    r = opponent.record
    rows, cols = game.board_shape if game.drawn else (None, None)
    return {
        "game": game.name,
        "rows": rows,
        "cols": cols,
        "board": board,
        "text": None if game.drawn else str(state),
        "human": opponent.human,
        "to_move": None if opponent.over else state.current_player(),
        "human_to_move": opponent.human_to_move,
        "over": opponent.over,
        "result": opponent.result,
        "legal": [move(a) for a in state.legal_actions()] if opponent.human_to_move else [],
        "last": last,
        "plies": len(history),
        "turns": [
            {
                "ply": t.ply,
                "text": t.text,
                "strength": _finite(t.strength),
                "estimate": t.estimate,
                "strength_text": describe_strength(t.strength),
            }
            for t in opponent.turns
        ],
        "strength": None if opponent.strength() is None else _finite(opponent.strength()),
        "strength_text": describe_strength(opponent.strength()),
        "level_text": opponent.level(numbers=False),  # the knobs: strength_text
        "coordinates": coordinates(game),
        "ending": ending(game, board, state.returns()) if state.is_terminal() and game.drawn else None,
        "record": {"name": r.name, "games": r.games, "wins": r.wins, "draws": r.draws, "losses": r.losses},
        "spec": opponent.spec,
        "seed": opponent.seed,
    }


def attempt(opponent: Opponent, work):
    """`work(opponent)`; if it fails, the game, the adjuster, the agent's seat and stream and the record are put
    back as they were, and the failure is a RequestError: a 4xx for a refused request, a 500 saying so for
    anything else, never a half-done move."""
    snapshot = opponent.snapshot()
    try:
        return work(opponent)
    except BaseException as error:
        opponent.restore(snapshot)
        if isinstance(error, OutOfTurn):
            raise RequestError(409, str(error)) from None
        if isinstance(error, (ValueError, ProfileError)):
            raise RequestError(400, str(error)) from None
        if isinstance(error, Exception):
            raise RequestError(
                500, f"the opponent failed ({type(error).__name__}: {error}); the game is as it was before this request"
            ) from None
        raise


class Session:
    """One browser's game: its opponent, and a lock so that its requests run one at a time."""

    def __init__(self):
        self.lock = threading.Lock()
        self.opponent: Opponent | None = None
        self.profile: str | None = None


def make_app(
    *, profiles: str | Path | None = None, seed: int | None = None, hint: str | None = None, allowed_hosts=LOOPBACK
) -> Starlette:
    """The app. `profiles`: the profile database's path (default: the user's data directory), opened when a
    game names a profile; `seed`: games' seeds derive from it (None: random); `hint`: the hint agent;
    `allowed_hosts`: the Host headers served (loopback names by default, so that a web page whose name
    rebinds to 127.0.0.1 cannot drive the server; None serves any)."""
    sessions: OrderedDict[str, Session] = OrderedDict()
    sessions_lock = threading.Lock()
    stores: dict[str, Profiles] = {}
    extra = {} if hint is None else {"hint": hint}
    started = itertools.count()  # games' seeds: (seed, k) for the k-th opponent made

    def session_of(request: Request, create: bool = False) -> tuple[str, Session]:
        sid = request.cookies.get(COOKIE, "")
        with sessions_lock:
            if sid in sessions:
                sessions.move_to_end(sid)
                return sid, sessions[sid]
            if not create:
                raise RequestError(404, "no game in this browser session: start one (POST /api/new)")
            sid = secrets.token_urlsafe(16)
            sessions[sid] = Session()
            idle = [k for k, v in sessions.items() if k != sid and not v.lock.locked()]  # oldest first
            for k in idle[: max(0, len(sessions) - MAX_SESSIONS)]:
                del sessions[k]
            return sid, sessions[sid]

    def forget(sid: str) -> None:
        """Drop a session that never got a game (its new game was refused)."""
        with sessions_lock:
            if sid in sessions and sessions[sid].opponent is None:
                del sessions[sid]

    async def body(request: Request) -> dict:
        if request.headers.get("content-type", "").split(";")[0].strip() != "application/json":
            raise RequestError(415, "send the request body as JSON (Content-Type: application/json)")
        if int(request.headers.get("content-length") or 0) > MAX_BODY:
            raise RequestError(413, f"the request body is over {MAX_BODY} bytes")
        raw = b""
        async for chunk in request.stream():
            raw += chunk
            if len(raw) > MAX_BODY:
                raise RequestError(413, f"the request body is over {MAX_BODY} bytes")
        try:
            data = json.loads(raw or b"{}")
        except ValueError:
            raise RequestError(400, "the request body is not valid JSON") from None
        if not isinstance(data, dict):
            raise RequestError(400, "the request body must be a JSON object")
        return data

    def run(session: Session, work):
        """`work(opponent)` under the session's lock, in a worker thread, guarded; returns the view."""

        def locked():
            with session.lock:
                if session.opponent is None:
                    raise RequestError(404, "no game in this browser session: start one (POST /api/new)")
                extra_out = attempt(session.opponent, work)
                return {**view(session.opponent), **(extra_out or {})}

        return run_in_threadpool(locked)

    def answer(handler):
        async def endpoint(request: Request):
            try:
                return await handler(request)
            except RequestError as error:
                return JSONResponse({"error": str(error)}, status_code=error.status)
            except ProfileError as error:
                return JSONResponse({"error": str(error)}, status_code=400)

        return endpoint

    async def index(request):
        return FileResponse(STATIC / "index.html")

    async def options(request):
        # a person plays one opponent: games of two players
        offered = [g for g in map(_loadable, games.names()) if g is not None and g.players == 2]
        return JSONResponse(
            {
                "games": [{"name": g.name, "drawn": g.drawn, "opponents": opponents(g)} for g in offered],
                "default_game": "connect4",
            }
        )

    async def new(request):
        data = await body(request)
        name = data.get("game", "connect4")
        if name not in games.names():
            raise RequestError(400, f"unknown game {name!r}; games: {', '.join(games.names())}")
        game = _loadable(name)
        if game is None:
            raise RequestError(400, f"game {name!r} cannot be loaded here: its package is broken or missing")
        spec = check_spec(game, str(data.get("opponent") or DEFAULT_SPEC))
        first = data.get("first", True)
        if not isinstance(first, bool):
            raise RequestError(400, "first is true (the person moves first) or false")
        profile = data.get("profile") or None
        if profile is not None and not isinstance(profile, str):
            raise RequestError(400, "profile is a name (text)")
        sid, session = session_of(request, create=True)

        def start():
            with session.lock:
                opponent = session.opponent
                same = opponent is not None and (opponent.game.name, opponent.spec, session.profile) == (
                    name,
                    spec,
                    profile,
                )
                if not same:  # another game, opponent or person: a new opponent (the same one keeps learning)
                    store = None
                    if profile is not None:
                        key = str(profiles)
                        store = stores.get(key) or stores.setdefault(key, Profiles(profiles))
                    opponent_seed = None if seed is None else derive_seeds(seed, next(started), bits=64)[0]
                    try:
                        opponent = Opponent(game, spec, profile=profile, profiles=store, seed=opponent_seed, **extra)
                    except (ValueError, ProfileError) as error:
                        raise RequestError(400, str(error)) from None
                    except Exception as error:
                        reason = f"{type(error).__name__}: {error}"
                        raise RequestError(500, f"the opponent could not be made ({reason})") from None

                def begin(o):
                    o.new_game(human_first=first)
                    while not (o.over or o.human_to_move):  # a player may move twice in a row (pentago_ggp)
                        o.reply()

                attempt(opponent, begin)
                session.opponent, session.profile = opponent, profile
                return view(opponent)

        try:
            response = JSONResponse(await run_in_threadpool(start))
        except (RequestError, ProfileError):
            forget(sid)
            raise
        response.set_cookie(COOKIE, sid, httponly=True, samesite="strict")
        return response

    async def state(request):
        _, session = session_of(request)
        return JSONResponse(await run(session, lambda o: None))

    async def move(request):
        data = await body(request)
        if "move" not in data or not isinstance(data["move"], (int, str)) or isinstance(data["move"], bool):
            raise RequestError(400, 'give the move as {"move": ACTION_ID} or {"move": "NAME"}')
        _, session = session_of(request)

        def play(opponent):
            opponent.move(data["move"])
            while not (opponent.over or opponent.human_to_move):
                opponent.reply()

        return JSONResponse(await run(session, play))

    async def undo(request):
        await body(request)
        _, session = session_of(request)
        return JSONResponse(await run(session, lambda o: o.undo()))

    async def hint(request):
        await body(request)
        _, session = session_of(request)

        def ask(opponent):
            action, text = opponent.hint()
            return {"hint": {"action": action, "text": text}}

        return JSONResponse(await run(session, ask))

    async def resign(request):
        await body(request)
        _, session = session_of(request)
        return JSONResponse(await run(session, lambda o: o.resign()))

    routes = [
        Route("/", answer(index)),
        Route("/api/options", answer(options)),
        Route("/api/state", answer(state)),
        Route("/api/new", answer(new), methods=["POST"]),
        Route("/api/move", answer(move), methods=["POST"]),
        Route("/api/undo", answer(undo), methods=["POST"]),
        Route("/api/hint", answer(hint), methods=["POST"]),
        Route("/api/resign", answer(resign), methods=["POST"]),
        Mount("/static", StaticFiles(directory=STATIC), name="static"),
    ]
    middleware = [] if allowed_hosts is None else [Middleware(TrustedHostMiddleware, allowed_hosts=list(allowed_hosts))]
    return Starlette(routes=routes, middleware=middleware)
