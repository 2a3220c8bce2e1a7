"""Player profiles: what an adaptive opponent has learnt about one person, kept in an SQLite file.

A profile is keyed by (person, game, opponent spec): the spec's adjuster state (`state_dict()`, e.g.
the inter-game z and its step), the person's wins, draws and losses against it, and one row per
finished game. The file is marked with SQLite's application id, so that another program's database,
or a file that is not a database, is refused with a one-line `ProfileError` instead of being
overwritten, and a damaged profile is an error, never a silent fresh start.

>>> import tempfile, pathlib
>>> store = Profiles(pathlib.Path(tempfile.mkdtemp()) / "profiles.sqlite")
>>> store.save(Profile("ada", "connect4", "mcts:dsa=inter", {"kind": "InterGame", "z": -0.375, "dz": 0.356,
...            "games": 1}, wins=0, draws=0, losses=1), result="loss", plies=17)
>>> store.load("ada", "connect4", "mcts:dsa=inter").state["z"]
-0.375
"""

from __future__ import annotations

import json
import sqlite3
from contextlib import closing
from dataclasses import dataclass, field
from datetime import datetime, timezone
from pathlib import Path

import search

APPLICATION_ID = 0x53505247  # "SPRG", in the file's header: this is a sparring profile database
VERSION = 1  # PRAGMA user_version of the schema below
_SCHEMA = """
CREATE TABLE profiles (
    name TEXT NOT NULL, game TEXT NOT NULL, spec TEXT NOT NULL,
    state TEXT,  -- the adjuster's state_dict() as JSON; NULL for an opponent without one
    wins INTEGER NOT NULL, draws INTEGER NOT NULL, losses INTEGER NOT NULL,  -- the person's results
    updated TEXT NOT NULL,
    PRIMARY KEY (name, game, spec)
);
CREATE TABLE games (
    name TEXT NOT NULL, game TEXT NOT NULL, spec TEXT NOT NULL,
    finished TEXT NOT NULL, result TEXT NOT NULL, plies INTEGER NOT NULL,
    state TEXT  -- the adjuster's state after the game
);
"""
RESULTS = ("win", "draw", "loss")  # a game's result from the person's view


class ProfileError(Exception):
    """A profile database or profile that cannot be used: printed as one line."""


def default_path() -> Path:
    """The profile database in the user's data directory (e.g. ~/.local/share/sparring/profiles.sqlite)."""
    from platformdirs import user_data_path

    return user_data_path("sparring") / "profiles.sqlite"


def canonical_spec(spec: str) -> str:
    """The spec's key in the database: its given keys sorted, so `a=1,b=2` and `b=2,a=1` share a profile."""
    parsed = search.parse_spec(spec)
    return str(type(parsed)(parsed.name, parsed.options, tuple(sorted(parsed.given))))


@dataclass
class Profile:
    """One person's record against one opponent spec in one game."""

    name: str
    game: str
    spec: str
    state: dict | None  # the opponent's adjuster state_dict(); None: it has none, or nothing saved yet
    wins: int = 0
    draws: int = 0
    losses: int = 0
    updated: str = field(default="")

    @property
    def games(self) -> int:
        return self.wins + self.draws + self.losses


def check_name(name: str) -> str:
    """A profile name: 1-64 printable characters; ValueError in one line otherwise."""
    if not isinstance(name, str) or not 0 < len(name.strip()) <= 64 or not name.isprintable():
        raise ValueError(f"bad profile name {name!r}: use 1 to 64 printable characters, e.g. your first name")
    return name.strip()


