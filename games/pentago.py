"""Pentago on 6x6, with OpenSpiel's rules and action encoding (issue 35).

A move places a marble on an empty square and then turns one of the four 3x3 quadrants a quarter turn,
clockwise or counter-clockwise (the turn is part of every move). The game is checked after the turn only:
five in a row of one colour (row, column or diagonal) wins; five of both colours at once is a draw, as is
a full board with neither. Player 0 ("O" in OpenSpiel's drawing, "x" here) moves first.
Action = (row * 6 + column) * 8 + turn, turn = quadrant * 2 + direction; quadrants 0-3 are the top-left,
top-right, bottom-right and bottom-left ones, direction 0 is counter-clockwise and 1 clockwise; names
are OpenSpiel's: column a-f, row 1-6 from the top, turn s-z ("a1s").
Source of the rules: OpenSpiel's pentago (open_spiel/games/pentago), which tests/test_openspiel_diff.py
plays against move for move. The GGP description (ggp-org/ggp-repository, games/pentago/pentago.kif), the
kind SA-MCTS played, differs in three ways; `pentago` follows OpenSpiel, `pentago_ggp` (PentagoGGP) the
kif: placing and turning are two moves of the same player there (a search sees up to 36 then 8 choices, not
288); a five counts as soon as it stands, also right after the marble; and a full board ends the game before
its last turn. Both agree that both
fives at once are a draw and that a turn which completes only the opponent's five loses. The commercial
rules, like GGP's, also win before the turn.
Bitboards: bit row * 6 + column. State array: [player-0 marbles, player-1 marbles, player to move,
status (games.kernels), plies] (and pentago_ggp's: whether the marble is down).
"""

import numpy as np

from games.bits import lowest_bit_index
from games.game import Game, bitboard_planes
from games.jit import kernel
from games.kernels import GameKernels, encode_planes, status_returns, status_terminal, status_to_move, status_winner

N = 6
TURNS = 8
_U1 = np.uint64(1)
_CORNERS = ((0, 0), (0, 3), (3, 3), (3, 0))  # the top-left square of quadrants 0-3


def _bit(r, c):
    return r * N + c


def _turn_table() -> np.ndarray:
    """[direction, 512]: a quadrant's 9 squares as 9 bits (bit 3 i + j for its square (i, j)) after a quarter
    turn: counter-clockwise, square (i, j) takes (j, 2 - i); clockwise, (2 - j, i)."""
    table = np.zeros((2, 512), dtype=np.uint64)
    for cells in range(512):
        for k in range(9):
            i, j = divmod(k, 3)
            for direction, (a, b) in enumerate(((j, 2 - i), (2 - j, i))):
                if cells >> (3 * a + b) & 1:
                    table[direction, cells] |= np.uint64(1 << k)
    return table


def _lines() -> np.ndarray:
    """The 32 lines of five squares: 12 in rows, 12 in columns, 8 on diagonals."""
    lines = []
    for dr, dc in ((0, 1), (1, 0), (1, 1), (1, -1)):
        for r in range(N):
            for c in range(N):
                cells = [(r + k * dr, c + k * dc) for k in range(5)]
                if all(0 <= a < N and 0 <= b < N for a, b in cells):
                    lines.append(sum(1 << _bit(a, b) for a, b in cells))
    return np.array(lines, dtype=np.uint64)


_TURN = _turn_table()
_BASE = np.array([_bit(r, c) for r, c in _CORNERS], dtype=np.uint64)  # each quadrant's top-left bit
_ROWS3 = np.uint64(0b111 | 0b111 << N | 0b111 << 2 * N)  # a quadrant's squares at its top-left bit
_LINES = _lines()
_FULL = np.uint64((1 << (N * N)) - 1)


@kernel
def init(s):
    s[:] = 0


@kernel
def legal(s, out):
    empty = ~(s[0] | s[1]) & _FULL
    n = 0
    while empty:
        first = lowest_bit_index(empty) * TURNS
        empty &= empty - _U1
        for turn in range(TURNS):
            out[n + turn] = first + turn
        n += TURNS
    return n


@kernel(inline="always")
def turned(b, quadrant, direction):
    """Bitboard `b` with `quadrant` turned a quarter in `direction`: its three rows of three bits read as one
    9-bit number, turned by table, written back."""
    base = _BASE[quadrant]
    q = b >> base
    cells = (
        (q & np.uint64(7))
        | ((q >> np.uint64(N - 3)) & np.uint64(0o70))
        | ((q >> np.uint64(2 * N - 6)) & np.uint64(0o700))
    )
    t = _TURN[direction, cells]
    back = (
        (t & np.uint64(7))
        | ((t & np.uint64(0o70)) << np.uint64(N - 3))
        | ((t & np.uint64(0o700)) << np.uint64(2 * N - 6))
    )
    return (b & ~(_ROWS3 << base)) | (back << base)


