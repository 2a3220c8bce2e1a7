"""What produced a number: seed, commit, package versions, machine and device, and the shipped nets, recorded beside
it."""

from __future__ import annotations

import hashlib
import os
import platform
import subprocess
import time
from importlib import metadata
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
PACKAGES = ("numpy", "numba", "torch", "optuna", "cma", "open_spiel")


def _git(*args) -> str:
    return subprocess.run(["git", *args], cwd=ROOT, capture_output=True, text=True).stdout.strip()


OUTPUTS = ("experiments/results", "benchmarks/results")  # results that runs write and we commit


def commit() -> str:
    """The checkout's short commit, '+dirty' when tracked files have changes ('unknown' outside git).

    Untracked files and the committed results folders do not count: a run's own outputs change while it runs
    (a long experiment's checkpoint made every other run beside it '+dirty')."""
    try:
        head = _git("rev-parse", "--short", "HEAD")
        outputs = [f":(exclude){folder}" for folder in OUTPUTS]
        dirty = _git("status", "--porcelain", "--untracked-files=no", "--", ".", *outputs)
        return (head + ("+dirty" if dirty else "")) if head else "unknown"
    except OSError:
        return "unknown"


def device() -> str:
    """Where the numbers were computed: the CPU (and its cores), and a GPU if torch sees one."""
    cpu = f"{platform.processor() or platform.machine()}, {os.cpu_count()} cores"
    try:
        import torch

        if torch.cuda.is_available():
            return f"{cpu}; GPU {torch.cuda.get_device_name(0)}"
    except ImportError:
        pass
    return cpu


def net_digests() -> dict[str, str]:
    """Each shipped net's name and its file's digest: which file `az:net=NAME` (or `az` alone) played, since a name
    outlives the file it names when a better net ships."""
    from nets.shipped import shipped_nets

    return {name: file_digest(path) for name, path in shipped_nets().items()}


def file_digest(path) -> str:
    """A file's SHA-256, 12 hex digits: enough to tell two networks apart."""
    return hashlib.sha256(Path(path).read_bytes()).hexdigest()[:12]


def environment(seed: int) -> dict:
    """Seed, commit, versions, machine and device, shipped nets: everything needed to reproduce a figure."""
    versions = {}
    for package in PACKAGES:
        try:
            versions[package] = metadata.version(package)
        except metadata.PackageNotFoundError:
            versions[package] = None
    return {
        "seed": seed,
        "commit": commit(),
        "python": platform.python_version(),
        "machine": f"{platform.machine()} {platform.processor() or ''}".strip(),
        "device": device(),
        "versions": versions,
        "nets": net_digests(),
        "date": time.strftime("%Y-%m-%d %H:%M:%S"),
    }
