"""On-line parameter tuning (Sironi, Liu, Winands, 002_e8212c0f21d8b4d0.txt): Tables II, III and V analogues.

- Table II: SP tuning C and epsilon on-line with each allocation strategy, against SP with the
  default (off-line tuned) C = 0.2, epsilon = 0.4; on Connect4, Breakthrough and 6x6 Othello.
- Table III: AP tuning C, epsilon, K and Ref on-line with each strategy, against AP with the
  defaults; on Connect4.
- Table V: SP tuning C and epsilon with NTBEA against SP whose C and epsilon are drawn uniformly
  from Table I's discrete domains before each game; on Connect4 and Breakthrough.
Every match is seat-balanced (with three players, every assignment of the two agents to the roles as often: the games
rounded up to a multiple of 6), with 95% intervals. Each match's line is printed, and results.json rewritten, as it
finishes (about 40 CPU minutes in all at the defaults). `--set` plays Table II on other games, `--tables` picks the
tables.

    .venv/bin/python -m experiments.sa_mcts [--quick] [--simulations 1000] [--games 200] [--seed 0]
        [--set connect4,breakthrough,othello6] [--tables 2,3,5]
"""

import argparse
import json
import os
import sys
from dataclasses import dataclass

import numpy as np
from joblib import Parallel, delayed
from tqdm import tqdm

import games
from search.mcts import EPSILON, C
from tuner.agents import make_agent
from tuner.match import Record, assignments, play_game, play_match
from tuner.provenance import environment
from tuner.strategies import SA_MCTS_TABLE_I


@dataclass
class Args:
    simulations: int = 1000  # per move (the paper plays 1 s per move in GGP, with far slower simulations)
    games: int = 200  # per match
    seed: int = 0
    workers: int = 2
    out: str = "experiments/results/sa_mcts"
    set: str = "connect4,breakthrough,othello6"  # Table II's games
    tables: str = "2,3,5"


STRATEGIES = ["nmc", "lsi", "ea", "ntbea", "cmaes", "grid", "random"]


def tuned_match(args, game, agent, tune, strategy, seed):
    """`agent` tuning `tune` on-line with `strategy` (A) against the same agent with its defaults (B)."""
    fixed = f"{agent}:simulations={args.simulations}"
    per_round = len(assignments(games.load(game).players))
    n = -(-args.games // per_round) * per_round if per_round > 2 else args.games
    return play_match(game, f"{fixed},tuner={strategy},tune={tune}", fixed, games=n, seed=seed).total


def table5_match(args, game, seed):
    """NTBEA-tuned SP (A) against SP with C and epsilon drawn at random before each game (B)."""
    g = games.load(game)
    tuned = make_agent(g, f"sp:simulations={args.simulations},tuner=ntbea", seed=seed)
    drawn = make_agent(g, f"sp:simulations={args.simulations}", seed=seed + 1)
    draws = np.random.default_rng(seed)
    record = Record()
    for i in range(args.games):
        for row in drawn.search.params:  # both rows: the agent's own and its model of the opponent
            row[C] = draws.choice(SA_MCTS_TABLE_I["C"].values)
            row[EPSILON] = draws.choice(SA_MCTS_TABLE_I["eps"].values)
        record.add(play_game(g, tuned, drawn, seed, i).outcome)
    return record


def line(label, record):
    low, high = record.score_interval()
    wdl = f"{record.wins:>4}-{record.draws}-{record.losses:<4}"
    return f"  {label:<28} {wdl} score {record.score:.3f} [{low:.2f}, {high:.2f}]"


def save(results, path):
    """Write the results so far (a crash keeps every finished match), atomically."""
    with open(path + ".tmp", "w") as f:
        json.dump(results, f, indent=1)
    os.replace(path + ".tmp", path)


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    for name, value in vars(Args()).items():
        parser.add_argument(f"--{name}", type=type(value), default=value)
    parser.add_argument("--quick", action="store_true", help="tiny budgets, to check that the script runs")
    parsed = parser.parse_args()
    args = Args(**{k: v for k, v in vars(parsed).items() if k != "quick"})
    if parsed.quick:
        args.simulations, args.games = 50, 2
    os.makedirs(args.out, exist_ok=True)
    results = {"environment": environment(args.seed), "args": vars(args), "table2": [], "table3": [], "table5": []}

    tables = args.tables.split(",")
    jobs = [("table2", game, "sp", "C+eps", s) for game in args.set.split(",") for s in STRATEGIES if "2" in tables]
    jobs += [("table3", "connect4", "ap", "C+eps+K+Ref", s) for s in STRATEGIES if "3" in tables]
    titles = {
        "table2": "Table II analogue: SP tuning C and eps on-line vs default SP",
        "table3": "Table III analogue: AP tuning C, eps, K and Ref on-line vs default AP",
    }
    path = os.path.join(args.out, "results.json")
    table5_games = ("connect4", "breakthrough") if "5" in tables else ()
    matches = tqdm(total=len(jobs) + len(table5_games), desc="matches", unit="match", file=sys.stderr, disable=None)
    records = Parallel(n_jobs=args.workers, return_as="generator")(
        delayed(tuned_match)(args, *job[1:], args.seed + 97 * j) for j, job in enumerate(jobs)
    )
    for (table, game, agent, tune, strategy), record in zip(jobs, records):  # in order, as they finish
        if not results[table]:
            matches.write(f"{titles[table]}, {args.games} games, {args.simulations} simulations")
        results[table].append({"game": game, "agent": agent, "tuned": tune, "strategy": strategy, **record.to_dict()})
        matches.write(line(f"{game} {agent.upper()}-{strategy}", record))
        save(results, path)
        matches.update(1)

    if table5_games:
        title = "Table V analogue: SP-NTBEA vs SP with C and eps drawn at random each game"
        matches.write(f"\n{title}, {args.games} games")
    table5 = (
        Parallel(n_jobs=args.workers, return_as="generator")(
            delayed(table5_match)(args, game, args.seed + 13 * j) for j, game in enumerate(table5_games)
        )
        if table5_games
        else []
    )
    for game, record in zip(table5_games, table5):
        results["table5"].append({"game": game, **record.to_dict()})
        matches.write(line(f"{game} SP-NTBEA vs random C,eps", record))
        save(results, path)
        matches.update(1)
    matches.close()
    print(f"\nresults in {args.out}")


if __name__ == "__main__":
    main()
