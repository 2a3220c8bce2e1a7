"""The one list of allocation strategies: each entry gives a strategy's name, settings, state and steps.

Everything that lists strategies reads `REGISTRY`: the agents' `tuner=` key and its settings keys,
study.toml's `[strategy]`, the Optuna samplers and `--help`. Adding a strategy is one module and one
entry here. The compiled search calls `choose` and `update` on a strategy's state; numba picks the
strategy's own steps from the state's type while it compiles the search, so a search inlines only
the steps of the strategies it is given.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Callable

from numba.experimental import structref
from numba.extending import overload

from tuner.strategies import _ea, _grid, _lsi, _nmc, _ntbea
from tuner.strategies._common import CompiledState, recommend_lcb
from tuner.strategies._settings import Setting


@dataclass(frozen=True)
class Entry:
    """One allocation strategy.

    Compiled strategies give `state` (their StructRef type), `make_state(space, settings)` -> (compiled
    state, its arrays by name), and the steps `choose(st, rng, x)`, `update(st, x, reward, rng)` and
    `recommend(st, x)`. A strategy in Python that runs a generation at a time (CMA-ES) gives `load()`,
    which imports and returns its class, so its dependency is imported only when it is used.
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
    load: Callable | None = None
    sequential: bool = False  # asks the same point until it is told its reward: one trial at a time in a study

    @property
    def compiled(self) -> bool:
        return self.state is not None

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
        Entry("random", "uniformly random combinations", (), _grid.RandomState, _grid.make_random,
              _grid.random_choose, _grid.plain_update),
        Entry("grid", "every legal combination in turn", (), _grid.GridState, _grid.make_grid, _grid.grid_choose,
              _grid.plain_update),
        Entry("nmc", "naive Monte Carlo [SA-MCTS Alg. 1]", _nmc.SETTINGS, _nmc.NMCState, _nmc.make_state,
              _nmc.choose, _nmc.update),
        Entry("ea", "evolutionary algorithm [SA-MCTS Alg. 3]", _ea.SETTINGS, _ea.EAState, _ea.make_state,
              _ea.choose, _ea.update, sequential=True),
        Entry("ntbea", "N-tuple bandit evolutionary algorithm [SA-MCTS Alg. 4, 5]", _ntbea.SETTINGS,
              _ntbea.NTBEAState, _ntbea.make_state, _ntbea.choose, _ntbea.update, sequential=True),
        Entry("lsi", "linear side information [SA-MCTS Alg. 2]", _lsi.SETTINGS, _lsi.LSIState, _lsi.make_state,
              _lsi.choose, _lsi.update, _lsi.recommend, _lsi.finished),
        Entry("cmaes", "CMA-ES on pycma, a generation at a time [SA-MCTS Alg. 6]", CMAES_SETTINGS,
              load=_load_cmaes, sequential=True),
    )
}  # fmt: skip
NAMES = tuple(REGISTRY)
COMPILED = tuple(name for name, e in REGISTRY.items() if e.compiled)
_BY_STATE = {e.state: e for e in REGISTRY.values() if e.compiled}
for _entry in _BY_STATE.values():
    structref.define_boxing(_entry.state, CompiledState)
_keys = [s.spec_key for e in REGISTRY.values() for s in e.settings]
assert len(set(_keys)) == len(_keys), "two strategy settings share an agent spec key"


def choose(st, rng, x):
    """Write the next combination of the strategy that owns compiled state `st` into x (compiled code only)."""
    raise TypeError("choose runs in compiled code; from Python use Strategy.ask")


def update(st, x, reward, rng):
    """Let the strategy that owns compiled state `st` learn the reward of x (x may be overwritten: scratch)."""
    raise TypeError("update runs in compiled code; from Python use Strategy.tell")


def recommend(st, x):
    """Write the strategy's best combination so far into x; False if it has none (compiled code only)."""
    raise TypeError("recommend runs in compiled code; from Python use Strategy.recommend")


@overload(choose, inline="always")
def _choose_compiled(st, rng, x):
    return _BY_STATE[type(st)].choose.py_func  # inlined in place: the step's own body


@overload(update, inline="always")
def _update_compiled(st, x, reward, rng):
    return _BY_STATE[type(st)].update.py_func


@overload(recommend, inline="always")
def _recommend_compiled(st, x):
    return _BY_STATE[type(st)].recommend.py_func
