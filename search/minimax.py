"""Depth-limited negamax with alpha-beta over a game's own static evaluation (`games.Evaluation`), and the
authors' variant of it.

The evaluations themselves are game knowledge and live with each game: AlphaDDA's Minimax1 and
Minimax2 [AlphaDDA App. 4, eqs. 13-15] are `game.evaluations["minimax1"]` and `["minimax2"]` for
Connect4 and the Othellos. Unlike the published reference code, negamax is a true minimax; `worst_leaf` is the
reference code's (their minimax.py hands every leaf's value to all its ancestors, so a child of the root keeps the
worst of the leaves beneath it), for comparisons with the paper like for like.
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
def worst_leaf(g, evaluate, weights, s, depth, player, max_legal):
    """The least of `player`'s evaluations of the positions `depth` plies below `s` (or ending the game sooner)."""
    if depth == 0 or g.terminal(s):
        return evaluate(s, weights, player)
    moves = np.empty(max_legal, dtype=np.int64)
    n = g.legal(s, moves)
    child = s.copy()
    worst = np.inf
    for i in range(n):
        copy_into(s, child)
        g.apply(child, moves[i])
        worst = min(worst, worst_leaf(g, evaluate, weights, child, depth - 1, player, max_legal))
    return worst


@kernel
def minimax_action(g, evaluate, weights, s, depth, max_legal, rng, code):
    """The best move of `s` searched `depth` plies deep, by negamax or, with `code`, by its worst leaf (the authors'
    code); ties broken uniformly with `rng`."""
    moves = np.empty(max_legal, dtype=np.int64)
    values = np.empty(max_legal)
    n = g.legal(s, moves)
    child = s.copy()
    best = -np.inf
    player = g.to_move(s)
    for i in range(n):
        copy_into(s, child)
        g.apply(child, moves[i])
        if code:
            values[i] = worst_leaf(g, evaluate, weights, child, depth - 1, player, max_legal)
        else:
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
