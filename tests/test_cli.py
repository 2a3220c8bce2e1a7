"""The `sparring` command line: the demo runs, repeats from its seed, and rejects bad input in one line; every
command of every module in `tuner.cli.COMMANDS` explains itself with an example and refuses what it does not know."""

import argparse
import subprocess
import sys

import pytest

from tuner.cli import COMMANDS, build_parser, main


def test_demo_plays_a_whole_game_and_repeats_from_its_seed(capsys):
    assert main(["demo", "--game", "connect4", "--agent", "mcts4", "--seed", "3"]) == 0
    first = capsys.readouterr().out
    assert "result: " in first and "plays" in first and "player 1 = mcts4" in first
    main(["demo", "--game", "connect4", "--agent", "mcts4", "--seed", "3"])
    assert capsys.readouterr().out == first


@pytest.mark.parametrize(
    "argv, message",
    [
        (
            ["demo", "--game", "chess"],
            "unknown game 'chess'; known games: breakthrough, checkers, chinesecheckers3, chinook, connect4",
        ),
        (["train", "chinesecheckers3", "--out", "unused"], "trains two-player games only; chinesecheckers3 has 3"),
        (["play", "chinesecheckers3", "--opponent", "mcts"], "plays two-player games only; chinesecheckers3 has 3"),
        (["arena", "chinesecheckers3", "sp", "random"], "give a multiple of 6 games, not 20"),
        (["demo", "--agent", "mcts:c=x"], "bad value 'x' for 'c'"),
        (["train", "connect4", "--out", "unused", "--iterations", "0"], "error: --iterations must be at least 1"),
        (["net", "solved", "connect4", "--search", "1"], "error: --search needs at least 2 simulations"),
    ],
)
@pytest.mark.slow
def test_bad_input_is_one_line_and_exit_2(argv, message):
    proc = subprocess.run([sys.executable, "-m", "tuner.cli", *argv], capture_output=True, text=True)
    assert proc.returncode == 2 and proc.stdout == ""
    assert message in proc.stderr.strip().splitlines()[-1]
    assert "Traceback" not in proc.stderr


@pytest.mark.slow
def test_help_explains_with_examples():
    proc = subprocess.run([sys.executable, "-m", "tuner.cli", "demo", "--help"], capture_output=True, text=True)
    assert proc.returncode == 0 and "example:" in proc.stdout and "--agent" in proc.stdout


# --- conformance over every command of tuner.cli.COMMANDS -------------------------------------------


def leaves(parser, prefix=()):
    """(words, parser) of every command that runs something: `study run`, `demo`, ..."""
    subs = [a for a in parser._actions if isinstance(a, argparse._SubParsersAction)]
    if not subs:
        yield prefix, parser
    for action in subs:
        for name, child in action.choices.items():
            yield from leaves(child, (*prefix, name))


COMMAND_LINES = [" ".join(words) for words, _ in leaves(build_parser())]


def test_every_command_module_adds_commands_and_every_command_comes_from_one():
    added = []
    for module in COMMANDS:
        sub = argparse.ArgumentParser().add_subparsers()
        module.add_commands(sub)
        assert sub.choices, f"{module.__name__} adds no command"
        added += list(sub.choices)
    top = next(a for a in build_parser()._actions if isinstance(a, argparse._SubParsersAction)).choices
    assert sorted(added) == sorted(top)
    assert len(COMMAND_LINES) >= 15 and len(set(COMMAND_LINES)) == len(COMMAND_LINES)


@pytest.mark.parametrize("line", COMMAND_LINES)
def test_every_command_explains_itself_with_an_example_and_runs_something(line, capsys):
    words = line.split()
    parser = dict(leaves(build_parser()))[tuple(words)]
    assert parser.description and "example" in (parser.epilog or "")
    assert callable(parser.get_default("run"))
    with pytest.raises(SystemExit) as stop:
        main([*words, "--help"])
    assert stop.value.code == 0 and "example" in capsys.readouterr().out


@pytest.mark.parametrize("line", COMMAND_LINES)
def test_every_command_refuses_an_unknown_option_with_exit_2_and_one_error_line(line, capsys):
    with pytest.raises(SystemExit) as stop:
        main([*line.split(), "--no-such-option"])
    errors = [text for text in capsys.readouterr().err.splitlines() if "error:" in text]
    assert stop.value.code == 2 and len(errors) == 1 and errors[0].startswith("sparring")
