"""Move-tree counts from the start position, against numbers our code did not produce.

perft(d) counts the leaves of the move tree d plies deep; a game that ends sooner is one leaf where
it ends. "Positions after n plies" counts distinct positions, finished games not expanded.
"""

import tomllib
from pathlib import Path

import numpy as np
import pytest
from numba import njit

import games
from games.kernels import copy_into, perft
from tests.othello_reference import NaiveOthello, naive_perft

COUNTS = tomllib.loads((Path(__file__).parent / "data" / "perft.toml").read_text())
OTHELLO_GAMES = COUNTS["othello"]["perft"]["counts"]
PERFT = [(name, table["perft"]["counts"]) for name, table in COUNTS.items() if "perft" in table]
POSITIONS = [(name, table["positions"]["counts"]) for name, table in COUNTS.items() if "positions" in table]


def _perfts(name, depth):
    game = games.load(name)
    root = game.new_initial_state().array
    return [perft(game.kernels, root, d, game.max_legal) for d in range(1, depth + 1)]


@pytest.mark.parametrize("name, expected", PERFT)
def test_perft_against_published_counts(name, expected):
    assert _perfts(name, len(expected)) == expected


def test_othello6_perft_against_naive_reference():
    # No published 6x6 sequence was found; the naive reference in tests/othello_reference.py is the truth.
    expected = [naive_perft(NaiveOthello(6), d) for d in range(1, 6)]
    assert expected[:3] == [4, 12, 56]
    assert _perfts("othello6", 5) == expected


def test_othello8_naive_reference_is_itself_right():
    assert [naive_perft(NaiveOthello(8), d) for d in range(1, 6)] == OTHELLO_GAMES[:5]


@njit
def _expand(g, states, max_legal):
    """All children of the non-terminal rows of `states`."""
    buf = np.empty(max_legal, dtype=np.int64)
    out = np.empty((states.shape[0] * max_legal, states.shape[1]), dtype=states.dtype)
    k = 0
    for i in range(states.shape[0]):
        if g.terminal(states[i]):
            continue
        n = g.legal(states[i], buf)
        for j in range(n):
            copy_into(states[i], out[k])
            g.apply(out[k], buf[j])
            k += 1
    return out[:k]


@pytest.mark.parametrize("name, expected", POSITIONS)
@pytest.mark.slow
def test_distinct_positions_per_ply(name, expected):
    game = games.load(name)
    level = game.new_initial_state().array[None, :].copy()
    counts = []
    for _ in expected:
        # every state array holds the position, derived fields and the ply, all equal at one level
        level = np.unique(_expand(game.kernels, level, game.max_legal), axis=0)
        counts.append(len(level))
    assert counts == expected
