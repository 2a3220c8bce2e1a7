"""Pentago's rules on hand-built positions: the game is judged after the quadrant's turn only (OpenSpiel's
rules, which tests/test_openspiel_diff.py plays against over 1,000 random games)."""

import numpy as np
import pytest

import games
from games.game import State

PENTAGO = games.load("pentago")


def position(zeros, ones):
    """Player 0's and player 1's marbles at (row, column) squares, player 0 to move (as many of each)."""
    s = np.zeros(PENTAGO.state_size, dtype=np.uint64)
    for p, squares in enumerate((zeros, ones)):
        for r, c in squares:
            s[p] |= np.uint64(1 << (r * 6 + c))
    assert len(zeros) == len(ones)
    s[4] = len(zeros) + len(ones)
    return State(PENTAGO, s, [])


FAR = [(5, 0), (5, 2), (4, 4), (3, 5)]  # player 1's marbles out of the way of every line below


def play(state, name):
    state.apply_action(state.string_to_action(name))
    return state


def test_a_turn_that_completes_five_wins():
    """Column a of the top-left quadrant, turned clockwise ('t'), becomes its top row: with d1 and e1, five."""
    state = play(position([(0, 0), (1, 0), (0, 3), (0, 4)], FAR), "a3t")
    assert state.is_terminal() and state.returns() == [1.0, -1.0]
    assert state.planes()[0][0, :5].all()


def test_five_made_by_the_marble_and_broken_by_the_turn_is_no_win():
    """a1-e1 after placing e1, but the clockwise turn of the top-left quadrant stands a1-c1 on end: play goes on
    (the commercial rules would end the game before the turn)."""
    state = play(position([(0, 0), (0, 1), (0, 2), (0, 3)], FAR), "e1t")
    assert not state.is_terminal() and state.current_player() == 1
    assert state.planes()[0][:3, 2].all() and not state.planes()[0][0, :2].any()


def test_a_turn_that_completes_the_opponents_five_loses_and_both_fives_draw():
    ones = [(0, 0), (1, 0), (2, 0), (0, 3), (0, 4)]
    lost = play(position([(3, 0), (3, 2), (4, 1), (5, 4), (4, 5)], ones), "f6t")
    assert lost.is_terminal() and lost.returns() == [-1.0, 1.0]
    both = play(position([(0, 2), (1, 2), (2, 2), (2, 3), (2, 4)], ones), "f6t")
    assert both.is_terminal() and both.returns() == [0.0, 0.0]


def test_a_full_board_without_five_is_a_draw_and_names_round_trip():
    rng = np.random.default_rng(3)
    draws = 0
    for _ in range(300):
        state = PENTAGO.new_initial_state()
        while not state.is_terminal():
            state.apply_action(int(rng.choice(state.legal_actions())))
        if len(state.history()) == 36 and state.returns() == [0.0, 0.0]:
            p0, p1 = state.planes()
            draws += int((p0 | p1).all())
    assert draws > 0
    state = PENTAGO.new_initial_state()
    assert [state.string_to_action(state.action_to_string(a)) for a in state.legal_actions()] == list(range(288))
    with pytest.raises(ValueError, match="bad pentago action 'a7s'"):
        state.string_to_action("a7s")
