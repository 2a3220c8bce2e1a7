"""Elo ratings from match results, two ways.

- `alphadda_elo`: AlphaDDA App. 5 (Fujita) [AlphaDDA eq. 16, 17]: everyone starts at 1500; round after
  round, each pair's games of that round update both ratings by e(A) += K (N_win - N_G p(A beats B)),
  p(A beats B) = 1 / (1 + 10^((e(B) - e(A)) / 400)), K = 8. Anchors keep fixed ratings. A draw
  counts as half a win (the paper counts wins only; with few draws the two agree).
- `bradley_terry`: the maximum-likelihood ratings of the same logistic model over all games at
  once (draws as half a win and half a loss), with 95% intervals from the observed information.
  A weak Gaussian prior (sd 1000 Elo) keeps a player who won or lost everything finite.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from tuner.match.stats import Z95

ELO_PER_NAT = 400 / math.log(10)


def expected(e_a: float, e_b: float) -> float:
    """p(A beats B) under Elo."""
    return 1.0 / (1.0 + 10 ** ((e_b - e_a) / 400))


def alphadda_elo(
    players: list[str],
    results: dict[tuple[str, str], list[float]],
    rounds: int,
    k: float = 8.0,
    start: float = 1500.0,
    anchors: dict[str, float] | None = None,
) -> dict[str, float]:
    """Ratings after `rounds` round robins; results[(a, b)] lists a's score per game (1, 0.5, 0) in order.

    Each pair's games are cut into `rounds` consecutive slices; slice r is that pair's round r.
    """
    anchors = anchors or {}
    rating = {p: anchors.get(p, start) for p in players}
    slices = {pair: np.array_split(np.asarray(scores, dtype=float), rounds) for pair, scores in results.items()}
    for r in range(rounds):
        for (a, b), parts in slices.items():
            games = len(parts[r])
            if games == 0:
                continue
            wins_a = float(parts[r].sum())
            # [AlphaDDA eq. 16]
            p_a = expected(rating[a], rating[b])
            # [AlphaDDA eq. 17]
            delta = k * (wins_a - games * p_a)
            if a not in anchors:
                rating[a] += delta
            if b not in anchors:
                rating[b] -= delta
    return rating


@dataclass
class Rating:
    elo: float
    low: float  # 95% interval
    high: float


def bradley_terry(
    players: list[str],
    results: dict[tuple[str, str], list[float]],
    anchors: dict[str, float] | None = None,
    mean: float = 1500.0,
    prior_sd: float = 1000.0,
) -> dict[str, Rating]:
    """Maximum-likelihood Elo ratings (Newton's method) with 95% intervals.

    Without anchors the ratings average `mean`; with anchors those players keep their ratings (and the
    prior is centred on the anchors' mean).
    """
    anchors = anchors or {}
    centre = float(np.mean(list(anchors.values()))) if anchors else mean
    index = {p: i for i, p in enumerate(players)}
    n = len(players)
    pairs = [(index[a], index[b], float(np.sum(s)), len(s)) for (a, b), s in results.items() if len(s)]
    free = [i for i, p in enumerate(players) if p not in anchors]
    theta = np.array([(anchors.get(p, centre) - centre) / ELO_PER_NAT for p in players])
    prior = 1.0 / (prior_sd / ELO_PER_NAT) ** 2
    for _ in range(100):
        grad = -prior * theta
        hess = prior * np.eye(n)
        for i, j, score, games in pairs:
            p = 1.0 / (1.0 + math.exp(theta[j] - theta[i]))
            g = score - games * p
            w = games * p * (1 - p)
            grad[i] += g
            grad[j] -= g
            hess[i, i] += w
            hess[j, j] += w
            hess[i, j] -= w
            hess[j, i] -= w
        if not anchors:
            # ratings are defined up to a shift: fix it by the mean, solving in the free directions
            basis = np.linalg.svd(np.eye(n) - 1.0 / n)[0][:, : n - 1]
            step = basis @ np.linalg.solve(basis.T @ hess @ basis, basis.T @ grad)
        else:
            step = np.zeros(n)
            step[free] = np.linalg.solve(hess[np.ix_(free, free)], grad[free])
        theta += step
        if np.max(np.abs(step)) < 1e-10:
            break
    if not anchors:
        theta -= theta.mean()
        basis = np.linalg.svd(np.eye(n) - 1.0 / n)[0][:, : n - 1]
        cov = basis @ np.linalg.inv(basis.T @ hess @ basis) @ basis.T
    else:
        cov = np.zeros((n, n))
        cov[np.ix_(free, free)] = np.linalg.inv(hess[np.ix_(free, free)])
    out = {}
    for p, i in index.items():
        elo = centre + ELO_PER_NAT * theta[i]
        half = Z95 * ELO_PER_NAT * math.sqrt(max(cov[i, i], 0.0))
        out[p] = Rating(elo, elo - half, elo + half)
    return out


def tournament_ratings(specs: list[str], matches: list, *, rounds: int, anchors: dict[str, float]) -> dict:
    """A round robin's matches and both ratings as plain data (what `sparring tournament --json` prints
    after the game, games per pair and seed): rounds, anchors, matches, elo_alphadda and
    elo_bradley_terry {spec: {"elo", "ci95"}}."""
    from tuner.match.arena import pair_scores

    scores = pair_scores(matches)
    bt = bradley_terry(specs, scores, anchors=anchors)
    return {
        "rounds": rounds,
        "anchors": anchors,
        "matches": [m.to_dict() for m in matches],
        "elo_alphadda": alphadda_elo(specs, scores, rounds=rounds, anchors=anchors),
        "elo_bradley_terry": {s: {"elo": r.elo, "ci95": [r.low, r.high]} for s, r in bt.items()},
    }
