"""Every study strategy as an Optuna sampler: ours (through the one adapter, `tuner.samplers.AllocationSampler`,
with a study's rules: `StudySampler`), Optuna's own, and scikit-optimize's GP.

Our allocation strategies (tuner.strategies) and skopt keep their state in memory,
so the sampler rebuilds it, for every new trial, by replaying the study's earlier trials in order:
each earlier trial that the sampler drew is asked again, and each finished one is told its stored
reward. A resumed study (or a second worker) therefore continues the same search, and with one
worker a run is reproduced exactly. Trials that are still running were asked but not told: a
strategy that only moves on after a reward (EA, NTBEA, LSI, CMA-ES) may then hand two workers the
same point; grid, random and NMC move on at every ask, so a grid is never evaluated twice at once.
A trial re-run after a crash (`retry_of`) repeats the failed trial's point and is not asked again;
a trial started beyond the budget by a racing worker is pruned before it plays and is skipped.
"""

from __future__ import annotations

import warnings

import optuna
from optuna.distributions import CategoricalDistribution, FloatDistribution, IntDistribution
from optuna.trial import TrialState

from tuner.samplers import AllocationSampler
from tuner.strategies import REGISTRY, make_strategy
from tuner.study.spec import OUR_STRATEGIES, StudyError, StudySpec

# strategies that search ranges where a study gives them: ours that are not compiled (CMA-ES), and the others
CONTINUOUS = {name for name, e in REGISTRY.items() if not e.compiled}
CONTINUOUS |= {"optuna-tpe", "optuna-cmaes", "optuna-gp", "skopt-gp"}


def distributions(spec: StudySpec) -> dict:
    """The Optuna distribution of each tuned parameter: its range (of integers where `integer = true`) for
    strategies that search ranges (where the study gives one), else its discrete values."""
    out = {}
    for p, has_range, whole in zip(spec.space.params, spec.continuous, spec.integer):
        if has_range and spec.strategy in CONTINUOUS:
            out[p.name] = IntDistribution(int(p.low), int(p.high)) if whole else FloatDistribution(p.low, p.high)
        else:
            out[p.name] = CategoricalDistribution(list(p.values))
    return out


def typed(dist, value):
    """A sampled number as its distribution holds it: an int (the nearest) in an integer range, else a float."""
    return round(value) if isinstance(dist, IntDistribution) else float(value)


def suggest(trial: optuna.Trial, dists: dict) -> dict:
    """The trial's values, one suggest call per parameter (what every sampler answers)."""
    out = {}
    for name, d in dists.items():
        if isinstance(d, FloatDistribution):
            out[name] = trial.suggest_float(name, d.low, d.high)
        elif isinstance(d, IntDistribution):
            out[name] = trial.suggest_int(name, d.low, d.high)
        else:
            out[name] = trial.suggest_categorical(name, d.choices)
    return out


class _ReplaySampler(optuna.samplers.BaseSampler):
    """A sampler whose whole state is rebuilt from the trials before the one being sampled."""

    def __init__(self, dists: dict, seed: int):
        self.dists, self.seed = dists, seed
        self._fallback = optuna.samplers.RandomSampler(seed=seed)

    def infer_relative_search_space(self, study, trial):
        return dict(self.dists)

    def sample_relative(self, study, trial, search_space):
        if not search_space:
            return {}
        trials = study.get_trials(deepcopy=False)
        earlier = [t for t in trials if t.number < trial.number and t.state != TrialState.PRUNED]
        return self.replay(sorted(earlier, key=lambda t: t.number))

    def sample_independent(self, study, trial, param_name, param_distribution):
        return self._fallback.sample_independent(study, trial, param_name, param_distribution)

    def replay(self, earlier) -> dict:
        raise NotImplementedError


def _told(t) -> bool:
    return t.state == TrialState.COMPLETE and "reward" in t.user_attrs


