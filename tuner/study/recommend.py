"""A study's final recommendation, and an objective's interval from a point's games.

Every strategy ends by naming one point, its recommendation, which is what a user would act on:
- ours (grid, random, nmc, lsi, ea, ntbea, cmaes): the strategy's own `recommend()` after replaying the
  study's trials into it (LSI's winner; CMA-ES's mean; otherwise the best lower confidence bound);
- Optuna's and scikit-optimize's samplers, which recommend nothing themselves: the same lower-bound rule
  over the trials' rewards, pooled per distinct point: mean reward - sqrt(ln(T + 1) / n), with n the
  trials at the point and T all trials. A point tried once must beat the others by a margin that shrinks
  only as it is tried again, so a lucky single trial is not enough.
Neither is the raw maximum (the trial with the best observed value), which rises with the number of
points tried whatever their quality (the winner's curse).
"""

from __future__ import annotations

import math

import numpy as np
from optuna.trial import TrialState

from tuner.study import objective as objectives
from tuner.study.samplers import StrategySampler, distributions
from tuner.study.spec import OUR_STRATEGIES, StudySpec

BOOTSTRAP = 2000  # resamples behind an objective's interval


def recommendation(spec: StudySpec, trials: list) -> dict:
    """The point the study's strategy recommends after `trials` (the study's trials by number; pruned and
    unfinished ones are skipped as its sampler skips them): see the module docstring. Before any finished
    trial, the space's defaults."""
    trials = sorted((t for t in trials if t.state != TrialState.PRUNED), key=lambda t: t.number)
    told = [t for t in trials if t.state == TrialState.COMPLETE and "reward" in t.user_attrs]
    if not told:
        return spec.default_values()
    if spec.strategy in OUR_STRATEGIES:
        strategy = StrategySampler(spec, distributions(spec)).rebuild(trials)
        return dict(zip(spec.space.names, (float(v) for v in strategy.values(strategy.recommend()))))
    return lcb_point(spec, told)


def lcb_point(spec: StudySpec, trials: list) -> dict:
    """The distinct point with the best mean reward - sqrt(ln(T + 1) / n) over its trials."""
    groups: dict[tuple, list[float]] = {}
    for t in trials:
        groups.setdefault(tuple(t.params[n] for n in spec.space.names), []).append(t.user_attrs["reward"])
    bonus = math.log(len(trials) + 1)
    best = max(groups, key=lambda k: np.mean(groups[k]) - math.sqrt(bonus / len(groups[k])))
    return dict(zip(spec.space.names, (float(v) for v in best)))


def interval(objective: str, records: dict, seed: int = 0) -> tuple[float, float]:
    """A 95% interval for the objective of a point's games (per opponent and seat W, D, L): the 2.5% and
    97.5% quantiles of the objective over games redrawn from each seat's observed frequencies (a parametric
    bootstrap; seeded, so a report is reproducible)."""
    rng = np.random.default_rng(seed)

    def redraw(wdl):
        return rng.multinomial(sum(wdl), np.array(wdl) / max(1, sum(wdl)), size=BOOTSTRAP)

    draws = {o: {seat: redraw(wdl) for seat, wdl in s.items()} for o, s in records.items()}
    values = [
        objectives.value(objective, {o: {seat: d[k].tolist() for seat, d in s.items()} for o, s in draws.items()})
        for k in range(BOOTSTRAP)
    ]
    low, high = np.quantile(values, [0.025, 0.975])
    return float(low), float(high)
