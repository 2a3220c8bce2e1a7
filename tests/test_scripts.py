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


def test_the_paper_tables_read_as_printed():
    """experiments.alphadda's transcription of AlphaDDA Tables 5-13: corner values checked by hand against
    the paper, and every row's win, loss and draw rates summing to 1 (a shifted column would break it)."""
    from experiments.alphadda import OPPONENTS, paper_tables

    tables = paper_tables()
    assert tables["connect4"]["total"]["alphadda1"]["random"] == (0.98, 0.02, 0.0)  # Table 5
    assert tables["othello6"]["first"]["alphadda3"]["minimax2"] == (0.98, 0.02, 0.0)  # Table 9
    assert tables["othello"]["second"]["alphadda3"]["minimax1"] == (0.16, 0.5, 0.34)  # Table 13
    for game in ("connect4", "othello6", "othello"):
        for seat in ("total", "first", "second"):
            for adjuster in ("alphadda1", "alphadda2", "alphadda3"):
                rows = tables[game][seat][adjuster]
                assert list(rows) == OPPONENTS
                assert all(abs(sum(r) - 1.0) <= 0.011 for r in rows.values()), (game, seat, adjuster)
