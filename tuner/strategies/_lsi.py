"""LSI, linear side information [SA-MCTS Alg. 2]: spend a share of the budget gathering the reward of
each parameter value (side information), draw k candidate combinations value by value in proportion
to those rewards, then find the best candidate by sequential halving and play it for the rest.
Settings of VI-A: 75% of the budget for generation, k = 20 candidates for two parameters and 2000
for more. LSI needs its total budget of samples up front, and never spends more.

Where this differs from Alg. 2, and why:
- the side information is gathered from uniformly random combinations, every value of each one
  credited: the same estimand as the paper's round robin over focus values, d times the samples;
- k is capped so that every round of sequential halving gives each candidate at least one sample
  (k ceil(log2 k) <= N_e): with the paper's floor(N_e / (|C_i| ceil(log2 |C*|))) a larger k leaves
  the first rounds without samples. The candidates form a set, as in the paper (k draws, duplicates
  dropped), the better ceil(|C_i| / 2) go on, and a candidate's estimate averages all its
  evaluation samples so far (equal counts within a round).
"""

from __future__ import annotations

import math

import numpy as np
from numba import types
from numba.experimental import structref

from games.jit import kernel
from games.kernels import copy_into
from games.rng import randint, uniform
from tuner.strategies._common import (
    FLOAT1,
    INT1,
    INT2,
    STATS_FIELDS,
    StateType,
    code,
    get_row,
    random_combination,
    recommend_lcb,
    record,
    set_row,
    set_stats,
    state_type,
    stats_args,
    stats_arrays,
)
from tuner.strategies._settings import Setting
from tuner.strategies._space import make_legal

SETTINGS = (
    Setting(
        "budget",
        10000,
        "lsi: samples in all (agents: simulations x one player's moves in a typical game)",
        low=2,
        integer=True,
        key="lsi_budget",
    ),
    Setting(
        "generation", 0.75, "lsi: share of the budget that gathers side information", high=1.0, key="lsi_generation"
    ),
    Setting(
        "candidates",
        None,
        "lsi: candidates k (20 for two parameters, else 2000), capped so that k ceil(log2 k) <= the evaluation budget",
        low=2,
        integer=True,
        key="lsi_candidates",
    ),
)
GENERATE, EVALUATE, DONE = 0, 1, 2  # phases


@structref.register
class LSIState(StateType):
    pass


FIELDS = STATS_FIELDS + [
    ("budget", types.float64),  # N, samples in all
    ("generation", types.float64),  # share of N for side information
    ("evaluation", types.float64),  # N_e, the samples left for sequential halving
    ("rounds", types.int64),  # ceil(log2 |C*|)
    ("phase", types.int64),  # GENERATE, EVALUATE or DONE
    ("candidates", INT2),  # [k, d] (k draws: at most k candidates)
    ("sums", FLOAT1),  # [k] the candidates' evaluation reward sums
    ("codes", INT1),  # [k] the candidates' combination codes (to keep the set free of duplicates)
    ("alive", types.int64),  # candidates still in the race
    ("left", types.int64),  # samples left in this round for the current candidate
    ("index", types.int64),  # the candidate evaluated now
    ("winner", INT1),  # [d] the last candidate standing
]


def limits(arrays, scalars, total) -> tuple[dict, tuple]:
    """What a saved LSI state may hold (Entry.limits): a phase, a candidate of the k drawn, codes of the space."""
    k = arrays["candidates"].shape[0]
    bounds = {"phase": (GENERATE, DONE), "alive": (0, k), "index": (0, k - 1), "left": (0, None), "rounds": (0, 64)}
    return {**bounds, "codes": (0, total - 1)}, ("candidates", "winner")


@kernel
def new_state(state_type, stats, budget, generation, candidates, sums, codes, winner):
    st = structref.new(state_type)
    set_stats(st, stats)
    st.budget, st.generation, st.candidates, st.sums, st.winner = budget, generation, candidates, sums, winner
    st.codes, st.evaluation, st.rounds = codes, 0.0, 0
    st.phase, st.alive, st.left, st.index = GENERATE, 0, 0, 0
    return st


def make_state(space, settings) -> tuple:
    budget, generation = settings["budget"], settings["generation"]
    k = settings["candidates"] or (20 if len(space) <= 2 else 2000)
    evaluation = budget - math.ceil(budget * generation)
    while k > 2 and k * math.ceil(math.log2(k)) > evaluation:  # at least one sample per candidate and round
        k -= 1
    arrays = stats_arrays(space)
    arrays.update(
        candidates=np.zeros((k, len(space)), dtype=np.int64),
        sums=np.zeros(k),
        codes=np.zeros(k, dtype=np.int64),
        winner=np.zeros(len(space), dtype=np.int64),
    )
    st = new_state(
        state_type(LSIState, FIELDS, arrays),
        stats_args(arrays),
        float(budget),
        float(generation),
        arrays["candidates"],
        arrays["sums"],
        arrays["codes"],
        arrays["winner"],
    )
    return st, arrays


