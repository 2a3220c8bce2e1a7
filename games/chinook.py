"""Chinook, GGP's chinook.kif (the game SA-MCTS played), with its simultaneous moves taken in turn.

The kif: two games of a checkers variant on one 8x8 board, one on the "odd" squares (a1, b2, ...) and one on the
"even" ones (b1, a2, ...). White starts on ranks 1 and 2 but a2 and h2, black on ranks 7 and 8 but a7 and h7: seven
men each on each board. A man steps diagonally forward to an empty square, or jumps diagonally forward over an
opposing man, which it captures, to an empty square; one jump at most, capturing never forced, no kings. The files
wrap round (h is next to a); the ranks do not. Every step both players move at once, each on one board: white on the
odd board and black on the even one, then the other way round, alternating; the player of a board may always pass
there instead (the kif's noop). The game ends when a man reaches the far rank (rank 8 for white, 1 for black) or after
40 steps; a player scores 100 with a man on its far rank, else 0, so both reaching it in the same step, or neither
in 40 steps, is a draw.

Taken in turn (a `Game` is sequential): each step is two plies, white's move on its board and then black's on the
other; the game is judged after black's, as the kif judges a step. The boards never share a man and each player
moves on its own, so the moves and results are the kif's; what differs is that black chooses knowing white's move of
the same step (in the kif neither sees the other's). Searches that model simultaneous moves (decoupled UCT, as
SA-MCTS's GGP agents) are not built here.
Bitboards: bit row * 8 + column, row 0 the top of the drawing (rank 8). Action = square * 4 + kind (0, 1: a step to
the file on the left or right, 2, 3: a jump), forward for the player to move; 256 the pass. State array:
[white men, black men, player to move, status (games.kernels), plies].
"""

import numpy as np

from games.bits import lowest_bit_index
from games.game import Game, bitboard_planes
from games.jit import kernel
from games.kernels import GameKernels, encode_planes, status_returns, status_terminal, status_to_move, status_winner

N = 8
PASS = N * N * 4
STEPS = 40
_U1 = np.uint64(1)
FILES = "abcdefgh"


def _targets() -> np.ndarray:
    """[player, square, kind]: the square a step (kinds 0, 1) or a jump (2, 3) lands on, -1 off the board; and for a
    jump the square jumped, at kind + 2 (so [p, sq, 0/1] is also the square a jump over the file's side crosses)."""
    out = np.full((2, N * N, 4), -1, dtype=np.int64)
    for p, forward in enumerate((-1, 1)):  # white up the drawing, black down
        for sq in range(N * N):
            r, c = divmod(sq, N)
            for side, dc in enumerate((-1, 1)):
                for k, dist in ((side, 1), (side + 2, 2)):
                    r2 = r + forward * dist
                    if 0 <= r2 < N:
                        out[p, sq, k] = r2 * N + (c + dc * dist) % N
    return out


TARGET = _targets()
ODD = np.uint64(sum(1 << (r * N + c) for r in range(N) for c in range(N) if (c + N - 1 - r) % 2 == 0))  # a1's board
BOARDS = np.array([ODD, ~ODD], dtype=np.uint64)
GOAL = np.array([0xFF, 0xFF << (8 * (N - 1))], dtype=np.uint64)  # rank 8 for white, rank 1 for black
WHITE = (0xFFFF & ~((1 << 0) | (1 << 7))) << (8 * (N - 2))  # ranks 2 (row 6) but a2 and h2, and 1 (row 7)
BLACK = 0xFF | (0xFF00 & ~((1 << 8) | (1 << 15)))  # rank 8 (row 0), and 7 (row 1) but a7 and h7


@kernel
def init(s):
    s[:] = 0
    s[0] = np.uint64(WHITE)
    s[1] = np.uint64(BLACK)


