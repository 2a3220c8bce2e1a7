"""Grid search and uniform random sampling over the combinations of a Space: the two baselines."""

from __future__ import annotations

from numba import types
from numba.experimental import structref

from games.jit import kernel
from tuner.strategies._common import (
    STATS_FIELDS,
    StateType,
    decode,
    random_combination,
    record,
    set_stats,
    state_type,
    stats_args,
    stats_arrays,
)


@structref.register
class RandomState(StateType):
    pass


@structref.register
class GridState(StateType):
    pass


RANDOM_FIELDS = STATS_FIELDS
GRID_FIELDS = STATS_FIELDS + [("position", types.int64)]  # the next combination's code in round-robin order


@kernel
def new_random(state_type, stats):
    st = structref.new(state_type)
    set_stats(st, stats)
    return st


@kernel
def new_grid(state_type, stats):
    st = structref.new(state_type)
    set_stats(st, stats)
    st.position = 0
    return st


def grid_limits(arrays, scalars, total) -> tuple[dict, tuple]:
    """What a saved grid state may hold (Entry.limits): its count of combinations tried (read modulo the space)."""
    return {"position": (0, None)}, ()


def make_random(space, settings) -> tuple:
    arrays = stats_arrays(space)
    return new_random(state_type(RandomState, RANDOM_FIELDS, arrays), stats_args(arrays)), arrays


def make_grid(space, settings) -> tuple:
    arrays = stats_arrays(space)
    return new_grid(state_type(GridState, GRID_FIELDS, arrays), stats_args(arrays)), arrays


@kernel
def random_choose(st, rng, x):
    random_combination(st, rng, x)


@kernel
def grid_choose(st, rng, x):
    """The next legal combination in a fixed round-robin order."""
    total = st.combinations
    legal = False
    tried = 0
    while not legal and tried < total:
        decode(st, st.position % total, x)
        st.position += 1
        tried += 1
        legal = True
        for r in range(st.rules.shape[0]):
            if x[st.rules[r, 0]] == st.rules[r, 1] and x[st.rules[r, 2]] != st.rules[r, 3]:
                legal = False


@kernel
def plain_update(st, x, reward, rng):
    record(st, x, reward)
