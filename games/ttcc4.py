"""TicTacChessCheckersFour (TTCC4) for two and for three players, the games SA-MCTS played (issue 35).

Rules from GGP's ttcc4_2player.kif (two players, "light" and "dark") and ttcc4.kif (three: red, yellow, blue) in
ggp-org/ggp-repository, every one of them from those files. Cells (x, y), x and y in 1-7, named file a-g and rank 1-7;
the board is the 5x5 square b2-f6, and the rim holds each player's three start squares: light / red on a5 (pawn), a4
(checker), a3 (knight); dark / blue on g3 (pawn), g4 (checker), g5 (knight); yellow on c1, d1, e1. Players move in
turn, light / red first. A move is one of:
- a drop: a disc of the mover's into chute c, d or e, when its top cell (rank 6) is empty; it falls from rank 6 until
  the cell below it is taken, or down to rank 2 (a gap lower down, left by a piece that moved away, stays empty);
- the pawn one step orthogonally onto an empty cell of the board, or one step diagonally onto an opposing piece;
- the checker one step diagonally onto an empty cell, or a jump diagonally over an opposing piece onto the empty
  cell beyond (one jump a move);
- the knight a knight's move onto an empty cell or an opposing piece.
A piece always lands on the board. A taken disc leaves the game; a taken pawn, checker or knight goes back to its start
square (and enters the board from there again). Any piece of a player counts for its lines: three in a row, column
or diagonal of the centre c3-e5 win at once (the kif's goal 100, the others 0).
Where the two files differ: with two players the mover passes (`noop`) only when it has no other move, the game
ends after 100 moves, and a game without a line scores 50 each; with three, any player may pass at any turn, the game
ends after 30 moves, and a game without a line scores 0 for everyone. OpenSpiel has no such game.
Action: 0-2 a drop into chute c, d, e; 3 + piece * 49 + cell for the pawn (0), checker (1) and knight (2) moving to
cell = (7 - y) * 7 + (x - 1); 150 the pass. Named "Dc" (a drop), "Pc4", "Ce3", "Nb3", "pass".
State array: [light / red pieces, dark / blue (two players) or yellow pieces, player to move, status (1 once over),
plies, blue's pieces (three players; 0 with two), then each player's pawn, checker and knight cells].
"""

import numpy as np

from games.bits import lowest_bit_index
from games.game import Game, bitboard_planes
from games.jit import kernel
from games.kernels import GameKernels, encode_planes, status_terminal, status_to_move

N = 7
CELLS = N * N
DROPS = 3
PASS = DROPS + 3 * CELLS
PIECES = "PCN"  # pawn, checker, knight
OCCUPANCY = (0, 1, 5)  # where each player's pieces are in the state array
_U1 = np.uint64(1)
_ZERO = np.uint64(0)
_FILES = "abcdefg"


def _cell(x: int, y: int) -> int:
    return (N - y) * N + x - 1


def _tables():
    """Per cell: masks of the cells a step orthogonally, diagonally and a knight's move away; for each diagonal
    direction the cell over which a jump goes and where it lands (-1: off the 7x7 grid)."""
    orth = np.zeros(CELLS, dtype=np.uint64)
    diag = np.zeros(CELLS, dtype=np.uint64)
    knight = np.zeros(CELLS, dtype=np.uint64)
    over = np.full((CELLS, 4), -1, dtype=np.int64)
    land = np.full((CELLS, 4), -1, dtype=np.int64)
    inside = lambda x, y: 1 <= x <= N and 1 <= y <= N  # noqa: E731
    for x in range(1, N + 1):
        for y in range(1, N + 1):
            c = _cell(x, y)
            for dx, dy in ((1, 0), (-1, 0), (0, 1), (0, -1)):
                if inside(x + dx, y + dy):
                    orth[c] |= np.uint64(1 << _cell(x + dx, y + dy))
            for d, (dx, dy) in enumerate(((1, 1), (-1, 1), (1, -1), (-1, -1))):
                if inside(x + dx, y + dy):
                    diag[c] |= np.uint64(1 << _cell(x + dx, y + dy))
                if inside(x + 2 * dx, y + 2 * dy):
                    over[c, d], land[c, d] = _cell(x + dx, y + dy), _cell(x + 2 * dx, y + 2 * dy)
            for dx, dy in ((1, 2), (-1, 2), (2, 1), (2, -1), (1, -2), (-1, -2), (-2, 1), (-2, -1)):
                if inside(x + dx, y + dy):
                    knight[c] |= np.uint64(1 << _cell(x + dx, y + dy))
    return orth, diag, knight, over, land


ORTH, DIAG, KNIGHT, OVER, LAND = _tables()
BOARD = np.uint64(sum(1 << _cell(x, y) for x in range(2, N) for y in range(2, N)))  # b2-f6
LINES = np.array(
    [
        sum(1 << _cell(x, y) for x, y in line)
        for line in (
            *([(x, y) for x in (3, 4, 5)] for y in (3, 4, 5)),
            *([(x, y) for y in (3, 4, 5)] for x in (3, 4, 5)),
            [(3, 3), (4, 4), (5, 5)],
            [(3, 5), (4, 4), (5, 3)],
        )
    ],
    dtype=np.uint64,
)  # the centre's rows, columns and diagonals
# start cells of pawn, checker, knight for red / light, yellow, blue / dark
STARTS = np.array([[_cell(1, 5), _cell(1, 4), _cell(1, 3)], [_cell(3, 1), _cell(4, 1), _cell(5, 1)],
                   [_cell(7, 3), _cell(7, 4), _cell(7, 5)]], dtype=np.int64)  # fmt: skip
