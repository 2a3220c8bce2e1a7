"""NTBEA, the N-tuple bandit evolutionary algorithm [SA-MCTS Alg. 5] over the landscape model of
[SA-MCTS Alg. 4], with tuples of length 1 and d: evaluate the current point, then move to the
neighbour (one parameter mutated) whose model score is best, the score of a point being the mean
over its tuples of UCB1 on that tuple's statistics. Settings of VI-A: C = 0.2, 5 neighbours per step.
"""

from __future__ import annotations

import math

import numpy as np
from numba import types
from numba.experimental import structref

from games.jit import kernel
from games.kernels import copy_into
from games.rng import randint
from tuner.strategies._common import (
    INT1,
    STATS_FIELDS,
    UCB_FIELDS,
    M,
    N,
    R,
    StateType,
    find,
    maybe_told,
    random_combination,
    record_ucb,
    set_stats,
    set_ucb,
    state_fields,
    stats_args,
    stats_arrays,
    ucb_args,
)
from tuner.strategies._settings import Setting
from tuner.strategies._space import make_legal

SETTINGS = (
    Setting("c", 0.2, "ntbea: UCB constant of the landscape model", key="ntbea_c"),
    Setting("neighbours", 5, "ntbea: neighbours per step", low=1, integer=True),
)


# A neighbour with total < cut x count, cut = best x (1 - 2^-50) rounded, has total / count, rounded, below best (the
# quotient is within 2^-53 of exact, cut x count within 2^-52): it loses without a division, whose latency held up
# every comparison (10% of a step). Only for a best well inside the positive normal floats, where those error
# bounds hold and nothing overflows (a negative or tiny best would let a tie be passed over: no cut then).
CLEARLY_BELOW = 1.0 - 2.0**-50
CUT_RANGE = (2.0**-900, 2.0**900)


@structref.register
class NTBEAState(StateType):
    pass


FIELDS = (
    STATS_FIELDS
    + UCB_FIELDS
    + [
        ("c", types.float64),
        ("neighbours", types.int64),
        ("started", types.boolean),  # the first point has been drawn
        ("current", INT1),  # [d] the point evaluated next
        ("candidate", INT1),  # [d] the best neighbour so far (scratch of update)
    ]
)


def limits(arrays, scalars, total) -> tuple[dict, tuple]:
    """What a saved NTBEA state may hold (Entry.limits): its points are the space's."""
    return {}, ("current", "candidate")


@kernel
def new_state(state_type, stats, value_m, value_r, c, neighbours, current, candidate):
    st = structref.new(state_type)
    set_stats(st, stats)
    set_ucb(st, value_m, value_r)
    st.c, st.neighbours, st.current, st.candidate, st.started = c, neighbours, current, candidate, False
    return st


def make_state(space, settings) -> tuple:
    arrays = stats_arrays(space, ucb=True, seen=True)
    arrays.update(current=np.zeros(len(space), dtype=np.int64), candidate=np.zeros(len(space), dtype=np.int64))
    st = new_state(
        NTBEAState(state_fields(FIELDS, arrays)),
        stats_args(arrays),
        *ucb_args(arrays),
        float(settings["c"]),
        int(settings["neighbours"]),
        arrays["current"],
        arrays["candidate"],
    )
    return st, arrays


@kernel
def choose(st, rng, x):
    if not st.started:
        random_combination(st, rng, st.current)
        st.started = True
    copy_into(st.current, x)


@kernel
def update(st, x, reward, rng):
    """Learn x's reward, then move to the neighbour of the current point with the best model UCB
    (ties at random). x itself serves as scratch for the neighbours once its reward is recorded.
    A neighbour's score is [SA-MCTS Alg. 4]'s UCBVALUE: the mean, over its 1-tuples and its d-tuple that
    were sampled, of mean + C sqrt(ln N / n), width = C sqrt(ln N); 0 if none was sampled. It is written
    out in the loop, not called: an inlined helper's arguments were counted in and out at every neighbour
    (measured: 7-12% of a step)."""
    record_ucb(st, x, reward)
    width = st.c * math.sqrt(math.log(st.total))  # every tuple's table holds N = total samples
    d = x.shape[0]
    best, ties, cut = -np.inf, 0, -np.inf
    for _ in range(st.neighbours):
        for j in range(d):  # copies element by element: copy_into's array arguments were counted in and out
            x[j] = st.current[j]
        i = randint(rng, d)
        if st.sizes[i] > 1:  # another value, uniformly: (x[i] + 1 + r) mod size without a division
            v = x[i] + 1 + randint(rng, st.sizes[i] - 1)
            x[i] = v - st.sizes[i] if v >= st.sizes[i] else v
        make_legal(x, st.rules)
        total, count = 0.0, 0
        for j in range(d):
            if st.value_n[j, x[j]] > 0.0:
                total += st.value_m[j, x[j]] + width * st.value_r[j, x[j]]
                count += 1
        if d > 1:
            c = 0  # the mixed-radix code of x (`code`, written out too)
            for j in range(d):
                c += x[j] * st.strides[j]
            if maybe_told(st, c):
                t = find(st, c)  # a combination never rewarded: an empty slot, whose n is 0
                if st.combos[t, N] > 0.0:
                    total += st.combos[t, M] + width * st.combos[t, R]
                    count += 1
        if total < cut * count:  # its score is surely below the best: no division needed
            continue
        s = total / count if count > 0 else 0.0
        if s > best:
            best, ties = s, 1
            cut = best * CLEARLY_BELOW if CUT_RANGE[0] < best < CUT_RANGE[1] else -np.inf
            for j in range(d):
                st.candidate[j] = x[j]
        elif s == best:
            ties += 1
            if randint(rng, ties) == 0:
                for j in range(d):
                    st.candidate[j] = x[j]
    copy_into(st.candidate, st.current)
