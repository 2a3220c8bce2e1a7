"""Shared by the benchmark scripts: timing medians and the record of what produced a number."""

import platform
import statistics
import subprocess
import time
from importlib import metadata
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def environment(seed: int) -> dict:
    """Seed, commit, versions and machine: everything needed to reproduce a figure."""
    try:
        commit = subprocess.run(
            ["git", "rev-parse", "--short", "HEAD"], cwd=ROOT, capture_output=True, text=True
        ).stdout.strip()
        dirty = bool(
            subprocess.run(["git", "status", "--porcelain"], cwd=ROOT, capture_output=True, text=True).stdout.strip()
        )
    except OSError:
        commit, dirty = "unknown", False
    versions = {}
    for package in ("numpy", "numba", "open_spiel", "torch"):
        try:
            versions[package] = metadata.version(package)
        except metadata.PackageNotFoundError:
            versions[package] = None
    return {
        "seed": seed,
        "commit": commit + ("+dirty" if dirty else ""),
        "python": platform.python_version(),
        "machine": f"{platform.machine()} {platform.processor() or ''}".strip(),
        "versions": versions,
        "date": time.strftime("%Y-%m-%d %H:%M:%S"),
    }


def median_rate(run, work: int, rounds: int) -> float:
    """Median over `rounds` of work / seconds for one call of `run()` (which does `work` units)."""
    rates = []
    for _ in range(rounds):
        t = time.perf_counter()
        run()
        rates.append(work / (time.perf_counter() - t))
    return statistics.median(rates)
