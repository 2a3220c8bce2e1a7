"""Every experiment and benchmark script runs, as a module, at a tiny budget: none of them can rot."""

import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent

SCRIPTS = [
    ("experiments.sa_mcts", ["--quick", "--workers", "1", "--out", "{tmp}"]),
    ("experiments.strength", ["--quick", "--out", "{tmp}"]),
    ("experiments.alphadda", ["tables", "--quick", "--out", "{tmp}"]),
    ("experiments.alphadda", ["strength", "--quick", "--anchors", "paper", "--out", "{tmp}"]),
    ("benchmarks.playouts", ["--seconds", "0.01", "--rounds", "1", "--json", "{tmp}/out.json"]),
    ("benchmarks.search", ["--quick", "--json", "{tmp}/out.json"]),
    ("benchmarks.evaluator", ["--quick", "--json", "{tmp}/out.json"]),
    ("benchmarks.forward", ["--games", "connect4", "--sizes", "small", "--rounds", "1", "--json", "{tmp}/out.json"]),
    ("benchmarks.tuning_overhead", ["--simulations", "30", "--rounds", "1", "--steps", "99", "--json", "{tmp}/o.json"]),
]


@pytest.mark.slow
@pytest.mark.parametrize("module, args", SCRIPTS, ids=[" ".join([m, *a[:1]]) for m, a in SCRIPTS])
def test_script_runs_at_a_tiny_budget(module, args, tmp_path):
    command = [sys.executable, "-m", module, *(a.replace("{tmp}", str(tmp_path)) for a in args)]
    proc = subprocess.run(command, cwd=ROOT, capture_output=True, text=True, timeout=900)
    assert proc.returncode == 0, proc.stderr[-2000:]
    assert any(tmp_path.iterdir()), "the script wrote nothing"
