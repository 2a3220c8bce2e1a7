"""An A/B in one process: an allocation strategy's step, or a search, this checkout's against another commit's.

Between processes this machine's timings swing by more than the few percent a change is worth; in one process the
two builds share the machine's state. The module is taken from `--against` (git show), compiled beside the current
one, and the two run in turn: games of a strategy's choose+update steps, each from a fresh state (the reset not
timed, where `tuning_overhead` times it), or searches of `search.mcts` from the start position, each from an empty
tree. First it says whether the two ask the same points over a game, or end a search with the same root visits.
Only that one module comes from the other commit; what it imports is this checkout's (it lists the files of those
packages that differ). Two builds can still differ by a few percent with the order they are loaded in (their code's
placement): believe a gain that holds both ways, run again from a worktree of the other commit against this one.

    .venv/bin/python -m benchmarks.ab --against HEAD~1 [--strategy ntbea] [--tune all] [--steps 20000]
        [--search connect4:mcts] [--simulations 3000] [--rounds 40] [--seed 0] [--json out.json]
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
import search.mcts as mcts
from benchmarks.common import ROOT, environment, mcts_agent
from benchmarks.tuning_overhead import tuner_steps
from games.jit import kernel
from games.rng import make_rng
from search.allocation import AllocationSteps
from tuner.strategies import COMPILED, REGISTRY


@kernel
def asks(steps, state, rng, n, rewards, out):
    """As tuner_steps, each step's point written to out[i]."""
    x = np.zeros(state.sizes.shape[0], dtype=np.int64)
    for i in range(n):
        steps.choose(state, rng, x)
        out[i] = x
        steps.update(state, x, rewards[i % rewards.shape[0]], rng)


def module_at(commit: str, module: str):
    """`module` (dotted) as it was at `commit`, imported under a name of its own and compiled in this process (its
    file kept under the temporary folder by the commit's hash, so that a second run finds its compiled cache)."""
    path = module.replace(".", "/") + ".py"
    shown = subprocess.run(["git", "show", f"{commit}:{path}"], cwd=ROOT, capture_output=True, text=True)
    if shown.returncode != 0:
        raise SystemExit(f"ab: no {path} at {commit!r}: {shown.stderr.strip()}")
    sha = subprocess.run(["git", "rev-parse", commit], cwd=ROOT, capture_output=True, text=True).stdout.strip()
    differ = subprocess.run(
        ["git", "diff", "--name-only", sha, "--", "games", "search", "tuner"], cwd=ROOT, capture_output=True, text=True
    ).stdout.split()
    if others := [f for f in differ if f != path]:
        print(f"ab: this checkout's, not {commit}'s: {', '.join(others)}")
    name = f"{module.rsplit('.', 1)[1]}_at_{sha}"
    file = Path(tempfile.gettempdir()) / "sparring-ab" / f"{name}.py"
    if not file.exists() or file.read_text() != shown.stdout:
        file.parent.mkdir(exist_ok=True)
        file.write_text(shown.stdout)
    spec = importlib.util.spec_from_file_location(name, file)
    old = importlib.util.module_from_spec(spec)
    sys.modules[name] = old
    try:
        spec.loader.exec_module(old)
    except ImportError as error:
        raise SystemExit(
            f"ab: {path} at {commit} imports what this checkout lacks ({error}); run it from a worktree"
        ) from None
    return old


def steps_ab(args, parser) -> tuple[str, bool, dict]:
    """(what was timed, the same asks over a game, ns a step per build and game)."""
    spec = f"ap:tuner={args.strategy},tune={args.tune}"
    tuner = mcts_agent(parser, games.load("connect4"), spec, tuned=True).search.tuners[0]
    entry = REGISTRY[args.strategy]
    old = module_at(args.against, entry.choose.__module__)
    builds = {
        "this": tuner.steps,
        args.against: AllocationSteps(getattr(old, entry.choose.__name__), getattr(old, entry.update.__name__)),
    }
    rewards = (np.random.default_rng(args.seed).random(4096) < 0.5).astype(np.float64)
    points = []
    for steps in builds.values():  # compiles each, and records a game's asks
        tuner.reset(seed=args.seed)
        out = np.zeros((args.steps, len(tuner.space)), dtype=np.int64)
        asks(steps, tuner.compiled, make_rng(args.seed), args.steps, rewards, out)
        points.append(out)
        tuner.reset(seed=args.seed)
        tuner_steps(steps, tuner.compiled, make_rng(args.seed), 10, rewards)  # the timed loop, compiled
    ns = {key: [] for key in builds}
    for r in range(args.rounds):
        for key in list(builds) if r % 2 == 0 else list(builds)[::-1]:
            tuner.reset(seed=args.seed + r)
            t = time.perf_counter()
            tuner_steps(builds[key], tuner.compiled, make_rng(args.seed + r), args.steps, rewards)
            ns[key].append((time.perf_counter() - t) / args.steps * 1e9)
    what = f"{args.strategy}'s step, {len(tuner.space)} parameters, games of {args.steps} steps"
    return what, bool(np.array_equal(*points)), ns


