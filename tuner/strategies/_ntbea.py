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
    FLOAT2,
    INT1,
    STATS_FIELDS,
    UCB_FIELDS,
    M,
    N,
    R,
    StateType,
    find,
    maybe_told,
    prefetch_slot,
    random_combination,
    record_ucb,
    set_stats,
    set_ucb,
    state_type,
    stats_args,
    stats_arrays,
    ucb_args,
)
from tuner.strategies._settings import Setting

SETTINGS = (
    Setting("c", 0.2, "ntbea: UCB constant of the landscape model", key="ntbea_c"),
    Setting("neighbours", 5, "ntbea: neighbours per step", low=1, integer=True),
)


# the rows of `terms`: the current point's 1-tuple term of each parameter (0 if unsampled) and 1 if it was sampled; a
# neighbour that differs from the current point in one parameter sums the terms with its own term there, in order, and
# gets every bit its own sum would (adding 0 for an unsampled term changes no sum); its count of sampled tuples is the
# current point's with one changed (whole numbers: exact in any order)
TERM, SAMPLED = range(2)


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
        ("terms", FLOAT2),  # [2, d] the current point's 1-tuple terms (scratch of update, rows TERM and SAMPLED)
    ]
)


def limits(arrays, scalars, total) -> tuple[dict, tuple]:
    """What a saved NTBEA state may hold (Entry.limits): its points are the space's."""
    return {}, ("current", "candidate")


@kernel
def new_state(state_type, stats, ucb, c, neighbours, current, candidate, terms):
    st = structref.new(state_type)
    set_stats(st, stats)
    set_ucb(st, ucb)
    st.c, st.neighbours, st.current, st.candidate, st.started = c, neighbours, current, candidate, False
    st.terms = terms
    return st


def make_state(space, settings) -> tuple:
    arrays = stats_arrays(space, ucb=True, seen=True)
    d = len(space)
    arrays.update(current=np.zeros(d, dtype=np.int64), candidate=np.zeros(d, dtype=np.int64), terms=np.zeros((2, d)))
    st = new_state(
        state_type(NTBEAState, FIELDS, arrays),
        stats_args(arrays),
        ucb_args(arrays),
        float(settings["c"]),
        int(settings["neighbours"]),
        arrays["current"],
        arrays["candidate"],
        arrays["terms"],
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
    (measured: 7-12% of a step). A neighbour differs from the current point in one parameter unless a
    legality rule moved another: its 1-tuple terms are then the current point's but one (`terms`), and the
    best is kept as that parameter and value, chosen without a branch (its outcome is data)."""
    record_ucb(st, x, reward)
    width = st.c * math.sqrt(math.log(st.total))  # every tuple's table holds N = total samples
    d = x.shape[0]
    here, sampled_here = 0, 0.0  # the current point's code and its sampled 1-tuples
    for j in range(d):
        v = st.current[j]
        x[j] = v
        sampled = st.value_n[j, v] > 0.0
        st.terms[TERM, j] = st.value_m[j, v] + width * st.value_r[j, v] if sampled else 0.0
        st.terms[SAMPLED, j] = 1.0 if sampled else 0.0
        sampled_here += st.terms[SAMPLED, j]
        here += v * st.strides[j]
    best, ties, pick, value = -np.inf, 0, -1, 0  # the best neighbour: the current point with x[pick] = value
    for _ in range(st.neighbours):  # x is the current point here
        i = randint(rng, d)
        if st.sizes[i] > 1:  # another value, uniformly: (x[i] + 1 + r) mod size without a division
            v = x[i] + 1 + randint(rng, st.sizes[i] - 1)
            x[i] = v - st.sizes[i] if v >= st.sizes[i] else v
        moved = False  # whether a legality rule changed a parameter other than i (make_legal, written out)
        for _ in range(2):
            for r in range(st.rules.shape[0]):
                if x[st.rules[r, 0]] == st.rules[r, 1] and x[st.rules[r, 2]] != st.rules[r, 3]:
                    x[st.rules[r, 2]] = st.rules[r, 3]
                    moved |= st.rules[r, 2] != i
        v = x[i]
        if moved:  # (rare) every term afresh; the best, if it is this one, is kept whole in `candidate`
            total, count, c = 0.0, 0.0, 0
            for j in range(d):
                if st.value_n[j, x[j]] > 0.0:
                    total += st.value_m[j, x[j]] + width * st.value_r[j, x[j]]
                    count += 1.0
                c += x[j] * st.strides[j]
        else:
            c = here + (v - st.current[i]) * st.strides[i]
            if d > 1:
                prefetch_slot(st, c)  # its misses overlap the sum
            n, term = st.value_n[i, v], st.value_m[i, v] + width * st.value_r[i, v]
            term, sampled = (term, 1.0) if n > 0.0 else (0.0, 0.0)
            total = 0.0
            for j in range(d):
                total += term if j == i else st.terms[TERM, j]
            count = sampled_here - st.terms[SAMPLED, i] + sampled
        if d > 1 and maybe_told(st, c):
            t = find(st, c)  # a combination never rewarded: an empty slot, whose n is 0
            n, term = st.combos[t, N], st.combos[t, M] + width * st.combos[t, R]
            total += term if n > 0.0 else 0.0
            count += 1.0 if n > 0.0 else 0.0
        s = total / (count if count > 0.0 else 1.0)  # 0 if nothing was sampled
        better = s > best
        take = better
        if s == best:
            ties += 1
            take = randint(rng, ties) == 0
        best = s if better else best
        ties = 1 if better else ties
        pick = (-1 if moved else i) if take else pick
        value = v if take else value
        if moved:
            if take:
                for j in range(d):
                    st.candidate[j] = x[j]
            for j in range(d):  # back to the current point
                x[j] = st.current[j]
        else:
            x[i] = st.current[i]
    if pick >= 0:  # candidate follows, as it did when every take wrote it whole: a step taking none keeps current
        st.current[pick] = value
        for j in range(d):
            st.candidate[j] = st.current[j]
    else:
        copy_into(st.candidate, st.current)
