"""EA, an evolutionary algorithm over combinations [SA-MCTS Alg. 3]: a population of lambda
combinations is evaluated once each; the best mu (the elite) survive and breed the rest of the next
generation by uniform crossover or by mutating one parameter. Settings of VI-A: lambda = 50,
mu = 25, crossover probability 0.5.
"""

from __future__ import annotations

import numpy as np
from numba import types
from numba.experimental import structref

from games.jit import kernel
from games.rng import randint, uniform
from tuner.strategies._common import (
    FLOAT1,
    INT1,
    INT2,
    STATS_FIELDS,
    StateType,
    get_row,
    random_combination,
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
    Setting("population", 50, "ea: population size lambda", low=2, integer=True),
    Setting("elite", 25, "ea: elite size mu", low=1, integer=True),
    Setting("crossover", 0.5, "ea: crossover probability", high=1.0),
)


@structref.register
class EAState(StateType):
    pass


FIELDS = STATS_FIELDS + [
    ("elite", types.int64),
    ("crossover", types.float64),
    ("population", INT2),  # [lambda, d]
    ("fitness", FLOAT1),  # [lambda] each individual's reward in this generation
    ("next", types.int64),  # the individual evaluated next
    ("generations", types.int64),  # generations completed
    ("started", types.boolean),  # the first population has been drawn
    ("best", INT1),  # [d] the best of the last generation's elite
]


def limits(arrays, scalars, total) -> tuple[dict, tuple]:
    """What a saved EA state may hold (Entry.limits): the next individual is one of the population's."""
    return {"next": (0, arrays["population"].shape[0] - 1), "generations": (0, None)}, ("population", "best")


@kernel
def new_state(state_type, stats, elite, crossover, population, fitness, best):
    st = structref.new(state_type)
    set_stats(st, stats)
    st.elite, st.crossover, st.population, st.fitness, st.best = elite, crossover, population, fitness, best
    st.next, st.generations, st.started = 0, 0, False
    return st


def make_state(space, settings) -> tuple:
    if not 1 <= settings["elite"] <= settings["population"]:
        raise ValueError("ea: need 1 <= elite <= population")
    arrays = stats_arrays(space)
    lam = int(settings["population"])
    arrays.update(
        population=np.zeros((lam, len(space)), dtype=np.int64),
        fitness=np.zeros(lam),
        best=np.zeros(len(space), dtype=np.int64),
    )
    st = new_state(
        state_type(EAState, FIELDS, arrays),
        stats_args(arrays),
        int(settings["elite"]),
        float(settings["crossover"]),
        arrays["population"],
        arrays["fitness"],
        arrays["best"],
    )
    return st, arrays


@kernel
def choose(st, rng, x):
    if not st.started:
        for k in range(st.population.shape[0]):
            random_combination(st, rng, x)
            set_row(st.population, k, x)
        st.started = True
    get_row(st.population, st.next, x)


@kernel
def update(st, x, reward, rng):
    record(st, x, reward)
    st.fitness[st.next] = reward
    st.next += 1
    if st.next == st.population.shape[0]:
        next_generation(st, x, rng)


@kernel(inline="always")
def sort_by_fitness(pop, fitness, x):
    """Sort the population (and `fitness`) best first, in place; ties keep their order, so the last
    generation's elite, at the front, wins a tie against a newcomer (the authors' code sorts stably): with
    rewards of 0, 1/2 or 1 most of a generation ties, and a survivor that scores 1 again has won twice. An
    insertion sort, x the scratch row: lambda = 50 rows once a generation."""
    for k in range(1, pop.shape[0]):
        f = fitness[k]
        get_row(pop, k, x)
        j = k
        while j > 0 and fitness[j - 1] < f:
            fitness[j] = fitness[j - 1]
            for i in range(x.shape[0]):
                pop[j, i] = pop[j - 1, i]
            j -= 1
        fitness[j] = f
        set_row(pop, j, x)


@kernel(inline="always")
def next_generation(st, x, rng):
    """Keep the elite (the best mu, moved to the front) and breed the rest of the population from it.

    x serves as scratch."""
    lam, mu, d = st.population.shape[0], st.elite, x.shape[0]
    pop = st.population
    sort_by_fitness(pop, st.fitness, x)
    get_row(pop, 0, st.best)
    for k in range(mu, lam):  # offspring, written over the rest of the population
        if uniform(rng) < st.crossover:
            a, b = randint(rng, mu), randint(rng, mu)
            for i in range(d):
                pop[k, i] = pop[a, i] if uniform(rng) < 0.5 else pop[b, i]
        else:
            a = randint(rng, mu)
            for i in range(d):
                pop[k, i] = pop[a, i]
            i = randint(rng, d)
            if st.sizes[i] > 1:
                pop[k, i] = (pop[k, i] + 1 + randint(rng, st.sizes[i] - 1)) % st.sizes[i]
        get_row(pop, k, x)
        make_legal(x, st.rules)
        set_row(pop, k, x)
    st.next = 0
    st.generations += 1
