"""Go on 9x9 with Tromp-Taylor area scoring: Wu et al. measured their strength adjustment on Go (19x19, with ELF
OpenGo); this is the board an MCTS of ours can play (issue 35).

Rules as OpenSpiel's `go(board_size=9)` plays them, which tests/test_go.py replays move for move: black (player 0)
moves first; a move places a stone on an empty point or passes. Opposing chains left without liberties are
captured; a move that would leave its own chain without liberties (suicide) is illegal, and so is retaking a ko at
once (the point of a single stone just captured by a stone played into an eye of the capturer's opponent, until
the next move). The game ends after two passes in a row, after 162 moves, or at once when a move (not a pass)
repeats an earlier position: OpenSpiel's reading of positional superko, a draw (the rulebooks forbid such a move
instead; OpenSpiel calls superkos very rare and draws them for simplicity, and so do we, to play its game). Score:
stones plus empty regions that reach only one colour, black's less white's less komi (a game parameter, 7.5 by
default): black wins above 0, white below, a draw at 0.
Points are named by column a-j without i and row 1-9 (row 1 at the bottom, as OpenSpiel prints it); action = row
* 9 + column, as OpenSpiel's, and 81 the pass. State array: [moves played, passes in a row, player to move, status,
ko point + 1 (0: none), the position's Zobrist hash, komi * 2, the 81 points (0 empty, 1 black, 2 white), a table of
the hashes of every position so far (for superko), and scratch the kernels write while they work, legal() too
(`Game.scratch`: counters, marks, a stack, each chain's liberties; not part of the position)].
"""

import numpy as np

from games.game import Game, square_symmetries
from games.jit import kernel
from games.kernels import GameKernels, status_returns, status_terminal, status_to_move, status_winner

N = 9
POINTS = N * N
PASS = POINTS
LIMIT = 2 * POINTS  # OpenSpiel's default game length for a board of 9
KOMI = 7.5
MOVES, PASSES, KO, HASH, KOMI2 = 0, 1, 4, 5, 6
BOARD = 7
SEEN = BOARD + POINTS  # the positions so far: their hashes in an open-addressing table (0: a free slot)
SLOTS = 512  # a power of two, over 3 times the most positions a game can reach (LIMIT + 1)
STAMP = SEEN + SLOTS  # scratch from here on: the flood-fill and legal() call counters, marks, a stack, liberties
CALLS = STAMP + 1
MARKS = CALLS + 1
STACK = MARKS + POINTS
LABEL = STACK + POINTS  # per point, the legal() call that last counted its chain's liberties, and that count
LIBERTIES = LABEL + POINTS
SIZE = LIBERTIES + POINTS
_COLUMNS = "abcdefghj"


def _neighbours() -> np.ndarray:
    """[81, 4]: the point above, below, left and right of each point, -1 off the board."""
    out = np.full((POINTS, 4), -1, dtype=np.int64)
    for p in range(POINTS):
        r, c = divmod(p, N)
        for k, (dr, dc) in enumerate(((1, 0), (-1, 0), (0, -1), (0, 1))):
            if 0 <= r + dr < N and 0 <= c + dc < N:
                out[p, k] = (r + dr) * N + c + dc
    return out


NEIGHBOURS = _neighbours()
ZOBRIST = np.random.default_rng(20261127).integers(1, 2**63, size=(POINTS, 2), dtype=np.int64).astype(np.uint64)
_U1 = np.uint64(1)


@kernel
def init(s):
    """The empty board with the default komi (`Go.new_initial_state` writes the game's)."""
    s[:] = 0
    s[KOMI2] = np.uint64(2 * KOMI)  # the empty board is never seen again: every later position has a stone


