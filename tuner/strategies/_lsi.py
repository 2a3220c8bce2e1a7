"""LSI, linear side information [SA-MCTS Alg. 2]: spend a share of the budget gathering the reward of
each parameter value (side information), draw k candidate combinations value by value in proportion
to those rewards, then find the best candidate by sequential halving and play it for the rest.
Settings of VI-A: 75% of the budget for generation, k = 20 candidates for two parameters and 2000
for more. LSI needs its total budget of samples up front.

The side information is gathered from uniformly random combinations, every value of each one
credited: the same estimand as the paper's round robin over focus values, d times the samples.
"""

from __future__ import annotations

import math

import numpy as np
from numba import types
from numba.experimental import structref

from games.jit import kernel
from games.rng import uniform
from tuner.strategies._common import (
    FLOAT1,
    INT1,
    INT2,
    STATS_FIELDS,
    StateType,
    copy_into,
    get_row,
    move_best_to_front,
    random_combination,
    recommend_lcb,
    record,
    set_row,
    set_stats,
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
    ),  # fmt: skip
    Setting(
        "generation", 0.75, "lsi: share of the budget that gathers side information", high=1.0, key="lsi_generation"
    ),  # fmt: skip
    Setting(
        "candidates",
        None,
        "lsi: candidates k (20 for two parameters, else 2000), at most half the evaluation budget",
        low=2,
        integer=True,
        key="lsi_candidates",
    ),  # fmt: skip
)
GENERATE, EVALUATE, DONE = 0, 1, 2  # phases


@structref.register
class LSIState(StateType):
    pass


FIELDS = STATS_FIELDS + [
    ("budget", types.float64),  # N, samples in all
    ("generation", types.float64),  # share of N for side information
    ("k", types.int64),  # candidates
    ("phase", types.int64),  # GENERATE, EVALUATE or DONE
    ("candidates", INT2),  # [k, d]
    ("sums", FLOAT1),  # [k] the candidates' reward sums in this round
    ("alive", types.int64),  # candidates still in the race
    ("round", types.int64),  # rounds of halving completed
    ("left", types.int64),  # samples left in this round for the current candidate
    ("index", types.int64),  # the candidate evaluated now
    ("winner", INT1),  # [d] the last candidate standing
]


@kernel
def new_state(state_type, sizes, rules, value_n, value_s, combo_n, combo_s, budget, generation, k, candidates, sums,
              winner):  # fmt: skip
    st = structref.new(state_type)
    set_stats(st, sizes, rules, value_n, value_s, combo_n, combo_s)
    st.budget, st.generation, st.k, st.candidates, st.sums, st.winner = budget, generation, k, candidates, sums, winner
    st.phase, st.alive, st.round, st.left, st.index = GENERATE, 0, 0, 0, 0
    return st


def make_state(space, settings) -> tuple:
    budget, generation = settings["budget"], settings["generation"]
    k = settings["candidates"] or (20 if len(space) <= 2 else 2000)
    # sequential halving samples each of k candidates at least once per round, 2k in all:
    # keep k within half the evaluation budget so that LSI ends within its budget
    k = int(max(2, min(k, budget * (1 - generation) // 2)))
    arrays = stats_arrays(space)
    arrays.update(candidates=np.zeros((k, len(space)), dtype=np.int64), sums=np.zeros(k),
                  winner=np.zeros(len(space), dtype=np.int64))  # fmt: skip
    st = new_state(LSIState(FIELDS), *stats_args(arrays), float(budget), float(generation), k,
                   arrays["candidates"], arrays["sums"], arrays["winner"])  # fmt: skip
    return st, arrays


@kernel(inline="always")
def choose(st, rng, x):
    if st.phase == GENERATE:
        random_combination(st, rng, x)
    elif st.phase == EVALUATE:
        get_row(st.candidates, st.index, x)
    else:
        copy_into(st.winner, x)


@kernel(inline="always")
def round_budget(st):
    """Samples per candidate in the current round of sequential halving (at least one)."""
    rounds = max(1, np.int64(math.ceil(math.log2(max(2, st.k)))))
    evaluation = st.budget * (1.0 - st.generation)
    return max(1, np.int64(evaluation / (st.alive * rounds)))


@kernel(inline="always")
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
                halve(st)


@kernel(inline="always")
def draw_candidates(st, cand, rng):
    """End of the side-information phase: draw the k candidates, value by value in proportion to
    each value's mean reward (0.5 while unsampled), and start sequential halving. cand is scratch."""
    k = min(st.k, st.candidates.shape[0])
    for j in range(k):
        for i in range(cand.shape[0]):
            weights_total = 0.0
            for v in range(st.sizes[i]):
                n = st.value_n[i, v]
                weights_total += st.value_s[i, v] / n if n > 0 else 0.5
            r = uniform(rng) * weights_total
            cand[i] = st.sizes[i] - 1
            picked = False
            for v in range(st.sizes[i]):
                n = st.value_n[i, v]
                r -= st.value_s[i, v] / n if n > 0 else 0.5
                if r < 0 and not picked:
                    cand[i] = v
                    picked = True
        make_legal(cand, st.rules)
        set_row(st.candidates, j, cand)
    for j in range(st.sums.shape[0]):
        st.sums[j] = 0.0
    st.phase, st.alive, st.round, st.index = EVALUATE, k, 0, 0
    st.left = round_budget(st)


@kernel(inline="always")
def halve(st):
    """End of a round of sequential halving: keep the better half by this round's rewards; one left wins."""
    keep = max(1, st.alive // 2)
    move_best_to_front(st.candidates, st.sums, st.alive, keep)
    for j in range(st.sums.shape[0]):
        st.sums[j] = 0.0
    st.alive, st.round, st.index = keep, st.round + 1, 0
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
