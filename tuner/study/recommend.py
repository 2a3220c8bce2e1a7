"""A study's final recommendation, and an objective's interval from a point's games.

Every strategy ends by naming one point, its recommendation, which is what a user would act on:
- LSI: its winner (the survivor of its sequential halving); CMA-ES (ours): its mean. Both come from
  the strategy's own `recommend()` after replaying the study's trials into it.
- every other strategy, ours and Optuna's and scikit-optimize's alike: the point with the best lower
  95% bound on its reward, pooling every trial at the point (Wilson's bound for a mean reward r over all
  the games behind it). A point tried once must beat a point tried five times by a margin that shrinks
  as it is tried again. Where a strategy tries each point once (grid, random on a large space, TPE,
  the GPs, Optuna's CMA-ES) every point has the same games and the rule is the best observed trial:
  then only `[validate]` corrects the winner's curse.
Our strategies' own `recommend()` bound, mean - sqrt(ln N / n), is sized for on-line tuning, where each
reward is one simulation's 0 or 1; a study's reward averages a trial's games, so that bound would be
many times too wide off-line and always pick the most-tried point (on sp-offline-connect4 NTBEA's
pick replayed at 0.57 against 0.76 for its best observed point). The raw maximum (the trial with the
best observed value) rises with the number of points tried whatever their quality (the winner's
curse); the bound departs from it wherever points have been tried unequally often.
"""

from __future__ import annotations

import math

import numpy as np
from optuna.trial import TrialState

from tuner.study import objective as objectives
from tuner.study.sampling import StudySampler, distributions
from tuner.study.spec import StudySpec

BOOTSTRAP = 2000  # resamples behind an objective's interval
OWN_RECOMMENDATION = ("lsi", "cmaes")  # strategies recommended by their own recommend()
Z95 = 1.959963984540054


def recommendation(spec: StudySpec, trials: list) -> dict:
    """The point the study's strategy recommends after `trials` (the study's trials by number; pruned and
    unfinished ones are skipped as its sampler skips them): see the module docstring. Before any finished
    trial, the space's defaults."""
    trials = sorted((t for t in trials if t.state != TrialState.PRUNED), key=lambda t: t.number)
    told = [t for t in trials if t.state == TrialState.COMPLETE and "reward" in t.user_attrs]
    if not told:
        return spec.default_values()
    if spec.strategy in OWN_RECOMMENDATION:
        dists = distributions(spec)
        sampler = StudySampler(spec, dists)
        strategy = sampler.rebuild(trials, dists, sampler.rewards(None, trials))
        return sampler.params_of(strategy, strategy.recommend(), dists)
    return lcb_point(spec, told)


def lcb_point(spec: StudySpec, trials: list) -> dict:
    """The distinct point with the best lower 95% bound on its pooled reward (see the module docstring)."""
    groups: dict[tuple, list[float]] = {}
    for t in trials:
        groups.setdefault(tuple(t.params[n] for n in spec.space.names), []).append(t.user_attrs["reward"])

    def bound(rewards):  # Wilson's lower bound: still below r at r = 1, unlike r - z sqrt(r (1 - r) / n)
        r, n = float(np.mean(rewards)), len(rewards) * spec.games_per_trial
        z2 = Z95 * Z95
        return (r + z2 / (2 * n) - Z95 * math.sqrt(r * (1 - r) / n + z2 / (4 * n * n))) / (1 + z2 / n)

    best = max(groups, key=lambda k: bound(groups[k]))
    return dict(zip(spec.space.names, (float(v) for v in best)))


def interval(objective: str, replicates: list[dict], seed: int = 0) -> tuple[float, float] | None:
    """A 95% interval for the mean objective of a point's replicate trials (each per opponent and seat W, D, L).

    The win rate is linear in the games, so its replicates pool into one record per opponent and seat, and
    the interval is the 2.5% and 97.5% quantiles of `bootstrap`. D and balance sum |W - L|, which a redraw
    from observed frequencies inflates, so theirs is Student's t over the replicates' values, clipped to the
    objective's range (None with one replicate)."""
    o = objectives.OBJECTIVES[objective]
    if not o.pools:
        if len(replicates) < 2:
            return None
        _, low, high = mean_interval([o.value(r) for r in replicates], within=o.range(replicates[0]))
        return low, high
    low, high = np.quantile(bootstrap(objective, replicates, seed), [0.025, 0.975])
    return float(low), float(high)


def bootstrap(objective: str, replicates: list[dict], seed: int = 0) -> np.ndarray:
    """BOOTSTRAP values of a pooled objective (the win rate) over games redrawn per opponent and seat from the
    point's pooled frequencies, each shrunk by Jeffreys' half a game (so that a point that won every game still
    varies: its interval reaches below 1); a parametric bootstrap, seeded, so a report is reproducible."""
    pooled = {
        opponent: {seat: np.sum([r[opponent][seat] for r in replicates], axis=0) for seat in seats}
        for opponent, seats in replicates[0].items()
    }
    rng = np.random.default_rng(seed)
    draws = {
        opponent: {
            seat: rng.multinomial(sum(wdl), (wdl + 0.5) / (sum(wdl) + 1.5), size=BOOTSTRAP) for seat, wdl in s.items()
        }
        for opponent, s in pooled.items()
    }
    value = objectives.OBJECTIVES[objective].value
    return np.array(
        [value({p: {seat: d[k].tolist() for seat, d in s.items()} for p, s in draws.items()}) for k in range(BOOTSTRAP)]
    )


def mean_interval(values, within=(-math.inf, math.inf)) -> tuple[float, float, float]:
    """The mean of independent values (seeds, replicates) and its 95% Student-t interval from their spread,
    clipped to `within`, the values' possible range (nan bounds for one value)."""
    values = np.asarray(values, dtype=float)
    n, mean = len(values), float(values.mean())
    if n < 2:
        return mean, math.nan, math.nan
    half = t_quantile(n) * float(values.std(ddof=1)) / math.sqrt(n)
    return mean, max(within[0], mean - half), min(within[1], mean + half)


def t_quantile(n: int) -> float:
    """Student's t 97.5% quantile for a mean of n values (4.30 for 3, 1.98 for 100)."""
    from scipy.stats import t

    return float(t.ppf(0.975, n - 1))