class Profiles:
    """The profile database at `path` (default: `default_path()`), created on first use.

    Each call opens its own connection, so threads (the web server's) and processes may share the file.
    """

    def __init__(self, path: str | Path | None = None):
        self.path = Path(path) if path is not None else default_path()
        with self._connect():
            pass  # refuse a foreign or damaged file now, not at the end of a game

    def _connect(self) -> sqlite3.Connection:
        """A connection to a checked database (made if the file is new or empty); ProfileError if foreign."""
        if self.path.is_dir():
            raise ProfileError(f"{self.path} is a folder: give a file for the profile database")
        try:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            connection = sqlite3.connect(self.path, timeout=30)
            app, version = (connection.execute(f"PRAGMA {p}").fetchone()[0] for p in ("application_id", "user_version"))
            if app == 0 and not connection.execute("SELECT count(*) FROM sqlite_master").fetchone()[0]:
                connection.executescript(f"PRAGMA application_id = {APPLICATION_ID}; PRAGMA user_version = {VERSION};"
                                         + _SCHEMA)  # fmt: skip
                app, version = APPLICATION_ID, VERSION
        except (sqlite3.DatabaseError, OSError) as error:
            raise ProfileError(f"cannot use {self.path} as a profile database ({error}): give another path") from None
        if app != APPLICATION_ID or version != VERSION:
            connection.close()
            what = "a newer sparring's" if app == APPLICATION_ID else "not a sparring"
            raise ProfileError(f"{self.path} is {what} profile database: give another path")
        return connection

    def load(self, name: str, game: str, spec: str) -> Profile | None:
        """The profile of `name` against `spec` in `game`, or None if there is none yet."""
        spec = canonical_spec(spec)
        with closing(self._connect()) as db:
            row = db.execute("SELECT state, wins, draws, losses, updated FROM profiles WHERE name = ? AND game = ? "
                             "AND spec = ?", (check_name(name), game, spec)).fetchone()  # fmt: skip
        if row is None:
            return None
        try:
            state = None if row[0] is None else json.loads(row[0])
            if state is not None and not isinstance(state, dict):
                raise ValueError("not an object")
        except ValueError as error:
            raise ProfileError(f"profile {name!r} ({game}, {spec}) in {self.path} is damaged: its state is not "
                               f"valid ({error}); delete it: sparring profiles delete {name}") from None  # fmt: skip
        return Profile(name, game, spec, state, *row[1:4], updated=row[4])

    def save(self, profile: Profile, *, result: str | None = None, plies: int = 0) -> None:
        """Write `profile`; with `result` (the person's: win, draw or loss), also log the finished game."""
        if result is not None and result not in RESULTS:
            raise ValueError(f"result is one of {', '.join(RESULTS)}, not {result!r}")
        spec = canonical_spec(profile.spec)
        profile.updated = datetime.now(timezone.utc).isoformat(timespec="seconds")
        state = None if profile.state is None else json.dumps(profile.state)
        key = (check_name(profile.name), profile.game, spec)
        with closing(self._connect()) as db, db:
            db.execute("INSERT OR REPLACE INTO profiles VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
                       (*key, state, profile.wins, profile.draws, profile.losses, profile.updated))  # fmt: skip
            if result is not None:
                row = (*key, profile.updated, result, plies, state)
                db.execute("INSERT INTO games VALUES (?, ?, ?, ?, ?, ?, ?)", row)

    def history(self, name: str, game: str, spec: str) -> list[dict]:
        """The finished games of a profile, oldest first: when, the person's result, plies, the state after."""
        with closing(self._connect()) as db:
            rows = db.execute("SELECT finished, result, plies, state FROM games WHERE name = ? AND game = ? AND "
                              "spec = ? ORDER BY rowid", (name, game, canonical_spec(spec))).fetchall()  # fmt: skip
        return [{"finished": f, "result": r, "plies": p, "state": s and json.loads(s)} for f, r, p, s in rows]

    def list(self) -> list[Profile]:
        """Every profile, by name, game and spec (their states left out)."""
        with closing(self._connect()) as db:
            rows = db.execute("SELECT name, game, spec, wins, draws, losses, updated FROM profiles "
                              "ORDER BY name, game, spec").fetchall()  # fmt: skip
        return [Profile(n, g, s, None, w, d, lo, updated=u) for n, g, s, w, d, lo, u in rows]

    def delete(self, name: str, game: str | None = None) -> int:
        """Delete `name`'s profiles and games (only in `game` if given); the number of profiles deleted."""
        where, args = ("name = ?", (name,)) if game is None else ("name = ? AND game = ?", (name, game))
        with closing(self._connect()) as db, db:
            count = db.execute(f"DELETE FROM profiles WHERE {where}", args).rowcount
            db.execute(f"DELETE FROM games WHERE {where}", args)
        return count
