"""Games from outside the package (games.outside): a plain-Python game and pyspiel games played through our
compiled kernels, checked against known counts and solved positions; bad ones refused in one line."""

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

import games
from games.kernels import perft, random_playouts
from games.outside import OutsideGame
from games.rng import make_rng
from tuner.agents import make_agent

EXAMPLE = Path(__file__).resolve().parent.parent / "examples" / "nim"
sys.path.insert(0, str(EXAMPLE))  # the example package's module, as a test's plain-Python game
from sparring_nim import Nim  # noqa: E402


def test_a_plain_python_game_plays_by_its_own_rules():
    game = OutsideGame("nim-test", Nim())
    state = game.new_initial_state()
    assert state.legal_actions() == [0, 1, 2, 8, 9, 10, 11, 16, 17, 18, 19, 20]
    assert state.action_to_string(17) == "take 2 from heap 2" and str(state) == "3 4 5"
    for action in (2, 11, 20):  # every heap emptied in turn: player 0 takes the last
        assert not state.is_terminal()
        state.apply_action(action)
    assert state.is_terminal() and state.current_player() == games.TERMINAL_PLAYER
    assert state.outcome().winner == 0 and state.returns() == [1.0, -1.0]
    with pytest.raises(ValueError, match="illegal action"):
        state.apply_action(0)


def test_mcts_finds_the_winning_nim_move_on_a_plain_python_game():
    """Nim (1, 2, 4): the only winning move leaves heaps whose XOR is 0, taking 1 from the heap of 4."""
    game = OutsideGame("nim-124", Nim((1, 2, 4)))
    agent = make_agent(game, "mcts:simulations=2000", seed=3)
    assert agent.select_action(game.new_initial_state()) == 2 * 8 + 0


@pytest.mark.openspiel
def test_tic_tac_toe_from_openspiel_counts_and_plays_as_known():
    """perft(1..5) of tic-tac-toe is 9, 72, 504, 3024, 15120; uniformly random games are won by the first player
    0.585, the second 0.288, drawn 0.127 (exact enumeration)."""
    pytest.importorskip("pyspiel", reason="open_spiel is not installed (pip install -e '.[test]')")
    game = games.load("openspiel:tic_tac_toe")
    root = game.new_initial_state().array
    assert [perft(game.kernels, root, d, game.max_legal) for d in range(1, 6)] == [9, 72, 504, 3024, 15120]
    counts = random_playouts(game.kernels, root, 3000, game.max_legal, make_rng(5)) / 3000
    assert np.allclose(counts, [0.585, 0.288, 0.127], atol=0.03)


@pytest.mark.openspiel
@pytest.mark.parametrize(
    "name, message",
    [
        ("openspiel:no_such_game", "OpenSpiel has no game 'no_such_game'"),
        ("openspiel:kuhn_poker", "is not sequential, deterministic, perfect-information and zero-sum"),
        ("openspiel:goofspiel", "simultaneous"),
        (
            "no_such_game",
            "unknown game 'no_such_game'; known games: breakthrough, checkers, chinesecheckers3, chinook, connect4",
        ),
    ],
)
def test_a_game_that_cannot_come_in_is_one_line(name, message):
    pytest.importorskip("pyspiel", reason="open_spiel is not installed (pip install -e '.[test]')")
    with pytest.raises(ValueError, match=message) as error:
        games.load(name)
    assert "\n" not in str(error.value)


def test_a_game_for_more_than_two_players_is_refused():
    class ThreeNim(Nim):
        def num_players(self):
            return 3

    with pytest.raises(ValueError, match="has 3 players; sparring plays two-player games"):
        OutsideGame("nim3", ThreeNim())


@pytest.mark.parametrize(
    "spec, message",
    [
        ("az:net=uniform", "az needs network planes, which nim-agents .a game from outside. has not: play it"),
        ("minimax1", "minimax agents have evaluations for .*, not 'nim-agents'"),
    ],
)
def test_agents_a_game_from_outside_cannot_feed_refuse_it_in_one_line(spec, message):
    game = OutsideGame("nim-agents", Nim())
    with pytest.raises(ValueError, match=message):
        make_agent(game, spec, seed=0)


