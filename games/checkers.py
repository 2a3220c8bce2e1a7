"""Checkers on 8x8 as GGP's checkers.kif has it, the game SA-MCTS played (issue 35).

Rules from GGP's checkers.kif (ggp-org/ggp-repository, games/checkers, revision of 5/31/06 by Nat Love), every
one of them from that file:
- White (player 0) moves first, from the dark squares of ranks 1-3 (a2, b1, b3, ...: file + rank odd); black
  from ranks 6-8. A man steps or jumps diagonally forward only (white up the board), a king either way.
- A turn is one step onto an empty square, or a jump over an opposing piece onto the empty square behind it,
  or two or three such jumps in a row with the same piece (`doublejump`, `triplejump`); a jump never
  returns to the square it came from. Capturing is never forced, and a player may stop after any jump.
  No turn takes more than three jumps.
- A man that ends its turn on the far rank becomes a king (one reaching it mid-turn cannot jump on: men
  jump forward only).
- The game ends when the player to move has no move, when a side has no pieces, or after 101 moves (the
  kif's `step` reaching 102). Then the side with more pieces wins (kings count as men), equal counts
  draw: a player left without a move is not beaten for it.
OpenSpiel's `checkers` differs in all but the geometry: capturing is forced there, a multi-jump is played to its
end one jump per action, a player without a move loses, games last up to 1,000 plies, and player 0 starts on
a1-h3 with a1 dark. So no differential test against it could agree move for move: tests/test_checkers.py
plays against a plain reading of the kif.
Squares are named file a-h, rank 1-8 (rank 8 at the top, black's side); a move names its squares ("b3c4",
"b3d5f7"). Action = dark square * 88 + code, dark square = row * 4 + column // 2 (row 0 is rank 8); codes
0-3 a step in direction d, then for each first jump direction d1 a block of 21: the jump, then for each d2
the double jump followed by its four triple jumps (`_code`), so that a piece's moves come in action order.
Directions as in Sheep and Wolf: 0 up-left, 1 up-right, 2 down-left, 3 down-right (up: toward rank 8).
State array: [white, black, player to move, status (games.kernels), plies, kings], bitboards square r * 8 + c.
"""

import numpy as np

from games.bits import lowest_bit_index, popcount
from games.game import Game, bitboard_planes
from games.jit import kernel
from games.kernels import GameKernels, encode_planes, status_returns, status_terminal, status_to_move, status_winner

N = 8
STEPS = ((-1, -1), (-1, 1), (1, -1), (1, 1))  # (row, column) of each direction; row -1 is up, toward rank 8
CODES = 88  # 4 steps + 4 first jumps x (1 + 4 second jumps x (1 + 4 third jumps))
LIMIT = 101  # moves: the kif's step counts from 1 and the game ends at 102
KINGS = 5
_U1 = np.uint64(1)
_ZERO = np.uint64(0)
_FILES = "abcdefgh"


def _tables():
    """[64, 4] squares a step and a jump in each direction reach (-1 off the board), and the 32 dark squares."""
    step = np.full((N * N, 4), -1, dtype=np.int64)
    jump = np.full((N * N, 4), -1, dtype=np.int64)
    for square in range(N * N):
        r, c = divmod(square, N)
        for d, (dr, dc) in enumerate(STEPS):
            if 0 <= r + dr < N and 0 <= c + dc < N:
                step[square, d] = (r + dr) * N + c + dc
            if 0 <= r + 2 * dr < N and 0 <= c + 2 * dc < N:
                jump[square, d] = (r + 2 * dr) * N + c + 2 * dc
    dark = np.array([r * N + c for r in range(N) for c in range(N) if (r + c) % 2 == 0], dtype=np.int64)
    return step, jump, dark


