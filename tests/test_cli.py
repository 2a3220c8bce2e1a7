"""The `sparring` command line: the demo runs, repeats from its seed, and rejects bad input in one line."""

import subprocess
import sys

import pytest

from tuner.cli import main


def test_demo_plays_a_whole_game_and_repeats_from_its_seed(capsys):
    assert main(["demo", "--game", "connect4", "--agent", "mcts4", "--seed", "3"]) == 0
    first = capsys.readouterr().out
    assert "result: " in first and "plays" in first and "player 1 = mcts4" in first
    main(["demo", "--game", "connect4", "--agent", "mcts4", "--seed", "3"])
    assert capsys.readouterr().out == first


@pytest.mark.parametrize(
    "argv, message",
    [
        (["demo", "--game", "chess"], "invalid choice: 'chess'"),
        (["demo", "--agent", "mcts:c=x"], "bad value 'x' for 'c'"),
    ],
)
def test_bad_input_is_one_line_and_exit_2(argv, message):
    proc = subprocess.run([sys.executable, "-m", "tuner.cli", *argv], capture_output=True, text=True)
    assert proc.returncode == 2 and proc.stdout == ""
    assert message in proc.stderr.strip().splitlines()[-1]
    assert "Traceback" not in proc.stderr


def test_help_explains_with_examples():
    proc = subprocess.run([sys.executable, "-m", "tuner.cli", "demo", "--help"], capture_output=True, text=True)
    assert proc.returncode == 0 and "example:" in proc.stdout and "--agent" in proc.stdout