@kernel
def fill(s, start):
    """Flood the points of start's colour (or of empty points) connected to `start`: they are left in
    s[STACK : STACK + n]; returns n, the empty points next to them (distinct; for an empty region none), and whether
    they reach a black and a white stone."""
    s[STAMP] += _U1
    stamp = s[STAMP]
    colour = s[BOARD + start]
    s[STACK] = start
    s[MARKS + start] = stamp
    n, i, liberties, black, white = 1, 0, 0, False, False
    while i < n:
        p = np.int64(s[STACK + i])
        i += 1
        for k in range(4):
            q = NEIGHBOURS[p, k]
            if q < 0 or s[MARKS + q] == stamp:
                continue
            c = s[BOARD + q]
            if c == colour:
                s[MARKS + q] = stamp
                s[STACK + n] = q
                n += 1
            elif c == np.uint64(0):
                s[MARKS + q] = stamp
                liberties += 1
            elif c == _U1:
                black = True
            else:
                white = True
    return n, liberties, black, white


@kernel(inline="always")
def _liberties(s, q, call):
    """The liberties of q's chain, counted once per legal() call (`call`) for all its stones."""
    if s[LABEL + q] != call:
        n, liberties, _, _ = fill(s, q)
        for i in range(n):
            p = s[STACK + i]
            s[LABEL + p] = call
            s[LIBERTIES + p] = liberties
    return s[LIBERTIES + q]


@kernel
def legal(s, out):
    """Every empty point but the ko point where the stone would have a liberty (an empty neighbour, an own chain
    with another liberty, or an opposing chain it captures), then the pass."""
    me = s[2] + _U1
    ko = np.int64(s[KO]) - 1
    s[CALLS] += _U1
    call = s[CALLS]
    n = 0
    for p in range(POINTS):
        if s[BOARD + p] != np.uint64(0) or p == ko:
            continue
        ok = False
        for k in range(4):
            q = NEIGHBOURS[p, k]
            if q >= 0 and s[BOARD + q] == np.uint64(0):
                ok = True
                break
        if not ok:
            for k in range(4):
                q = NEIGHBOURS[p, k]
                if q < 0:
                    continue
                # an own chain with another liberty, or an opposing one it captures
                if (s[BOARD + q] == me) == (_liberties(s, q, call) >= np.uint64(2)):
                    ok = True
                    break
        if ok:
            out[n] = p
            n += 1
    out[n] = PASS
    return n + 1


@kernel
def score(s):
    """Black's area less white's less komi (Tromp-Taylor)."""
    total = 0
    for p in range(POINTS):
        c = s[BOARD + p]
        if c == _U1:
            total += 1
        elif c != np.uint64(0):
            total -= 1
    seen = s[STAMP] + _U1  # empty points counted so far carry stamps above this
    for p in range(POINTS):
        if s[BOARD + p] != np.uint64(0) or s[MARKS + p] >= seen:
            continue
        n, _, black, white = fill(s, p)
        if black and not white:
            total += n
        elif white and not black:
            total -= n
    return total - np.float64(s[KOMI2]) / 2.0


@kernel
def apply(s, action):
    me = s[2] + _U1
    s[MOVES] += _U1
    s[2] = _U1 - s[2]
    s[KO] = 0
    if action == PASS:
        s[PASSES] += _U1
    else:
        s[PASSES] = 0
        eye = True  # the stone goes where only the opponent's stones border
        for k in range(4):
            q = NEIGHBOURS[action, k]
            if q >= 0 and s[BOARD + q] != np.uint64(3) - me:
                eye = False
        s[BOARD + action] = me
        s[HASH] ^= ZOBRIST[action, me - _U1]
        captured, last = 0, -1
        for k in range(4):
            q = NEIGHBOURS[action, k]
            if q < 0 or s[BOARD + q] != np.uint64(3) - me:
                continue
            n, liberties, _, _ = fill(s, q)
            if liberties == 0:
                for i in range(n):
                    p = s[STACK + i]
                    s[HASH] ^= ZOBRIST[p, np.uint64(2) - me]
                    s[BOARD + p] = 0
                captured += n
                last = q
        if eye and captured == 1:
            s[KO] = last + 1
        slot = s[HASH] & np.uint64(SLOTS - 1)  # OpenSpiel's superko: a position seen before ends the game, drawn
        while s[SEEN + slot] != np.uint64(0):
            if s[SEEN + slot] == s[HASH]:
                s[3] = 3
                return
            slot = (slot + _U1) & np.uint64(SLOTS - 1)
        s[SEEN + slot] = s[HASH]
    if s[PASSES] >= np.uint64(2) or s[MOVES] >= np.uint64(LIMIT):
        x = score(s)
        s[3] = 1 if x > 0 else 2 if x < 0 else 3


