"""Write golden_strategies.json: seeded runs of every compiled allocation strategy whose asks a refactoring must
leave unchanged, ties and random stream included.

    .venv/bin/python -m tests.data.make_golden_strategies

Each run asks and tells 2,000 times on a small space (a row per combination), a larger one and SA-MCTS's six
parameters (a hash table, a legality rule), with rewards of 0, 0.5 and 1 (many exact ties), forgetting half way;
and NMC's greedy bandit (c_global = 0) and one whose bonus is lost in the means' roundings, whose ties span groups
of unequal samples.
Run it only when a change of behaviour is intended, and say so in the commit; tests/test_golden.py replays each run.
"""

import hashlib
import json
from pathlib import Path

import numpy as np

from tuner.strategies import COMPILED, Param, Space, make_strategy, sa_mcts_space

SPACES = ("3x5", "6^4", "sa-mcts")
RUNS = [(kind, space) for kind in sorted(COMPILED) for space in SPACES]
RUNS += [("nmc", "6^4", "c_global=0"), ("nmc", "6^4", "c_global=1e-17")]


def space_of(name: str) -> Space:
    if name == "sa-mcts":
        return sa_mcts_space(("C", "eps", "K", "Ref", "VO", "T"))
    values, params = {"3x5": (5, 3), "6^4": (6, 4)}[name]
    return Space([Param(f"p{i}", tuple(range(values)), 0.0, values - 1.0, 0.0) for i in range(params)])


def play(run) -> dict:
    """The run's asks (a digest of all, the first ten in full) and its recommendation at the end."""
    kind, name, *settings = run
    space = space_of(name)
    chosen = {k: float(v) for k, v in (s.split("=") for s in settings)} | ({"budget": 1500} if kind == "lsi" else {})
    strategy = make_strategy(space, kind, seed=11, **chosen)
    rng = np.random.default_rng(12)
    asks = []
    for step in range(2000):
        x = strategy.ask()
        win = 0.25 + 0.25 * (x[0] == 1) + 0.25 * (x[-1] % 2 == 0)
        strategy.tell(x, float(rng.choice([0.0, 0.5, 1.0], p=[0.8 - win, 0.2, win])))
        asks.append(x.tolist())
        if step == 999:
            strategy.forget(0.5)
    return {
        "asks": hashlib.sha256(json.dumps(asks).encode()).hexdigest(),
        "first": asks[:10],
        "recommended": strategy.recommend().tolist(),
    }


def main() -> None:
    out = [{"run": list(run), **play(run)} for run in RUNS]
    path = Path(__file__).with_name("golden_strategies.json")
    path.write_text("[\n" + ",\n".join(json.dumps(run) for run in out) + "\n]\n")  # a line a run
    print(f"wrote {path}: {len(out)} runs")


if __name__ == "__main__":
    main()
