"""CMA-ES as an allocation strategy over the continuous domain of a Space, one generation at a time.

Sironi, Liu, Winands [SA-MCTS Alg. 6], V-B1 and VI-A, on pycma (the `cma`
package). Points live in [0, 1]^d and are mapped onto each parameter's bounds (`Space.from_unit`).
An infeasible point is evaluated repaired (clipped into the box), and its fitness, minimised, is
100 (1 - reward) + 100 ||x - repaired||: the paper's 100 - r + alpha ||p - p'|| with alpha = 100
and GGP's rewards in [0, 100]. x0 is drawn uniformly from [0, 1]^d, sigma0 = 0.3, and every
fitness-based stopping rule is off. When pycma stops on another rule (maxiter, tolx, ...) the mean
is scored once, on the same scale as the population, and the best point seen so far is played for
the rest of the game.

pycma is Python, so a search evaluates a whole generation per compiled call (DESIGN section 2):
`ask_generation` / `tell_generation`. `ask` / `tell` serve one point at a time, for everything else.
"""

from __future__ import annotations

import io
import pickle

import cma
import numpy as np

from tuner.strategies._packing import deflate, inflate
from tuner.strategies._settings import check_reward
from tuner.strategies._space import Space

MOST = 1 << 24  # bytes a saved CMA-ES may inflate to (its states are kilobytes)
# Every pycma stopping rule that looks at fitness values, switched off (the best parameters may
# change during a game, so the search keeps exploring)
_NO_FITNESS_STOPS = {"tolfun": 0, "tolfunhist": 0, "tolfunrel": 0, "tolflatfitness": np.inf, "tolstagnation": np.inf}


# What a saved CMA-ES may name when it is unpickled: pycma's and numpy's classes that its state holds (read off
# pickles of searches under way and stopped, pycma 4.x), and nothing else: a crafted state cannot call anything
_PICKLED = {
    "builtins": {"range"},
    "cma.boundary_handler": {"BoundNone", "BoundTransform"},
    "cma.evolution_strategy": {
        "CMAEvolutionStrategy",
        "_CMASolutionDict_functional",
        "_CMAStopDict",
        "_StopTolXStagnation",
        "_pass",
    },
    "cma.logger": {"CMADataLogger"},
    "cma.optimization_tools": {"BestSolution"},
    "cma.options_parameters": {"CMAOptions", "CMAParameters", "is_feasible"},
    "cma.recombination_weights": {"RecombinationWeights"},
    "cma.sampler": {"GaussFullSampler"},
    "cma.sigma_adaptation": {"CMAAdaptSigmaCSA"},
    "cma.transformations": {"DiagonalDecoding", "GenoPheno", "RoundIntegerVariables"},
    "cma.utilities.utils": {"BlancClass", "DictFromTagsInString", "ElapsedWCTime", "MoreToWrite", "SolutionDict"},
    "numpy": {"dtype", "ndarray"},
    "numpy._core.multiarray": {"_reconstruct", "scalar"},
    "numpy.linalg": {"eigh"},
    "numpy.random._pcg64": {"PCG64"},
    "numpy.random._pickle": {"__bit_generator_ctor", "__generator_ctor"},
    "numpy.random.bit_generator": {"SeedSequence", "__pyx_unpickle_SeedSequence"},
    "tuner.strategies._cmaes": {"_Normal"},
}


class _Unpickler(pickle.Unpickler):
    """Unpickles a saved CMA-ES, refusing any name outside _PICKLED (another pycma's, or a crafted state)."""

    def find_class(self, module, name):
        if name not in _PICKLED.get(module, ()):
            raise pickle.UnpicklingError(f"{module}.{name} is no part of a CMA-ES state")
        return super().find_class(module, name)


class _Normal:
    """pycma's source of normal variates: our seeded generator (never numpy's global one), and picklable."""

    def __init__(self, generator: np.random.Generator):
        self.generator = generator

    def __call__(self, *shape):
        return self.generator.standard_normal(shape)


def clip_to_box(x) -> tuple[np.ndarray, float]:
    """The point clipped into [0, 1]^d, and its distance from x (RepairIndividual without alpha)."""
    x = np.asarray(x, dtype=np.float64)
    repaired = np.clip(x, 0.0, 1.0)
    return repaired, float(np.linalg.norm(x - repaired))


