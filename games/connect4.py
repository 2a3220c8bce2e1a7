"""Connect Four on a 7-wide, 6-high board; actions are columns 0-6, as in OpenSpiel's connect_four.

Bitboards: bit 7*col + row (row 0 at the bottom); the seventh bit of each column stays empty so
that shifting a line never wraps into the next column.
State array: [player-0 discs, player-1 discs, player to move, status (games.kernels), plies].
"""

import numpy as np

from games.bits import popcount
from games.game import Evaluation, Game
from games.jit import kernel
from games.kernels import GameKernels, encode_planes, status_returns, status_terminal, status_to_move, status_winner
from games.rng import randint

ROWS, COLS = 6, 7
_H = ROWS + 1
_U1 = np.uint64(1)
_ZERO = np.uint64(0)
_BOTTOM = np.array([1 << (_H * c) for c in range(COLS)], dtype=np.uint64)
_TOP = np.array([1 << (_H * c + ROWS - 1) for c in range(COLS)], dtype=np.uint64)
_TOPS = np.bitwise_or.reduce(_TOP)  # the top row
_COLUMN = np.array([((1 << ROWS) - 1) << (_H * c) for c in range(COLS)], dtype=np.uint64)
LINE_SHIFTS = np.array([1, _H, _H - 1, _H + 1], dtype=np.uint64)  # vertical, horizontal, two diagonals
_D0, _D1, _D2, _D3 = (np.uint64(d) for d in LINE_SHIFTS)


@kernel
def init(s):
    s[:] = 0


@kernel
def legal(s, out):
    mask = s[0] | s[1]
    n = 0
    for c in range(COLS):
        if mask & _TOP[c] == _ZERO:
            out[n] = c
            n += 1
    return n


@kernel(inline="always")
def _run(b, d):
    """Whether bitboard b holds four in a line along shift d: a run of two, next to another run of two."""
    m = b & (b >> d)
    return m & (m >> (d + d)) != _ZERO


@kernel(inline="always")
def _four(b):
    """Whether b holds four in a line, the directions written out (a loop over LINE_SHIFTS was a call and a loop)."""
    return _run(b, _D0) or _run(b, _D1) or _run(b, _D2) or _run(b, _D3)


@kernel
def apply(s, action):
    mover = s[2]
    mask = s[0] | s[1]
    s[mover] |= (mask + _BOTTOM[action]) & _COLUMN[action]
    s[2] = _U1 - mover
    s[4] += _U1
    if _four(s[mover]):
        s[3] = mover + _U1
    elif s[4] == np.uint64(ROWS * COLS):
        s[3] = np.uint64(3)


@kernel
def playout(s, buf, rng):
    """`GameKernels.playout`: the open columns listed once, ascending (what `legal` writes), a column leaving the list
    when it fills; the bitboards held in registers, not read and written back in the state at every move."""
    b0, b1, mover, status, plies = s[0], s[1], s[2], s[3], s[4]
    mask = b0 | b1
    n = 0
    for c in range(COLS):
        buf[n] = c
        n += 1 if mask & _TOP[c] == _ZERO else 0
    while status == _ZERO:
        k = randint(rng, n)
        column = buf[k]
        move = (mask + _BOTTOM[column]) & _COLUMN[column]
        mask |= move
        plies += _U1
        if mover == _ZERO:
            b0 |= move
            won = _four(b0)
        else:
            b1 |= move
            won = _four(b1)
        if won:
            status = mover + _U1
        elif plies == np.uint64(ROWS * COLS):
            status = np.uint64(3)
        mover = _U1 - mover
        if move & _TOPS != _ZERO:  # the column is full
            n -= 1
            for j in range(k, n):
                buf[j] = buf[j + 1]
    s[0], s[1], s[2], s[3], s[4] = b0, b1, mover, status, plies


@kernel
def encode(s, out, row):
    """Planes row r, column c is bit 7 * c + (5 - r): row 0 of the planes is the top of the board."""
    encode_planes(s, out, row, ROWS, COLS, ROWS - 1, -1, _H)