@kernel(inline="always")
def five(b):
    for line in _LINES:
        if b & line == line:
            return True
    return False


@kernel(inline="always")
def judge_fives(s):
    """After a turn: fives of both colours draw, a five of one colour wins; whether the game ended so."""
    won0, won1 = five(s[0]), five(s[1])
    if won0 and won1:
        s[3] = np.uint64(3)
    elif won0:
        s[3] = np.uint64(1)
    elif won1:
        s[3] = np.uint64(2)
    return won0 or won1


@kernel
def apply(s, action):
    p = s[2]
    square, turn = action // TURNS, action % TURNS
    s[p] |= _U1 << np.uint64(square)
    quadrant, direction = turn // 2, turn % 2
    s[0] = turned(s[0], quadrant, direction)
    s[1] = turned(s[1], quadrant, direction)
    s[4] += _U1
    s[2] = _U1 - p
    if s[4] < np.uint64(9):  # five marbles of one colour take nine plies
        return
    if not judge_fives(s) and s[4] == np.uint64(N * N):
        s[3] = np.uint64(3)


@kernel
def encode(s, out, row):
    """Planes square (r, c) is bit r * 6 + c, as in `planes`."""
    encode_planes(s, out, row, N, N, 0, N, 1)


KERNELS = GameKernels(init, legal, apply, status_terminal, status_winner, status_returns, status_to_move, encode)
PLACES = N * N  # the GGP variant's actions: a square 0-35, then a turn 36 + quadrant * 2 + direction


@kernel
def legal_ggp(s, out):
    """The empty squares, or, once the marble is down, the eight turns."""
    if s[5]:
        for turn in range(TURNS):
            out[turn] = PLACES + turn
        return TURNS
    empty = ~(s[0] | s[1]) & _FULL
    n = 0
    while empty:
        out[n] = lowest_bit_index(empty)
        empty &= empty - _U1
        n += 1
    return n


@kernel
def apply_ggp(s, action):
    """A marble (the game ends at once on its five or a full board), or the same player's turn (both fives
    are checked after it), then the other player."""
    p = s[2]
    s[4] += _U1
    if action < PLACES:
        s[p] |= _U1 << np.uint64(action)
        if five(s[p]):
            s[3] = p + _U1
        elif s[0] | s[1] == _FULL:
            s[3] = np.uint64(3)
        else:
            s[5] = _U1
        return
    quadrant, direction = (action - PLACES) // 2, (action - PLACES) % 2
    s[0] = turned(s[0], quadrant, direction)
    s[1] = turned(s[1], quadrant, direction)
    s[5] = 0
    s[2] = _U1 - p
    judge_fives(s)


GGP_KERNELS = GameKernels(
    init, legal_ggp, apply_ggp, status_terminal, status_winner, status_returns, status_to_move, encode
)
_NAMES = "stuvwxyz"


