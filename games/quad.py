"""Quad on a 7x7 board, the GGP game SA-MCTS played (issue 35).

Rules from GGP's quad_7x7.kif (ggp-org/ggp-repository, games/quad_7x7): a 7x7 board without its four corners (45
cells). x moves first. Each player has 12 stones and 5 blockers. A turn is any number of blocks (a blocker, which
belongs to nobody, on an empty cell: the player keeps the turn), then one mark (a stone of its own on an empty cell:
the turn passes). Four stones of one player on the corners of a square win at once: a square of any size, tilted
ones too (the kif grows the axis squares and shears them one step at a time, so every square of cells with side
vector (k, t), k >= 1, t >= 0). The game also ends once both have marked all 12 stones; then x scores 95 and o 5 if
x has three corners of a square whose fourth is empty, else the one with more blockers left scores 90 and the
other 10 (50 each when they have as many). Scores are GGP's goal / 100; a win is 1 and a loss 0.
OpenSpiel has no such game: tests/test_quad.py plays against a plain reading of the kif.
Cells are named by column a-g and row 1-7 (row 1 at the top, the kif's r1); action = cell (row * 7 + column) for a
mark (named `d4`), 49 + cell for a block (named `d4w`). Bitboards: x's stones in s[0], o's in s[1], blockers in
s[4]. State array: [x, o, player to move, status (1 x scored more, 2 o did, 3 as much), blockers, blockers used by x,
by o].
"""

import numpy as np

from games.bits import lowest_bit_index, popcount
from games.game import Game, bitboard_planes, square_symmetries
from games.jit import kernel
from games.kernels import GameKernels, encode_planes, status_terminal, status_to_move, status_winner

N = 7
CELLS = N * N
STONES, BLOCKERS = 12, 5
_U1 = np.uint64(1)
_ZERO = np.uint64(0)
_COLUMNS = "abcdefg"
BOARD = np.uint64(sum(1 << c for c in range(CELLS) if c not in (0, N - 1, CELLS - N, CELLS - 1)))


def _squares() -> np.ndarray:
    """Every square of four board cells, as a bit mask: corners p, p + (k, t), p + (-t, k), p + (k - t, t + k) in
    (row, column), k >= 1, t >= 0 (each square once)."""
    masks = set()
    for r in range(N):
        for c in range(N):
            for k in range(1, N):
                for t in range(N):
                    corners = [(r, c), (r + t, c + k), (r + k, c - t), (r + k + t, c + k - t)]
                    if all(0 <= y < N and 0 <= x < N for y, x in corners):
                        mask = sum(1 << (y * N + x) for y, x in corners)
                        if mask & int(BOARD) == mask:
                            masks.add(mask)
    return np.array(sorted(masks), dtype=np.uint64)


SQUARES = _squares()


def _by_cell() -> tuple[np.ndarray, np.ndarray]:
    """The squares through each cell: indices into SQUARES, cell c's in rows [start[c], start[c + 1])."""
    lists = [[i for i, m in enumerate(SQUARES) if (int(m) >> c) & 1] for c in range(CELLS)]
    start = np.cumsum([0] + [len(x) for x in lists]).astype(np.int64)
    return start, np.array([i for x in lists for i in x], dtype=np.int64)


SQUARE_START, SQUARE_OF = _by_cell()


@kernel
def init(s):
    s[:] = 0


@kernel
def legal(s, out):
    """Every empty cell to mark; and, while the mover has a blocker left, to block."""
    p = s[2]
    empty = BOARD & ~(s[0] | s[1] | s[4])
    n = 0
    blocks = s[5 + p] < np.uint64(BLOCKERS)
    while empty:
        c = lowest_bit_index(empty)
        empty &= empty - _U1
        out[n] = c
        n += 1
        if blocks:
            out[n] = CELLS + c
            n += 1
    return n


@kernel(inline="always")
def _open_three(s):
    """Whether x has three corners of a square whose fourth cell is empty."""
    empty = BOARD & ~(s[0] | s[1] | s[4])
    for i in range(SQUARES.shape[0]):
        m = SQUARES[i]
        if popcount(s[0] & m) == np.uint64(3) and empty & m != _ZERO:
            return True
    return False


