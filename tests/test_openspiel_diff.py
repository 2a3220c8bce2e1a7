"""Differential tests: our rules against OpenSpiel's, move by move, over many random games.

OpenSpiel (`pip install open_spiel`, in the test extra) is an independent C++ implementation; the
tests skip where it is not installed. 6x6 Othello, which OpenSpiel lacks, is compared with the
naive reference of tests/othello_reference.py instead.
"""

import random

import pytest

import games
from tests.othello_reference import NaiveOthello

pytestmark = pytest.mark.openspiel

GAMES = 1000
NAMED = [("othello", "othello"), ("breakthrough", "breakthrough"), ("pentago", "pentago")]  # OpenSpiel's names too
PAIRS = [("connect4", "connect_four"), *NAMED, ("connect5", "mnk(m=8,n=8,k=5)")]


@pytest.mark.parametrize("ours, theirs", PAIRS)
@pytest.mark.slow
def test_random_games_match_openspiel(ours, theirs):
    pyspiel = pytest.importorskip("pyspiel", reason="open_spiel is not installed (pip install -e '.[test]')")
    game, reference = games.load(ours), pyspiel.load_game(theirs)
    assert game.num_distinct_actions() == reference.num_distinct_actions()
    rnd = random.Random(f"diff-{ours}")
    for _ in range(GAMES):
        state, ref = game.new_initial_state(), reference.new_initial_state()
        while True:
            assert state.is_terminal() == ref.is_terminal(), ref.history()
            assert state.returns() == ref.returns(), ref.history()
            if state.is_terminal():
                break
            assert state.current_player() == ref.current_player()
            legal = state.legal_actions()
            assert legal == ref.legal_actions(), ref.history()
            action = rnd.choice(legal)
            state.apply_action(action)
            ref.apply_action(action)


@pytest.mark.parametrize("ours, theirs", NAMED)
def test_action_names_and_board_match_openspiel(ours, theirs):
    pyspiel = pytest.importorskip("pyspiel", reason="open_spiel is not installed (pip install -e '.[test]')")
    game, reference = games.load(ours), pyspiel.load_game(theirs)
    rnd = random.Random(1)
    state, ref = game.new_initial_state(), reference.new_initial_state()
    while not state.is_terminal():
        for a in state.legal_actions():
            assert state.action_to_string(a) == ref.action_to_string(ref.current_player(), a)
        if ours == "breakthrough":
            assert str(state) == str(ref)
        action = rnd.choice(state.legal_actions())
        state.apply_action(action)
        ref.apply_action(action)


@pytest.mark.slow
def test_othello6_matches_naive_reference():
    game = games.load("othello6")
    rnd = random.Random("diff-othello6")
    for _ in range(300):
        state, ref = game.new_initial_state(), NaiveOthello(6)
        while True:
            assert state.legal_actions() == ref.legal_actions()
            assert state.returns() == ref.returns() and state.is_terminal() == ref.over
            if ref.over:
                break
            action = rnd.choice(ref.legal_actions())
            state.apply_action(action)
            ref.apply(action)
