"""What a study trial measures: seat-split matches against the opponents, reduced to one objective.

Objectives (study.toml `objective`), from per-opponent, per-seat wins W, draws and losses L:
- winrate: mean over opponents of the score (W + draws / 2) / games; maximised;
- dda_d: AlphaDDA's metric D [AlphaDDA eq. 11]: the sum over opponents and seats
  of |W - L|; minimised (the paper's grid search keeps the smallest D);
- balance: the mean over opponents and seats of |W - L| / games; minimised.
Each maps onto [0, 1], higher is better, for the allocation strategies (`Objective.reward`). One entry
of `OBJECTIVES` each: study.toml, the reports, the intervals and --help read it.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Callable

import numpy as np

from games.rng import derive_seeds
from tuner.match import Record, play_matches


def match_seed(trial_seed: int, opponent: int) -> int:
    return derive_seeds(trial_seed, opponent)[0]


def play_trials(spec, trials: list[tuple[dict, int]], progress=None) -> list[dict]:
    """The games of several trials, each (values, trial seed): `spec.games` per opponent and seat for the
    agent with `values` filled in, all played in one pool so that batching agents (az) share forwards.
    A trial's games are the same alone or with others (each match is seeded from its trial).

    Returns per trial {opponent: {"first": [W, D, L], "second": [W, D, L]}} (the agent moving first / second; with
    more players, holding the first role or not).
    """
    matches = [
        (spec.agent_spec(values), opponent, match_seed(seed, j), 2 * spec.games)
        for values, seed in trials
        for j, opponent in enumerate(spec.opponents)
    ]
    where = {"backend": "cluster", "cluster": spec.cluster} if spec.cluster is not None else {}
    results = play_matches(spec.game, matches, workers=spec.game_workers, progress=progress, **where)
    n = len(spec.opponents)
    return [
        {
            opponent: {seat: [r.wins, r.draws, r.losses] for seat, r in (("first", m.first), ("second", m.second))}
            for opponent, m in zip(spec.opponents, results[t * n : (t + 1) * n])
        }
        for t in range(len(trials))
    ]


def _seats(records: dict) -> list[Record]:
    """A trial's records, one per opponent and seat."""
    return [Record(*wdl) for per_seat in records.values() for wdl in per_seat.values()]


def _games(records: dict) -> int:
    return sum(sum(wdl) for per_seat in records.values() for wdl in per_seat.values())


def _winrate(records: dict) -> float:
    totals = [Record(*(np.add(s["first"], s["second"]))) for s in records.values()]
    return float(np.mean([t.score for t in totals]))


def _dda_d(records: dict) -> float:
    # [AlphaDDA eq. 11]
    return float(sum(abs(s.wins - s.losses) for s in _seats(records)))


def _balance(records: dict) -> float:
    return float(np.mean([abs(s.wins - s.losses) / s.games for s in _seats(records)]))


@dataclass(frozen=True)
class Objective:
    """What a trial's records reduce to: `value(records)`, maximised or not, and `reward(value, records)` on [0, 1]
    (higher is better) for the allocation strategies. `pools`: linear in the games, so replicates pool into one
    record (a bootstrap interval); else replicates are averaged (Student's t)."""

    name: str
    doc: str
    maximised: bool
    value: Callable[[dict], float]
    reward: Callable[[float, dict], float]
    pools: bool = False

    def range(self, record: dict) -> tuple[float, float]:
        """The least and greatest values on a trial of `record`'s games per opponent and seat: over the trials
        where every game of a seat is a win, or a draw, or a loss (the extremes of our linear and convex ones)."""
        ends = [
            self.value(
                {
                    o: {seat: [sum(wdl) if i == k else 0 for i in range(3)] for seat, wdl in s.items()}
                    for o, s in record.items()
                }
            )
            for k in range(3)
        ]
        return min(ends), max(ends)


OBJECTIVES = {
    o.name: o
    for o in (
        Objective(
            "winrate",
            "maximise the mean score (wins + draws / 2) / games over the opponents",
            True,
            _winrate,
            lambda v, records: v,
            pools=True,
        ),
        Objective(
            "dda_d",
            "minimise AlphaDDA's D (eq. 11): sum over opponents and seats of |wins - losses|",
            False,
            _dda_d,
            lambda v, records: 1.0 - v / _games(records),
        ),
        Objective(
            "balance",
            "minimise the mean over opponents and seats of |win rate - loss rate|",
            False,
            _balance,
            lambda v, records: 1.0 - v,
        ),
    )
}
