"""Othello on 8x8 (`othello`, identical to OpenSpiel's) and 6x6 (`othello6`), one set of rules.

Actions: row * size + column (row 0 is the top row, labelled 1), pass = size * size, legal only
when the player to move has no other move. The game ends when neither player can move; the player
with more discs wins. Black (player 0) moves first; white holds d4 and e5 at the start (on 6x6,
the same four centre squares, c3/d4 white).
Bitboards: bit row * size + column. State array: [player-0 discs, player-1 discs, player to move,
status (games.kernels), legal-move mask of the player to move, plies].
"""

import numpy as np

from games.bits import lowest_bit_index, popcount
from games.game import Evaluation, Game, square_symmetries
from games.jit import kernel
from games.kernels import GameKernels, encode_planes, status_returns, status_terminal, status_to_move, status_winner

_U1 = np.uint64(1)
_ZERO = np.uint64(0)
_DIRECTIONS = [(-1, -1), (-1, 0), (-1, 1), (0, -1), (0, 1), (1, -1), (1, 0), (1, 1)]


def _shift_tables(n):
    """Per direction: signed shift (positive = left) and the mask that drops squares which wrapped."""
    full = (1 << (n * n)) - 1
    col = lambda c: sum(1 << (r * n + c) for r in range(n))  # noqa: E731
    amounts, masks = [], []
    for dr, dc in _DIRECTIONS:
        amounts.append(dr * n + dc)
        drop = col(0) if dc == 1 else col(n - 1) if dc == -1 else 0
        masks.append(full & ~drop)
    return np.array(amounts, dtype=np.int64), np.array(masks, dtype=np.uint64)


_AMOUNT8, _MASK8 = _shift_tables(8)
_AMOUNT6, _MASK6 = _shift_tables(6)


@kernel(inline="always")
def _shift(x, amount, mask):
    if amount > 0:
        return (x << np.uint64(amount)) & mask
    return (x >> np.uint64(-amount)) & mask


@kernel
def _moves(own, opp, amounts, masks, n):
    """Squares where the owner of `own` may play: each flanks a line of `opp` discs ending in `own`."""
    empty = ~(own | opp)  # squares off the board never appear: every shift masks them out
    moves = _ZERO
    for d in range(8):
        x = _shift(own, amounts[d], masks[d]) & opp
        for _ in range(n - 3):
            x |= _shift(x, amounts[d], masks[d]) & opp
        moves |= _shift(x, amounts[d], masks[d]) & empty
    return moves


@kernel
def _flips(own, opp, square, amounts, masks):
    """The `opp` discs turned by playing `square`."""
    flips = _ZERO
    start = _U1 << np.uint64(square)
    for d in range(8):
        x = _shift(start, amounts[d], masks[d])
        line = _ZERO
        while x & opp:
            line |= x
            x = _shift(x, amounts[d], masks[d])
        if x & own:
            flips |= line
    return flips


@kernel
def _init(s, n, amounts, masks):
    h = n // 2
    sq = lambda r, c: _U1 << np.uint64(r * n + c)  # noqa: E731
    s[:] = 0
    s[0] = sq(h - 1, h) | sq(h, h - 1)  # black: e4 and d5 on 8x8
    s[1] = sq(h - 1, h - 1) | sq(h, h)  # white: d4 and e5
    s[4] = _moves(s[0], s[1], amounts, masks, n)


@kernel
def _legal(s, out, n):
    m = s[4]
    if m == _ZERO:
        out[0] = n * n
        return 1
    k = 0
    while m:
        out[k] = lowest_bit_index(m)
        m &= m - _U1
        k += 1
    return k


@kernel
def _apply(s, action, n, amounts, masks):
    p = s[2]
    q = _U1 - p
    if action != n * n:
        f = _flips(s[p], s[q], action, amounts, masks)
        s[p] |= f | (_U1 << np.uint64(action))
        s[q] &= ~f
    s[2] = q
    s[5] += _U1
    m = _moves(s[q], s[p], amounts, masks, n)
    s[4] = m
    if m == _ZERO and _moves(s[p], s[q], amounts, masks, n) == _ZERO:
        c0, c1 = popcount(s[0]), popcount(s[1])
        s[3] = np.uint64(1) if c0 > c1 else np.uint64(2) if c1 > c0 else np.uint64(3)


@kernel
def init8(s):
    _init(s, 8, _AMOUNT8, _MASK8)


@kernel
def legal8(s, out):
    return _legal(s, out, 8)


@kernel
def apply8(s, action):
    _apply(s, action, 8, _AMOUNT8, _MASK8)


@kernel
def init6(s):
    _init(s, 6, _AMOUNT6, _MASK6)


@kernel
def legal6(s, out):
    return _legal(s, out, 6)


@kernel
def apply6(s, action):
    _apply(s, action, 6, _AMOUNT6, _MASK6)


@kernel
def encode8(s, out, row):
    encode_planes(s, out, row, 8, 8, 0, 8, 1)  # square (r, c) is bit r * 8 + c


@kernel
def encode6(s, out, row):
    encode_planes(s, out, row, 6, 6, 0, 6, 1)