@kernel
def apply(s, action):
    p = s[2]
    if action >= CELLS:
        s[4] |= _U1 << np.uint64(action - CELLS)
        s[5 + p] += _U1
        return
    s[p] |= _U1 << np.uint64(action)
    s[2] = _U1 - p
    for j in range(SQUARE_START[action], SQUARE_START[action + 1]):
        m = SQUARES[SQUARE_OF[j]]
        if s[p] & m == m:
            s[3] = p + _U1
            return
    if popcount(s[1]) == np.uint64(STONES):  # o marks last: every stone is placed
        if _open_three(s):
            s[3] = _U1
        else:
            x_left, o_left = -np.int64(s[5]), -np.int64(s[6])
            s[3] = np.uint64(1) if x_left > o_left else np.uint64(2) if o_left > x_left else np.uint64(3)


@kernel
def returns(s, out):
    """x's and o's goal / 100 (they sum to 100): 100 and 0 for four on a square; at the end of the stones 95 and 5
    for x's open three, else 90 and 10 to the one with more blockers left, 50 each for as many."""
    goal = 50
    if s[3] != np.uint64(3):
        won = np.int64(s[3]) - 1
        square = False
        for i in range(SQUARES.shape[0]):
            if s[won] & SQUARES[i] == SQUARES[i]:
                square = True
                break
        if square:
            goal = 100 if won == 0 else 0
        elif won == 0:
            goal = 95 if _open_three(s) else 90
        else:
            goal = 10
    out[0] = goal / 100.0
    out[1] = (100 - goal) / 100.0


@kernel
def encode(s, out, row):
    """Planes square (r, c) is bit r * 7 + c, as in `planes` (blockers are not drawn: a net has no plane for them)."""
    encode_planes(s, out, row, N, N, 0, N, 1)


KERNELS = GameKernels(init, legal, apply, status_terminal, status_winner, returns, status_to_move, encode)


def _name(cell: int) -> str:
    r, c = divmod(cell, N)
    return f"{_COLUMNS[c]}{r + 1}"


class Quad(Game):
    name = "quad"
    kernels = KERNELS
    state_size = 7
    max_legal = 2 * (CELLS - 4)  # a mark or a block on each empty cell
    num_actions = 2 * CELLS
    board_shape = (N, N)
    max_game_length = 2 * (STONES + BLOCKERS)
    own_moves = 10  # measured: SP self-play at 1000 simulations lasts 19.4 plies on average (20 games)
    intra_moves = 17  # one player's share of the longest game
    evaluations = {}  # none in the papers
    symbols = ("x", "o")
    drawn = False  # a page shows `render`'s text, blockers and all, and a move list

    def planes(self, s):
        return bitboard_planes(s, N, N)

    def render(self, s):
        x, o = self.planes(s)
        blocked = ((int(s[4]) >> np.arange(CELLS)) & 1).reshape(N, N).astype(bool)
        on_board = ((int(BOARD) >> np.arange(CELLS)) & 1).reshape(N, N).astype(bool)

        def mark(r, c):
            return "x" if x[r, c] else "o" if o[r, c] else "#" if blocked[r, c] else "." if on_board[r, c] else " "

        rows = [(f"{r + 1} " + " ".join(mark(r, c) for c in range(N))).rstrip() for r in range(N)]
        left = f"blockers left: x {BLOCKERS - int(s[5])}, o {BLOCKERS - int(s[6])}"
        return "\n".join([*rows, "  " + " ".join(_COLUMNS), left]) + "\n"

    def action_squares(self, s, action):
        action = int(action)
        return (None, None) if action >= CELLS else (None, divmod(action, N))  # a blocker is nobody's piece

    def action_to_string(self, s, action):
        action = int(action)
        return _name(action % CELLS) + ("w" if action >= CELLS else "")

    def string_to_action(self, s, text):
        t = text.strip().lower()
        block = t.endswith("w")
        cell = t[:-1] if block else t
        if len(cell) == 2 and cell[0] in _COLUMNS and cell[1] in "1234567":
            c = (int(cell[1]) - 1) * N + _COLUMNS.index(cell[0])
            if (int(BOARD) >> c) & 1:
                return c + (CELLS if block else 0)
        raise ValueError(
            f"bad quad action {text!r}: a cell to mark, column a-g and row 1-7 (not a corner), e.g. 'd4', or a cell "
            "and w to put a blocker there, e.g. 'd4w'"
        )

    def symmetry_maps(self):
        squares = square_symmetries(N)
        maps = []
        for transform, perm in squares:
            full = np.concatenate([perm, perm + CELLS])  # a block moves with its cell
            maps.append((transform, full))
        return maps