TARGETS, JUMPS, DARK = _tables()
# white men on the dark squares of ranks 1-3 (rows 5-7), black's on ranks 6-8 (rows 0-2)
_WHITE = np.uint64(sum(1 << int(sq) for sq in DARK if sq // N >= 5))
_BLACK = np.uint64(sum(1 << int(sq) for sq in DARK if sq // N <= 2))
_RANK_8, _RANK_1 = np.uint64(0xFF), np.uint64(0xFF << 56)  # where white's men, and black's, become kings


@kernel
def init(s):
    s[:] = 0
    s[0] = _WHITE
    s[1] = _BLACK


@kernel(inline="always")
def _code(d1, d2, d3):
    """The code of a jump in direction d1, then d2 (-1: none), then d3 (-1: none)."""
    code = 4 + 21 * d1
    if d2 >= 0:
        code += 1 + 5 * d2
        if d3 >= 0:
            code += 1 + d3
    return code


@kernel(inline="always")
def _allowed(king, p, d):
    """Whether a piece moves in direction d: a king any way, a white man up (0, 1), a black man down (2, 3)."""
    return king or (d < 2) == (p == 0)


@kernel(inline="always")
def _jump_to(opp, empty, square, d):
    """The square a jump from `square` in direction d lands on, or -1 where none is possible."""
    over, to = TARGETS[square, d], JUMPS[square, d]
    if to >= 0 and (opp >> np.uint64(over)) & _U1 and (empty >> np.uint64(to)) & _U1:
        return to
    return -1


@kernel
def legal(s, out):
    p = s[2]
    opp = s[_U1 - p]
    empty = ~(s[0] | s[1])
    pieces = s[p]
    n = 0
    while pieces:
        square = lowest_bit_index(pieces)
        pieces &= pieces - _U1
        king = (s[KINGS] >> np.uint64(square)) & _U1 != _ZERO
        base = (square // 2) * CODES  # the dark square's index times the codes per square
        for d in range(4):
            to = TARGETS[square, d]
            if _allowed(king, p, d) and to >= 0 and (empty >> np.uint64(to)) & _U1:
                out[n] = base + d
                n += 1
        for d1 in range(4):
            x1 = _jump_to(opp, empty, square, d1) if _allowed(king, p, d1) else -1
            if x1 < 0:
                continue
            out[n] = base + _code(d1, -1, -1)
            n += 1
            for d2 in range(4):
                x2 = _jump_to(opp, empty, x1, d2) if _allowed(king, p, d2) and d2 != 3 - d1 else -1
                if x2 < 0:
                    continue
                out[n] = base + _code(d1, d2, -1)
                n += 1
                for d3 in range(4):
                    if _allowed(king, p, d3) and d3 != 3 - d2 and _jump_to(opp, empty, x2, d3) >= 0:
                        out[n] = base + _code(d1, d2, d3)
                        n += 1
    return n


@kernel(inline="always")
def _can_move(s, p):
    """Whether player p has a move: a step or a jump (a longer jump starts with one)."""
    opp = s[_U1 - p]
    empty = ~(s[0] | s[1])
    pieces = s[p]
    while pieces:
        square = lowest_bit_index(pieces)
        pieces &= pieces - _U1
        king = (s[KINGS] >> np.uint64(square)) & _U1 != _ZERO
        for d in range(4):
            if _allowed(king, p, d):
                to = TARGETS[square, d]
                if to >= 0 and ((empty >> np.uint64(to)) & _U1 or _jump_to(opp, empty, square, d) >= 0):
                    return True
    return False


@kernel
def apply(s, action):
    p = s[2]
    q = _U1 - p
    square = DARK[action // CODES]
    code = action % CODES
    captured = _ZERO
    if code < 4:
        to = TARGETS[square, code]
    else:
        k = code - 4
        d1, rest = k // 21, k % 21
        to = JUMPS[square, d1]
        captured |= _U1 << np.uint64(TARGETS[square, d1])
        if rest > 0:
            d2, d3 = (rest - 1) // 5, (rest - 1) % 5 - 1
            captured |= _U1 << np.uint64(TARGETS[to, d2])
            to = JUMPS[to, d2]
            if d3 >= 0:
                captured |= _U1 << np.uint64(TARGETS[to, d3])
                to = JUMPS[to, d3]
    frm_bit, to_bit = _U1 << np.uint64(square), _U1 << np.uint64(to)
    s[p] ^= frm_bit | to_bit
    if s[KINGS] & frm_bit or to_bit & (_RANK_8 if p == _ZERO else _RANK_1):
        s[KINGS] = (s[KINGS] & ~frm_bit) | to_bit
    s[q] &= ~captured
    s[KINGS] &= ~captured
    s[2] = q
    s[4] += _U1
    if s[4] >= np.uint64(LIMIT) or not _can_move(s, q):  # no pieces: no move
        white, black = popcount(s[0]), popcount(s[1])
        s[3] = np.uint64(1) if white > black else np.uint64(2) if black > white else np.uint64(3)


@kernel
def encode(s, out, row):
    """Planes square (r, c) is bit r * 8 + c, as in `planes` (kings look like men there)."""
    encode_planes(s, out, row, N, N, 0, N, 1)


KERNELS = GameKernels(init, legal, apply, status_terminal, status_winner, status_returns, status_to_move, encode)


def _name(square: int) -> str:
    r, c = divmod(square, N)
    return f"{_FILES[c]}{N - r}"


def _path(action: int) -> list[int]:
    """The squares a move visits: where it starts, then where each step or jump lands."""
    square = int(DARK[action // CODES])
    code = action % CODES
    if code < 4:
        return [square, int(TARGETS[square, code])]
    k = code - 4
    d1, rest = divmod(k, 21)
    directions = [d1] if rest == 0 else [d1, (rest - 1) // 5] + ([(rest - 1) % 5 - 1] if (rest - 1) % 5 else [])
    path = [square]
    for d in directions:
        path.append(int(JUMPS[path[-1], d]))
    return path


class Checkers(Game):
    name = "checkers"
    kernels = KERNELS
    state_size = 6
    # a bound, not a count: 12 pieces x (4 steps + 4 jumps + 12 double + 36 triple jumps of a king)
    max_legal = 12 * 56
    num_actions = 32 * CODES
    board_shape = (N, N)
    max_game_length = LIMIT
    own_moves = 46  # measured: SP self-play at 1000 simulations lasts 91.7 plies on average (20 games; 35 to 101)
    intra_moves = 50  # black's share of the longest game (white's is 51)
    evaluations = {}  # none in the papers
    symbols = ("w", "b")  # men; kings drawn in capitals
    drawn = False  # the play page would need kings and a jump's path to draw it: it shows `render` and a move list

    def planes(self, s):
        return bitboard_planes(s, N, N)

    def render(self, s):
        white, black = self.planes(s)
        kings = ((s[KINGS] >> np.arange(N * N, dtype=np.uint64)) & np.uint64(1)).astype(bool).reshape(N, N)

        def cell(r, c):
            symbol = "w" if white[r, c] else "b" if black[r, c] else "."
            return symbol.upper() if kings[r, c] else symbol

        rows = [f"{N - r} " + " ".join(cell(r, c) for c in range(N)) for r in range(N)]
        return "\n".join([*rows, "  " + " ".join(_FILES)]) + "\n"

    def action_squares(self, s, action):
        path = _path(int(action))
        return divmod(path[0], N), divmod(path[-1], N)

    def action_to_string(self, s, action):
        return "".join(_name(square) for square in _path(int(action)))

    def string_to_action(self, s, text):
        t = text.strip().lower()
        squares = [t[i : i + 2] for i in range(0, len(t), 2)]
        ok = len(t) % 2 == 0 and 2 <= len(squares) <= 4
        ok = ok and all(sq[0] in _FILES and sq[1] in "12345678" for sq in squares)
        if ok:
            path = [(N - int(sq[1])) * N + _FILES.index(sq[0]) for sq in squares]
            moves = [(b // N - a // N, b % N - a % N) for a, b in zip(path, path[1:])]
            base = path[0] // 2 * CODES
            if (path[0] // N + path[0] % N) % 2 == 0:  # a dark square
                if len(moves) == 1 and moves[0] in STEPS:
                    return int(base + STEPS.index(moves[0]))
                if all(abs(dr) == 2 and abs(dc) == 2 for dr, dc in moves):
                    d = [STEPS.index((dr // 2, dc // 2)) for dr, dc in moves] + [-1, -1]
                    return int(base + _code(d[0], d[1], d[2]))
        raise ValueError(
            f"bad checkers action {text!r}: write the squares a piece visits, e.g. 'b3c4' for a step or "
            "'b3d5f7' for a double jump (dark squares, one step or up to three jumps diagonally)"
        )

    def symmetry_maps(self):
        return [(lambda x: x, np.arange(self.num_actions))]  # the start (a1 light, h1 dark) has no mirror image
