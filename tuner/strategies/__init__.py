"""Allocation strategies and parameter spaces, on-line (inside the search) and off-line (studies).

The compiled search calls a strategy's steps before and after every simulation [SA-MCTS Fig. 1]: it is
handed them as a kernel argument (`Strategy.steps`, the protocol `search.allocation` declares), so this
package sits above `search` and imports only its protocol; the off-line studies use the same code.
One module per strategy (`_nmc`, `_lsi`, `_ea`, `_ntbea`, `_grid` for grid and random, `_cmaes`), one
entry each in `REGISTRY`.

>>> from tuner.strategies import make_strategy, sa_mcts_space
>>> strategy = make_strategy(sa_mcts_space(["K", "Ref"]), "ntbea", seed=0)
>>> x = strategy.ask(); strategy.tell(x, reward=1.0); len(strategy.values(strategy.recommend()))
2
"""

from tuner.strategies._registry import COMPILED, NAMES, REGISTRY, Entry
from tuner.strategies._settings import Setting
from tuner.strategies._space import SA_MCTS_TABLE_I, Param, Space, is_legal, make_legal, sa_mcts_space
from tuner.strategies._strategy import AllocationStrategy, Strategy, check_settings, make_strategy

__all__ = [
    "AllocationStrategy",
    "CMAES",
    "COMPILED",
    "Entry",
    "NAMES",
    "Param",
    "REGISTRY",
    "SA_MCTS_TABLE_I",
    "Setting",
    "Space",
    "Strategy",
    "check_settings",
    "clip_to_box",
    "is_legal",
    "make_legal",
    "make_strategy",
    "sa_mcts_space",
]


def __getattr__(name):
    """CMA-ES and its helper, imported on first use: `import tuner.strategies` never pays for pycma."""
    if name in ("CMAES", "clip_to_box"):
        from tuner.strategies import _cmaes

        return getattr(_cmaes, name)
    raise AttributeError(f"module 'tuner.strategies' has no attribute {name!r}")
