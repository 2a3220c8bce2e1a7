"""NMC, naive Monte Carlo [SA-MCTS Alg. 1]: with probability eps0 explore, choosing each parameter's
value by its own UCB1 bandit (the local MABs); otherwise exploit, choosing by UCB1 among the
combinations evaluated so far (the global MAB). Settings of VI-A: eps0 = 0.75, C = 1 for both.
"""

from __future__ import annotations

import math

import numpy as np
from numba import types
from numba.experimental import structref

from games.jit import kernel
from games.rng import randint, uniform
from tuner.strategies._common import (
    INT1,
    INT2,
    STATS_FIELDS,
    UCB_FIELDS,
    M,
    N,
    R,
    StateType,
    code,
    get_row,
    record_ucb,
    set_row,
    set_stats,
    set_ucb,
    stats_args,
    stats_arrays,
    ucb_value,
)
from tuner.strategies._settings import Setting
from tuner.strategies._space import make_legal

SETTINGS = (
    Setting("eps0", 0.75, "nmc: exploration probability", high=1.0),
    Setting("c_local", 1.0, "nmc: UCB constant of the local (per-parameter) bandits"),
    Setting("c_global", 1.0, "nmc: UCB constant of the global bandit over evaluated combinations"),
)


@structref.register
class NMCState(StateType):
    pass


FIELDS = (
    STATS_FIELDS
    + UCB_FIELDS
    + [
        ("eps0", types.float64),
        ("c_local", types.float64),
        ("c_global", types.float64),
        ("pool", INT2),  # [P, d] the combinations of the global bandit, in the order first evaluated
        ("pool_codes", INT1),  # [P] their codes
        ("pooled", types.int64),  # rows of pool in use
    ]
)


@kernel
def new_state(state_type, sizes, rules, value_n, value_s, combos, value_m, value_r,
              eps0, c_local, c_global, pool, pool_codes):  # fmt: skip
    st = structref.new(state_type)
    set_stats(st, sizes, rules, value_n, value_s, combos)
    set_ucb(st, value_m, value_r)
    st.eps0, st.c_local, st.c_global = eps0, c_local, c_global
    st.pool, st.pool_codes, st.pooled = pool, pool_codes, 0
    return st


def make_state(space, settings) -> tuple:
    """(compiled state, its arrays by name) for a fresh NMC over `space`."""
    arrays = stats_arrays(space, ucb=True)
    rows = min(space.combinations(), 1 << 16)
    arrays.update(pool=np.zeros((rows, len(space)), dtype=np.int64), pool_codes=np.zeros(rows, dtype=np.int64))
    eps0, c_local, c_global = (float(settings[k]) for k in ("eps0", "c_local", "c_global"))
    st = new_state(NMCState(FIELDS), *stats_args(arrays, ucb=True), eps0, c_local, c_global, arrays["pool"],
                   arrays["pool_codes"])  # fmt: skip
    return st, arrays


@kernel(inline="always")
def choose(st, rng, x):
    sqrt_log = math.sqrt(math.log(max(1, st.total)))
    if st.pooled == 0 or uniform(rng) < st.eps0:  # explore: each value by its own bandit
        for i in range(x.shape[0]):
            x[i] = ucb_value(st, i, rng, st.c_local * sqrt_log)
        make_legal(x, st.rules)
    else:  # exploit: the global bandit over the combinations evaluated so far
        width = st.c_global * sqrt_log
        best, pick, ties = -1.0, 0, 0
        for k in range(st.pooled):
            c = st.pool_codes[k]
            score = st.combos[c, M] + width * st.combos[c, R]
            if score > best:
                best, pick, ties = score, k, 1
            elif score == best:
                ties += 1
                if randint(rng, ties) == 0:
                    pick = k
        get_row(st.pool, pick, x)


@kernel(inline="always")
def update(st, x, reward, rng):
    c = code(st, x)
    if st.combos[c, N] == 0.0 and st.pooled < st.pool.shape[0]:
        set_row(st.pool, st.pooled, x)  # a combination joins the global bandit when first evaluated
        st.pool_codes[st.pooled] = c
        st.pooled += 1
    record_ucb(st, x, reward)