class StudySampler(AllocationSampler):
    """One of our allocation strategies (grid, random, nmc, lsi, ea, ntbea, cmaes) over a study folder's space:
    the project's one Optuna adapter (`tuner.samplers.AllocationSampler`) with the study's rules. Its space
    is the study's from the first trial; its seed is the study's own; it learns from the trials that played
    (a trial pruned before it played, beyond the budget, is left out), is not asked again for a crashed
    trial's re-run (`retry_of`: the same point), and is told each trial's reward as the study's objective
    put it (`reward`, on [0, 1])."""

    def __init__(self, spec: StudySpec, dists: dict):
        if spec.strategy == "cmaes" and not all(spec.continuous):
            raise StudyError("strategy cmaes searches ranges: give low and high for every [space.*] parameter")
        try:  # bad settings fail now, not in a worker
            super().__init__(spec.strategy, seed=spec.seed, search_space=dists, **spec.settings)
            make_strategy(spec.space, spec.strategy, spec.seed, **spec.settings)
        except (TypeError, ValueError) as e:
            raise StudyError(f"[strategy] {spec.strategy}: {e}") from None
        self._seed = spec.seed  # the study's seed itself: its recorded trials were drawn with it

    def replayed(self, trial, search_space: dict) -> bool:
        return trial.state != TrialState.PRUNED  # one still drawing its point is asked for it, as it will be

    def asked(self, trial) -> bool:
        return "retry_of" not in trial.user_attrs

    def rewards(self, study, trials) -> dict[int, float]:
        return {t.number: t.user_attrs["reward"] for t in trials if _told(t)}

    def params_of(self, strategy, x, search_space: dict) -> dict:
        """As the adapter's, each value as its distribution holds it (`typed`: a float for a study's discrete
        values, as its records keep them)."""
        return {n: typed(search_space[n], v) for n, v in super().params_of(strategy, x, search_space).items()}


class SkoptSampler(_ReplaySampler):
    """scikit-optimize's Gaussian-process `Optimizer` (ask/tell) as an Optuna sampler.

    skopt is archived upstream; only its GP Optimizer over real ranges and categorical values is used.
    """

    def __init__(self, spec: StudySpec, dists: dict):
        super().__init__(dists, spec.seed)
        try:
            import skopt  # noqa: F401
        except ImportError:
            raise StudyError("strategy skopt-gp needs scikit-optimize: pip install scikit-optimize") from None
        self.names = list(dists)

    def replay(self, earlier) -> dict:
        from skopt import Optimizer

        ranges = (FloatDistribution, IntDistribution)  # skopt searches (int, int) as integers
        dims = [(d.low, d.high) if isinstance(d, ranges) else list(d.choices) for d in self.dists.values()]
        opt = Optimizer(dims, base_estimator="GP", random_state=self.seed, n_initial_points=5)
        told = [t for t in earlier if _told(t)]
        with warnings.catch_warnings():  # a point asked twice is replaced by a random one, as the warning says
            warnings.filterwarnings("ignore", "The objective has been evaluated at point", UserWarning)
            if told:
                opt.tell([[t.params[n] for n in self.names] for t in told], [-t.user_attrs["reward"] for t in told])
            return {n: typed(d, v) for (n, d), v in zip(self.dists.items(), opt.ask())}


def make_sampler(spec: StudySpec) -> optuna.samplers.BaseSampler:
    """The Optuna sampler of the study's strategy, seeded with the study's seed."""
    dists = distributions(spec)
    if spec.strategy in OUR_STRATEGIES:
        return StudySampler(spec, dists)
    if spec.strategy == "skopt-gp":
        return SkoptSampler(spec, dists)
    samplers = {
        "optuna-tpe": optuna.samplers.TPESampler,
        "optuna-cmaes": optuna.samplers.CmaEsSampler,
        "optuna-gp": optuna.samplers.GPSampler,
    }
    try:
        return samplers[spec.strategy](seed=spec.seed, **spec.settings)
    except TypeError as e:
        raise StudyError(f"[strategy] {spec.strategy}: {e}") from None
