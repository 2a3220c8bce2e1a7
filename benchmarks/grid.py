"""How long an AlphaDDA grid study takes: games/s of its trials played `--batch` at a time, and the whole grid.

Plays the first `--trials` points of a study folder's grid exactly as `sparring study run` would
(`tuner.study.objective.play_trials`, the study's seed and opponents), `--batch` trials per lock-step
pool, without touching the folder's journal. Reports games/s per batch size and the hours the full
grid (every point, every opponent, 20 + 20 games) would take at that rate on this machine. Torch uses
`--threads` threads; the compiled searches run in the main thread.

    .venv/bin/python -m benchmarks.grid [--study studies/alphadda1-grid-connect4] [--trials 4]
        [--batch 1 4] [--threads 2] [--json out.json]
"""

import argparse
import json
import time

import torch

from benchmarks.common import environment
from tuner.strategies import make_strategy
from tuner.study import objective
from tuner.study.runner import trial_seed
from tuner.study.spec import StudySpec


def grid_points(spec: StudySpec, count: int) -> list[dict]:
    """The first `count` points the study's grid strategy asks for, in its order."""
    strategy = make_strategy(spec.space, "grid", spec.seed)
    return [dict(zip(spec.space.names, strategy.values(strategy.ask()))) for _ in range(count)]


def rate(spec: StudySpec, points: list[dict], batch: int) -> dict:
    """Seconds and games/s to play every point's trial, `batch` trials per pool."""
    start, games = time.perf_counter(), 0
    for first in range(0, len(points), batch):
        trials = [(values, trial_seed(spec.seed, first + k)) for k, values in enumerate(points[first : first + batch])]
        records = objective.play_trials(spec, trials)
        games += sum(sum(wdl) for r in records for seats in r.values() for wdl in seats.values())
    seconds = time.perf_counter() - start
    return {"batch": batch, "trials": len(points), "games": games, "seconds": seconds, "games_per_s": games / seconds}


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--study", default="studies/alphadda1-grid-connect4", help="a study folder with a grid")
    parser.add_argument("--trials", type=int, default=4, help="grid points to play per batch size")
    parser.add_argument("--batch", type=int, nargs="+", default=[1, 4], help="trials per lock-step pool")
    parser.add_argument("--threads", type=int, default=2, help="torch.set_num_threads")
    parser.add_argument("--json", help="also write the results here")
    args = parser.parse_args(argv)
    torch.set_num_threads(args.threads)
    spec = StudySpec.load(args.study)
    points = grid_points(spec, args.trials)
    grid_games = spec.trials * spec.games_per_trial
    rows = []
    for batch in args.batch:
        row = rate(spec, points, batch)
        row["grid_hours"] = grid_games / row["games_per_s"] / 3600
        rows.append(row)
        print(
            f"batch {batch}: {row['games']} games in {row['seconds']:.0f} s, {row['games_per_s']:.2f} games/s; "
            f"the grid's {grid_games} games: {row['grid_hours']:.1f} h"
        )
    env = environment(spec.seed)
    print(f"{args.study}, torch threads {args.threads}, seed {spec.seed}, commit {env['commit']}")
    if args.json:
        with open(args.json, "w") as f:
            json.dump({"study": args.study, "threads": args.threads, "rows": rows, "environment": env}, f, indent=2)


if __name__ == "__main__":
    main()
