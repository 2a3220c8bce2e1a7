"""Connect 5 on 8x8, the GGP game SA-MCTS played (issue 35).

Rules from GGP's connect5.kif (ggp-org/ggp-repository, games/connect5/v1): x (player 0) moves first and
the players take turns marking any empty square; a line of five of one's own marks in a row, a column or
a diagonal wins (a longer line holds one of five, so it wins too), and a full board without one is a draw
(50 each). The kif's comments show an intent, never written into its rules, to allow only squares next to
a mark; its rules allow every empty square, and so do we. OpenSpiel's mnk(m=8,n=8,k=5) plays the same
game with the same actions (row * 8 + column), and tests/test_openspiel_diff.py plays against it move
for move. Names: column a-h, row 1-8 from the top ("d4"), as Othello's and Pentago's.
Bitboards: bit row * 8 + column. State array: [player-0 marks, player-1 marks, player to move, status
(games.kernels), plies].
"""

import numpy as np

from games.game import Game, bitboard_planes, square_symmetries
from games.jit import kernel
from games.kernels import (
    GameKernels,
    empty_squares,
    encode_planes,
    status_returns,
    status_terminal,
    status_to_move,
    status_winner,
)

N = 8
_U1 = np.uint64(1)
_ZERO = np.uint64(0)
_FULL = np.uint64(0xFFFFFFFFFFFFFFFF)


def _pairs(step: int, dc: int) -> np.uint64:
    """The squares whose neighbour `step` bits on (`dc` columns over) is on the board."""
    return np.uint64(
        sum(1 << (r * N + c) for r in range(N) for c in range(N) if 0 <= c + dc < N and r * N + c + step < N * N)
    )


STEPS = np.array([1, N, N + 1, N - 1], dtype=np.uint64)  # along a row, a column, and the two diagonals
PAIRS = np.array([_pairs(1, 1), _pairs(N, 0), _pairs(N + 1, 1), _pairs(N - 1, -1)], dtype=np.uint64)


@kernel
def init(s):
    s[:] = 0


@kernel(inline="always")
def five(b):
    """Whether bitboard `b` holds five in a line: per direction, the squares starting a pair, then a run of three
    (a pair whose next square starts a pair), then of five (a run of three two squares before another)."""
    for i in range(4):
        step = STEPS[i]
        two = b & (b >> step) & PAIRS[i]
        three = two & (two >> step)
        if three & (three >> (step + step)) != _ZERO:
            return True
    return False


@kernel
def apply(s, action):
    p = s[2]
    s[p] |= _U1 << np.uint64(action)
    s[2] = _U1 - p
    s[4] += _U1
    if s[4] >= np.uint64(9) and five(s[p]):  # five marks of one player take nine plies
        s[3] = p + _U1
    elif s[0] | s[1] == _FULL:
        s[3] = np.uint64(3)


@kernel
def encode(s, out, row):
    """Planes square (r, c) is bit r * 8 + c, as in `planes`."""
    encode_planes(s, out, row, N, N, 0, N, 1)


KERNELS = GameKernels(
    init, empty_squares, apply, status_terminal, status_winner, status_returns, status_to_move, encode
)
_COLUMNS = "abcdefgh"


class Connect5(Game):
    name = "connect5"
    kernels = KERNELS
    state_size = 5
    max_legal = N * N
    num_actions = N * N
    board_shape = (N, N)
    max_game_length = N * N
    own_moves = 17  # measured: SP self-play at 1000 simulations lasts 34.8 plies on average (20 games; 6 drawn)
    intra_moves = 32  # one player's share of the longest game
    evaluations = {}  # none in the papers

    def planes(self, s):
        return bitboard_planes(s, N, N)

    def render(self, s):
        p0, p1 = self.planes(s)
        x, o = self.symbols
        rows = [f"{r + 1} " + " ".join(x if p0[r, c] else o if p1[r, c] else "." for c in range(N)) for r in range(N)]
        return "\n".join(["  " + " ".join(_COLUMNS), *rows]) + "\n"

    def action_squares(self, s, action):
        return None, divmod(int(action), N)

    def action_to_string(self, s, action):
        r, c = divmod(int(action), N)
        return f"{_COLUMNS[c]}{r + 1}"

    def string_to_action(self, s, text):
        t = text.strip().lower()
        if len(t) != 2 or t[0] not in _COLUMNS or t[1] not in "12345678":
            raise ValueError(
                f"bad connect5 action {text!r}: write a square, column a-h and row 1-8 (from the top), e.g. 'd4'"
            )
        return (int(t[1]) - 1) * N + _COLUMNS.index(t[0])

    def symmetry_maps(self):
        return square_symmetries(N)
