"""Flat Monte-Carlo: score every legal move by random playouts, play the best. The simplest rollout player."""

import numpy as np

from games.jit import kernel
from games.kernels import random_playout


@kernel
def flat_mc_action(g, root, playouts_per_move, max_legal, rng):
    """The legal action of `root` whose playouts score best for the player to move (win 1, draw 0.5)."""
    moves = np.empty(max_legal, dtype=np.int64)
    buf = np.empty(max_legal, dtype=np.int64)
    n = g.legal(root, moves)
    me = g.to_move(root)
    s = root.copy()
    best, best_score = moves[0], -1.0
    for i in range(n):
        score = 0.0
        for _ in range(playouts_per_move):
            s[:] = root
            g.apply(s, moves[i])
            w = random_playout(g, s, buf, rng)
            score += 1.0 if w == me else 0.5 if w < 0 else 0.0
        if score > best_score:
            best, best_score = moves[i], score
    return best
