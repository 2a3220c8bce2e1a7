"""The compiled game interface, and game-independent kernels written against it.

Every game exports a `GameKernels` tuple of numba functions over its state array (a small
uint64 vector). Generic kernels receive that tuple as an argument: numba specialises them per
game and caches the result, so adding a game never touches this module or the search.
"""

from collections import namedtuple

import numpy as np
from numba import types
from numba.extending import overload

from games.bits import lowest_bit_index
from games.jit import kernel, kernel_tuple
from games.rng import randint

# Every state array keeps the player to move at index TO_MOVE and the status at index STATUS:
# 0 while playing, 1 or 2 once player 0 or 1 has won, 3 for a draw.
TO_MOVE, STATUS = 2, 3
_DRAW = np.uint64(3)


@kernel
def status_terminal(s):
    """`terminal` for every game that keeps the shared layout."""
    return s[STATUS] != np.uint64(0)


@kernel
def status_winner(s):
    """`winner` for every game that keeps the shared layout."""
    return np.int64(s[STATUS]) - 1 if s[STATUS] != _DRAW else -1


@kernel(inline="always")
def winner_returns(w, out):
    """A two-player game's `returns` from its winner `w` (-1 a draw): 1 a win, 0 a loss, 0.5 each a draw."""
    out[0] = 0.5 if w < 0 else (1.0 if w == 0 else 0.0)
    out[1] = 1.0 - out[0]


@kernel
def status_returns(s, out):
    """`returns` for every two-player game that keeps the shared layout."""
    winner_returns(status_winner(s), out)


@kernel
def status_to_move(s):
    """`to_move` for every game that keeps the shared layout."""
    return np.int64(s[TO_MOVE])


@kernel
def empty_squares(s, out):
    """`legal` of a game whose move marks an empty square (Connect 5, 3D Tic-Tac-Toe): the bits set in neither
    s[0] nor s[1], lowest first, each its own action; their count."""
    empty = ~(s[0] | s[1])
    n = 0
    while empty:
        out[n] = lowest_bit_index(empty)
        empty &= empty - np.uint64(1)
        n += 1
    return n


@kernel(inline="always")
def race_move(s, frm, to, goal):
    """Move the mover's piece on bit `frm` to bit `to` of a race game (Breakthrough, Knightthrough: pieces in s[0]
    and s[1], then the shared layout and the plies), capturing what stands there; reaching a bit of `goal` (its far
    row) or taking the last opposing piece wins."""
    p = s[TO_MOVE]
    q = np.uint64(1) - p
    to_bit = np.uint64(1) << np.uint64(to)
    s[p] ^= (np.uint64(1) << np.uint64(frm)) | to_bit
    s[q] &= ~to_bit
    if to_bit & goal or s[q] == np.uint64(0):
        s[STATUS] = p + np.uint64(1)
    s[TO_MOVE] = q
    s[4] += np.uint64(1)


@kernel(inline="always")
def copy_into(src, dst):
    """dst[:] = src for 1-D arrays with len(src) >= len(dst), element by element and unchecked (every caller copies
    equal lengths): numba then builds no shape-mismatch error, whose string formatting compiled for 2.5 s in every
    cold process that assigned one array to another."""
    for i in range(dst.shape[0]):
        dst[i] = src[i]


@kernel(inline="always")
def encode_planes(s, out, row, rows, cols, first, row_step, col_step):
    """`encode` for a game that keeps the shared layout and its two players' bitboards in s[0] and s[1]:
    square (r, c) of the planes is bit first + r * row_step + c * col_step. Writes every element, allocates nothing.
    """
    p = s[TO_MOVE]
    own, opp = s[p], s[np.uint64(1) - p]
    mover = np.float32(p)
    for r in range(rows):
        for c in range(cols):
            bit = np.uint64(first + r * row_step + c * col_step)
            out[row, 0, r, c] = np.float32((own >> bit) & np.uint64(1))
            out[row, 1, r, c] = np.float32((opp >> bit) & np.uint64(1))
            out[row, 2, r, c] = mover


