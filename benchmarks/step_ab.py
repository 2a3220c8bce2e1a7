"""An allocation strategy's step, this checkout's against another commit's, timed in one process.

Between processes this machine's timings swing by more than the few percent a change to a step is worth; in one
process the two builds share the machine's state. The strategy's module is taken from `--against` (git show),
compiled beside the current one, and the two run games of choose+update steps in turn, each from a fresh state (the
reset not timed, where `tuning_overhead` times it). First it says whether the two ask the same points over a game.

    .venv/bin/python -m benchmarks.step_ab --against HEAD~1 [--strategy ntbea] [--tune all] [--games 40]
        [--steps 20000] [--seed 0] [--json out.json]
"""

import argparse
import importlib.util
import json
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

import games
from benchmarks.common import ROOT, environment
from benchmarks.tuning_overhead import tuner_steps
from games.jit import kernel
from games.rng import make_rng
from search.allocation import AllocationSteps
from tuner.agents import make_agent
from tuner.strategies import COMPILED, REGISTRY


@kernel
def asks(steps, state, rng, n, rewards, out):
    """As tuner_steps, each step's point written to out[i]."""
    x = np.zeros(state.sizes.shape[0], dtype=np.int64)
    for i in range(n):
        steps.choose(state, rng, x)
        out[i] = x
        steps.update(state, x, rewards[i % rewards.shape[0]], rng)


def steps_at(commit: str, entry, folder: Path) -> AllocationSteps:
    """The entry's choose and update as the module that defines them was at `commit`, compiled in this process."""
    module = entry.choose.__module__
    path = module.replace(".", "/") + ".py"
    shown = subprocess.run(["git", "show", f"{commit}:{path}"], cwd=ROOT, capture_output=True, text=True)
    if shown.returncode != 0:
        raise SystemExit(f"step_ab: no {path} at {commit!r}: {shown.stderr.strip()}")
    sha = subprocess.run(["git", "rev-parse", commit], cwd=ROOT, capture_output=True, text=True).stdout.strip()
    name = f"{module.rsplit('.', 1)[1]}_at_{sha}"  # by the commit's hash: its compiled cache is its own
    file = folder / f"{name}.py"
    file.write_text(shown.stdout)
    spec = importlib.util.spec_from_file_location(name, file)
    old = importlib.util.module_from_spec(spec)
    sys.modules[name] = old
    spec.loader.exec_module(old)
    return AllocationSteps(getattr(old, entry.choose.__name__), getattr(old, entry.update.__name__))


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--against", required=True, help="the commit whose step to time beside this checkout's")
    parser.add_argument("--strategy", default="ntbea", help=f"one of {', '.join(COMPILED)} (ntbea)")
    parser.add_argument("--tune", default="all", help="the AP parameters tuned: C+eps, C+eps+K+Ref or all (all)")
    parser.add_argument("--games", type=int, default=40, help="games of each build, in turn (40)")
    parser.add_argument("--steps", type=int, default=20000, help="steps a game (20000)")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--json", help="also write the results to this file")
    args = parser.parse_args()
    if args.strategy not in COMPILED:
        parser.error(f"--strategy takes one of {', '.join(COMPILED)}; got {args.strategy!r}")
    if args.games < 1 or args.steps < 1:
        parser.error("--games and --steps take at least 1")
    tuner = make_agent(games.load("connect4"), f"ap:tuner={args.strategy},tune={args.tune}", seed=args.seed)
    tuner = tuner.search.tuners[0]
    rewards = (np.random.default_rng(args.seed).random(4096) < 0.5).astype(np.float64)
    with tempfile.TemporaryDirectory() as folder:
        builds = {"this": tuner.steps, args.against: steps_at(args.against, REGISTRY[args.strategy], Path(folder))}
        points = []
        for steps in builds.values():  # compiles each, and records a game's asks
            tuner.reset(seed=args.seed)
            out = np.zeros((args.steps, len(tuner.space)), dtype=np.int64)
            asks(steps, tuner.compiled, make_rng(args.seed), args.steps, rewards, out)
            points.append(out)
        same = bool(np.array_equal(*points))
        ns = {key: [] for key in builds}
        for g in range(args.games):
            order = list(builds) if g % 2 == 0 else list(builds)[::-1]
            for key in order:
                tuner.reset(seed=args.seed + g)
                t = time.perf_counter()
                tuner_steps(builds[key], tuner.compiled, make_rng(args.seed + g), args.steps, rewards)
                ns[key].append((time.perf_counter() - t) / args.steps * 1e9)
    ratios = [b / a for a, b in zip(ns["this"], ns[args.against])]
    quartiles = np.percentile(ratios, [25, 75])
    print(f"{args.strategy}, {len(tuner.space)} parameters: the same asks over a game: {'yes' if same else 'NO'}")
    print(
        f"ns a step (medians of {args.games} games): this {statistics.median(ns['this']):.0f}, {args.against} "
        f"{statistics.median(ns[args.against]):.0f}; {args.against} / this {statistics.median(ratios):.3f} "
        f"(interquartile {quartiles[0]:.3f}-{quartiles[1]:.3f})"
    )
    env = environment(args.seed)
    print(f"seed {env['seed']}, commit {env['commit']}, numba {env['versions'].get('numba')}")
    if args.json:
        with open(args.json, "w") as f:
            json.dump({"environment": env, "args": vars(args), "same_asks": same, "ns": ns}, f, indent=2)


if __name__ == "__main__":
    main()
