"""One conformance suite for every study objective of `tuner.study.objective.OBJECTIVES` (a new entry gets it all):
its reward lies in [0, 1] and orders trials as its direction does, its value stays within its range, its interval
covers it, and study.toml and --help offer it. The formulas themselves are checked by hand in test_study.py."""

import numpy as np
import pytest

from tuner.cli import main
from tuner.study.objective import OBJECTIVES
from tuner.study.recommend import interval


def random_records(rng, games: int = 8, opponents: int = 2) -> dict:
    """A trial's records: per opponent and seat, `games` games split at random into wins, draws and losses."""
    return {
        f"o{j}": {seat: rng.multinomial(games, rng.dirichlet([1, 1, 1])).tolist() for seat in ("first", "second")}
        for j in range(opponents)
    }


@pytest.mark.parametrize("name", OBJECTIVES)
def test_reward_lies_in_0_1_and_orders_trials_as_the_direction_says(name):
    o = OBJECTIVES[name]
    rng = np.random.default_rng(0)
    trials = [random_records(rng) for _ in range(200)]
    values = [o.value(r) for r in trials]
    rewards = [o.reward(v, r) for v, r in zip(values, trials)]
    assert all(0.0 <= r <= 1.0 for r in rewards)
    better = [(v1 > v2) == o.maximised for v1, v2 in zip(values, values[1:]) if v1 != v2]
    higher = [r1 > r2 for (v1, v2), r1, r2 in zip(zip(values, values[1:]), rewards, rewards[1:]) if v1 != v2]
    assert better == higher and len(better) > 100


@pytest.mark.parametrize("name", OBJECTIVES)
def test_the_range_holds_every_trial_and_is_reached(name):
    o = OBJECTIVES[name]
    rng = np.random.default_rng(1)
    low, high = o.range(random_records(rng))
    assert low < high
    values = [o.value(random_records(rng)) for _ in range(300)]
    assert all(low <= v <= high for v in values)
    every = {"o0": {"first": [8, 0, 0], "second": [8, 0, 0]}, "o1": {"first": [8, 0, 0], "second": [8, 0, 0]}}
    none = {p: {s: [0, 0, 8] for s in seats} for p, seats in every.items()}
    even = {p: {s: [0, 8, 0] for s in seats} for p, seats in every.items()}
    assert {low, high} <= {o.value(every), o.value(none), o.value(even)}


@pytest.mark.parametrize("name", OBJECTIVES)
def test_the_interval_of_replicates_covers_their_mean(name):
    o = OBJECTIVES[name]
    rng = np.random.default_rng(2)
    replicates = [random_records(rng) for _ in range(6)]
    low, high = interval(name, replicates, seed=0)
    lo, hi = o.range(replicates[0])
    assert lo <= low <= np.mean([o.value(r) for r in replicates]) <= high <= hi


def test_study_run_help_offers_every_objective(capsys):
    with pytest.raises(SystemExit):
        main(["study", "run", "--help"])
    text = " ".join(capsys.readouterr().out.split())
    for name, o in OBJECTIVES.items():
        assert f"{name} {o.doc}" in text
