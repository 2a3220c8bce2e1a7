"""What a study trial measures: seat-split matches against the opponents, reduced to one objective.

Objectives (study.toml `objective`), from per-opponent, per-seat wins W, draws and losses L:
- winrate: mean over opponents of the score (W + draws / 2) / games; maximised;
- dda_d: AlphaDDA's metric D [AlphaDDA eq. 11]: the sum over opponents and seats
  of |W - L|; minimised (the paper's grid search keeps the smallest D);
- balance: the mean over opponents and seats of |W - L| / games; minimised.
`reward` maps each onto [0, 1], higher is better, for the allocation strategies.
"""

from __future__ import annotations

import numpy as np

from games.rng import derive_seeds
from tuner.match import Record, play_matches

MAXIMISED = {"winrate": True, "dda_d": False, "balance": False}


def match_seed(trial_seed: int, opponent: int) -> int:
    return derive_seeds(trial_seed, opponent)[0]


def play_trials(spec, trials: list[tuple[dict, int]], progress=None) -> list[dict]:
    """The games of several trials, each (values, trial seed): `spec.games` per opponent and seat for the
    agent with `values` filled in, all played in one pool so that batching agents (az) share forwards.
    A trial's games are the same alone or with others (each match is seeded from its trial).

    Returns per trial {opponent: {"first": [W, D, L], "second": [W, D, L]}} (the agent moving first / second).
    """
    matches = [(spec.agent_spec(values), opponent, match_seed(seed, j), 2 * spec.games)
               for values, seed in trials for j, opponent in enumerate(spec.opponents)]  # fmt: skip
    results = play_matches(spec.game, matches, workers=spec.game_workers, progress=progress)
    n = len(spec.opponents)
    return [
        {
            opponent: {seat: [r.wins, r.draws, r.losses] for seat, r in (("first", m.first), ("second", m.second))}
            for opponent, m in zip(spec.opponents, results[t * n : (t + 1) * n])
        }  # fmt: skip
        for t in range(len(trials))
    ]


def value(objective: str, records: dict) -> float:
    """The objective of a trial's records (see the module docstring)."""
    seats = [Record(*wdl) for per_seat in records.values() for wdl in per_seat.values()]
    if objective == "winrate":
        totals = [Record(*(np.add(s["first"], s["second"]))) for s in records.values()]
        return float(np.mean([t.score for t in totals]))
    if objective == "dda_d":
        # [AlphaDDA eq. 11]
        return float(sum(abs(s.wins - s.losses) for s in seats))
    if objective == "balance":
        return float(np.mean([abs(s.wins - s.losses) / s.games for s in seats]))
    raise ValueError(f"unknown objective {objective!r}")


def reward(objective: str, objective_value: float, records: dict) -> float:
    """The objective on [0, 1], higher is better: what the allocation strategies learn from."""
    if objective == "winrate":
        return objective_value
    if objective == "dda_d":
        games = sum(sum(wdl) for per_seat in records.values() for wdl in per_seat.values())
        return 1.0 - objective_value / games
    return 1.0 - objective_value
