"""The compiled `encode` kernel writes exactly `State.encode()`'s planes into one row of a batch buffer."""

import random

import numpy as np
import pytest

import games
from games.kernels import encode_batch

ALL = [name for name in games.names() if games.load(name).players == 2]  # a net plays two-player games only
GARBAGE = 7.0  # what a reused buffer holds before a row is written


def positions(game, n_games=12, seed=0):
    """Every state along `n_games` seeded random games, terminal states included."""
    rnd = random.Random(seed)
    states = []
    for _ in range(n_games):
        state = game.new_initial_state()
        states.append(state.clone())
        while not state.is_terminal():
            state.apply_action(rnd.choice(state.legal_actions()))
            states.append(state.clone())
    return states


@pytest.fixture(scope="module", params=ALL)
def game_and_states(request):
    game = games.load(request.param)
    return game, positions(game)


def test_positions_cover_the_hard_cases(game_and_states):
    game, states = game_and_states
    assert len(states) >= 200
    assert any(s.is_terminal() for s in states)
    assert any(s.current_player() == 1 for s in states)
    if game.name.startswith("othello"):
        assert any(s.history() and s.history()[-1] == game.pass_action for s in states)


def test_kernel_row_equals_state_encode(game_and_states):
    game, states = game_and_states
    out = np.empty((3, 3, *game.board_shape), dtype=np.float32)
    for state in states:
        out.fill(GARBAGE)
        game.kernels.encode(state.array, out, 1)
        expected = state.encode()
        assert np.array_equal(out[1], expected), f"{game.name} after {state.history()}"
        assert (out[0] == GARBAGE).all() and (out[2] == GARBAGE).all(), "other rows were written"


def test_encode_batch_equals_the_stack_of_state_encode(game_and_states):
    game, states = game_and_states
    batch = np.stack([s.array for s in states])
    out = np.full((len(states) + 2, 3, *game.board_shape), GARBAGE, dtype=np.float32)
    encode_batch(game.kernels, batch, out)
    assert np.array_equal(out[: len(states)], np.stack([s.encode() for s in states]))
    assert (out[len(states) :] == GARBAGE).all()
