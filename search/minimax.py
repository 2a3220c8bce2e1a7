"""Depth-limited negamax with alpha-beta over a game's own static evaluation (`games.Evaluation`).

The evaluations themselves are game knowledge and live with each game: AlphaDDA's Minimax1 and
Minimax2 [AlphaDDA App. 4, eqs. 13-15] are `game.evaluations["minimax1"]` and `["minimax2"]` for
Connect4 and the Othellos. Unlike the published reference code, this is a true minimax.
"""

import numpy as np

from games.jit import kernel
from games.kernels import copy_into
from games.rng import randint


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
        copy_into(s, child)
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
        copy_into(s, child)
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
