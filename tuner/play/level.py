"""An MCTS opponent's strength in a person's terms: about how many Elo below its best it plays.

Estimates from our Connect4 measurements (other games and agents differ, so only MCTS opponents are
described this way; the rest show their knobs alone):
- z: Elo against z = +inf fell linearly over z in [-2, 2], about 102 Elo per unit, from about 0 at
  z = 2 to about 400 below at z = -2, and no further below (experiments.strength, Wu et al.'s Table 1
  analogue: MCTS at 300 simulations, 200 games a point, the fit's rmse 34 Elo);
- the budget: MCTS1 (300 simulations) rated 262 Bradley-Terry Elo above MCTS2 (100 simulations)
  (experiments.alphazero_elo), about 165 Elo per halving of the simulations (each rating +-180).
"""

from __future__ import annotations

import math

Z_SLOPE, Z_AT_0, Z_FLOOR = 102.4, 228.1, 398.0  # Elo below z = +inf: Z_AT_0 - Z_SLOPE z, within [0, Z_FLOOR]
HALVING = 165.0  # Elo per halving of the simulations
NEGLIGIBLE = 25.0  # below this, "at its best": within the measurements' noise


def elo_below_best(z: float, budget_share: float = 1.0) -> float:
    """About how many Elo below its best (z = +inf, its whole budget) MCTS plays at softmax index `z` with
    `budget_share` of its simulations."""
    below = 0.0 if z == math.inf else min(Z_FLOOR, max(0.0, Z_AT_0 - Z_SLOPE * z))
    return below + HALVING * max(0.0, -math.log2(budget_share))


def describe_level(below: float) -> str:
    """`elo_below_best` in words, worded as the estimate it is."""
    if below < NEGLIGIBLE:
        return "at about its best"
    return f"about {10 * round(below / 10):.0f} Elo below its best (an estimate)"