def search_ab(args, parser) -> tuple[str, bool, dict]:
    """(what was timed, the same root visits after a search, ns a simulation per build and search)."""
    name, spec = args.search.split(":", 1)
    game = games.load(name)
    proto = mcts_agent(parser, game, spec, tuned=False).search
    old = module_at(args.against, "search.mcts")
    builds = {
        key: module.MCTS(game, proto.params[0], proto.settings, make_rng(args.seed), mast_decay=proto.mast_decay)
        for key, module in (("this", mcts), (args.against, old))
    }
    state = game.new_initial_state()
    visits = []
    for searcher in builds.values():  # compiles each, and records a search's root visits
        searcher.rng[:] = make_rng(args.seed)
        visits.append(searcher.search(state, simulations=args.simulations).visits)
    ns = {key: [] for key in builds}
    for r in range(args.rounds):
        for key in list(builds) if r % 2 == 0 else list(builds)[::-1]:
            searcher = builds[key]
            searcher.reset()
            searcher.rng[:] = make_rng(args.seed + r)
            result = searcher.search(state, simulations=args.simulations)
            ns[key].append(result.seconds / result.simulations * 1e9)
    what = f"{spec} on {name}, searches of {args.simulations} simulations"
    return what, bool(np.array_equal(*visits)), ns


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--against", required=True, help="the commit to time beside this checkout (any git revision)")
    parser.add_argument("--strategy", default="ntbea", help=f"one of {', '.join(COMPILED)} (ntbea)")
    parser.add_argument("--tune", default="all", help="the AP parameters tuned: C+eps, C+eps+K+Ref or all (all)")
    parser.add_argument("--steps", type=int, default=20000, help="steps a game of the strategy (20000)")
    parser.add_argument("--search", help="GAME:AGENT (e.g. connect4:mcts, othello:sp): time search.mcts instead")
    parser.add_argument("--simulations", type=int, default=3000, help="simulations a search, with --search (3000)")
    parser.add_argument("--rounds", type=int, default=40, help="games (or searches) of each build, in turn (40)")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--json", help="also write the results to this file")
    args = parser.parse_args()
    if args.strategy not in COMPILED:
        parser.error(f"--strategy takes one of {', '.join(COMPILED)}; got {args.strategy!r}")
    if min(args.rounds, args.steps, args.simulations) < 1:
        parser.error("--rounds, --steps and --simulations take at least 1")
    if args.search and (":" not in args.search or args.search.split(":")[0] not in games.names()):
        parser.error(f"--search takes GAME:AGENT, GAME one of {', '.join(games.names())}; got {args.search!r}")
    what, same, ns = (search_ab if args.search else steps_ab)(args, parser)
    ratios = [b / a for a, b in zip(ns["this"], ns[args.against])]
    quartiles = np.percentile(ratios, [25, 75])
    print(f"{what}: the same {'root visits' if args.search else 'asks'}: {'yes' if same else 'NO'}")
    print(
        f"ns (medians of {args.rounds}): this {statistics.median(ns['this']):.0f}, {args.against} "
        f"{statistics.median(ns[args.against]):.0f}; {args.against} / this {statistics.median(ratios):.3f} "
        f"(interquartile {quartiles[0]:.3f}-{quartiles[1]:.3f})"
    )
    env = environment(args.seed)
    print(f"seed {env['seed']}, commit {env['commit']}, numba {env['versions'].get('numba')}")
    if args.json:
        with open(args.json, "w") as f:
            json.dump({"environment": env, "args": vars(args), "same": same, "ns": ns}, f, indent=2)


if __name__ == "__main__":
    main()
