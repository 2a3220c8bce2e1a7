"""Chinese Checkers for three players on GGP's small star, the game SA-MCTS played (issue 35).

Rules from GGP's chineseCheckers3.kif (ggp-org/ggp-repository, games/chineseCheckers3). The board is a six-pointed
star of 37 cells in nine rows (a: 1 cell, b: 2, c: 7, d: 6, e: 5, f: 6, g: 7, h: 2, i: 1; cells numbered from the
left, a1 at the top). Red (player 0) starts on a1 b1 b2 and aims at h1 h2 i1; green (1) starts on f6 g6 g7 and aims
at c1 c2 d1; blue (2) starts on f1 g1 g2 and aims at c6 c7 d6. They move in turn, red first. A move takes one of the
mover's pieces forward (red down-left or down-right, green up-left or left, blue up-right or right): one step onto
an empty cell, or one hop over an occupied cell onto the empty cell beyond it, or two hops in a row, in any two of
the player's directions (the piece's own cell counts as occupied during the second). A piece never enters the
other players' two points (their start and their goal). A player may always pass instead (the kif's `noop`).
The game ends when a player fills its goal, or after 59 moves. A player scores (the kif's goal / 100) 1 for three
pieces on its goal, 0.5 for two and 0.25 for one with the rest empty, 0 with none (the kif's goal rules also ask
that no other player's piece stand there, which none can: no piece enters another player's points).
OpenSpiel's chinese_checkers is another game (the full 121-cell star with chains of hops): tests/
test_chinesecheckers.py plays against a plain reading of the kif's own move relations.
Cells are numbered 0..36 row by row (a1 = 0, b1 = 1, ..., i1 = 36); action = from * 37 + to, and 1369 the pass.
State array: [moves played, every piece, player to move, status (1 once over), red's, green's, blue's pieces].
"""

import numpy as np

from games.bits import lowest_bit_index, popcount
from games.game import Game
from games.jit import kernel
from games.kernels import GameKernels, status_terminal, status_to_move

ROWS = (1, 2, 7, 6, 5, 6, 7, 2, 1)  # cells per row, a to i
LETTERS = "abcdefghi"
CELLS = sum(ROWS)
PASS = CELLS * CELLS
PLAYERS = 3
LIMIT = 59  # the kif's step counter starts at 1 and the game ends at step 60
STEPS = ((1, -1), (1, 1)), ((-1, -1), (0, -2)), ((0, 2), (-1, 1))  # per player, (row, x) of its two ways (car, cdr)
START = ("a1 b1 b2", "f6 g6 g7", "f1 g1 g2")
GOAL = ("h1 h2 i1", "c1 c2 d1", "c6 c7 d6")
_U1 = np.uint64(1)
_ZERO = np.uint64(0)


def _cells() -> list[tuple[int, int]]:
    """(row, x) of every cell, rows centred: x runs -(n - 1), -(n - 3), ..., n - 1 across a row of n, so that the
    six neighbours of a cell are (row +- 1, x +- 1) and (row, x +- 2)."""
    return [(r, 2 * j - (n - 1)) for r, n in enumerate(ROWS) for j in range(n)]


def _index(name: str) -> int:
    r = LETTERS.index(name[0])
    return sum(ROWS[:r]) + int(name[1:]) - 1


def _mask(names: str) -> np.uint64:
    return np.uint64(sum(1 << _index(n) for n in names.split()))


def _next() -> np.ndarray:
    """[player, direction, cell]: the cell one step away in that direction, or -1 off the board or on one of the
    other players' points."""
    where = {xy: i for i, xy in enumerate(_cells())}
    out = np.full((PLAYERS, 2, CELLS), -1, dtype=np.int64)
    for p in range(PLAYERS):
        barred = {_index(n) for q in range(PLAYERS) if q != p for n in f"{START[q]} {GOAL[q]}".split()}
        for d, (dr, dx) in enumerate(STEPS[p]):
            for i, (r, x) in enumerate(_cells()):
                j = where.get((r + dr, x + dx), -1)
                if i not in barred and j not in barred:
                    out[p, d, i] = j
    return out


NEXT = _next()
STARTS = np.array([_mask(m) for m in START], dtype=np.uint64)
GOALS = np.array([_mask(m) for m in GOAL], dtype=np.uint64)


@kernel
def init(s):
    s[:] = 0
    for p in range(PLAYERS):
        s[4 + p] = STARTS[p]
        s[1] |= STARTS[p]


@kernel(inline="always")
def _empty(s, cell):
    return cell >= 0 and (s[1] >> np.uint64(cell)) & _U1 == _ZERO


@kernel(inline="always")
def _full(s, cell):
    return cell >= 0 and (s[1] >> np.uint64(cell)) & _U1 != _ZERO


