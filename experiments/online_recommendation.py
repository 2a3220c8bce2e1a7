"""What on-line tuning settles on, scored as an off-line setting: the SA-MCTS tuners' recommendations on the
truth table of the strategies-compare problem.

SA-MCTS (Sironi et al.) tunes C and epsilon inside one game, from the rewards of the search's own
simulations. Here SP at 100 simulations a move, tuning C and epsilon on-line with each allocation strategy,
plays the problem's opponent (default SP at 100 simulations); at the end of each game we read the
recommendation of the tuner of its own seat (`recommend()`: LSI's winner, CMA-ES's mean, otherwise the
best lower confidence bound) and look its true value up in the problem's truth table
(`studies/strategies-compare-connect4/truth`): its simple regret as a fixed setting, beside the regret
of the off-line strategies' recommendations after 1000 games (the tabular benchmark's `bench.json`).

    .venv/bin/python -m experiments.online_recommendation [--games 100] [--seed 0]

Writes results.json (seed, versions, commit) to --out.
"""

import argparse
import json
import math
import os
from dataclasses import dataclass

import numpy as np

import games
from tuner.agents import make_agent
from tuner.match import play_game
from tuner.provenance import environment
from tuner.study import truth


@dataclass
class Args:
    games: int = 100  # per strategy, half as first player
    seed: int = 0
    truth: str = "studies/strategies-compare-connect4/truth"
    bench: str = "studies/strategies-compare-connect4/report/bench.json"
    out: str = "experiments/results/online_recommendation"


STRATEGIES = ["nmc", "lsi", "ea", "ntbea", "cmaes"]


def recommendations(args, strategy: str, table) -> list[dict]:
    """Each game's end: the agent's seat's recommendation, its truth and regret, and the game's result."""
    game = games.load(table.spec.game)
    agent = make_agent(game, f"sp:simulations=100,tuner={strategy},tune=C+eps", seed=args.seed)
    opponent = make_agent(game, table.spec.opponents[0], seed=args.seed + 1)
    out = []
    for index in range(args.games):
        result = play_game(game, agent, opponent, args.seed, index)
        recommended = agent.tuning()[result.a_seat]["recommended"]
        values = {"C": float(recommended["C"]), "eps": float(recommended["eps"])}
        out.append(
            {
                "game": index,
                "seat": result.a_seat,
                "outcome": result.outcome,
                "recommended": values,
                "truth": table.value(values),
                "regret": table.regret(values),
            }
        )
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    for field, default in Args().__dict__.items():
        parser.add_argument(f"--{field}", type=type(default), default=default)
    args = Args(**vars(parser.parse_args()))
    table = truth.load(args.truth)
    os.makedirs(args.out, exist_ok=True)
    offline = {}
    if os.path.exists(args.bench):
        bench = json.load(open(args.bench))
        at = bench["budgets"].index(1000) if 1000 in bench["budgets"] else -1
        # by strategy, whatever its off-line settings ("ea (elite=5, population=10)" is ea)
        offline = {r["strategy"].split(" (")[0]: r for r in bench["summary"] if r["budget"] == bench["budgets"][at]}
    summary = {}
    runs = {}
    for strategy in STRATEGIES:
        runs[strategy] = recommendations(args, strategy, table)
        regret = np.array([r["regret"] for r in runs[strategy]])
        half = 1.959963984540054 * regret.std(ddof=1) / math.sqrt(len(regret))
        summary[strategy] = {
            "online_regret": float(regret.mean()),
            "ci95": [float(regret.mean() - half), float(regret.mean() + half)],
            "best_point_share": float((regret == 0).mean()),
            "offline_regret_at_1000_games": offline.get(strategy, {}).get("regret"),
        }
        s = summary[strategy]
        off = s["offline_regret_at_1000_games"]
        print(
            f"{strategy:<6} on-line: regret {s['online_regret']:.3f} [{s['ci95'][0]:.3f}, {s['ci95'][1]:.3f}] "
            f"over {args.games} games; off-line at 1000 games: {'-' if off is None else f'{off:.3f}'}"
        )
    best = table.best()
    with open(os.path.join(args.out, "results.json"), "w") as f:
        json.dump(
            {
                "args": vars(args),
                "truth_best": best["values"],
                "truth_best_value": best["value"],
                "summary": summary,
                "runs": runs,
                "environment": environment(args.seed),
            },
            f,
            indent=1,
        )


if __name__ == "__main__":
    main()