class Pentago(Game):
    name = "pentago"
    kernels = KERNELS
    state_size = 5
    max_legal = N * N * TURNS
    num_actions = N * N * TURNS
    board_shape = (N, N)
    max_game_length = N * N
    own_moves = 7  # measured: SP self-play at 1000 simulations lasts 13.1 plies on average (20 games; random: 28.3)
    intra_moves = 18  # one player's share of the longest game
    evaluations = {}  # none in the papers

    def planes(self, s):
        return bitboard_planes(s, N, N)

    def render(self, s):
        p0, p1 = self.planes(s)
        x, o = self.symbols
        rows = [f"{r + 1} " + " ".join(x if p0[r, c] else o if p1[r, c] else "." for c in range(N)) for r in range(N)]
        return "\n".join(["  a b c d e f", *rows]) + "\n"

    def action_squares(self, s, action):
        return None, divmod(int(action) // TURNS, N)

    def action_to_string(self, s, action):
        r, c = divmod(int(action) // TURNS, N)
        return f"{'abcdef'[c]}{r + 1}{_NAMES[int(action) % TURNS]}"

    def string_to_action(self, s, text):
        t = text.strip().lower()
        if len(t) != 3 or t[0] not in "abcdef" or t[1] not in "123456" or t[2] not in _NAMES:
            raise ValueError(
                f"bad pentago action {text!r}: write the square and the turn, e.g. 'c3s' (column a-f, row 1-6, "
                "turn s-z: s/t top-left, u/v top-right, w/x bottom-right, y/z bottom-left, counter-clockwise first)"
            )
        return ((int(t[1]) - 1) * N + "abcdef".index(t[0])) * TURNS + _NAMES.index(t[2])

    def symmetry_maps(self):
        """The board's 8 symmetries: a square goes where the transform puts it, a quadrant where its centre
        goes, and a reflection turns the other way."""
        transforms = [
            (lambda x: x, lambda r, c: (r, c), False),
            (lambda x: np.rot90(x, -1, axes=(-2, -1)), lambda r, c: (c, N - 1 - r), False),
            (lambda x: np.rot90(x, 2, axes=(-2, -1)), lambda r, c: (N - 1 - r, N - 1 - c), False),
            (lambda x: np.rot90(x, 1, axes=(-2, -1)), lambda r, c: (N - 1 - c, r), False),
            (lambda x: x[..., :, ::-1], lambda r, c: (r, N - 1 - c), True),
            (lambda x: x[..., ::-1, :], lambda r, c: (N - 1 - r, c), True),
            (lambda x: np.swapaxes(x, -2, -1), lambda r, c: (c, r), True),
            (lambda x: np.rot90(np.swapaxes(x, -2, -1), 2, axes=(-2, -1)), lambda r, c: (N - 1 - c, N - 1 - r), True),
        ]
        centres = [(r0 + 1, c0 + 1) for r0, c0 in _CORNERS]
        out = []
        for board, square, mirror in transforms:
            perm = np.empty(N * N * TURNS, dtype=np.int64)
            for a in range(N * N * TURNS):
                r, c = square(*divmod(a // TURNS, N))
                quadrant, direction = divmod(a % TURNS, 2)
                image = centres.index(square(*centres[quadrant]))
                perm[a] = (r * N + c) * TURNS + image * 2 + (1 - direction if mirror else direction)
            out.append((board, perm))
        return out


class PentagoGGP(Pentago):
    """Pentago as GGP's pentago.kif plays it, the version SA-MCTS played: a move is two moves of the same player, a
    marble (on one of the empty squares) and then a quadrant's turn (one of eight). A five ends the game as soon as
    it stands, also right after the marble, and a full board ends it before its last turn (a draw without a five);
    after a turn, fives of both colours draw and a five of one colour wins, whoever turned. Read from the kif's
    legal, next, terminal and goal rules; the quadrants, turns and lines are Pentago's own, so the differences from
    `pentago` (OpenSpiel's) are only these. Action = square (0-35), or 36 + quadrant * 2 + direction for a turn;
    named "c3" and "s"-"z". State array: as `pentago`'s, and whether the marble is down (the turn to come)."""

    name = "pentago_ggp"
    kernels = GGP_KERNELS
    state_size = 6
    max_legal = PLACES
    num_actions = PLACES + TURNS
    max_game_length = 2 * PLACES - 1
    own_moves = 16  # measured: SP self-play at 1000 simulations lasts 31.8 plies on average (20 games; 18 to 48)
    intra_moves = PLACES  # one player's share of the longest game: 18 marbles and their turns

    def action_squares(self, s, action):
        action = int(action)
        return (None, divmod(action, N)) if action < PLACES else (None, None)

    def action_to_string(self, s, action):
        action = int(action)
        if action >= PLACES:
            return _NAMES[action - PLACES]
        r, c = divmod(action, N)
        return f"{'abcdef'[c]}{r + 1}"

    def string_to_action(self, s, text):
        t = text.strip().lower()
        if len(t) == 1 and t in _NAMES:
            return PLACES + _NAMES.index(t)
        if len(t) == 2 and t[0] in "abcdef" and t[1] in "123456":
            return (int(t[1]) - 1) * N + "abcdef".index(t[0])
        raise ValueError(
            f"bad pentago_ggp action {text!r}: a square to place on, e.g. 'c3' (column a-f, row 1-6), then a turn "
            "s-z (s/t top-left, u/v top-right, w/x bottom-right, y/z bottom-left, counter-clockwise first)"
        )

    def symmetry_maps(self):
        """Pentago's eight, read off its combined actions: a square's image and a turn's image."""
        out = []
        for board, perm in super().symmetry_maps():
            split = np.empty(self.num_actions, dtype=np.int64)
            split[:PLACES] = perm[np.arange(PLACES) * TURNS] // TURNS
            split[PLACES:] = PLACES + perm[np.arange(TURNS)] % TURNS
            out.append((board, split))
        return out
