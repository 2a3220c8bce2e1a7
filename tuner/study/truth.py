"""Ground truth for a study's space: every discrete point played with many games, kept in the folder.

`sparring study truth FOLDER --games M` plays each point of the study's discrete space (the product of
every parameter's `values`) with M games per opponent and seat, against the study's opponents and with
its objective, and appends one JSON line per point to FOLDER/truth.jsonl once the point's games are
done: a killed run resumes at the first point missing, never counting one twice. Each point's games
are seeded from (study seed, TRUTH_STREAM, point index), apart from every trial's.

The table is what a strategy's recommendation is scored by (its regret), and what the tabular
benchmark draws games from instead of playing them (`tuner.study.objective`).
"""

from __future__ import annotations

import itertools
import math
from dataclasses import dataclass, field, replace
from pathlib import Path

import numpy as np
from filelock import FileLock

from games.rng import derive_seeds
from tuner.agents import changed_net
from tuner.study import objective as objectives
from tuner.study.spec import StudyError, StudySpec, trial_games
from tuner.study.storage import append_lines, read_lines

TRUTH = "truth.jsonl"
TRUTH_STREAM = 1_000_003  # the seed stream of truth games, apart from trials' (derive_seeds(seed, number))


def points(spec: StudySpec) -> list[dict]:
    """Every point of the study's discrete space, in a fixed order (the last parameter varies fastest)."""
    names = spec.space.names
    return [dict(zip(names, combo)) for combo in itertools.product(*(p.values for p in spec.space.params))]


def point_seed(study_seed: int, index: int) -> int:
    return derive_seeds(study_seed, TRUTH_STREAM, index)[0]


def _nearest(grid, x: float) -> float:
    """The grid value nearest to x: x itself where it is on the grid (inf included), else by distance."""
    if x in grid:
        return x
    return min((v for v in grid if math.isfinite(v)), key=lambda v: abs(v - x), default=grid[0])


def _key(values: dict, names) -> tuple:
    return tuple(float(values[n]) for n in names)


@dataclass
class Truth:
    """A study's truth table: per point, its records (per opponent and seat W, D, L) and objective value."""

    spec: StudySpec
    rows: list[dict]
    _index: dict = field(default_factory=dict, repr=False, compare=False)

    @property
    def games(self) -> int:
        """Games per opponent and seat behind each point."""
        return self.rows[0]["games"] if self.rows else 0

    def lookup(self, values: dict) -> dict:
        """The row of the grid point nearest to `values` (each parameter snapped to its nearest grid value,
        so a continuous strategy's point is scored by the grid cell it falls in); KeyError if unplayed."""
        names = self.spec.space.names
        if not self._index:  # the rows by point, built once (the benchmark looks up every trial)
            self._index = {_key(row["values"], names): row for row in self.rows}
        snapped = {p.name: _nearest(p.values, float(values[p.name])) for p in self.spec.space.params}
        try:
            return self._index[_key(snapped, names)]
        except KeyError:
            raise KeyError(f"no truth for {snapped}") from None

    def value(self, values: dict) -> float:
        """The objective's true value (its estimate from the table's games) at the point nearest `values`."""
        return self.lookup(values)["value"]

    def best(self) -> dict:
        """The row with the best objective value."""
        sign = 1.0 if objectives.OBJECTIVES[self.spec.objective].maximised else -1.0
        return max(self.rows, key=lambda r: sign * r["value"])

    def regret(self, values: dict) -> float:
        """Simple regret of recommending `values`: how much worse its true value is than the best point's
        (>= 0, in the objective's units)."""
        return self.regret_of(self.value(values))

    def regret_of(self, value: float) -> float:
        """How much worse a true value is than the best point's (>= 0, in the objective's units)."""
        gap = self.best()["value"] - value
        return gap if objectives.OBJECTIVES[self.spec.objective].maximised else -gap

    def draw(self, values: dict, games: int, seed: int) -> dict:
        """Records as a trial of `games` games per opponent and seat at `values` would give them, drawn instead
        of played: per opponent and seat, wins, draws and losses from a multinomial with the table's
        frequencies at the nearest point (the tabular benchmark), seeded by `seed`."""
        rng = np.random.default_rng(seed)
        records = self.lookup(values)["records"]
        return {
            o: {seat: rng.multinomial(games, np.array(wdl, float) / sum(wdl)).tolist() for seat, wdl in s.items()}
            for o, s in records.items()
        }

    def play(self, spec, trials, progress=None) -> list[dict]:
        """`objectives.play_trials`' stand-in for the tabular benchmark: each (values, seed) drawn, not played."""
        out = [self.draw(values, spec.games, seed) for values, seed in trials]
        if progress is not None:
            progress.update(len(trials) * spec.games_per_trial)
        return out


