"""Breakthrough on 8x8, two rows of pieces each, with OpenSpiel's rules and action encoding.

A piece steps one row forward, straight or diagonally; only a diagonal step may capture. A player
wins by reaching the far row or capturing every opposing piece (no draws; no player is ever left
without a move, since the most advanced piece can always step diagonally). Player 0 (black, "b")
starts on rows 8-7 (array rows 0-1, the top of the drawing) and moves down.
Action = ((row * 8 + column) * 6 + direction) * 2 + capture, directions 0-2 for black and 3-5
for white (column offset -1, 0, +1), exactly as OpenSpiel's breakthrough.
Bitboards: bit row * 8 + column. State array: [player-0 pieces, player-1 pieces, player to move,
status (games.kernels), plies].
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
_ZERO = np.uint64(0)
_COL_A = np.uint64(sum(1 << (r * N) for r in range(N)))
_COL_H = np.uint64(sum(1 << (r * N + N - 1) for r in range(N)))
_ROW_DR = np.array([1, 1, 1, -1, -1, -1], dtype=np.int64)
_COL_DC = np.array([-1, 0, 1, -1, 0, 1], dtype=np.int64)
_OFFSET = _ROW_DR * N + _COL_DC
_FROM_MASK = np.array([~_COL_A, ~_ZERO, ~_COL_H] * 2, dtype=np.uint64)  # squares a step in that direction may leave
_GOAL = np.array([0xFF << (8 * (N - 1)), 0xFF], dtype=np.uint64)  # the row each player must reach


@kernel
def init(s):
    s[:] = 0
    s[0] = np.uint64(0xFFFF)
    s[1] = np.uint64(0xFFFF) << np.uint64(8 * (N - 2))


@kernel
def legal(s, out):
    p = s[2]
    own, opp = s[p], s[_U1 - p]
    empty = ~(own | opp)
    n = 0
    for d in range(3 * np.int64(p), 3 * np.int64(p) + 3):
        k = _OFFSET[d]
        movers = own & _FROM_MASK[d]
        targets = movers << np.uint64(k) if k > 0 else movers >> np.uint64(-k)
        if _COL_DC[d] == 0:
            targets &= empty  # a straight step never captures
        else:
            targets &= ~own
        while targets:
            to = lowest_bit_index(targets)
            targets &= targets - _U1
            capture = 1 if (opp >> np.uint64(to)) & _U1 else 0
            out[n] = ((to - k) * 6 + d) * 2 + capture
            n += 1
    return n


@kernel
def apply(s, action):
    frm = action // 12
    race_move(s, frm, frm + _OFFSET[(action // 2) % 6], _GOAL[s[2]])


@kernel
def encode(s, out, row):
    """Planes square (r, c) is bit r * 8 + c, as in `planes`."""
    encode_planes(s, out, row, N, N, 0, N, 1)


KERNELS = GameKernels(init, legal, apply, status_terminal, status_winner, status_returns, status_to_move, encode)


def _decode(action):
    square, rest = divmod(action, 12)
    direction, capture = divmod(rest, 2)
    return square, direction, capture


class Breakthrough(Game):
    name = "breakthrough"
    kernels = KERNELS
    state_size = 5
    max_legal = 48
    num_actions = N * N * 6 * 2
    board_shape = (N, N)
    max_game_length = 2 * (N * (N - 1) + N * (N - 2))  # every move takes a piece one row forward
    own_moves = 33  # measured: SP self-play at 1000 simulations lasts 66.2 plies on average
    intra_moves = 40
    evaluations = {}  # AlphaDDA defines no evaluation for it
    symbols = ("b", "w")  # black moves first, from rows 8 and 7

    def planes(self, s):
        return bitboard_planes(s, N, N)

    def render(self, s):
        p0, p1 = self.planes(s)
        x, o = self.symbols
        lines = [f"{N - r}" + "".join(x if p0[r, c] else o if p1[r, c] else "." for c in range(N)) for r in range(N)]
        return "\n".join(lines + [" " + "abcdefgh"[:N]]) + "\n"

    def action_squares(self, s, action):
        square, direction, _ = _decode(action)
        r, c = divmod(int(square), N)
        return (r, c), (r + int(_ROW_DR[direction]), c + int(_COL_DC[direction]))

    def action_to_string(self, s, action):
        (r, c), (r2, c2) = self.action_squares(s, action)
        _, _, capture = _decode(action)
        return f"{'abcdefgh'[c]}{N - r}{'abcdefgh'[c2]}{N - r2}" + ("*" if capture else "")

    def string_to_action(self, s, text):
        t = text.strip().lower()
        capture = t.endswith("*")
        t = t.rstrip("*")
        hint = (
            f"bad breakthrough action {text!r}: write from-square and to-square, e.g. 'a7a6' or 'b7c6*' for a capture"
        )
        cols = "abcdefgh"
        if len(t) != 4 or t[0] not in cols or t[2] not in cols or not (t[1].isdigit() and t[3].isdigit()):
            raise ValueError(hint)
        r, c, r2, c2 = N - int(t[1]), cols.index(t[0]), N - int(t[3]), cols.index(t[2])
        steps = list(zip(_ROW_DR.tolist(), _COL_DC.tolist()))
        if not (0 <= r < N and 0 <= r2 < N) or (r2 - r, c2 - c) not in steps:
            raise ValueError(hint)
        return ((r * N + c) * 6 + steps.index((r2 - r, c2 - c))) * 2 + int(capture)

    def symmetry_maps(self):
        perm = np.empty(self.num_actions, dtype=np.int64)
        for a in range(self.num_actions):
            square, direction, capture = _decode(a)
            r, c = divmod(square, N)
            mirrored = (8 - direction) if direction >= 3 else (2 - direction)
            perm[a] = ((r * N + N - 1 - c) * 6 + mirrored) * 2 + capture
        return [(lambda x: x, np.arange(self.num_actions)), (lambda x: x[..., ::-1], perm)]
