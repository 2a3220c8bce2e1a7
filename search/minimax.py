"""Depth-limited negamax with alpha-beta, and the evaluations of AlphaDDA's Minimax1 and Minimax2.

Fujita, App. 4 (eqs. 13-15). Connect4: every run of two same-colour discs scores R and every run of
three R^2 (runs counted in the four directions, overlapping: a run of three also holds two runs of
two), for the player's discs minus the opponent's; a won game scores R^3. Othello: the sum of cell
weights over the player's discs minus the opponent's, eq. (14)/(15) for Minimax1 and all ones
for Minimax2; a won game scores 1000, and the search runs to the end once six or fewer squares
are empty. Unlike the published reference code, this is a true minimax.
"""

import numpy as np

import games
from games.bits import lowest_bit_index, popcount
from games.connect4 import LINE_SHIFTS
from games.jit import kernel
from games.kernels import status_terminal, status_winner
from games.rng import randint

# eq. (14) and (15), row by row from the top-left corner
# [AlphaDDA eq. 14]
OTHELLO6_WEIGHTS = np.array(
    [
        [30, -5, 2, 2, -5, 30],
        [-5, -15, 3, 3, -15, -5],
        [2, 3, 0, 0, 3, 2],
        [2, 3, 0, 0, 3, 2],
        [-5, -15, 3, 3, -15, -5],
        [30, -5, 2, 2, -5, 30],
    ],
    dtype=np.float64,
).ravel()
# [AlphaDDA eq. 15]
OTHELLO8_WEIGHTS = np.array(
    [
        [120, -20, 20, 5, 5, 20, -20, 120],
        [-20, -40, -5, -5, -5, -5, -40, -20],
        [20, -5, 15, 3, 3, 15, -5, 20],
        [5, -5, 3, 3, 3, 3, -5, 5],
        [5, -5, 3, 3, 3, 3, -5, 5],
        [20, -5, 15, 3, 3, 15, -5, 20],
        [-20, -40, -5, -5, -5, -5, -40, -20],
        [120, -20, 20, 5, 5, 20, -20, 120],
    ],
    dtype=np.float64,
).ravel()


@kernel
def connect4_eval(s, weights, player):
    """Eq. (13) from `player`'s view; weights = [R]."""
    r = weights[0]
    if status_terminal(s):
        w = status_winner(s)
        return 0.0 if w < 0 else (r * r * r if w == player else -r * r * r)
    total = 0.0
    for p in range(2):
        b = s[p]
        runs = 0.0
        for d in LINE_SHIFTS:
            two = b & (b >> d)
            # [AlphaDDA eq. 13]
            runs += r * np.float64(popcount(two)) + r * r * np.float64(popcount(two & (b >> (d + d))))
        total += runs if p == player else -runs
    return total


@kernel
def othello_eval(s, weights, player):
    """Eqs. (14)-(15) from `player`'s view; weights = one per square (ones for Minimax2)."""
    if status_terminal(s):
        w = status_winner(s)
        return 0.0 if w < 0 else (1000.0 if w == player else -1000.0)
    total = 0.0
    for p in range(2):
        b = s[p]
        while b:
            v = weights[lowest_bit_index(b)]
            total += v if p == player else -v
            b &= b - np.uint64(1)
    return total


@kernel
def empty_squares(s, squares):
    """Squares left empty on an Othello board of `squares` squares."""
    return squares - np.int64(popcount(s[0] | s[1]))


@kernel
def negamax(g, evaluate, weights, s, depth, alpha, beta, max_legal):
    """Value of `s` for the player to move, `depth` plies deep (alpha-beta, fail-hard).

    Players alternate on every move in our games (a pass is a move), so a child's value is negated.
    """
    if depth == 0 or g.terminal(s):
        return evaluate(s, weights, g.to_move(s))
    moves = np.empty(max_legal, dtype=np.int64)
    n = g.legal(s, moves)
    child = s.copy()
    for i in range(n):
        child[:] = s
        g.apply(child, moves[i])
        v = -negamax(g, evaluate, weights, child, depth - 1, -beta, -alpha, max_legal)
        if v >= beta:
            return beta
        if v > alpha:
            alpha = v
    return alpha


@kernel
def minimax_action(g, evaluate, weights, s, depth, max_legal, rng):
    """The best move of `s` searched `depth` plies deep; ties broken uniformly with `rng`."""
    moves = np.empty(max_legal, dtype=np.int64)
    values = np.empty(max_legal)
    n = g.legal(s, moves)
    child = s.copy()
    best = -np.inf
    for i in range(n):
        child[:] = s
        g.apply(child, moves[i])
        values[i] = -negamax(g, evaluate, weights, child, depth - 1, -np.inf, np.inf, max_legal)
        best = max(best, values[i])
    ties = 0
    for i in range(n):
        if values[i] == best:
            ties += 1
    pick = randint(rng, ties)
    for i in range(n):
        if values[i] == best:
            if pick == 0:
                return moves[i]
            pick -= 1
    return moves[n - 1]


def evaluation(game, variant: int):
    """(evaluate kernel, weights) of Minimax`variant` (1 or 2) for a game (or its name) whose `minimax`
    names its evaluation."""
    game = games.load(game) if isinstance(game, str) else game
    if game.minimax == "connect4":
        return connect4_eval, np.array([100.0 if variant == 1 else 2.0])
    if game.minimax == "othello":
        table = {64: OTHELLO8_WEIGHTS, 36: OTHELLO6_WEIGHTS}[game.board_shape[0] * game.board_shape[1]]
        return othello_eval, (table if variant == 1 else np.ones_like(table))
    raise ValueError(f"minimax has no evaluation for {game.name!r}")
