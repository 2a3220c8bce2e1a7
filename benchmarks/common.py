"""Shared by the benchmark scripts: timing medians and the record of what produced a number."""

import json
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from tuner.provenance import environment  # noqa: F401  (the benchmarks' record of a figure)

ROOT = Path(__file__).resolve().parent.parent


def mcts_agent(parser, game, spec: str, *, tuned: bool):
    """The agent `spec` builds for `game` if it searches with `search.mcts` (with compiled on-line tuners only if
    `tuned`), else `parser.error` in one line."""
    from search.mcts import MCTS
    from tuner.agents import make_agent

    try:
        agent = make_agent(game, spec, seed=0)
    except ValueError as error:
        parser.error(f"{spec!r}: {error}")
    searcher = getattr(agent, "search", None)
    if not isinstance(searcher, MCTS):
        parser.error(f"{spec!r} does not search with search.mcts: give mcts, sp, ap or one of their variants")
    if searcher.tuners is not None and not tuned:
        parser.error(f"{spec!r} tunes on-line: give a spec without a tuner")
    if searcher.tuners is not None and searcher.tuners[0].steps is None:
        parser.error(
            f"{spec!r} tunes with CMA-ES in Python, a generation at a time: benchmarks.tuning_overhead times it"
        )
    return agent


def median_rate(run, work: int, rounds: int) -> float:
    """Median over `rounds` of work / seconds for one call of `run()` (which does `work` units)."""
    rates = []
    for _ in range(rounds):
        t = time.perf_counter()
        run()
        rates.append(work / (time.perf_counter() - t))
    return statistics.median(rates)


def startup_times(module: str) -> dict:
    """Run `python -m module --startup-child CACHE_DIR` twice in fresh processes: cold (empty numba cache),
    then warm.

    The child prints one JSON object of seconds; returns {"cold": ..., "warm": ...}.
    """
    with tempfile.TemporaryDirectory() as cache:
        runs = {}
        for kind in ("cold", "warm"):
            command = [sys.executable, "-m", module, "--startup-child", cache]
            proc = subprocess.run(command, cwd=ROOT, capture_output=True, text=True, check=True)
            runs[kind] = json.loads(proc.stdout)
        return runs


def finish(results: dict, startup_title: str, json_path: str | None) -> None:
    """Print the start-up times and the provenance line; write everything to `json_path` if given."""
    print(f"\nstart-up in a fresh process, seconds to import and to finish {startup_title}:")
    for kind, times in results["startup_s"].items():
        print(f"  {kind:<5} " + ", ".join(f"{key} {value:.2f}" for key, value in times.items()))
    env = results["environment"]
    versions = ", ".join(f"{k} {v}" for k, v in env["versions"].items() if v)
    print(f"seed {env['seed']}, commit {env['commit']}, python {env['python']}, {versions}")
    if json_path:
        with open(json_path, "w") as f:
            json.dump(results, f, indent=2)
