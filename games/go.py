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
* 9 + column, as OpenSpiel's, and 81 the pass. The kernels keep each chain's stones and liberties as bitsets, updated
as stones are placed and captured, so that a legal move is found by shifts and a few chain lookups, never by
flooding. State array: [moves played, passes in a row, player to move, status, ko point + 1 (0:
none), the position's Zobrist hash, komi * 2, the black and the white stones (two words each: points 0-63, 64-80),
each colour's atari points (the only liberty of one of its chains: they decide most moves into a point with no
empty neighbour), the 81 points (0 empty, 1 black, 2 white), per stone the point naming its chain, per chain (at
that point) its stones and its liberties (two words each), and a table of the hashes of every position so far (for
superko)].
"""

import numpy as np

from games.bits import lowest_bit_index, popcount
from games.game import Game, square_symmetries
from games.jit import kernel
from games.kernels import GameKernels, status_returns, status_terminal, status_to_move, status_winner

N = 9
POINTS = N * N
PASS = POINTS
LIMIT = 2 * POINTS  # OpenSpiel's default game length for a board of 9
KOMI = 7.5
MOVES, PASSES, KO, HASH, KOMI2 = 0, 1, 4, 5, 6
BLACK = 7  # the black stones as a bitset of two words (points 0-63, then 64-80), then the white ones
ATARI = BLACK + 4  # per colour (black, white), two words: the points that are the only liberty of a chain of it
BOARD = ATARI + 4  # per point: 0 empty, 1 black, 2 white
HEAD = BOARD + POINTS  # per stone: the point that names its chain
STONES = HEAD + POINTS  # per chain (at its head): its stones and its liberties, each a bitset of two words
LIBERTIES = STONES + 2 * POINTS
SEEN = LIBERTIES + 2 * POINTS  # the positions so far: their hashes in an open-addressing table (0: a free slot)
SLOTS = 512  # a power of two, over 3 times the most positions a game can reach (LIMIT + 1)
SIZE = SEEN + SLOTS
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


def _bitset(points) -> tuple:
    words = [0, 0]
    for p in points:
        words[p // 64] |= 1 << (p % 64)
    return np.uint64(words[0]), np.uint64(words[1])


NEIGHBOURS = _neighbours()
NEXT_TO = np.array([_bitset(q for q in NEIGHBOURS[p] if q >= 0) for p in range(POINTS)], dtype=np.uint64)
HIGH = _bitset(range(64, POINTS))[1]  # the second word's points
NOT_A = _bitset(p for p in range(POINTS) if p % N != 0)  # the points with a neighbour to their left
NOT_J = _bitset(p for p in range(POINTS) if p % N != N - 1)  # and to their right
ZOBRIST = np.random.default_rng(20261127).integers(1, 2**63, size=(POINTS, 2), dtype=np.int64).astype(np.uint64)
_U1 = np.uint64(1)
_ZERO = np.uint64(0)


@kernel(inline="always")
def _bit(p):
    """Point p as a bitset of two words."""
    if p < 64:
        return _U1 << np.uint64(p), _ZERO
    return _ZERO, _U1 << np.uint64(p - 64)


@kernel(inline="always")
def _beside(x0, x1):
    """The points next to a point of bitset (x0, x1): four word-crossing shifts, the side ones masked at the
    edges."""
    up0 = x0 << np.uint64(N)
    up1 = (x1 << np.uint64(N)) | (x0 >> np.uint64(64 - N))
    down0 = (x0 >> np.uint64(N)) | (x1 << np.uint64(64 - N))
    down1 = x1 >> np.uint64(N)
    left0 = (x0 << _U1) & NOT_A[0]
    left1 = ((x1 << _U1) | (x0 >> np.uint64(63))) & NOT_A[1]
    right0 = ((x0 >> _U1) | (x1 << np.uint64(63))) & NOT_J[0]
    right1 = (x1 >> _U1) & NOT_J[1]
    return up0 | down0 | left0 | right0, (up1 | down1 | left1 | right1) & HIGH


@kernel(inline="always")
def _empty(s):
    return ~(s[BLACK] | s[BLACK + 2]), ~(s[BLACK + 1] | s[BLACK + 3]) & HIGH


@kernel
def init(s):
    """The empty board with the default komi (`Go.new_initial_state` writes the game's)."""
    s[:] = 0
    s[KOMI2] = np.uint64(2 * KOMI)  # the empty board is never seen again: every later position has a stone


@kernel(inline="always")
def _lives(s, p, me):
    """Whether a stone of colour `me` on p, whose neighbours are all stones, would have a liberty: it joins an own
    chain with another liberty, or takes the last liberty of an opposing chain (and captures it)."""
    b0, b1 = _bit(p)
    ok = False
    for k in range(4):
        q = NEIGHBOURS[p, k]
        if q >= 0:
            h = np.int64(s[HEAD + q])
            other = (s[LIBERTIES + 2 * h] & ~b0) | (s[LIBERTIES + 2 * h + 1] & ~b1)
            ok |= (s[BOARD + q] == me) == (other != _ZERO)
    return ok


@kernel
def legal(s, out):
    """Every empty point but the ko point where the stone would have a liberty, then the pass. By bitsets: a point
    next to an empty one; one that takes an opposing chain's last liberty; one next to own chains none of which it
    is the last liberty of. Only a point that is the last liberty of one own chain beside it and takes no opposing
    chain's is looked at by its neighbours' chains."""
    me = s[2] + _U1
    e0, e1 = _empty(s)
    n0, n1 = _beside(e0, e1)
    ours = BLACK + 2 * (np.int64(me) - 1)
    mine = ATARI + 2 * (np.int64(me) - 1)
    their_atari = ATARI + 2 * (2 - np.int64(me))
    o0, o1 = _beside(s[ours], s[ours + 1])
    crowded0, crowded1 = e0 & ~n0, e1 & ~n1
    ok0 = e0 & (n0 | s[their_atari] | (o0 & ~s[mine]))
    ok1 = e1 & (n1 | s[their_atari + 1] | (o1 & ~s[mine + 1]))
    unsure = crowded0 & o0 & ~ok0  # with no own stone beside it and capturing nothing, a point is suicide
    while unsure:
        p = lowest_bit_index(unsure)
        unsure &= unsure - _U1
        if _lives(s, p, me):
            ok0 |= _U1 << np.uint64(p)
    unsure = crowded1 & o1 & ~ok1
    while unsure:
        p = lowest_bit_index(unsure)
        unsure &= unsure - _U1
        if _lives(s, p + 64, me):
            ok1 |= _U1 << np.uint64(p)
    if s[KO] != _ZERO:
        k0, k1 = _bit(np.int64(s[KO]) - 1)
        ok0 &= ~k0
        ok1 &= ~k1
    n = 0
    while ok0:
        out[n] = lowest_bit_index(ok0)
        ok0 &= ok0 - _U1
        n += 1
    while ok1:
        out[n] = lowest_bit_index(ok1) + 64
        ok1 &= ok1 - _U1
        n += 1
    out[n] = PASS
    return n + 1


@kernel(inline="always")
def _reach(x0, x1, e0, e1):
    """The empty points (of bitset e) joined to a stone of bitset x through empty points."""
    r0, r1 = _ZERO, _ZERO
    while True:
        g0, g1 = _beside(x0 | r0, x1 | r1)
        g0 &= e0
        g1 &= e1
        if g0 == r0 and g1 == r1:
            return r0, r1
        r0, r1 = g0, g1


@kernel
def score(s):
    """Black's area less white's less komi (Tromp-Taylor): stones, and the empty points that reach only one
    colour."""
    e0, e1 = _empty(s)
    black0, black1, white0, white1 = s[BLACK], s[BLACK + 1], s[BLACK + 2], s[BLACK + 3]
    b0, b1 = _reach(black0, black1, e0, e1)
    w0, w1 = _reach(white0, white1, e0, e1)
    black = popcount(black0) + popcount(black1) + popcount(b0 & ~w0) + popcount(b1 & ~w1)
    white = popcount(white0) + popcount(white1) + popcount(w0 & ~b0) + popcount(w1 & ~b1)
    return np.float64(black) - np.float64(white) - np.float64(s[KOMI2]) / 2.0


@kernel(inline="always")
def _capture(s, h, me):
    """Remove the opposing chain named h: its points become liberties of the mover's chains beside them."""
    c0, c1 = s[STONES + 2 * h], s[STONES + 2 * h + 1]
    other = BLACK + 2 * (2 - np.int64(me))
    s[other] &= ~c0
    s[other + 1] &= ~c1
    for w in range(2):
        c = c0 if w == 0 else c1
        while c:
            p = lowest_bit_index(c) + 64 * w
            c &= c - _U1
            s[BOARD + p] = 0
            s[HASH] ^= ZOBRIST[p, np.uint64(2) - me]
            b0, b1 = _bit(p)
            for k in range(4):
                q = NEIGHBOURS[p, k]
                if q >= 0 and s[BOARD + q] == me:
                    g = np.int64(s[HEAD + q])
                    s[LIBERTIES + 2 * g] |= b0
                    s[LIBERTIES + 2 * g + 1] |= b1
    return popcount(c0) + popcount(c1)


@kernel(inline="always")
def _place(s, p, me, own0, own1):
    """Put a stone of colour `me` on p (after its captures; own: its own stones beside it): it joins the largest own
    chain beside it, into which the others beside it are relabelled; the merged chain's liberties are theirs and
    p's empty neighbours, less p."""
    b0, b1 = _bit(p)
    s[BOARD + p] = me
    s[HASH] ^= ZOBRIST[p, me - _U1]
    colour = BLACK + 2 * (np.int64(me) - 1)
    s[colour] |= b0
    s[colour + 1] |= b1
    head, best = p, _ZERO
    for w in range(2):
        x = own0 if w == 0 else own1
        while x:
            h = np.int64(s[HEAD + lowest_bit_index(x) + 64 * w])
            x &= x - _U1
            size = popcount(s[STONES + 2 * h]) + popcount(s[STONES + 2 * h + 1])
            if size > best:
                head, best = h, size
    e0, e1 = _empty(s)
    s0, s1 = b0, b1
    l0, l1 = NEXT_TO[p, 0] & e0, NEXT_TO[p, 1] & e1
    if head != p:
        s0 |= s[STONES + 2 * head]
        s1 |= s[STONES + 2 * head + 1]
        l0 |= s[LIBERTIES + 2 * head]
        l1 |= s[LIBERTIES + 2 * head + 1]
    s[HEAD + p] = head
    for w in range(2):
        x = own0 if w == 0 else own1
        while x:
            h = np.int64(s[HEAD + lowest_bit_index(x) + 64 * w])
            x &= x - _U1
            if h == head:
                continue
            c0, c1 = s[STONES + 2 * h], s[STONES + 2 * h + 1]
            s0 |= c0
            s1 |= c1
            l0 |= s[LIBERTIES + 2 * h]
            l1 |= s[LIBERTIES + 2 * h + 1]
            while c0:
                s[HEAD + lowest_bit_index(c0)] = head
                c0 &= c0 - _U1
            while c1:
                s[HEAD + lowest_bit_index(c1) + 64] = head
                c1 &= c1 - _U1
    s[STONES + 2 * head] = s0
    s[STONES + 2 * head + 1] = s1
    s[LIBERTIES + 2 * head] = l0 & ~b0
    s[LIBERTIES + 2 * head + 1] = l1 & ~b1


@kernel(inline="always")
def _recheck(s, mine, me, x0, x1):
    """Keep in the mover's atari points (at `mine`) only those of bitset x that still are: the only liberty of a
    chain of colour `me` beside them. (No array-taking helper inside: numba would count `s` in and out around it.)"""
    for w in range(2):
        x = x0 if w == 0 else x1
        while x:
            i = lowest_bit_index(x)
            x &= x - _U1
            p = i + 64 * w
            b0, b1 = _bit(p)
            found = False
            for k in range(4):
                q = NEIGHBOURS[p, k]
                if q >= 0 and s[BOARD + q] == me:
                    h = np.int64(s[HEAD + q])
                    found |= s[LIBERTIES + 2 * h] == b0 and s[LIBERTIES + 2 * h + 1] == b1
            if not found:
                s[mine + w] &= ~(_U1 << np.uint64(i))


@kernel
def apply(s, action):
    """Play `action`. Atari points change only around the move: an opposing chain beside it may be left one
    liberty, the mover's merged chain may have one, and an own chain that gains liberties (by the merge or by
    captures) leaves its old one (kept if another own chain is in atari there)."""
    me = s[2] + _U1
    s[MOVES] += _U1
    s[2] = _U1 - s[2]
    s[KO] = 0
    if action == PASS:
        s[PASSES] += _U1
    else:
        s[PASSES] = 0
        b0, b1 = _bit(action)
        near0, near1 = NEXT_TO[action, 0], NEXT_TO[action, 1]
        theirs = BLACK + 2 * (2 - np.int64(me))
        ours = BLACK + 2 * (np.int64(me) - 1)
        mine, their_atari = ATARI + 2 * (np.int64(me) - 1), ATARI + 2 * (2 - np.int64(me))
        opp0, opp1 = near0 & s[theirs], near1 & s[theirs + 1]
        own0, own1 = near0 & s[ours], near1 & s[ours + 1]
        eye = opp0 == near0 and opp1 == near1  # the stone goes where only the opponent's stones border
        captured, last = _ZERO, -1
        for w in range(2):
            x = opp0 if w == 0 else opp1
            while x:
                q = lowest_bit_index(x) + 64 * w
                x &= x - _U1
                if s[BOARD + q] == _ZERO:  # taken with a chain already captured from another side
                    continue
                h = np.int64(s[HEAD + q])
                l0 = s[LIBERTIES + 2 * h] & ~b0
                l1 = s[LIBERTIES + 2 * h + 1] & ~b1
                s[LIBERTIES + 2 * h] = l0
                s[LIBERTIES + 2 * h + 1] = l1
                if l0 == _ZERO and l1 == _ZERO:
                    captured += _capture(s, h, me)
                    last = q
                elif popcount(l0) + popcount(l1) == _U1:
                    s[their_atari] |= l0
                    s[their_atari + 1] |= l1
        _place(s, action, me, own0, own1)
        s[mine] &= ~b0
        s[mine + 1] &= ~b1
        s[their_atari] &= ~b0
        s[their_atari + 1] &= ~b1
        head = np.int64(s[HEAD + action])
        l0, l1 = s[LIBERTIES + 2 * head], s[LIBERTIES + 2 * head + 1]
        if popcount(l0) + popcount(l1) == _U1:
            s[mine] |= l0
            s[mine + 1] |= l1
        if captured:  # own chains beside the captured stones gained liberties: any atari point may have gone
            l0, l1 = ~_ZERO, ~_ZERO
        _recheck(s, mine, me, s[mine] & l0, s[mine + 1] & l1)  # else only the merged chains' old ones
        if eye and captured == _U1:
            s[KO] = last + 1
        slot = s[HASH] & np.uint64(SLOTS - 1)  # OpenSpiel's superko: a position seen before ends the game, drawn
        while s[SEEN + slot] != _ZERO:
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
