"""Our allocation strategies as ordinary Optuna samplers, for any define-by-run objective.

>>> import optuna
>>> from tuner.samplers import NTBEASampler
>>> optuna.logging.set_verbosity(optuna.logging.WARNING)
>>> def objective(trial):
...     x = trial.suggest_float("x", -2.0, 2.0)                 # discretised: 5 evenly spaced values
...     n = trial.suggest_int("n", 1, 4)                        # every whole number: 4 values
...     kind = trial.suggest_categorical("kind", ["a", "b"])
...     return -(x - 1.0) ** 2 - abs(n - 3) - (kind == "b")
>>> study = optuna.create_study(direction="maximize", sampler=NTBEASampler(seed=0))
>>> study.optimize(objective, n_trials=60)
>>> study.best_params["n"], study.best_params["kind"]
(3, 'a')

NMC, LSI, EA and NTBEA (Sironi, Liu, Winands [SA-MCTS IV-B]) choose among finite values, so every
parameter is discretised: a categorical's choices; an int's every value when there are at most
`max_values` of them (else `steps` evenly spaced ones, geometrically spaced with `log=True`); a
float's `steps` evenly (or geometrically) spaced values, or its `step` grid when that has at most
`max_values` points. `grid={"x": [...]}` gives a parameter's values outright. `CMAESSampler` searches
float and int ranges continuously (pycma, mapped onto [0, 1]^d) and leaves categoricals to random
sampling.

How they fit Optuna. The search space is the intersection of the finished trials' spaces (what
Optuna's own relative samplers use); parameters outside it, and every parameter of the first trial,
are sampled at random. A strategy's state lives in memory, so for each new trial it is rebuilt from
the study's earlier trials in order: each is asked again and, once finished, told its reward. A
reward is the trial's value scaled to [0, 1] by the smallest and largest finished values (reversed
when minimising), so any objective's scale works. The state is therefore all in the storage: several
processes on one journal or RDB storage, `n_jobs` threads, and a resumed study all continue the same
search (with one worker, exactly). EA, NTBEA and CMA-ES ask one point until told its reward, so trials
asked at once by parallel workers replay one point: give them one worker. Single-objective studies only: a
multi-objective one is refused with a one-line ValueError. `tests/test_optuna_suite.py` runs Optuna's own
sampler suite (`optuna.testing.pytest_samplers`) over every strategy.
"""

from __future__ import annotations

import math
import zlib

import numpy as np
import optuna
from optuna.distributions import BaseDistribution, CategoricalDistribution, IntDistribution
from optuna.search_space import IntersectionSearchSpace
from optuna.trial import TrialState

from tuner.strategies import REGISTRY, Param, Space, check_settings, make_strategy

__all__ = ["AllocationSampler", "CMAESSampler", "EASampler", "LSISampler", "NMCSampler", "NTBEASampler"]