def load(folder) -> Truth:
    """The folder's truth table as far as it is played (a torn last line, from a kill, is ignored); a
    StudyError if its rows were played for another problem than study.toml now describes."""
    folder = Path(folder)
    spec = StudySpec.load(folder)
    rows = read_lines(folder / TRUTH)
    if any("problem" not in r for r in rows):
        raise StudyError(
            f"{folder / TRUTH} has no problem hash (an older sparring played it): move it away and play the table again"
        )
    if any(r["problem"] != spec.problem() for r in rows):
        raise StudyError(
            f"{folder / TRUTH} was played for another problem than {folder / 'study.toml'} describes "
            "(its game, agent, opponents, objective or space changed): restore study.toml, or move "
            "truth.jsonl away and play the table again"
        )
    _check_nets(folder, rows, spec.nets())
    return Truth(spec, rows)


def _check_nets(folder: Path, rows: list[dict], now: dict[str, str]) -> None:
    """A StudyError unless the nets the study plays (`now`: StudySpec.nets) are the files its rows were played with
    (rows from before nets were recorded are not checked): a net replaced under its name would mix two nets' points."""
    for then in (r["nets"] for r in rows if "nets" in r):
        name = changed_net(then, now)
        if name is not None:
            raise StudyError(
                f"{folder / TRUTH} was played with the net {name!r} at digest {then.get(name)}, now {now.get(name)}: "
                "put that file back under its name, or move truth.jsonl away and play the table again"
            )


def run(folder, games: int, *, workers: int = 1, chunk: int = 4, progress=None, cluster: str | None = None) -> Truth:
    """Play every missing point of FOLDER's space with `games` games per opponent and seat (see the module
    docstring); `chunk` points at a time in one pool with `workers` threads, or on the Dask cluster at address
    `cluster` (the same games: each is seeded by its point and index). Returns the whole table."""
    folder = Path(folder)
    if games < 1 or workers < 1:
        raise StudyError("--games and --workers must be at least 1")
    with FileLock(folder / ".truth.lock"):  # one process at a time: a second waits, then finds the points played
        return _run(folder, games, workers, chunk, progress, cluster)


def _run(folder: Path, games: int, workers: int, chunk: int, progress, cluster: str | None) -> Truth:
    truth = load(folder)
    spec = truth.spec
    if truth.rows and truth.games != games:
        raise StudyError(
            f"{folder / TRUTH} holds {truth.games} games a point and seat, not {games}: "
            f"give --games {truth.games}, or move the file away to start again"
        )
    every = points(spec)
    done = {_key(r["values"], spec.space.names) for r in truth.rows}
    todo = [(i, p) for i, p in enumerate(every) if _key(p, spec.space.names) not in done]
    if progress is not None:
        progress.update(len(done) * trial_games(games, len(spec.opponents)))
    played = replace(spec, games=games, game_workers=workers, cluster=cluster)
    for start in range(0, len(todo), chunk):
        part = todo[start : start + chunk]
        nets = spec.nets()
        _check_nets(folder, read_lines(folder / TRUTH), nets)  # before each part: a net replaced meanwhile stops it
        records = objectives.play_trials(played, [(p, point_seed(spec.seed, i)) for i, p in part], progress=progress)
        rows = [
            {
                "index": i,
                "problem": spec.problem(),
                "values": p,
                "games": games,
                "seed": point_seed(spec.seed, i),
                "nets": nets,
                "records": r,
                "value": objectives.OBJECTIVES[spec.objective].value(r),
            }
            for (i, p), r in zip(part, records)
        ]
        append_lines(folder / TRUTH, rows)
    return load(folder)
