"""Knightthrough on 8x8 [SA-MCTS Sec. VI], the rules of GGP's knightThrough.kif: Breakthrough's race with knights.

Each player has 16 knights on its two home rows; white (player 0) starts on ranks 1-2 and moves first. A knight
jumps only forward: two ranks and one file, or one rank and two files, onto an empty square or an opposing knight,
which it captures. A player wins by reaching the far rank or capturing every opposing knight. There are no draws,
and no player is ever without a move: the most advanced knight always has a jump (the ranks ahead of it are free of
its own side, and from any file at least one of its forward jumps stays on the board).
Bitboards: bit row * 8 + column, row 0 the top of the drawing (rank 8), so white's home is rows 6-7 and it moves
toward row 0. Action = square * 4 + jump, jumps 0-3 = (2 ranks, file -1), (2, +1), (1, -2), (1, +2), forward for
the player to move. State array: [player-0 knights, player-1 knights, player to move, status (games.kernels),
plies].
"""

import numpy as np

from games.bits import lowest_bit_index
from games.game import Game, bitboard_planes
from games.jit import kernel
from games.kernels import (
    GameKernels,
    encode_planes,
    race_move,
    status_returns,
    status_terminal,
    status_to_move,
    status_winner,
)

N = 8
_U1 = np.uint64(1)
_COLS = [np.uint64(sum(1 << (r * N + c) for r in range(N))) for c in range(N)]
_RANKS = np.array([2, 2, 1, 1], dtype=np.int64)  # ranks forward per jump
_FILES = np.array([-1, 1, -2, 2], dtype=np.int64)  # files sideways per jump
_FORWARD = (-1, 1)  # rows per rank forward: white (player 0) moves up the drawing, black down
_OFFSET = np.array([f * r * N + c for f in _FORWARD for r, c in zip(_RANKS, _FILES)], dtype=np.int64)
# the squares a jump may leave without falling off the board sideways (leaving it at the top or bottom drops the bit)
_FROM_MASK = np.array(
    [~m for m in (_COLS[0], _COLS[N - 1], _COLS[0] | _COLS[1], _COLS[N - 2] | _COLS[N - 1])] * 2, dtype=np.uint64
)
_GOAL = np.array([0xFF, 0xFF << (8 * (N - 1))], dtype=np.uint64)  # the row each player must reach


@kernel
def init(s):
    s[:] = 0
    s[0] = np.uint64(0xFFFF) << np.uint64(8 * (N - 2))
    s[1] = np.uint64(0xFFFF)


@kernel
def legal(s, out):
    p = s[2]
    own = s[p]
    n = 0
    for d in range(4 * np.int64(p), 4 * np.int64(p) + 4):
        k = _OFFSET[d]
        movers = own & _FROM_MASK[d]
        targets = (movers << np.uint64(k) if k > 0 else movers >> np.uint64(-k)) & ~own
        while targets:
            to = lowest_bit_index(targets)
            targets &= targets - _U1
            out[n] = (to - k) * 4 + d % 4
            n += 1
    return n


@kernel
def apply(s, action):
    p = s[2]
    frm = action // 4
    race_move(s, frm, frm + _OFFSET[4 * np.int64(p) + action % 4], _GOAL[p])


@kernel
def encode(s, out, row):
    """Planes square (r, c) is bit r * 8 + c, as in `planes`."""
    encode_planes(s, out, row, N, N, 0, N, 1)


KERNELS = GameKernels(init, legal, apply, status_terminal, status_winner, status_returns, status_to_move, encode)
FILES = "abcdefgh"


class Knightthrough(Game):
    name = "knightthrough"
    kernels = KERNELS
    state_size = 5
    max_legal = 64  # 16 knights, 4 jumps each
    num_actions = N * N * 4
    board_shape = (N, N)
    max_game_length = 2 * (N * (N - 1) + N * (N - 2))  # every jump takes a knight at least a rank forward
    own_moves = 18  # measured: SP self-play at 1000 simulations lasts 35.8 plies on average (30 games)
    intra_moves = 26  # one player's share of the longest of those games (52 plies)
    evaluations = {}  # AlphaDDA defines no evaluation for it
    symbols = ("w", "b")  # white moves first, from ranks 1 and 2

    def planes(self, s):
        return bitboard_planes(s, N, N)

    def render(self, s):
        p0, p1 = self.planes(s)
        x, o = self.symbols
        lines = [f"{N - r}" + "".join(x if p0[r, c] else o if p1[r, c] else "." for c in range(N)) for r in range(N)]
        return "\n".join(lines + [" " + FILES]) + "\n"

    def action_squares(self, s, action):
        square, jump = divmod(int(action), 4)
        r, c = divmod(square, N)
        forward = _FORWARD[int(s[2])]
        return (r, c), (r + forward * int(_RANKS[jump]), c + int(_FILES[jump]))

    def action_to_string(self, s, action):
        (r, c), (r2, c2) = self.action_squares(s, action)
        return f"{FILES[c]}{N - r}{FILES[c2]}{N - r2}"

    def string_to_action(self, s, text):
        t = text.strip().lower()
        hint = f"bad knightthrough action {text!r}: write from-square and to-square, e.g. 'b1c3'"
        if len(t) != 4 or t[0] not in FILES or t[2] not in FILES or not (t[1] in "12345678" and t[3] in "12345678"):
            raise ValueError(hint)
        r, c, r2, c2 = N - int(t[1]), FILES.index(t[0]), N - int(t[3]), FILES.index(t[2])
        jumps = [(_FORWARD[int(s[2])] * int(a), int(b)) for a, b in zip(_RANKS, _FILES)]
        if (r2 - r, c2 - c) not in jumps:
            raise ValueError(hint + " (a knight of the player to move jumps forward)")
        return (r * N + c) * 4 + jumps.index((r2 - r, c2 - c))

    def symmetry_maps(self):
        perm = np.empty(self.num_actions, dtype=np.int64)
        for a in range(self.num_actions):
            square, jump = divmod(a, 4)
            r, c = divmod(square, N)
            perm[a] = (r * N + N - 1 - c) * 4 + (jump ^ 1)  # a mirror swaps the file's sign: 0 <-> 1, 2 <-> 3
        return [(lambda x: x, np.arange(self.num_actions)), (lambda x: x[..., ::-1], perm)]