class AllocationSampler(optuna.samplers.BaseSampler):
    """One of our allocation strategies (`strategy`: nmc, lsi, ea, ntbea, cmaes, grid or random) as an
    Optuna sampler; `settings` are the strategy's (`tuner.strategies.REGISTRY`), e.g. NTBEA's `k`.

    Args:
        strategy: the allocation strategy's name.
        seed: seeds the strategy and the random sampling of parameters outside its space (None: a random
            seed, drawn here; several processes continue one search only if they are given the same seed).
        steps: values of a discretised range (see the module docstring).
        max_values: an int or stepped float range with at most this many values keeps them all.
        grid: per parameter name, its values outright (they must lie in its distribution).
        search_space: the distributions to search from the first trial on (a study folder's space); None
            (default) infers them, as the intersection of the finished trials' spaces.

    What the strategy learns from a study's history is three overridable rules: `replayed` (the earlier
    trials it is rebuilt from), `asked` (those it was asked for) and `rewards` (their rewards in [0, 1]);
    a study folder's sampler (`tuner.study.sampling.StudySampler`) overrides them.
    """

    def __init__(
        self,
        strategy: str,
        *,
        seed: int | None = None,
        steps: int = 5,
        max_values: int = 32,
        grid: dict | None = None,
        search_space: dict[str, BaseDistribution] | None = None,
        **settings,
    ):
        if strategy not in REGISTRY:
            raise ValueError(f"unknown strategy {strategy!r}; known: {', '.join(REGISTRY)}")
        if steps < 2 or max_values < 2:
            raise ValueError("steps and max_values must be at least 2")
        self.strategy, self.steps, self.max_values = strategy, int(steps), int(max_values)
        self.grid = {name: list(values) for name, values in (grid or {}).items()}
        self.settings = check_settings(strategy, settings)
        self.continuous = not REGISTRY[strategy].compiled  # CMA-ES searches ranges
        self._seed = int(np.random.SeedSequence(seed).generate_state(1)[0])  # drawn now: threads share one
        self._spaces = IntersectionSearchSpace()
        self.search_space = None if search_space is None else dict(search_space)

    # --- the search space --------------------------------------------------------------------------

    def infer_relative_search_space(self, study, trial) -> dict[str, BaseDistribution]:
        self._single_objective(study)
        if self.search_space is not None:
            return dict(self.search_space)
        return self._searched({n: d for n, d in self._spaces.calculate(study).items() if not d.single()})

    def _searched(self, search_space: dict) -> dict:
        """The parameters the strategy searches: all but CMA-ES's categoricals (left to random sampling,
        `sample_independent`)."""
        return {
            n: d for n, d in search_space.items() if not (self.continuous and isinstance(d, CategoricalDistribution))
        }

    def values(self, name: str, dist: BaseDistribution) -> list:
        """The finite values a discrete strategy chooses among for one parameter."""
        if name in self.grid:
            bad = [v for v in self.grid[name] if not dist._contains(dist.to_internal_repr(v))]
            if bad or not self.grid[name]:
                raise ValueError(f"grid[{name!r}] = {self.grid[name]} has values outside {dist}")
            return list(self.grid[name])
        if isinstance(dist, CategoricalDistribution):
            return list(dist.choices)
        step = dist.step
        if step is not None and (dist.high - dist.low) / step + 1 <= self.max_values + 1e-9:
            count = int(round((dist.high - dist.low) / step)) + 1
            points = np.array([dist.low + k * step for k in range(count)], dtype=float)
        else:
            points = (np.geomspace if dist.log else np.linspace)(dist.low, dist.high, self.steps)
        return sorted(set(_on_grid(dist, p) for p in points))

    def _space(self, search_space: dict) -> tuple[Space, list[list]]:
        params, choices = [], []
        for name, dist in search_space.items():
            if self.continuous:  # CMA-ES: a log range is searched in its logarithm
                low, high = (math.log(dist.low), math.log(dist.high)) if dist.log else (dist.low, dist.high)
                params.append(Param(name, (float(low),), float(low), float(high), float(low)))
                choices.append([])
            else:
                values = self.values(name, dist)
                params.append(Param(name, tuple(range(len(values))), 0.0, float(len(values) - 1), 0.0))
                choices.append(values)
        return Space(params), choices

    # --- sampling ----------------------------------------------------------------------------------

    def _single_objective(self, study) -> None:
        """ValueError in one line for a multi-objective study: our strategies learn one reward."""
        if len(study.directions) > 1:
            raise ValueError(
                f"{type(self).__name__} handles single-objective studies only: for several objectives "
                "use one of Optuna's multi-objective samplers (NSGAIISampler, TPESampler)"
            )

    def sample_relative(self, study, trial, search_space: dict) -> dict:
        """The strategy's next point over the parameters it searches; the others of `search_space` (CMA-ES's
        categoricals) drawn as `sample_independent` draws them."""
        self._single_objective(study)
        searched = self._searched(search_space)
        out = {}
        if searched:
            trials = study.get_trials(deepcopy=False)
            replay = (t for t in trials if t.number < trial.number and self.replayed(t, searched))
            earlier = sorted(replay, key=lambda t: t.number)
            strategy = self.rebuild(earlier, searched, self.rewards(study, earlier))
            out = self.params_of(strategy, strategy.ask(), searched)
        for name, dist in search_space.items():
            if name not in out:
                out[name] = self.sample_independent(study, trial, name, dist)
        return out

    def params_of(self, strategy, x, search_space: dict) -> dict:
        """The trial parameters of the strategy's point x (value indices, or a point of [0, 1]^d)."""
        space, choices = self._space(search_space)
        if self.continuous:
            out = {}
            for name, value in zip(search_space, space.from_unit(x)):
                dist = search_space[name]
                out[name] = _on_grid(dist, math.exp(value) if dist.log else value)
            return out
        return {name: choices[i][int(k)] for i, (name, k) in enumerate(zip(search_space, x))}

    def sample_independent(self, study, trial, param_name, param_distribution):
        """A uniform draw seeded by (seed, trial number, parameter name): the same in a resumed study."""
        self._single_objective(study)
        key = [self._seed, trial.number, zlib.crc32(param_name.encode())]
        random = optuna.samplers.RandomSampler(seed=int(np.random.SeedSequence(key).generate_state(1)[0]))
        return random.sample_independent(study, trial, param_name, param_distribution)

    def rebuild(self, earlier: list, search_space: dict, rewards: dict[int, float]):
        """The strategy after the trials `earlier` (by number): asked again for each it was asked for, and told
        the reward of each that has one."""
        space, choices = self._space(search_space)
        strategy = make_strategy(space, self.strategy, self._seed, **self.settings)
        for t in earlier:
            if self.asked(t):
                strategy.ask()
            if t.number in rewards:
                point = self._point(space, choices, search_space, t.params)
                if point is not None:
                    strategy.tell(point, rewards[t.number])
        return strategy

    # --- what the strategy learns from the study's history: a study folder's sampler overrides these --------

    def replayed(self, trial, search_space: dict) -> bool:
        """Whether an earlier trial is part of the strategy's history: every one that has the space's parameters."""
        return set(search_space) <= set(trial.params)

    def asked(self, trial) -> bool:
        """Whether the strategy was asked for this trial of its history: every one."""
        return True

    def _point(self, space: Space, choices: list[list], search_space: dict, params: dict):
        """A trial's parameters as the strategy's point (value indices, or [0, 1]^d); None if off the grid."""
        names = list(search_space)
        if self.continuous:
            logged = [math.log(params[n]) if search_space[n].log else float(params[n]) for n in names]
            return space.to_unit(logged)
        point = []
        for values, name in zip(choices, names):
            value = params[name]
            if value in values:
                point.append(values.index(value))
            elif isinstance(search_space[name], CategoricalDistribution):
                return None  # a choice left out by grid=: nothing to credit
            else:  # a number off the grid (the first, random trials): credited to the nearest value
                point.append(int(np.argmin([abs(float(v) - float(value)) for v in values])))
        return np.array(point, dtype=np.int64)

    def rewards(self, study, trials) -> dict[int, float]:
        """The rewards of the trials that are over: finished values scaled to [0, 1] by the smallest and largest
        finite ones (reversed when minimising); 0, the worst, for a pruned or failed trial or a value that is
        not finite, so that a strategy moves on from such a point instead of proposing it again."""
        maximise = study.direction == optuna.study.StudyDirection.MAXIMIZE
        worst = (TrialState.PRUNED, TrialState.FAIL)
        finite = {
            t.number: t.value
            for t in trials
            if t.state == TrialState.COMPLETE and t.value is not None and math.isfinite(t.value)
        }
        out = {
            t.number: 0.0
            for t in trials
            if t.state in worst or (t.state == TrialState.COMPLETE and t.number not in finite)
        }
        for t in trials:  # +inf when maximising (or -inf when minimising) is the best there is
            if t.number in out and t.value is not None and t.value == (math.inf if maximise else -math.inf):
                out[t.number] = 1.0
        if finite:
            low, high = min(finite.values()), max(finite.values())
            span = high - low
            for n, v in finite.items():
                out[n] = 0.5 if span == 0 else (v - low) / span if maximise else (high - v) / span
        return out


