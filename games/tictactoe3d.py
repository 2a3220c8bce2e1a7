"""3D Tic-Tac-Toe on a 4x4x4 cube (Qubic), the GGP game SA-MCTS played (issue 35).

Rules from GGP's tictactoe_3d_2player.kif (ggp-org/ggp-repository, by Stephan Schiffel): x (player 0)
moves first and the players take turns marking any empty cell of the cube; four of one's own marks in a
line wins, along any of the kif's 13 directions (the three axes, the six diagonals of the planes, the four
of the cube), 76 lines in all; a full cube without one is a draw (50 each). OpenSpiel has no such game:
tests/test_tictactoe3d.py plays against a plain reading of the kif instead.
Layout: the four levels side by side, as the planes (4 rows x 16 columns) and the play page draw them:
level z (0-3) fills columns 4z to 4z + 3. Cell (x, y, z) is bit y * 16 + z * 4 + x, and that bit is its
action; names are the column a-p and the row 1-4 from the top ("f2": level 2, x = 1, y = 1).
State array: [player-0 marks, player-1 marks, player to move, status (games.kernels), plies].
"""

import itertools

import numpy as np

from games.game import Game, bitboard_planes
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

N = 4
ROWS, COLS = N, N * N
_U1 = np.uint64(1)
_FULL = np.uint64(0xFFFFFFFFFFFFFFFF)


def bit(x: int, y: int, z: int) -> int:
    return y * COLS + z * N + x


def _lines() -> list[list[int]]:
    """The 76 lines of four cells: from each cell, a step in each of the 13 directions, where it stays inside."""
    directions = [d for d in itertools.product((-1, 0, 1), repeat=3) if d > (0, 0, 0)]  # one of each +-pair
    out = []
    for x, y, z in itertools.product(range(N), repeat=3):
        for dx, dy, dz in directions:
            cells = [(x + k * dx, y + k * dy, z + k * dz) for k in range(N)]
            if all(0 <= c < N for cell in cells for c in cell):
                out.append([bit(*cell) for cell in cells])
    return out


def _lines_at() -> tuple[np.ndarray, np.ndarray]:
    """For each cell, the masks of the lines through it (padded) and how many there are (4 to 7)."""
    lines = _lines()
    masks = np.zeros((N**3, 7), dtype=np.uint64)
    counts = np.zeros(N**3, dtype=np.int64)
    for line in lines:
        mask = np.uint64(sum(1 << b for b in line))
        for b in line:
            masks[b, counts[b]] = mask
            counts[b] += 1
    return masks, counts


LINE_MASKS, LINE_COUNTS = _lines_at()


@kernel
def init(s):
    s[:] = 0


@kernel
def apply(s, action):
    p = s[2]
    s[p] |= _U1 << np.uint64(action)
    s[2] = _U1 - p
    s[4] += _U1
    b = s[p]
    for k in range(LINE_COUNTS[action]):  # only a line through the new mark can be new
        line = LINE_MASKS[action, k]
        if b & line == line:
            s[3] = p + _U1
            return
    if s[0] | s[1] == _FULL:
        s[3] = np.uint64(3)


@kernel
def encode(s, out, row):
    """Planes square (r, c) is bit r * 16 + c, as in `planes`."""
    encode_planes(s, out, row, ROWS, COLS, 0, COLS, 1)


KERNELS = GameKernels(
    init, empty_squares, apply, status_terminal, status_winner, status_returns, status_to_move, encode
)
_COLUMNS = "abcdefghijklmnop"


def _cube_maps() -> list[np.ndarray]:
    """The cube's 48 symmetries (its axes permuted, each flipped or not) as permutations of the 64 cells,
    the identity first."""
    out = []
    for axes in itertools.permutations(range(3)):
        for flips in itertools.product((False, True), repeat=3):
            perm = np.empty(N**3, dtype=np.int64)
            for cell in itertools.product(range(N), repeat=3):
                image = [cell[a] for a in axes]
                image = [N - 1 - v if f else v for v, f in zip(image, flips)]
                perm[bit(*cell)] = bit(*image)
            out.append(perm)
    return out


class TicTacToe3D(Game):
    name = "tictactoe3d"
    kernels = KERNELS
    state_size = 5
    max_legal = N**3
    num_actions = N**3
    board_shape = (ROWS, COLS)
    max_game_length = N**3
    own_moves = 12  # measured: SP self-play at 1000 simulations lasts 23.9 plies on average (20 games, none drawn)
    intra_moves = 32  # one player's share of the longest game
    evaluations = {}  # none in the papers

    def planes(self, s):
        return bitboard_planes(s, ROWS, COLS)

    def render(self, s):
        p0, p1 = self.planes(s)
        x, o = self.symbols
        head = "  " + "   ".join(" ".join(_COLUMNS[N * z : N * z + N]) for z in range(N))
        rows = [
            f"{r + 1} "
            + "   ".join(
                " ".join(x if p0[r, c] else o if p1[r, c] else "." for c in range(N * z, N * z + N)) for z in range(N)
            )
            for r in range(ROWS)
        ]
        return "\n".join([head, *rows]) + "\n"

    def action_squares(self, s, action):
        return None, divmod(int(action), COLS)

    def action_to_string(self, s, action):
        r, c = divmod(int(action), COLS)
        return f"{_COLUMNS[c]}{r + 1}"

    def string_to_action(self, s, text):
        t = text.strip().lower()
        if len(t) != 2 or t[0] not in _COLUMNS or t[1] not in "1234":
            raise ValueError(
                f"bad tictactoe3d action {text!r}: write a cell, column a-p (levels 1-4 side by side, four columns "
                "each) and row 1-4 from the top, e.g. 'f2'"
            )
        return (int(t[1]) - 1) * COLS + _COLUMNS.index(t[0])

    def symmetry_maps(self):
        maps = []
        for perm in _cube_maps():
            inverse = np.empty_like(perm)
            inverse[perm] = np.arange(len(perm))

            def transform(planes, inverse=inverse):
                flat = planes.reshape(*planes.shape[:-2], ROWS * COLS)
                return flat[..., inverse].reshape(planes.shape)

            maps.append((transform, perm))
        return maps
