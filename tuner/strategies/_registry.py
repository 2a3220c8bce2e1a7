"""The one list of allocation strategies: each entry gives a strategy's name, settings, state and steps.

Everything that lists strategies reads `REGISTRY`: the agents' `tuner=` key and its settings keys,
study.toml's `[strategy]`, the Optuna samplers and `--help`. Adding a strategy is one module and one
entry here. The compiled search receives a strategy's `steps` (choose, update) as a kernel argument
(search.allocation), so a search compiles only the steps of the strategy it is given.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Callable

from numba.experimental import structref

from search.allocation import AllocationSteps
from tuner.strategies import _ea, _grid, _lsi, _nmc, _ntbea
from tuner.strategies._common import CompiledState, forget_stats, recommend_lcb
from tuner.strategies._settings import Setting


@dataclass(frozen=True)
class Entry:
    """One allocation strategy.

    Compiled strategies give `state` (their StructRef type), `make_state(space, settings)` -> (compiled
    state, its arrays by name), the steps `choose(st, rng, x)`, `update(st, x, reward, rng)` and
    `recommend(st, x)`, and `forget(arrays, factor)`, which discounts what was learnt. A strategy in Python
    that runs a generation at a time (CMA-ES) gives `load()`, which imports and returns its class, so its
    dependency is imported only when it is used.
    """

    name: str
    doc: str
    settings: tuple[Setting, ...] = ()
    state: type | None = None
    make_state: Callable | None = None
    choose: Callable | None = None
    update: Callable | None = None
    recommend: Callable = recommend_lcb
    finished: Callable | None = None  # compiled: whether the strategy has settled for good
    forget: Callable = forget_stats  # compiled: (arrays, factor) weighs every reward learnt so far by factor
    load: Callable | None = None
    sequential: bool = False  # asks the same point until it is told its reward: one trial at a time in a study
    any_point: bool = False  # a tell learns the point told and nothing else: another copy's tells can be merged in
    # compiled: (arrays, scalars, combinations) -> ({field: (low, high)} for its whole-number fields and arrays,
    # the arrays whose rows are points): what a saved state may hold, checked before compiled code reads it
    limits: Callable = lambda arrays, scalars, total: ({}, ())
    fixed: tuple[str, ...] = ()  # scalar fields set from the settings: a saved state must hold the same
    columns: tuple[str, ...] = ()  # the strategy's own columns of `combos`, after the statistics (saved by name)
    # fields a saved state leaves out: scratch arrays, and scalars that derive(st), compiled, works out after a load
    # or a forgetting, saying whether the state's fields fit together (False: a damaged saved state, refused)
    unsaved: tuple[str, ...] = ()
    derive: Callable | None = None
    # arrays that start small and grow as a game needs them (NMC's members), and the rows they can grow to,
    # capacity(space), at which a saved state holds them (its size the space's, whatever the history) and
    # make_state(space, settings, rows) makes them
    growable: tuple[str, ...] = ()
    capacity: Callable | None = None

    def __post_init__(self):
        if self.growable and self.capacity is None:
            raise ValueError(f"strategy {self.name}: growable arrays need a capacity")

    @property
    def compiled(self) -> bool:
        return self.state is not None

    @property
    def steps(self) -> AllocationSteps | None:
        """The compiled steps the search runs per simulation; None for a strategy in Python."""
        return AllocationSteps(self.choose, self.update) if self.compiled else None

    @property
    def defaults(self) -> dict:
        return {s.name: s.default for s in self.settings}


def _load_cmaes():
    from tuner.strategies._cmaes import CMAES

    return CMAES


CMAES_SETTINGS = (
    Setting("sigma", 0.3, "cmaes: initial step size in [0, 1]^d", low=1e-9),
    Setting("penalty", 100.0, "cmaes: fitness penalty per unit of distance outside [0, 1]^d", key="cmaes_penalty"),
    Setting("popsize", None, "cmaes: population (pycma's default 4 + 3 ln d)", low=2, integer=True),
)

REGISTRY = {
    e.name: e
    for e in (
        Entry(
            "random",
            "uniformly random combinations",
            (),
            _grid.RandomState,
            _grid.make_random,
            _grid.random_choose,
            _grid.plain_update,
            any_point=True,
        ),
        Entry(
            "grid",
            "every legal combination in turn",
            (),
            _grid.GridState,
            _grid.make_grid,
            _grid.grid_choose,
            _grid.plain_update,
            any_point=True,
            limits=_grid.grid_limits,
        ),
        Entry(
            "nmc",
            "naive Monte Carlo [SA-MCTS Alg. 1]",
            _nmc.SETTINGS,
            _nmc.NMCState,
            _nmc.make_state,
            _nmc.choose,
            _nmc.update,
            forget=_nmc.forget,
            any_point=True,
            limits=_nmc.limits,
            fixed=("eps0", "c_local", "c_global", "grouped"),
            columns=("member",),
            growable=_nmc.NAMES,
            unsaved=("mean_cap", "mean_floor", "inversions"),
            derive=_nmc.know_groups,
            capacity=_nmc.capacity,
        ),
        Entry(
            "ea",
            "evolutionary algorithm [SA-MCTS Alg. 3]",
            _ea.SETTINGS,
            _ea.EAState,
            _ea.make_state,
            _ea.choose,
            _ea.update,
            sequential=True,
            limits=_ea.limits,
            fixed=("elite", "crossover"),
        ),
        Entry(
            "ntbea",
            "N-tuple bandit evolutionary algorithm [SA-MCTS Alg. 4, 5]",
            _ntbea.SETTINGS,
            _ntbea.NTBEAState,
            _ntbea.make_state,
            _ntbea.choose,
            _ntbea.update,
            sequential=True,
            limits=_ntbea.limits,
            fixed=("c", "neighbours"),
            unsaved=("terms",),
        ),
        Entry(
            "lsi",
            "linear side information [SA-MCTS Alg. 2]",
            _lsi.SETTINGS,
            _lsi.LSIState,
            _lsi.make_state,
            _lsi.choose,
            _lsi.update,
            _lsi.recommend,
            _lsi.finished,
            limits=_lsi.limits,
            fixed=("budget", "generation"),
        ),
        Entry(
            "cmaes",
            "CMA-ES on pycma, a generation at a time [SA-MCTS Alg. 6]",
            CMAES_SETTINGS,
            load=_load_cmaes,
            sequential=True,
        ),
    )
}
NAMES = tuple(REGISTRY)
COMPILED = tuple(name for name, e in REGISTRY.items() if e.compiled)
for _entry in REGISTRY.values():
    if _entry.compiled:
        structref.define_boxing(_entry.state, CompiledState)
_keys = [s.spec_key for e in REGISTRY.values() for s in e.settings]
assert len(set(_keys)) == len(_keys), "two strategy settings share an agent spec key"