@kernel
def minimax_eval(s, weights, player):
    """AlphaDDA's Minimax evaluation [AlphaDDA App. 4, eq. 13] from `player`'s view, weights = [R]: every run of
    two same-colour discs scores R and every run of three R^2 (counted in the four directions, overlapping: a run
    of three also holds two runs of two), the player's discs minus the opponent's; a won game scores R^3."""
    r = weights[0]
    if status_terminal(s):
        w = status_winner(s)
        return 0.0 if w < 0 else (r * r * r if w == player else -r * r * r)
    total = 0.0
    for p in range(2):
        b = s[p]
        runs = 0.0
        for d in LINE_SHIFTS:
            two = b & (b >> d)
            # [AlphaDDA eq. 13]
            runs += r * np.float64(popcount(two)) + r * r * np.float64(popcount(two & (b >> (d + d))))
        total += runs if p == player else -runs
    return total


@kernel
def minimax_eval_code(s, weights, player):
    """The authors' Connect4 evaluation (their minimax.py and minimax2.py) from `player`'s view, weights = [two,
    three, won]: every maximal run of exactly two or exactly three same-colour discs in a line scores its weight (a
    run of three holds no run of two), the player's discs minus the opponent's; a won game scores `won`."""
    if status_terminal(s):
        w = status_winner(s)
        return 0.0 if w < 0 else (weights[2] if w == player else -weights[2])
    total = 0.0
    for p in range(2):
        b = s[p]
        runs = 0.0
        for d in LINE_SHIFTS:
            pair = b & ~(b << d) & (b >> d)  # a run's first two discs: the one before it is not the player's
            runs += weights[0] * np.float64(popcount(pair & ~(b >> (d + d))))
            runs += weights[1] * np.float64(popcount(pair & (b >> (d + d)) & ~(b >> (d + d + d))))
        total += runs if p == player else -runs
    return total


# Minimax1 and Minimax2 [AlphaDDA App. 4]: R = 100 and R = 2; as the authors' code scores them (`tree=code`): two
# and three discs 100 and 10,000 (Minimax1) or 100 and 200 (Minimax2), a won game 1,000,000 for both
EVALUATIONS = {
    "minimax1": Evaluation(minimax_eval, np.array([100.0])),
    "minimax2": Evaluation(minimax_eval, np.array([2.0])),
    "minimax1_code": Evaluation(minimax_eval_code, np.array([100.0, 10_000.0, 1_000_000.0])),
    "minimax2_code": Evaluation(minimax_eval_code, np.array([100.0, 200.0, 1_000_000.0])),
}

KERNELS = GameKernels(
    init, legal, apply, status_terminal, status_winner, status_returns, status_to_move, encode, playout
)


class Connect4(Game):
    name = "connect4"
    kernels = KERNELS
    state_size = 5
    max_legal = COLS
    num_actions = COLS
    board_shape = (ROWS, COLS)
    max_game_length = ROWS * COLS
    own_moves = 17  # measured: SP self-play at 1000 simulations lasts 34.5 plies on average
    intra_moves = 21  # one player's share of the longest game
    evaluations = EVALUATIONS

    def planes(self, s):
        bits = np.array([[_H * c + r for c in range(COLS)] for r in reversed(range(ROWS))], dtype=np.uint64)
        return tuple(((int(s[p]) >> bits.astype(np.int64)) & 1).astype(bool) for p in (0, 1))

    def render(self, s):
        p0, p1 = self.planes(s)
        x, o = self.symbols
        rows = ["".join(x if a else o if b else "." for a, b in zip(r0, r1)) for r0, r1 in zip(p0, p1)]
        return "\n".join(rows + ["0123456"]) + "\n"

    def action_squares(self, s, action):
        filled = int(sum(plane[:, action].sum() for plane in self.planes(s)))
        return None, (ROWS - 1 - filled, int(action))  # the disc lands on the column's lowest empty row

    def action_to_string(self, s, action):
        return str(action)

    def string_to_action(self, s, text):
        if text.strip() not in {str(c) for c in range(COLS)}:
            raise ValueError(f"bad connect4 action {text!r}: write a column number from 0 to {COLS - 1}")
        return int(text)

    def symmetry_maps(self):
        return [(lambda x: x, np.arange(COLS)), (lambda x: x[..., ::-1], np.arange(COLS)[::-1].copy())]
