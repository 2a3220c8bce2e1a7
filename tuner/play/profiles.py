"""Player profiles: what an adaptive opponent has learnt about one person, kept in an SQLite file.

A profile is keyed by (person, game, opponent spec): the spec's adjuster state (`state_dict()`, e.g.
the inter-game z and its step), the person's wins, draws and losses against it, and one row per
finished game. The file is marked with SQLite's application id, so that another program's database,
or a file that is not a database, is refused with a one-line `ProfileError` instead of being
overwritten, and a damaged profile is an error, never a silent fresh start.

>>> import tempfile, pathlib
>>> store = Profiles(pathlib.Path(tempfile.mkdtemp()) / "profiles.sqlite")
>>> saved = store.add_game(Profile("ada", "connect4", "mcts:dsa=inter", None), "loss",
...                        {"kind": "InterGame", "z": -0.375, "dz": 0.356, "games": 1}, plies=17)
>>> store.load("ada", "connect4", "mcts:dsa=inter").state["z"], saved.losses
(-0.375, 1)
"""

from __future__ import annotations

import json
import shlex
import sqlite3
from contextlib import closing
from dataclasses import dataclass, field
from datetime import datetime, timezone
from pathlib import Path

from tuner.agents import AGENTS, parse_spec

APPLICATION_ID = 0x53505247  # "SPRG", in the file's header: this is a sparring profile database
VERSION = 1  # PRAGMA user_version of the schema below
_SCHEMA = """
CREATE TABLE profiles (
    name TEXT NOT NULL, game TEXT NOT NULL, spec TEXT NOT NULL,
    state TEXT,  -- the adjuster's state_dict() as JSON, NULL for an opponent without one
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
_COLUMNS = {
    "profiles": ["name", "game", "spec", "state", "wins", "draws", "losses", "updated"],
    "games": ["name", "game", "spec", "finished", "result", "plies", "state"],
}  # what _ready checks
RESULTS = ("win", "draw", "loss")  # a game's result from the person's view


class ProfileError(Exception):
    """A profile database or profile that cannot be used: printed as one line."""


def default_path() -> Path:
    """The profile database in the user's data directory (e.g. ~/.local/share/sparring/profiles.sqlite)."""
    from platformdirs import user_data_path

    return user_data_path("sparring") / "profiles.sqlite"


def afresh(name: str, game: str, spec: str, path) -> str:
    """How a person starts one profile afresh: the command that deletes it and nothing else of theirs."""
    where = " ".join(shlex.quote(str(v)) for v in (name, "--game", game, "--spec", spec, "--profiles", path))
    return f"to start it afresh: sparring profiles delete {where}"