CHUTES = np.array([_cell(x, 6) for x in (3, 4, 5)], dtype=np.int64)  # the chutes' top cells


@kernel(inline="always")
def _side(players, p):
    """The row of STARTS of player p: with two players, dark starts where blue does."""
    return 2 * p if players == 2 else p


@kernel(inline="always")
def _init(s, players):
    s[:] = 0
    for p in range(players):
        for k in range(3):
            cell = STARTS[_side(players, p), k]
            s[6 + 3 * p + k] = cell
            s[OCCUPANCY[p]] |= _U1 << np.uint64(cell)


@kernel(inline="always")
def _legal(s, out, players):
    p = np.int64(s[2])
    own = s[OCCUPANCY[p]]
    taken = s[0] | s[1] | s[5]
    opp = taken & ~own
    empty = BOARD & ~taken
    n = 0
    for chute in range(DROPS):
        if (taken >> np.uint64(CHUTES[chute])) & _U1 == _ZERO:
            out[n] = chute
            n += 1
    for k in range(3):
        frm = s[6 + 3 * p + k]
        if k == 0:
            targets = (ORTH[frm] & empty) | (DIAG[frm] & opp & BOARD)
        elif k == 1:
            targets = DIAG[frm] & empty
            for d in range(4):
                over, land = OVER[frm, d], LAND[frm, d]
                if land >= 0 and (opp >> np.uint64(over)) & _U1 and (empty >> np.uint64(land)) & _U1:
                    targets |= _U1 << np.uint64(land)
        else:
            targets = KNIGHT[frm] & (empty | (opp & BOARD))
        while targets:
            to = lowest_bit_index(targets)
            targets &= targets - _U1
            out[n] = DROPS + k * CELLS + to
            n += 1
    if players > 2 or n == 0:  # three players may always pass; two only when nothing else is legal
        out[n] = PASS
        n += 1
    return n


@kernel(inline="always")
def _has_line(s, p):
    own = s[OCCUPANCY[p]]
    for i in range(LINES.shape[0]):
        if own & LINES[i] == LINES[i]:
            return True
    return False


@kernel(inline="always")
def _take(s, cell, players):
    """Take what stands on `cell` (an opposing piece): a disc leaves the game, a pawn, checker or knight goes home."""
    bit = _U1 << np.uint64(cell)
    for q in range(players):
        if s[OCCUPANCY[q]] & bit:
            s[OCCUPANCY[q]] &= ~bit
            for k in range(3):
                if s[6 + 3 * q + k] == np.uint64(cell):
                    home = STARTS[_side(players, q), k]
                    s[6 + 3 * q + k] = home
                    s[OCCUPANCY[q]] |= _U1 << np.uint64(home)


@kernel(inline="always")
def landing(taken, chute):
    """The cell a disc dropped into `chute` stops on: it falls from rank 6 while the cell below is empty, to rank 2."""
    cell = CHUTES[chute]
    while cell + N < CELLS - N and (taken >> np.uint64(cell + N)) & _U1 == _ZERO:
        cell += N
    return cell