class CMAES:
    """CMA-ES over [0, 1]^d of a Space: ask/tell (per point or per generation) and recommend, seeded."""

    kind = "cmaes"
    any_point = False  # a tell belongs to a point of the generation asked

    def __init__(self, space: Space, seed: int, sigma: float = 0.3, penalty: float = 100.0, popsize: int | None = None):
        if not sigma > 0:
            raise ValueError(f"cmaes: sigma must be positive, got {sigma}")
        self.space = space
        self.sigma, self.penalty, self.popsize = sigma, penalty, popsize
        self.reset(seed)

    def reset(self, seed: int | None = None) -> None:
        """Start afresh from a new random x0 (a new game, for on-line tuning): drawn from `seed` if
        given, so that a game replays alone, else from where the last game's stream stopped."""
        if seed is not None:
            self._random = np.random.default_rng(seed)
        options = {
            **_NO_FITNESS_STOPS,
            "randn": _Normal(self._random),
            "seed": np.nan,
            "verbose": -9,
            "verb_log": 0,
            "verb_disp": 0,
        }
        if self.popsize is not None:
            options["popsize"] = self.popsize
        self.es = cma.CMAEvolutionStrategy(self._random.random(len(self.space)), self.sigma, options)
        self.best, self.best_fitness = None, np.inf  # the repaired point played once the search is over
        self.finished = False
        self.evaluations = 0
        self._points, self._scoring_mean = None, False
        self._pending: list[tuple[np.ndarray, float]] = []

    def forget(self, factor: float) -> None:
        """CMA-ES keeps no reward statistics to discount (its distribution follows the latest generations):
        with factor < 1, a search that pycma has stopped starts again, its stream going on."""
        if factor < 1.0 and self.finished:
            self.reset()

    @property
    def generations(self) -> int:
        return int(self.es.countiter)

    def fitness(self, x, reward: float) -> float:
        """What CMA-ES minimises for point x whose repaired version earned `reward` in [0, 1]."""
        _, distance = clip_to_box(x)
        return 100.0 * (1.0 - reward) + self.penalty * distance

    def ask_generation(self) -> np.ndarray:
        """The points to evaluate next, repaired into [0, 1]^d, one row each: the population, or the
        mean once pycma has stopped, or the best point (in as many rows as a population) after that."""
        if self.finished:
            return np.tile(self.best, (self.es.popsize, 1))
        if self._points is None:
            self._scoring_mean = bool(self.es.stop())
            self._points = [np.array(self.es.mean)] if self._scoring_mean else self.es.ask()
        return np.array([clip_to_box(p)[0] for p in self._points])

    def tell_generation(self, rewards) -> None:
        """The rewards in [0, 1] of the rows of the last ask_generation, in order."""
        if self.finished:
            return
        if self._points is None or len(rewards) != len(self._points):
            raise ValueError("cmaes: tell_generation needs one reward per point of the last ask_generation")
        fitness = [self.fitness(p, check_reward(r)) for p, r in zip(self._points, rewards)]
        self.evaluations += len(fitness)
        for p, f in zip(self._points, fitness):
            if f < self.best_fitness:
                self.best, self.best_fitness = clip_to_box(p)[0], f
        if self._scoring_mean:
            self.finished = True
        else:
            self.es.tell(self._points, fitness)
        self._points = None

    def ask(self) -> np.ndarray:
        """The next point of [0, 1]^d to evaluate."""
        generation = self.ask_generation()
        return generation[len(self._pending) % len(generation)]

    def tell(self, x, reward: float) -> None:
        """The reward in [0, 1] of point x (as returned by ask); a full generation updates CMA-ES. A tell with no
        generation asked (the search started again since x was asked: `forget`) is dropped."""
        if self.finished or self._points is None:
            return
        self._pending.append((np.asarray(x, dtype=np.float64), float(reward)))
        if len(self._pending) == len(self._points):
            self.tell_generation([r for _, r in self._pending])
            self._pending = []

    def values(self, x) -> list[float]:
        """The parameter values of point x of [0, 1]^d."""
        return self.space.from_unit(x)

    def recommend(self) -> np.ndarray:
        """The point played for the rest of the game once the search is over, else the current mean."""
        return self.best.copy() if self.finished else clip_to_box(self.es.mean)[0]

    def state_dict(self) -> dict:
        """Everything learnt, as JSON: pycma's search and our stream, pickled (pycma's state has no other
        form; its size is CMA-ES's, not the history's). Loading unpickles only the classes such a state holds
        (_PICKLED), so a crafted state runs nothing; a pycma whose classes differ is refused."""
        learnt = {k: v for k, v in self.__dict__.items() if k != "space"}
        return {"kind": self.kind, "sizes": self.space.sizes.tolist(), "pickle": deflate(pickle.dumps(learnt))}

    def load_state_dict(self, state: dict) -> None:
        """Put back a `state_dict()` of the same space; ValueError in one line, nothing changed, otherwise."""
        if (
            not isinstance(state, dict)
            or state.get("kind") != self.kind
            or state.get("sizes") != self.space.sizes.tolist()
        ):
            raise ValueError(f"the saved strategy is not CMA-ES over a space of sizes {self.space.sizes.tolist()}")
        try:
            learnt = _Unpickler(io.BytesIO(inflate(state.get("pickle"), MOST))).load()
        except Exception as error:  # whatever unpickling another pycma's objects raises
            raise ValueError(
                f"the saved CMA-ES does not load ({type(error).__name__}): another pycma's, or damaged"
            ) from None
        if not isinstance(learnt, dict) or set(learnt) != set(self.__dict__) - {"space"}:
            raise ValueError("the saved CMA-ES holds other fields: another version's, or damaged")
        settings = {name: getattr(self, name) for name in ("sigma", "penalty", "popsize")}
        if any(learnt[name] != value for name, value in settings.items()):
            raise ValueError(f"the saved CMA-ES has other settings than {settings}")
        self.__dict__.update(learnt)

    def report(self) -> dict:
        """What the search did so far, for people: generations, evaluations, sigma, the recommendation."""
        return {
            "generations": self.generations,
            "evaluations": self.evaluations,
            "finished": self.finished,
            "sigma": float(self.es.sigma),
            "recommended": dict(zip(self.space.names, self.values(self.recommend()))),
        }
