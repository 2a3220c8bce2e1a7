"""Choosing the move to play from a search's root statistics (Wu et al., strength index z).

Among the moves searched at least once with N_i >= R_th * N_1 (N_1 the most visits), move i is
chosen with probability N_i^z / sum_j N_j^z. z = +inf plays the most visited move (the usual MCTS
choice), z = -inf the least visited candidate, z = 0 a uniform candidate; ties at random.
"""

import math

import numpy as np

from games.rng import uniform


def move_probabilities(visits: np.ndarray, z: float, rth: float) -> np.ndarray:
    """Probability of each move under the softmax-z rule (zero outside the candidates)."""
    visits = np.asarray(visits, dtype=np.float64)
    candidates = (visits > 0) & (visits >= rth * visits.max())
    probs = np.zeros_like(visits)
    if math.isinf(z):
        extreme = visits[candidates].max() if z > 0 else visits[candidates].min()
        chosen = candidates & (visits == extreme)
        probs[chosen] = 1.0 / chosen.sum()
        return probs
    # [Wu softmax]: N_i^z / sum_j N_j^z over the candidates
    logs = z * np.log(visits[candidates])
    weights = np.exp(logs - logs.max())
    probs[candidates] = weights / weights.sum()
    return probs


def draw(actions: np.ndarray, weights: np.ndarray, rng) -> int:
    """An action drawn with probability proportional to its weight, with the compiled stream `rng`."""
    cumulative = np.cumsum(weights)
    index = int(np.searchsorted(cumulative, uniform(rng) * cumulative[-1], side="right"))
    return int(actions[min(index, len(actions) - 1)])


def choose_move(actions: np.ndarray, visits: np.ndarray, z: float, rth: float, rng) -> int:
    """Draw an action by `move_probabilities` with the compiled stream `rng`."""
    return draw(actions, move_probabilities(visits, z, rth), rng)


def choose_by_temperature(actions: np.ndarray, visits: np.ndarray, tau: float, rng) -> int:
    """Draw an action with probability exp(N_a / tau) / sum_b exp(N_b / tau) [AlphaDDA eq. 9], the
    opening move choice of AlphaZero's self-play (Table A1: tau 50, 20, 40), with the compiled stream `rng`."""
    logits = np.asarray(visits, dtype=np.float64) / tau
    return draw(actions, np.exp(logits - logits.max()), rng)