@kernel
def choose(st, rng, x):
    if st.phase == GENERATE:
        random_combination(st, rng, x)
    elif st.phase == EVALUATE:
        get_row(st.candidates, st.index, x)
    else:
        copy_into(st.winner, x)


@kernel(inline="always")
def round_budget(st):
    """Samples per candidate in the current round: floor(N_e / (|C_i| ceil(log2 |C*|))), at least one."""
    return max(1, np.int64(st.evaluation / (st.alive * st.rounds)))


@kernel
def update(st, x, reward, rng):
    record(st, x, reward)
    if st.phase == GENERATE and st.total >= st.budget * st.generation:
        draw_candidates(st, x, rng)
    elif st.phase == EVALUATE:
        st.sums[st.index] += reward
        st.left -= 1
        if st.left == 0:  # the candidate's samples of this round are done
            st.index += 1
            st.left = round_budget(st)
            if st.index == st.alive:
                halve(st, rng)


@kernel(inline="always")
def draw_candidates(st, cand, rng):
    """End of the side-information phase: draw k combinations, value by value in proportion to each
    value's mean reward (0.5 while unsampled; uniformly where every value's mean is 0), keep the distinct ones,
    and start sequential halving. cand is scratch."""
    alive = 0
    for _ in range(st.candidates.shape[0]):
        for i in range(cand.shape[0]):
            weights_total = 0.0
            for v in range(st.sizes[i]):
                n = st.value_n[i, v]
                weights_total += st.value_s[i, v] / n if n > 0 else 0.5
            u = uniform(rng)
            if weights_total == 0.0:  # no value has won anything: no reason to prefer one
                cand[i] = min(np.int64(u * st.sizes[i]), st.sizes[i] - 1)
                continue
            r = u * weights_total
            cand[i] = st.sizes[i] - 1
            picked = False
            for v in range(st.sizes[i]):
                n = st.value_n[i, v]
                r -= st.value_s[i, v] / n if n > 0 else 0.5
                if r < 0 and not picked:
                    cand[i] = v
                    picked = True
        make_legal(cand, st.rules)
        c = code(st, cand)
        new = True
        for j in range(alive):
            if st.codes[j] == c:
                new = False
        if new:
            set_row(st.candidates, alive, cand)
            st.codes[alive] = c
            alive += 1
    for j in range(st.sums.shape[0]):
        st.sums[j] = 0.0
    st.evaluation = st.budget - st.total
    st.rounds = np.int64(math.ceil(math.log2(alive))) if alive > 1 else 1
    st.phase, st.alive, st.index = EVALUATE, alive, 0
    st.left = round_budget(st)
    if alive == 1:
        get_row(st.candidates, 0, st.winner)
        st.phase = DONE


@kernel(inline="always")
def move_best_to_front(rows, scores, count, keep, rng):
    """Reorder rows 0..count-1 of `rows` (and `scores`) in place so that the `keep` best by score come
    first, best first; among equal scores each is picked uniformly at random (a fixed order would favour
    the candidates drawn first). A partial selection sort: no allocation, one draw per tie."""
    d = rows.shape[1]
    for a in range(keep):
        best = a
        ties = 1
        for b in range(a + 1, count):
            if scores[b] > scores[best]:
                best, ties = b, 1
            elif scores[b] == scores[best]:
                ties += 1
                if randint(rng, ties) == 0:
                    best = b
        if best != a:
            scores[a], scores[best] = scores[best], scores[a]
            for i in range(d):
                rows[a, i], rows[best, i] = rows[best, i], rows[a, i]


@kernel(inline="always")
def halve(st, rng):
    """End of a round of sequential halving: the better ceil(|C_i| / 2) by mean reward go on (ties at random);
    one left wins."""
    keep = (st.alive + 1) // 2
    move_best_to_front(st.candidates, st.sums, st.alive, keep, rng)
    st.alive, st.index = keep, 0
    st.left = round_budget(st)
    if keep == 1:
        get_row(st.candidates, 0, st.winner)
        st.phase = DONE


@kernel(inline="always")
def recommend(st, x):
    """The winner once sequential halving is over, else the best lower confidence bound."""
    if st.phase == DONE:
        copy_into(st.winner, x)
        return True
    return recommend_lcb(st, x)


@kernel
def finished(st):
    return st.phase == DONE
