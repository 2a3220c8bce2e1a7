"""games.jit: a namedtuple of compiled functions is typed once (kernel_tuple), to the type numba itself gives it."""

import numba
import numpy as np
from numba.core import types

import games
from games.jit import kernel
from search.puct import PUCT_RULE


@kernel
def first_legal_count(g):
    """How many moves the game's initial position has: the game's own `legal`, reached through the tuple."""
    s = np.zeros(16, dtype=np.uint64)
    out = np.zeros(256, dtype=np.int64)
    g.init(s)
    return g.legal(s, out)


def numba_type(functions):
    """The type numba gives a namedtuple of compiled functions, field by field."""
    return types.BaseTuple.from_types([numba.typeof(f) for f in functions], type(functions))


def test_each_kernel_tuple_is_typed_as_numba_types_it_and_each_game_keeps_its_own():
    """Connect4 has 7 first moves, 8x8 Othello 4, Breakthrough 22 (OpenSpiel's count): one kernel handed each
    game's tuple runs each game's rules, so no value borrows another's remembered type (keyed by class, the
    second game would run the first one's compiled code)."""
    for name, moves in (("connect4", 7), ("othello", 4), ("breakthrough", 22)):
        kernels = games.load(name).kernels
        assert numba.typeof(kernels) == numba_type(kernels) and numba.typeof(kernels) is numba.typeof(kernels)
        assert first_legal_count(kernels) == moves
    assert len({numba.typeof(games.load(n).kernels) for n in ("connect4", "othello", "breakthrough")}) == 3
    assert numba.typeof(PUCT_RULE) == numba_type(PUCT_RULE)