@kernel
def encode(s, out, row):
    """As `planes`: plane row r is the board's row 9 - r (row 9 at the top, as it is drawn)."""
    own = s[2] + _U1
    mover = np.float32(s[2])
    for p in range(POINTS):
        r, c = N - 1 - p // N, p % N
        x = s[BOARD + p]
        out[row, 0, r, c] = np.float32(x == own)
        out[row, 1, r, c] = np.float32(x != np.uint64(0) and x != own)
        out[row, 2, r, c] = mover


KERNELS = GameKernels(init, legal, apply, status_terminal, status_winner, status_returns, status_to_move, encode)


def _name(p: int) -> str:
    return f"{_COLUMNS[p % N]}{p // N + 1}"


class Go(Game):
    """9x9 Go; `komi` is a parameter of the game (OpenSpiel's default, 7.5)."""

    kernels = KERNELS
    state_size = SIZE
    scratch = SIZE - STAMP
    max_legal = POINTS + 1
    num_actions = POINTS + 1
    board_shape = (N, N)
    max_game_length = LIMIT
    own_moves = 52  # measured: SP self-play at 1000 simulations lasts 103.8 plies on average (20 games; 8 to 162)
    intra_moves = 81  # one player's share of the longest game
    evaluations = {}  # none in the papers
    symbols = ("X", "O")  # black, white, as OpenSpiel prints them

    def __init__(self, komi: float = KOMI):
        super().__init__()
        if not (komi >= 0 and float(2 * komi).is_integer()):
            raise ValueError(f"komi must be a whole or half number of points, 0 or more, got {komi}")
        self.komi = float(komi)
        self.name = "go9" if self.komi == KOMI else f"go9(komi={self.komi:g})"

    def new_initial_state(self):
        state = super().new_initial_state()
        state.array[KOMI2] = np.uint64(round(2 * self.komi))
        return state

    def planes(self, s):
        board = s[BOARD : BOARD + POINTS].reshape(N, N)[::-1]  # row 9 at the top, as `render` draws it
        return board == 1, board == 2

    def render(self, s):
        board = s[BOARD : BOARD + POINTS].reshape(N, N)
        marks = "+XO"
        rows = [f"{r + 1} " + "".join(marks[int(x)] for x in board[r]) for r in range(N - 1, -1, -1)]
        return "\n".join([*rows, "  " + "".join(_COLUMNS).upper()]) + "\n"

    def action_squares(self, s, action):
        action = int(action)
        return (None, None) if action == PASS else (None, (N - 1 - action // N, action % N))

    def action_to_string(self, s, action):
        action = int(action)
        return "pass" if action == PASS else _name(action)

    def string_to_action(self, s, text):
        t = text.strip().lower()
        if t == "pass":
            return PASS
        if len(t) == 2 and t[0] in _COLUMNS and t[1] in "123456789":
            return (int(t[1]) - 1) * N + _COLUMNS.index(t[0])
        raise ValueError(f"bad go action {text!r}: a point, column a-j without i and row 1-9, e.g. 'e5', or 'pass'")

    def symmetry_maps(self):
        """The square's eight, over the planes (row 9 at the top), carried to the actions (row 1 first)."""
        flip = np.array([(N - 1 - a // N) * N + a % N for a in range(POINTS)] + [PASS])  # action <-> plane index
        return [(transform, flip[perm[flip]]) for transform, perm in square_symmetries(N, extra=1)]