GameKernels = kernel_tuple(
    namedtuple(
        "GameKernels",
        ["init", "legal", "apply", "terminal", "winner", "returns", "to_move", "encode", "playout"],
        defaults=(None,),
    )
)
GameKernels.__doc__ = """Compiled rules of one game; every function takes the state array `s` first.

init(s)             -> None  write the initial position into `s`
legal(s, out)       -> int   write the legal actions into `out` (int64, length >= max_legal), return how many
apply(s, action)    -> None  play a legal action in place (not checked: the Python `State` checks)
terminal(s)         -> bool  whether the game is over
winner(s)           -> int   the player with the highest score alone, -1 when several share it (a draw); only
                             meaningful when terminal
returns(s, out)     -> None  write each player's score in [0, 1] into out[0 .. players - 1] (float64): a win 1, a
                             loss 0, a draw 0.5 in two-player games, GGP's goal / 100 in the others (terminal only)
to_move(s)          -> int   the player to move, 0 .. players - 1 (only meaningful when not terminal)
encode(s, out, row) -> None  write `State.encode()`'s planes into out[row] (out float32 [B, 3, rows, cols]),
                             every element of that row and nothing else, without allocating
playout(s, buf, rng) -> None optional (None: `play_out`'s loop over the kernels above): play uniformly random moves
                             to the end in place, each drawn as that loop draws it (randint(rng, n) over the n
                             actions `legal` writes, in its order), buf int64 scratch of max_legal; a game's own
                             keeps its position in registers
"""


def play_out(g, s, buf, rng):
    """Play uniformly random moves from `s` to the end, in place: the game's own `playout` where it has one, else a
    loop over its kernels; the same moves from the same stream either way."""
    raise TypeError("play_out runs in compiled code")


@overload(play_out)
def _play_out(g, s, buf, rng):
    if isinstance(g.types[g.fields.index("playout")], types.NoneType):

        def loop(g, s, buf, rng):
            while not g.terminal(s):
                n = g.legal(s, buf)
                g.apply(s, buf[randint(rng, n)])

        return loop
    return lambda g, s, buf, rng: g.playout(s, buf, rng)


@kernel
def random_playout(g, s, buf, rng):
    """Play uniformly random moves from `s` (modified in place) to the end; return the winner (-1 draw)."""
    play_out(g, s, buf, rng)
    return g.winner(s)


@kernel
def random_playouts(g, root, n_playouts, max_legal, rng, players=2):
    """Run `n_playouts` random playouts from `root` of a game of `players` players; return the win counts
    [player 0, ..., player players - 1, no single winner (a draw)]."""
    counts = np.zeros(players + 1, dtype=np.int64)
    s = root.copy()
    buf = np.empty(max_legal, dtype=np.int64)
    for _ in range(n_playouts):
        copy_into(root, s)
        w = random_playout(g, s, buf, rng)
        counts[w if w >= 0 else players] += 1
    return counts


@kernel
def perft(g, root, depth, max_legal):
    """Leaf count of the move tree to `depth` plies; a game that ends earlier counts as one leaf there."""
    if depth == 0 or g.terminal(root):
        return 1
    states = np.empty((depth + 1, root.shape[0]), dtype=root.dtype)
    moves = np.empty((depth, max_legal), dtype=np.int64)
    n_moves = np.zeros(depth, dtype=np.int64)
    next_move = np.zeros(depth, dtype=np.int64)
    copy_into(root, states[0])
    n_moves[0] = g.legal(states[0], moves[0])
    level = 0
    leaves = 0
    while level >= 0:
        if next_move[level] == n_moves[level]:
            level -= 1
            continue
        child = states[level + 1]
        copy_into(states[level], child)
        g.apply(child, moves[level, next_move[level]])
        next_move[level] += 1
        if level + 1 == depth or g.terminal(child):
            leaves += 1
        else:
            level += 1
            n_moves[level] = g.legal(child, moves[level])
            next_move[level] = 0
    return leaves


@kernel
def encode_batch(g, states, out):
    """Encode each state states[i] (uint64 [B, state_size]) into out[i] (float32 [B, 3, rows, cols]) in one call."""
    for i in range(states.shape[0]):
        g.encode(states[i], out, i)