@kernel(inline="always")
def _board(s):
    """The board the player to move plays this step: white the odd one on even steps (counting from 0)."""
    return BOARDS[(np.int64(s[4]) // 2 + np.int64(s[2])) % 2]


@kernel
def legal(s, out):
    p = np.int64(s[2])
    board = _board(s)
    own, opp = s[p] & board, s[1 - p] & board
    empty = ~(s[0] | s[1])
    n = 0
    while own:
        sq = lowest_bit_index(own)
        own &= own - _U1
        for side in range(2):
            to = TARGET[p, sq, side]
            if to < 0:
                continue
            if empty & (_U1 << np.uint64(to)):
                out[n] = sq * 4 + side
                n += 1
            else:
                to2 = TARGET[p, sq, side + 2]
                if to2 >= 0 and opp & (_U1 << np.uint64(to)) and empty & (_U1 << np.uint64(to2)):
                    out[n] = sq * 4 + side + 2
                    n += 1
    out[n] = PASS
    return n + 1


@kernel
def apply(s, action):
    p = np.int64(s[2])
    if action != PASS:
        sq, kind = action // 4, action % 4
        to = TARGET[p, sq, kind]
        s[p] ^= (_U1 << np.uint64(sq)) | (_U1 << np.uint64(to))
        if kind >= 2:
            s[1 - p] &= ~(_U1 << np.uint64(TARGET[p, sq, kind - 2]))
    s[4] += _U1
    s[2] = _U1 - s[2]
    if p == 1:  # the step is over: judge it
        white, black = s[0] & GOAL[0] != 0, s[1] & GOAL[1] != 0
        if white and black:
            s[3] = 3
        elif white:
            s[3] = 1
        elif black:
            s[3] = 2
        elif s[4] == np.uint64(2 * STEPS):
            s[3] = 3


@kernel
def encode(s, out, row):
    """Planes square (r, c) is bit r * 8 + c, as in `planes`."""
    encode_planes(s, out, row, N, N, 0, N, 1)


KERNELS = GameKernels(init, legal, apply, status_terminal, status_winner, status_returns, status_to_move, encode)


class Chinook(Game):
    name = "chinook"
    kernels = KERNELS
    state_size = 5
    max_legal = 7 * 2 + 1  # seven men on the board played, each one step or jump to either side, and the pass
    num_actions = PASS + 1
    board_shape = (N, N)
    max_game_length = 2 * STEPS
    own_moves = 27  # measured: SP self-play at 1000 simulations lasts 53.0 plies on average (20 games; 32 to 78)
    intra_moves = STEPS  # one player's share of the longest game
    evaluations = {}  # none in the papers
    symbols = ("w", "b")  # white moves first, from ranks 1 and 2
    drawn = False  # a page would need the two boards told apart: it shows `render` and a move list

    def planes(self, s):
        return bitboard_planes(s, N, N)

    def render(self, s):
        p0, p1 = self.planes(s)
        x, o = self.symbols
        lines = [f"{N - r} " + "".join(x if p0[r, c] else o if p1[r, c] else "." for c in range(N)) for r in range(N)]
        board = ("odd (a1)", "even (b1)")[(int(s[4]) // 2 + int(s[2])) % 2]
        step = f"step {int(s[4]) // 2 + 1}: the player to move plays the {board} board"
        return "\n".join([*lines, "  " + FILES, step]) + "\n"

    def action_squares(self, s, action):
        action = int(action)
        if action == PASS:
            return None, None
        sq, kind = divmod(action, 4)
        return divmod(sq, N), divmod(int(TARGET[int(s[2]), sq, kind]), N)

    def action_to_string(self, s, action):
        if int(action) == PASS:
            return "pass"
        (r, c), (r2, c2) = self.action_squares(s, action)
        return f"{FILES[c]}{N - r}{FILES[c2]}{N - r2}"

    def string_to_action(self, s, text):
        t = text.strip().lower()
        if t in ("pass", "noop"):
            return PASS
        hint = f"bad chinook action {text!r}: from-square and to-square of a step or jump, e.g. 'b2c3', or 'pass'"
        if len(t) != 4 or t[0] not in FILES or t[2] not in FILES or not (t[1] in "12345678" and t[3] in "12345678"):
            raise ValueError(hint)
        sq, to = (N - int(t[1])) * N + FILES.index(t[0]), (N - int(t[3])) * N + FILES.index(t[2])
        for kind in range(4):
            if TARGET[int(s[2]), sq, kind] == to:
                return sq * 4 + kind
        raise ValueError(hint + " (a man of the player to move goes forward, one or two ranks)")

    def symmetry_maps(self):
        """The files wrap round, so every shift of them, mirrored or not, maps the board onto itself; those that
        keep each board's squares on that board (even shifts; mirrors with an odd shift) are symmetries: 8 in all."""
        maps = []
        for mirror in (False, True):
            for shift in range(1 if mirror else 0, N, 2):
                perm = np.empty(self.num_actions, dtype=np.int64)
                perm[PASS] = PASS
                for a in range(PASS):
                    sq, kind = divmod(a, 4)
                    r, c = divmod(sq, N)
                    c2 = ((N - 1 - c) if mirror else c) + shift
                    perm[a] = (r * N + c2 % N) * 4 + (kind ^ 1 if mirror else kind)

                def transform(x, mirror=mirror, shift=shift):
                    return np.roll(x[..., ::-1] if mirror else x, shift, axis=-1)

                maps.append((transform, perm))
        return maps