@kernel(inline="always")
def _apply(s, action, players, limit):
    p = np.int64(s[2])
    taken = s[0] | s[1] | s[5]
    if action < DROPS:
        s[OCCUPANCY[p]] |= _U1 << np.uint64(landing(taken, action))
    elif action < PASS:
        k, to = (action - DROPS) // CELLS, (action - DROPS) % CELLS
        frm = np.int64(s[6 + 3 * p + k])
        if k == 1 and abs(to % N - frm % N) == 2:
            _take(s, (frm + to) // 2, players)  # the checker's jump: the cell between
        elif (taken >> np.uint64(to)) & _U1:
            _take(s, to, players)
        s[OCCUPANCY[p]] ^= (_U1 << np.uint64(frm)) | (_U1 << np.uint64(to))
        s[6 + 3 * p + k] = to
    s[2] = (p + 1) % players
    s[4] += _U1
    if s[4] >= np.uint64(limit):
        s[3] = _U1
    for q in range(players):
        if _has_line(s, q):
            s[3] = _U1


@kernel(inline="always")
def _returns(s, out, players):
    """The kif's goal / 100: 1 for the player with a line, 0 for the others; no line: 0.5 each (two), 0 (three)."""
    line = -1
    for q in range(players):
        if _has_line(s, q):
            line = q
    for q in range(players):
        out[q] = (1.0 if q == line else 0.0) if line >= 0 or players > 2 else 0.5


@kernel(inline="always")
def _winner(s, players):
    for q in range(players):
        if _has_line(s, q):
            return q
    return -1


@kernel
def init2(s):
    _init(s, 2)


@kernel
def legal2(s, out):
    return _legal(s, out, 2)


@kernel
def apply2(s, action):
    _apply(s, action, 2, 100)  # the kif's step counts from 1 and the game ends at 101


@kernel
def returns2(s, out):
    _returns(s, out, 2)


@kernel
def winner2(s):
    return _winner(s, 2)


@kernel
def encode2(s, out, row):
    """Planes cell (r, c) is bit r * 7 + c, as in `planes` (every piece and disc alike, the rim's start squares too)."""
    encode_planes(s, out, row, N, N, 0, N, 1)


@kernel
def init3(s):
    _init(s, 3)


@kernel
def legal3(s, out):
    return _legal(s, out, 3)


@kernel
def apply3(s, action):
    _apply(s, action, 3, 30)  # the kif's step counts from 1 and the game ends at 31


@kernel
def returns3(s, out):
    _returns(s, out, 3)


@kernel
def winner3(s):
    return _winner(s, 3)


@kernel
def encode3(s, out, row):
    raise ValueError("ttcc4_3p has no network planes: a net plays two-player games only")


KERNELS2 = GameKernels(init2, legal2, apply2, status_terminal, winner2, returns2, status_to_move, encode2)
KERNELS3 = GameKernels(init3, legal3, apply3, status_terminal, winner3, returns3, status_to_move, encode3)


def _name(cell: int) -> str:
    r, c = divmod(cell, N)
    return f"{_FILES[c]}{N - r}"


class TTCC4(Game):
    """TTCC4 for `players` (2 or 3) players: GGP's ttcc4_2player.kif or ttcc4.kif."""

    state_size = 6 + 3 * 3
    num_actions = PASS + 1
    max_legal = DROPS + 8 + 4 + 8 + 1  # drops, the pawn's 8, the checker's 4 (a step or a jump each way), 8, pass
    board_shape = (N, N)
    evaluations = {}  # none in the papers
    drawn = False  # a page would need the pieces' kinds to draw it: it shows `render` and a move list

    def __init__(self, players: int):
        super().__init__()
        self.players = players
        self.name = f"ttcc4_{players}p"
        self.kernels = KERNELS2 if players == 2 else KERNELS3
        self.max_game_length = 100 if players == 2 else 30
        # measured: SP self-play at 1000 simulations lasts 23.5 plies on average with two (20 games; 8 to 100), 17.2
        # with three (20 games; 9 to 30)
        self.own_moves = 12 if players == 2 else 6
        self.intra_moves = self.max_game_length // players
        self.symbols = ("1", "2") if players == 2 else ("1", "2", "3")

    def _owner(self, s, cell):
        return next((p for p in range(self.players) if (int(s[OCCUPANCY[p]]) >> cell) & 1), None)

    def render(self, s):
        kinds = {int(s[6 + 3 * p + k]): (p, PIECES[k]) for p in range(self.players) for k in range(3)}
        rows = []
        for r in range(N):
            cells = []
            for c in range(N):
                cell, owner = r * N + c, self._owner(s, r * N + c)
                if owner is not None:
                    cells.append(kinds.get(cell, (owner, "D"))[1] + self.symbols[owner])
                else:
                    cells.append(" ." if (BOARD >> np.uint64(cell)) & _U1 else "  ")
            rows.append(f"{N - r} " + " ".join(cells))
        return "\n".join([*rows, "  " + " ".join(f" {f}" for f in _FILES)]) + "\n"

    def planes(self, s):
        if self.players > 2:
            raise NotImplementedError("ttcc4_3p is drawn as text: it has three players' pieces")
        return bitboard_planes(s, N, N)

    def action_squares(self, s, action):
        action = int(action)
        if action == PASS:
            return None, None
        if action < DROPS:
            return None, divmod(int(landing(s[0] | s[1] | s[5], action)), N)
        k, to = divmod(action - DROPS, CELLS)
        return divmod(int(s[6 + 3 * int(s[2]) + k]), N), divmod(to, N)

    def action_to_string(self, s, action):
        action = int(action)
        if action == PASS:
            return "pass"
        if action < DROPS:
            return "D" + "cde"[action]
        k, to = divmod(action - DROPS, CELLS)
        return PIECES[k] + _name(to)

    def string_to_action(self, s, text):
        t = text.strip().lower()
        if t in ("pass", "noop"):
            return PASS
        if len(t) == 2 and t[0] == "d" and t[1] in "cde":
            return "cde".index(t[1])
        if len(t) == 3 and t[0] in "pcn" and t[1] in _FILES and t[2] in "1234567":
            return DROPS + "pcn".index(t[0]) * CELLS + (N - int(t[2])) * N + _FILES.index(t[1])
        raise ValueError(
            f"bad {self.name} action {text!r}: write 'Dc', 'Dd' or 'De' to drop a disc into a chute, a piece's letter "
            "(P pawn, C checker, N knight) and the cell it goes to, e.g. 'Pc4', or 'pass'"
        )

    def symmetry_maps(self):
        return [(lambda x: x, np.arange(self.num_actions))]  # the starts (and the discs' fall) have no mirror image