KERNELS8 = GameKernels(init8, legal8, apply8, status_terminal, status_winner, status_returns, status_to_move, encode8)
KERNELS6 = GameKernels(init6, legal6, apply6, status_terminal, status_winner, status_returns, status_to_move, encode6)


# eq. (14) and (15), row by row from the top-left corner
# [AlphaDDA eq. 14]
OTHELLO6_WEIGHTS = np.array(
    [
        [30, -5, 2, 2, -5, 30],
        [-5, -15, 3, 3, -15, -5],
        [2, 3, 0, 0, 3, 2],
        [2, 3, 0, 0, 3, 2],
        [-5, -15, 3, 3, -15, -5],
        [30, -5, 2, 2, -5, 30],
    ],
    dtype=np.float64,
).ravel()
# [AlphaDDA eq. 15]
OTHELLO8_WEIGHTS = np.array(
    [
        [120, -20, 20, 5, 5, 20, -20, 120],
        [-20, -40, -5, -5, -5, -5, -40, -20],
        [20, -5, 15, 3, 3, 15, -5, 20],
        [5, -5, 3, 3, 3, 3, -5, 5],
        [5, -5, 3, 3, 3, 3, -5, 5],
        [20, -5, 15, 3, 3, 15, -5, 20],
        [-20, -40, -5, -5, -5, -5, -40, -20],
        [120, -20, 20, 5, 5, 20, -20, 120],
    ],
    dtype=np.float64,
).ravel()


@kernel
def minimax_eval(s, weights, player):
    """AlphaDDA's Minimax evaluation [AlphaDDA App. 4, eqs. 14-15] from `player`'s view, weights = one per square
    (eq. 14 or 15 for Minimax1, ones for Minimax2): the weights of the player's discs minus the opponent's; a won
    game scores 1000."""
    if status_terminal(s):
        w = status_winner(s)
        return 0.0 if w < 0 else (1000.0 if w == player else -1000.0)
    total = 0.0
    for p in range(2):
        b = s[p]
        while b:
            v = weights[lowest_bit_index(b)]
            total += v if p == player else -v
            b &= b - np.uint64(1)
    return total


@kernel
def empty_squares(s, squares):
    """Squares left empty on an Othello board of `squares` squares."""
    return squares - np.int64(popcount(s[0] | s[1]))


def _evaluations(table: np.ndarray) -> dict[str, Evaluation]:
    """Minimax1 (the board's weights of eq. 14 or 15) and Minimax2 (every square 1) [AlphaDDA App. 4]."""
    return {"minimax1": Evaluation(minimax_eval, table), "minimax2": Evaluation(minimax_eval, np.ones_like(table))}


class Othello(Game):
    """Othello on a `size` x `size` board (8 or 6)."""

    state_size = 6

    def __init__(self, size: int):
        super().__init__()
        self.size = size
        self.name = "othello" if size == 8 else f"othello{size}"
        self.kernels = {8: KERNELS8, 6: KERNELS6}[size]
        self.pass_action = size * size
        self.num_actions = size * size + 1
        self.max_legal = size * size
        self.board_shape = (size, size)
        self.max_game_length = 2 * size * size  # a pass never follows a pass
        # one player's moves: 6x6 SP self-play at 1000 simulations lasts 32.7 plies; 8x8 about 60 less passes
        self.own_moves = self.intra_moves = {8: 30, 6: 16}[size]
        self.evaluations = _evaluations({8: OTHELLO8_WEIGHTS, 6: OTHELLO6_WEIGHTS}[size])

    def search_depth(self, s, depth, endgame):
        """To the end once `endgame` or fewer squares are empty [AlphaDDA App. 4: six for its Minimax players]."""
        return self.max_game_length if empty_squares(s, self.size * self.size) <= endgame else depth

    def planes(self, s):
        n = self.size
        bits = np.arange(n * n, dtype=np.uint64).reshape(n, n)
        return tuple(((s[p] >> bits) & _U1).astype(bool) for p in (0, 1))

    def render(self, s):
        n = self.size
        p0, p1 = self.planes(s)
        letters = " ".join("abcdefgh"[:n])
        x, o = self.symbols
        lines = [f"  {letters}"]
        for r in range(n):
            cells = " ".join(x if p0[r, c] else o if p1[r, c] else "." for c in range(n))
            lines.append(f"{r + 1} {cells}")
        return "\n".join(lines) + "\n"

    def action_squares(self, s, action):
        return None, (None if action == self.pass_action else divmod(int(action), self.size))

    def action_to_string(self, s, action):
        if action == self.pass_action:
            return "pass"
        r, c = divmod(action, self.size)
        return f"{'abcdefgh'[c]}{r + 1}"

    def string_to_action(self, s, text):
        t = text.strip().lower()
        if t == "pass":
            return self.pass_action
        cols, n = "abcdefgh"[: self.size], self.size
        if len(t) == 2 and t[0] in cols and t[1].isdigit() and 1 <= int(t[1]) <= n:
            return (int(t[1]) - 1) * n + cols.index(t[0])
        raise ValueError(f"bad {self.name} action {text!r}: write a square a1-{cols[-1]}{n} or 'pass'")

    def symmetry_maps(self):
        return square_symmetries(self.size, extra=1)