def _on_grid(dist, value: float):
    """`value` as `dist` holds it: inside [low, high], on its step grid, an int for an int distribution (a
    value outside would be dropped by Optuna for a random draw)."""
    value = min(dist.high, max(dist.low, float(value)))
    if dist.step is not None:
        value = dist.low + round((value - dist.low) / dist.step) * dist.step
        value = min(dist.high, round(value, 12))
    return int(round(value)) if isinstance(dist, IntDistribution) else float(value)


class NMCSampler(AllocationSampler):
    """Naive Monte-Carlo (Ontañón; SA-MCTS Alg. 1): local bandits per value generate combinations, a global
    bandit evaluates them. Settings: `eps0`, `c_local`, `c_global`."""

    def __init__(self, *, seed=None, **options):
        super().__init__("nmc", seed=seed, **options)


class LSISampler(AllocationSampler):
    """Linear Side Information (SA-MCTS Alg. 2): side information from a share of the `budget` (`generation`),
    then sequential halving over `candidates`. `budget` is the number of trials you will run: LSI plans
    its phases by it, and recommends its winner once it is spent."""

    def __init__(self, *, budget: int, seed=None, **options):
        super().__init__("lsi", seed=seed, budget=budget, **options)


class EASampler(AllocationSampler):
    """The evolutionary algorithm of SA-MCTS (Alg. 3): settings `population`, `elite` and `crossover` (the
    paper's 50, 25 and 0.5 need a few hundred trials to leave the first, random population)."""

    def __init__(self, *, seed=None, **options):
        super().__init__("ea", seed=seed, **options)


class NTBEASampler(AllocationSampler):
    """The N-Tuple Bandit Evolutionary Algorithm (Lucas, Liu, Perez; SA-MCTS Alg. 4-5): a bandit per tuple
    of parameters scores each neighbour of the current point. Settings: `c`, `neighbours`."""

    def __init__(self, *, seed=None, **options):
        super().__init__("ntbea", seed=seed, **options)


class CMAESSampler(AllocationSampler):
    """CMA-ES (Hansen; SA-MCTS VI) through pycma over the float and int ranges mapped onto [0, 1]^d, scoring
    its mean on the same scale as its population; categoricals are sampled at random."""

    def __init__(self, *, seed=None, **options):
        super().__init__("cmaes", seed=seed, **options)