@pytest.mark.openspiel
@pytest.mark.slow
@pytest.mark.parametrize(
    "name", ["tic_tac_toe", "hex(board_size=5)", "connect_four", "breakthrough(rows=6,columns=6)", "checkers"]
)
def test_our_agents_play_pyspiel_games_through_the_arena(name, capsys):
    pytest.importorskip("pyspiel", reason="open_spiel is not installed (pip install -e '.[test]')")
    from tuner.cli import main

    argv = ["arena", f"openspiel:{name}", "mcts:simulations=10", "random", "--games", "2", "--json"]
    assert main(argv) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["total"]["games"] == 2 and out["a_first"]["games"] == out["a_second"]["games"] == 1


@pytest.mark.slow
def test_a_game_another_package_registers_is_loaded_by_name_and_plays_in_the_arena(tmp_path):
    """examples/nim installed (pip, into a folder put on the path) registers `nim` through the entry point group
    sparring.games: the command line finds it by name and MCTS beats random at it."""
    pytest.importorskip("setuptools", reason="building the example package needs setuptools")
    source, site = tmp_path / "nim", tmp_path / "site"  # built from a copy: the build writes beside its sources
    shutil.copytree(EXAMPLE, source, ignore=shutil.ignore_patterns("__pycache__"))
    pip = [sys.executable, "-m", "pip", "install", "-q", "--no-deps", "--no-build-isolation", "--target", str(site)]
    subprocess.run([*pip, str(source)], check=True, capture_output=True)
    env = {**os.environ, "PYTHONPATH": str(site), "OMP_NUM_THREADS": "1"}
    argv = ["arena", "nim", "mcts:simulations=200", "random", "--games", "4", "--json"]
    proc = subprocess.run([sys.executable, "-m", "tuner.cli", *argv], capture_output=True, text=True, env=env)
    assert proc.returncode == 0, proc.stderr[-2000:]
    assert json.loads(proc.stdout)["total"]["wins"] >= 3


@pytest.mark.openspiel
@pytest.mark.slow
def test_a_study_tunes_an_agent_on_a_pyspiel_game_and_refuses_one_sparring_cannot_play(make_study):
    pytest.importorskip("pyspiel", reason="open_spiel is not installed (pip install -e '.[test]')")
    from tuner.study.runner import run, status
    from tuner.study.spec import StudyError, StudySpec

    folder = make_study("ttt", strategy="ntbea", **{'game = "connect4"': 'game = "openspiel:tic_tac_toe"'})
    run(folder, progress=False)
    assert status(folder)["trials"]["complete"] == 4
    poker = make_study("poker", **{'game = "connect4"': 'game = "openspiel:kuhn_poker"'})
    with pytest.raises(StudyError, match="study.toml: game 'openspiel:kuhn_poker' is not sequential") as error:
        StudySpec.load(poker)
    assert "\n" not in str(error.value)


def test_a_study_tunes_an_agent_on_a_game_another_package_registers(make_study, nim):
    """The study folder names `nim` like any game: its trials play Nim through the entry point's game, and the
    report reads back what they stored."""
    from tuner.study.runner import run, status
    from tuner.study.spec import StudySpec

    folder = make_study("nim", strategy="ntbea", **{'game = "connect4"': 'game = "nim"'})
    assert StudySpec.load(folder).game == "nim"
    run(folder, progress=False)
    done = status(folder)
    assert done["trials"]["complete"] == 4 and done["games"] > 0, done


def test_training_a_game_from_outside_is_refused_in_one_line_before_anything_is_written(nim, tmp_path, capsys):
    from tuner.cli import main

    out = tmp_path / "run"
    assert main(["train", "nim", "--out", str(out), "--iterations", "1"]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "AlphaZero trains on sparring's own games" in err[0] and "no network planes" in err[0]
    assert not out.exists()
