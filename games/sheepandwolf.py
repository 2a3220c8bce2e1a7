"""Sheep and Wolf on 8x8, the GGP game SA-MCTS played (issue 35).

Rules from GGP's sheepAndWolf.kif (ggp-org/ggp-repository, games/sheepAndWolf): the wolf (player 0) starts
on d8 and moves first; four sheep start on a1, c1, e1 and g1. A turn moves one piece one square
diagonally onto an empty square: a sheep only up the board (to rank + 1), the wolf either way; nothing
is ever captured. The game ends once the wolf is level with or past every sheep (no sheep on a lower rank
than the wolf), or when either side cannot move (checked after every move, whoever is to move next), and
then the wolf wins exactly when it can still move: the sheep win by shutting it in, and a wolf that gets
through or outlasts the sheep wins. No draws. OpenSpiel has no such game: tests/test_sheepandwolf.py
plays against a plain reading of the kif.
Squares are named file a-h and rank 1-8 (rank 8 at the top, the wolf's side), moves from-to ("d8c7").
Action = square * 4 + direction, square = (8 - rank) * 8 + file index (0 at a8), direction 0 up-left,
1 up-right, 2 down-left, 3 down-right ("up" is toward rank 8, the sheep's way).
Bitboards: the wolf's square in s[0], the sheep's in s[1]. State array: [wolf, sheep, player to move,
status (games.kernels), plies].
"""

import numpy as np

from games.bits import lowest_bit_index
from games.game import Game, bitboard_planes
from games.jit import kernel
from games.kernels import GameKernels, encode_planes, status_returns, status_terminal, status_to_move, status_winner

N = 8
STEPS = ((-1, -1), (-1, 1), (1, -1), (1, 1))  # (row, column) of each direction; row -1 is up, toward rank 8
_U1 = np.uint64(1)
_ZERO = np.uint64(0)
_FILES = "abcdefgh"


def _targets() -> np.ndarray:
    """[64, 4]: the square a step in each direction reaches, or -1 off the board."""
    out = np.full((N * N, 4), -1, dtype=np.int64)
    for square in range(N * N):
        r, c = divmod(square, N)
        for d, (dr, dc) in enumerate(STEPS):
            if 0 <= r + dr < N and 0 <= c + dc < N:
                out[square, d] = (r + dr) * N + c + dc
    return out


TARGETS = _targets()
_WOLF = np.uint64(1 << 3)  # d8
_SHEEP = np.uint64(sum(1 << (7 * N + c) for c in (0, 2, 4, 6)))  # a1, c1, e1, g1


@kernel
def init(s):
    s[:] = 0
    s[0] = _WOLF
    s[1] = _SHEEP


@kernel
def legal(s, out):
    p = s[2]
    empty = ~(s[0] | s[1])
    pieces = s[p]
    directions = 4 if p == 0 else 2  # the wolf steps either way, a sheep only up
    n = 0
    while pieces:
        square = lowest_bit_index(pieces)
        pieces &= pieces - _U1
        for d in range(directions):
            to = TARGETS[square, d]
            if to >= 0 and (empty >> np.uint64(to)) & _U1:
                out[n] = square * 4 + d
                n += 1
    return n


@kernel(inline="always")
def _can_move(s, player):
    empty = ~(s[0] | s[1])
    pieces = s[player]
    directions = 4 if player == 0 else 2
    while pieces:
        square = lowest_bit_index(pieces)
        pieces &= pieces - _U1
        for d in range(directions):
            to = TARGETS[square, d]
            if to >= 0 and (empty >> np.uint64(to)) & _U1:
                return True
    return False


@kernel
def apply(s, action):
    p = s[2]
    square, d = action // 4, action % 4
    s[p] ^= (_U1 << np.uint64(square)) | (_U1 << np.uint64(TARGETS[square, d]))
    s[2] = _U1 - p
    s[4] += _U1
    wolf_row = lowest_bit_index(s[0]) // N
    # no sheep on a row below the wolf's (on the last row, none can be: a shift by 64 would be undefined)
    behind = wolf_row == N - 1 or s[1] >> np.uint64((wolf_row + 1) * N) == _ZERO
    wolf_free = _can_move(s, 0)
    if behind or not wolf_free or not _can_move(s, 1):
        s[3] = np.uint64(1) if wolf_free else np.uint64(2)


@kernel
def encode(s, out, row):
    """Planes square (r, c) is bit r * 8 + c, as in `planes`."""
    encode_planes(s, out, row, N, N, 0, N, 1)


KERNELS = GameKernels(init, legal, apply, status_terminal, status_winner, status_returns, status_to_move, encode)


def _name(square: int) -> str:
    r, c = divmod(square, N)
    return f"{_FILES[c]}{N - r}"


class SheepAndWolf(Game):
    name = "sheepandwolf"
    kernels = KERNELS
    state_size = 5
    max_legal = 8  # the wolf's 4 moves, or 2 for each of the 4 sheep
    num_actions = N * N * 4
    board_shape = (N, N)
    max_game_length = 57  # the sheep have 28 steps between them, each after one of the wolf's
    own_moves = 14  # measured: SP self-play at 1000 simulations lasts 28.8 plies on average (20 games; wolf won 19)
    intra_moves = 28  # one player's share of the longest game
    evaluations = {}  # none in the papers
    symbols = ("W", "s")  # the wolf, the sheep

    def planes(self, s):
        return bitboard_planes(s, N, N)

    def render(self, s):
        wolf, sheep = self.planes(s)
        w, sh = self.symbols
        rows = [
            f"{N - r} " + " ".join(w if wolf[r, c] else sh if sheep[r, c] else "." for c in range(N)) for r in range(N)
        ]
        return "\n".join([*rows, "  " + " ".join(_FILES)]) + "\n"

    def action_squares(self, s, action):
        square, d = divmod(int(action), 4)
        return divmod(square, N), divmod(int(TARGETS[square, d]), N)

    def action_to_string(self, s, action):
        square, d = divmod(int(action), 4)
        return _name(square) + _name(int(TARGETS[square, d]))

    def string_to_action(self, s, text):
        t = text.strip().lower()
        ok = len(t) == 4 and t[0] in _FILES and t[2] in _FILES and t[1] in "12345678" and t[3] in "12345678"
        if ok:
            frm = (N - int(t[1])) * N + _FILES.index(t[0])
            to = (N - int(t[3])) * N + _FILES.index(t[2])
            for d in range(4):
                if TARGETS[frm, d] == to:
                    return frm * 4 + d
        raise ValueError(
            f"bad sheepandwolf action {text!r}: write a piece's square and the square one step diagonally from it, "
            "e.g. 'd8c7' (the wolf steps either way, a sheep only up the board)"
        )

    def symmetry_maps(self):
        return [(lambda x: x, np.arange(self.num_actions))]  # the sheep's start, a1 c1 e1 g1, has no mirror image