@kernel
def legal(s, out):
    """Each piece's steps, hops and double hops (each destination once, however many ways reach it), then the pass."""
    p = s[2]
    pieces = s[4 + p]
    n = 0
    while pieces:
        frm = lowest_bit_index(pieces)
        pieces &= pieces - _U1
        ends = _ZERO
        for d in range(2):
            over = NEXT[p, d, frm]
            if _empty(s, over):
                ends |= _U1 << np.uint64(over)
            elif _full(s, over):
                land = NEXT[p, d, over]
                if _empty(s, land):
                    ends |= _U1 << np.uint64(land)
                    for d2 in range(2):
                        over2 = NEXT[p, d2, land]
                        if _full(s, over2):
                            land2 = NEXT[p, d2, over2]
                            if _empty(s, land2):
                                ends |= _U1 << np.uint64(land2)
        while ends:
            to = lowest_bit_index(ends)
            ends &= ends - _U1
            out[n] = frm * CELLS + to
            n += 1
    out[n] = PASS
    return n + 1


@kernel(inline="always")
def _score(s, p):
    """Player p's goal / 100: 1, 0.5, 0.25 or 0 for 3, 2, 1 or 0 of its pieces on its goal and the rest empty."""
    own = popcount(s[4 + p] & GOALS[p])
    return 1.0 if own == 3 else 0.5 if own == 2 else 0.25 if own == 1 else 0.0


@kernel
def apply(s, action):
    p = s[2]
    if action != PASS:
        bits = (_U1 << np.uint64(action // CELLS)) | (_U1 << np.uint64(action % CELLS))
        s[4 + p] ^= bits
        s[1] ^= bits
    s[0] += _U1
    s[2] = (p + _U1) % np.uint64(PLAYERS)
    if s[0] >= np.uint64(LIMIT):
        s[3] = _U1
    for q in range(PLAYERS):
        if s[4 + q] & GOALS[q] == GOALS[q]:
            s[3] = _U1


@kernel
def returns(s, out):
    for p in range(PLAYERS):
        out[p] = _score(s, p)


@kernel
def winner(s):
    best, who = -1.0, -1
    for p in range(PLAYERS):
        x = _score(s, p)
        if x > best:
            best, who = x, p
        elif x == best:
            who = -1
    return who


@kernel
def encode(s, out, row):
    raise ValueError("chinesecheckers3 has no network planes: a net plays two-player games only")


KERNELS = GameKernels(init, legal, apply, status_terminal, winner, returns, status_to_move, encode)


def _name(cell: int) -> str:
    r = next(r for r in range(len(ROWS)) if cell < sum(ROWS[: r + 1]))
    return f"{LETTERS[r]}{cell - sum(ROWS[:r]) + 1}"


class ChineseCheckers(Game):
    name = "chinesecheckers3"
    players = PLAYERS
    kernels = KERNELS
    state_size = 7
    max_legal = 3 * 6 + 1  # per piece at most 2 steps or hops and 4 double hops; then the pass
    num_actions = PASS + 1
    board_shape = (len(ROWS), 13)  # the rows, and the 13 places a row of 7 spans
    max_game_length = LIMIT
    own_moves = 12  # measured: SP self-play at 1000 simulations lasts 36.3 plies on average (20 games), a third each
    intra_moves = 20  # one player's share of the longest game
    evaluations = {}  # none in the papers
    symbols = ("r", "g", "b")  # red, green, blue
    drawn = False  # a star, not a grid: a page shows `render`'s text

    def render(self, s):
        rows = [[" "] * 13 for _ in ROWS]
        for i, (r, x) in enumerate(_cells()):
            mine = [p for p in range(PLAYERS) if (int(s[4 + p]) >> i) & 1]
            rows[r][x + 6] = self.symbols[mine[0]] if mine else "."
        return "\n".join(f"{LETTERS[r]} " + "".join(row).rstrip() for r, row in enumerate(rows)) + "\n"

    def action_to_string(self, s, action):
        action = int(action)
        return "noop" if action == PASS else f"{_name(action // CELLS)}-{_name(action % CELLS)}"

    def string_to_action(self, s, text):
        t = text.strip().lower()
        if t in ("noop", "pass"):
            return PASS
        names = {_name(i): i for i in range(CELLS)}
        parts = t.replace(" ", "-").split("-")
        if len(parts) == 2 and all(part in names for part in parts):
            return names[parts[0]] * CELLS + names[parts[1]]
        raise ValueError(
            f"bad chinesecheckers3 action {text!r}: write the piece's cell and where it goes, e.g. 'b1-c3' (rows a-i "
            "from the top, cells numbered from the left), or 'noop' to pass"
        )

    def planes(self, s):
        raise NotImplementedError("chinesecheckers3 is drawn as text: it has three players' pieces on a star")

    def action_squares(self, s, action):
        action = int(action)
        if action == PASS:
            return None, None
        cells = _cells()
        return tuple((cells[c][0], cells[c][1] + 6) for c in divmod(action, CELLS))

    def symmetry_maps(self):
        return [(lambda x: x, np.arange(self.num_actions))]