def canonical_spec(spec: str) -> str:
    """The spec's key in the database: the keys given with a value other than the default, sorted, so that
    `a=1,b=2`, `b=2,a=1` and `a=1,b=2,c=DEFAULT` share a profile."""
    parsed = parse_spec(spec)
    defaults = {k: key.default for k, key in AGENTS[parsed.name].keys.items()}
    given = tuple(sorted(k for k in parsed.given if parsed.options[k] != defaults[k]))
    return str(type(parsed)(parsed.name, parsed.options, given))


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

    Each call opens its own connection, so threads (the web server's) and processes may share the file;
    every sqlite error becomes a one-line ProfileError.
    """

    def __init__(self, path: str | Path | None = None):
        self.path = Path(path) if path is not None else default_path()
        self._run(lambda db: None)  # refuse a foreign or damaged file now, not at the end of a game

    def _run(self, work, write: bool = False):
        """`work(connection)` on a checked database (made if the file is new or empty), in one transaction
        (an immediate one, locking out other writers, with `write`); ProfileError for anything sqlite
        refuses."""
        if self.path.is_dir():
            raise ProfileError(f"{self.path} is a folder: give a file for the profile database")
        try:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            new = not self.path.exists() or self.path.stat().st_size == 0
            with closing(sqlite3.connect(self.path, timeout=30, isolation_level=None)) as db:
                db.execute("BEGIN IMMEDIATE" if write or new else "BEGIN")
                try:
                    self._ready(db)
                    out = work(db)
                except BaseException:
                    db.execute("ROLLBACK")
                    raise
                db.execute("COMMIT")
                return out
        except sqlite3.OperationalError as error:
            if "locked" in str(error) or "busy" in str(error):
                raise ProfileError(f"{self.path} is locked by another program: try again") from None
            raise ProfileError(f"{self.path} is damaged ({error}): move it away or give another path") from None
        except (sqlite3.DatabaseError, OSError) as error:
            raise ProfileError(f"cannot use {self.path} as a profile database ({error}): give another path") from None

    def _ready(self, db) -> None:
        """Make the schema in an empty file; ProfileError if the file is another program's database, another
        version's, or lacks our tables."""
        app, version = (db.execute(f"PRAGMA {p}").fetchone()[0] for p in ("application_id", "user_version"))
        if app == 0 and not db.execute("SELECT count(*) FROM sqlite_master").fetchone()[0]:
            db.execute(f"PRAGMA application_id = {APPLICATION_ID}")
            db.execute(f"PRAGMA user_version = {VERSION}")
            for statement in filter(str.strip, _SCHEMA.split(";")):
                db.execute(statement)
            return
        if app != APPLICATION_ID:
            raise ProfileError(f"{self.path} is not a sparring profile database: give another path")
        if version != VERSION:
            raise ProfileError(
                f"{self.path} holds profiles of schema {version}, and this sparring reads schema "
                f"{VERSION}: use the sparring that wrote it, or give another path"
            )
        for table, columns in _COLUMNS.items():
            found = [row[1] for row in db.execute(f"PRAGMA table_info({table})")]
            if found != columns:
                raise ProfileError(
                    f"{self.path} is damaged (table {table} has columns {found or 'none'}): move it "
                    "away or give another path"
                )

    def _profile(self, row, name, game, spec) -> Profile:
        """A stored row as a Profile; ProfileError if its state or counts are not what we write."""
        state, counts, updated = row[0], row[1:4], row[4]
        try:
            if not all(isinstance(c, int) and c >= 0 for c in counts):
                raise ValueError(f"its wins, draws and losses are {list(counts)}")
            state = None if state is None else json.loads(state)
            if state is not None and not isinstance(state, dict):
                raise ValueError("its state is not an object")
        except ValueError as error:
            raise ProfileError(
                f"profile {name!r} ({game}, {spec}) in {self.path} is damaged ({error}); "
                f"{afresh(name, game, spec, self.path)}"
            ) from None
        return Profile(name, game, spec, state, *counts, updated=updated)

    def load(self, name: str, game: str, spec: str) -> Profile | None:
        """The profile of `name` against `spec` in `game`, or None if there is none yet."""
        name, spec = check_name(name), canonical_spec(spec)
        query = "SELECT state, wins, draws, losses, updated FROM profiles WHERE name = ? AND game = ? AND spec = ?"
        row = self._run(lambda db: db.execute(query, (name, game, spec)).fetchone())
        return None if row is None else self._profile(row, name, game, spec)

    def add_game(self, profile: Profile, result: str, state, plies: int = 0) -> Profile:
        """Count a finished game (the person's result: win, draw or loss) in `profile` and store the adjuster's
        state after it, in one transaction, so that games another session added meanwhile are kept: `state`
        is that state, or a function of the profile stored now that returns it. Returns the profile as stored."""
        if result not in RESULTS:
            raise ValueError(f"result is one of {', '.join(RESULTS)}, not {result!r}")
        key = (check_name(profile.name), profile.game, canonical_spec(profile.spec))
        now = datetime.now(timezone.utc).isoformat(timespec="seconds")

        def write(db):
            row = db.execute(
                "SELECT state, wins, draws, losses, updated FROM profiles WHERE name = ? AND game = ? AND spec = ?", key
            ).fetchone()
            saved = self._profile(row, *key) if row is not None else Profile(*key, None)
            counts = [saved.wins, saved.draws, saved.losses]
            counts[RESULTS.index(result)] += 1
            new = state(saved) if callable(state) else state
            text = None if new is None else json.dumps(new)
            db.execute("INSERT OR REPLACE INTO profiles VALUES (?, ?, ?, ?, ?, ?, ?, ?)", (*key, text, *counts, now))
            db.execute("INSERT INTO games VALUES (?, ?, ?, ?, ?, ?, ?)", (*key, now, result, plies, text))
            return Profile(*key, new, *counts, updated=now)

        return self._run(write, write=True)

    def history(self, name: str, game: str, spec: str) -> list[dict]:
        """The finished games of a profile, oldest first: when, the person's result, plies, the state after."""
        key = (check_name(name), game, canonical_spec(spec))
        where = "name = ? AND game = ? AND spec = ?"
        query = f"SELECT finished, result, plies, state FROM games WHERE {where} ORDER BY rowid"
        rows = self._run(lambda db: db.execute(query, key).fetchall())
        try:
            return [{"finished": f, "result": r, "plies": p, "state": s and json.loads(s)} for f, r, p, s in rows]
        except ValueError as error:
            raise ProfileError(f"the games of profile {name!r} in {self.path} are damaged ({error})") from None

    def list(self) -> list[Profile]:
        """Every profile, by name, game and spec."""
        query = "SELECT state, wins, draws, losses, updated, name, game, spec FROM profiles ORDER BY name, game, spec"
        rows = self._run(lambda db: db.execute(query).fetchall())
        return [self._profile(row[:5], *row[5:]) for row in rows]

    def delete(self, name: str, game: str | None = None, spec: str | None = None) -> int:
        """Delete `name`'s profiles and games (only in `game`, and of opponent `spec`, if given); the number of
        profiles deleted."""
        if spec is not None and game is None:
            raise ValueError("a spec names a profile within a game: give the game too")
        keys = {"name": check_name(name), "game": game, "spec": None if spec is None else canonical_spec(spec)}
        keys = {k: v for k, v in keys.items() if v is not None}
        where, args = " AND ".join(f"{k} = ?" for k in keys), tuple(keys.values())

        def drop(db):
            count = db.execute(f"DELETE FROM profiles WHERE {where}", args).rowcount
            db.execute(f"DELETE FROM games WHERE {where}", args)
            return count

        return self._run(drop, write=True)
