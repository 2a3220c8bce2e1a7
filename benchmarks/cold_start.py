"""What a new user waits for: the first commands, each in a fresh process, cold (an empty numba cache: every kernel
the command uses compiles) and then warm (the same cache, as on every later run).

Nothing compiles ahead of use: a command compiles the kernels of the game, search and strategy it runs, and saves
them to the cache that every later command and the test suite read (games.jit: one folder per version of the
compiled sources). The cold figure is what the first run of each command costs once per installed version.

    .venv/bin/python -m benchmarks.cold_start [--scenarios demo,play,study] [--seed 0] [--json out.json]
"""

import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time

from benchmarks.common import ROOT, environment
from tuner.play.opponent import DEFAULT_SPEC

QUICKSTART = ROOT / "studies" / "quickstart-connect4" / "study.toml"  # its spec alone: a fresh study runs trial 1


def commands(seed: int, work: str) -> dict[str, tuple[str, list[str]]]:
    """Each scenario by name: what it is, and its command line (`work`: a scratch folder for the study's copy)."""
    sparring = [sys.executable, "-m", "tuner.cli"]
    study = os.path.join(work, "quickstart")
    return {
        "demo": ("sparring demo (mcts1 against random)", [*sparring, "demo", "--seed", str(seed)]),
        "play": (
            f"sparring demo --agent {DEFAULT_SPEC} (the play opponent)",
            [*sparring, "demo", "--agent", DEFAULT_SPEC, "--seed", str(seed)],
        ),
        "study": (
            "sparring study run quickstart-connect4 --trials 1",
            [*sparring, "study", "run", study, "--trials", "1"],
        ),
    }


def timed(command: list[str], cache: str) -> float:
    """Wall seconds of `command` run to the end with numba's cache in `cache`."""
    env = {**os.environ, "NUMBA_CACHE_DIR": cache}
    t = time.perf_counter()
    proc = subprocess.run(command, cwd=ROOT, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    if proc.returncode != 0:
        last = (proc.stderr.strip().splitlines() or ["no message"])[-1]
        sys.exit(f"cold_start: {' '.join(command[2:])} failed (exit {proc.returncode}): {last}")
    return time.perf_counter() - t


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--seed", type=int, default=0, help="the games' seed (0)")
    parser.add_argument("--scenarios", default="demo,play,study", help="which to time, of demo, play, study (all)")
    parser.add_argument("--json", help="also write the figures to this file")
    args = parser.parse_args()
    chosen = list(dict.fromkeys(args.scenarios.split(",")))
    unknown = set(chosen) - {"demo", "play", "study"}
    if unknown:
        parser.error(f"unknown scenarios {sorted(unknown)}; known: demo, play, study")
    if args.json and not os.path.isdir(os.path.dirname(os.path.abspath(args.json))):
        parser.error(f"--json {args.json}: no such folder")
    results = {"environment": environment(args.seed), "seconds": {}}
    with tempfile.TemporaryDirectory() as work:
        scenarios = commands(args.seed, work)
        for name in chosen:
            title, command = scenarios[name]
            runs = {}
            with tempfile.TemporaryDirectory() as cache:
                for kind in ("cold", "warm"):
                    study = os.path.join(work, "quickstart")
                    shutil.rmtree(study, ignore_errors=True)
                    os.makedirs(study)
                    shutil.copy(QUICKSTART, study)
                    runs[kind] = timed(command, cache)
            results["seconds"][title] = runs
            print(f"{title:<55} cold {runs['cold']:6.1f} s   warm {runs['warm']:5.1f} s", flush=True)
    env = results["environment"]
    print(f"seed {env['seed']}, commit {env['commit']}, numba {env['versions'].get('numba')}")
    if args.json:
        with open(args.json, "w") as f:
            json.dump(results, f, indent=2)


if __name__ == "__main__":
    main()
