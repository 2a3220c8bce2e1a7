"""What every compiled strategy shares: the reward statistics of values and combinations, and small steps.

A strategy's state is a numba StructRef of named fields, one type per strategy. Every type starts
with the statistics fields below; `record` and the other helpers read them by name, so one helper
serves every strategy. A StructRef is one reference-counted object: a namedtuple of arrays had each
array counted at every inlined helper whose counts numba could not prune (measured: NMC's choose +
update 100 ns more per step).
"""

from __future__ import annotations

import math

import numpy as np
from numba import types
from numba.experimental import structref

from games.jit import kernel
from games.rng import randint
from tuner.strategies._space import Space, make_legal

INT1, INT2 = types.int64[::1], types.int64[:, ::1]
FLOAT1, FLOAT2 = types.float64[::1], types.float64[:, ::1]

STATS_FIELDS = [
    ("sizes", INT1),  # [d]        values per parameter
    ("rules", INT2),  # [m, 4]     legality implications (Space.rules)
    ("value_n", FLOAT2),  # [d, V] samples per parameter value (the 1-tuples)
    ("value_s", FLOAT2),  # [d, V] reward sums per parameter value
    # [T, 2] per combination (the d-tuple; T = prod(sizes)) its samples and reward sum, and [T, 4] with
    # its mean and 1 / sqrt(samples) where UCB reads them: one row, one cache line, per lookup
    ("combos", FLOAT2),
    ("total", types.int64),  # updates so far
]
# The means and 1 / sqrt(n) that UCB reads, kept current by `record_ucb` (NMC and NTBEA only)
UCB_FIELDS = [
    ("value_m", FLOAT2),  # [d, V] mean reward per value (0 while unsampled)
    ("value_r", FLOAT2),  # [d, V] 1 / sqrt(samples) per value (inf while unsampled)
]
N, S, M, R = range(4)  # the columns of `combos`: samples, reward sum, mean, 1 / sqrt(samples)


class StateType(types.StructRef):
    """Base of every strategy's StructRef type (each strategy registers its own subclass)."""

    def preprocess_fields(self, fields):
        return tuple((name, types.unliteral(t)) for name, t in fields)


class CompiledState(structref.StructRefProxy):
    """What Python holds of a StructRef state: an opaque handle to pass to compiled code."""


def stats_arrays(space: Space, ucb: bool = False) -> dict[str, np.ndarray]:
    """Fresh statistics arrays for `space` (with the UCB caches if `ucb`), by field name; `combo_n`
    and `combo_s` are views of the columns of `combos`, for people and tests."""
    d, width, total = len(space), int(space.sizes.max()), space.combinations()
    if total > 1 << 24:
        raise ValueError(f"the space has {total} combinations; at most {1 << 24} are supported")
    arrays = {
        "sizes": space.sizes.copy(),
        "rules": space.rules.copy(),
        "value_n": np.zeros((d, width)),
        "value_s": np.zeros((d, width)),
        "combos": np.zeros((total, 4 if ucb else 2)),
    }
    arrays.update(combo_n=arrays["combos"][:, N], combo_s=arrays["combos"][:, S])
    if ucb:
        arrays.update(value_m=np.zeros((d, width)), value_r=np.full((d, width), np.inf))
    return arrays


def stats_args(arrays: dict, ucb: bool = False) -> tuple:
    """The statistics arrays in the order the constructors (`set_stats`, then `set_ucb`) take them."""
    names = ("sizes", "rules", "value_n", "value_s", "combos")
    names += ("value_m", "value_r") if ucb else ()
    return tuple(arrays[n] for n in names)


def forget_stats(arrays: dict, factor: float) -> None:
    """Weigh every reward learnt so far by `factor` (discounted statistics: a reward told k forgettings ago
    counts factor^k), keeping each mean; the 1 / sqrt(n) caches follow. The total stays, so UCB's
    exploration bonus grows as old rewards fade."""
    for name in ("value_n", "value_s"):
        arrays[name] *= factor
    combos = arrays["combos"]
    combos[:, N : S + 1] *= factor
    if combos.shape[1] > R:
        refresh_inverse_sqrt(combos[:, N], combos[:, R])
    if "value_r" in arrays:
        refresh_inverse_sqrt(arrays["value_n"], arrays["value_r"])


def refresh_inverse_sqrt(n: np.ndarray, out: np.ndarray) -> None:
    """out = 1 / sqrt(n) where n > 0, in place (elsewhere, the unsampled, out stays as it was)."""
    sampled = n > 0
    out[sampled] = 1.0 / np.sqrt(n[sampled])


@kernel(inline="always")
def set_stats(st, sizes, rules, value_n, value_s, combos):
    """Fill the statistics fields of a new state (constructors only)."""
    st.sizes, st.rules, st.value_n, st.value_s, st.combos = sizes, rules, value_n, value_s, combos
    st.total = 0


@kernel(inline="always")
def set_ucb(st, value_m, value_r):
    st.value_m, st.value_r = value_m, value_r


@kernel(inline="always")
def code(st, x):
    """The mixed-radix index of combination x."""
    c = 0
    for i in range(x.shape[0]):
        c = c * st.sizes[i] + x[i]
    return c


@kernel(inline="always")
def decode(st, c, x):
    for i in range(x.shape[0] - 1, -1, -1):
        x[i] = c % st.sizes[i]
        c //= st.sizes[i]


@kernel(inline="always")
def get_row(table, r, x):
    """x[:] = table[r], element by element: no array view, so no reference counting in hot loops."""
    for i in range(x.shape[0]):
        x[i] = table[r, i]


@kernel(inline="always")
def set_row(table, r, x):
    for i in range(x.shape[0]):
        table[r, i] = x[i]


@kernel(inline="always")
def copy_into(src, x):
    for i in range(x.shape[0]):
        x[i] = src[i]


@kernel(inline="always")
def move_best_to_front(rows, scores, count, keep):
    """Reorder rows 0..count-1 of `rows` (and `scores`) in place so that the `keep` best by score come
    first, best first; ties keep the earlier row. A partial selection sort: no allocation."""
    d = rows.shape[1]
    for a in range(keep):
        best = a
        for b in range(a + 1, count):
            if scores[b] > scores[best]:
                best = b
        if best != a:
            scores[a], scores[best] = scores[best], scores[a]
            for i in range(d):
                rows[a, i], rows[best, i] = rows[best, i], rows[a, i]


@kernel(inline="always")
def record(st, x, reward):
    """Learn reward for x: its value and combination statistics and the total."""
    for i in range(x.shape[0]):
        st.value_n[i, x[i]] += 1.0
        st.value_s[i, x[i]] += reward
    c = code(st, x)
    st.combos[c, N] += 1.0
    st.combos[c, S] += reward
    st.total += 1


@kernel(inline="always")
def record_ucb(st, x, reward):
    """`record`, keeping the means and 1 / sqrt(n) that UCB reads up to date."""
    for i in range(x.shape[0]):
        v = x[i]
        st.value_n[i, v] += 1.0
        st.value_s[i, v] += reward
        st.value_m[i, v] = st.value_s[i, v] / st.value_n[i, v]
        st.value_r[i, v] = 1.0 / math.sqrt(st.value_n[i, v])
    c = code(st, x)
    combos = st.combos
    combos[c, N] += 1.0
    combos[c, S] += reward
    combos[c, M] = combos[c, S] / combos[c, N]
    combos[c, R] = 1.0 / math.sqrt(combos[c, N])
    st.total += 1


@kernel(inline="always")
def random_combination(st, rng, x):
    for i in range(x.shape[0]):
        x[i] = randint(rng, st.sizes[i])
    make_legal(x, st.rules)


@kernel(inline="always")
def ucb_value(st, i, rng, width):
    """UCB1 over the values of parameter i, width = C sqrt(ln N) (unsampled values first, ties at random)."""
    best, pick, ties = -np.inf, 0, 0
    for v in range(st.sizes[i]):
        score = np.inf if st.value_n[i, v] == 0.0 else st.value_m[i, v] + width * st.value_r[i, v]
        if score > best:
            best, pick, ties = score, v, 1
        elif score == best:
            ties += 1
            if randint(rng, ties) == 0:
                pick = v
    return pick


@kernel(inline="always")
def recommend_lcb(st, x):
    """The sampled combination with the best lower confidence bound, mean - sqrt(ln N / n), into x;
    False if nothing was sampled."""
    log_total = math.log(max(1, st.total) + 1.0)
    best, pick = -np.inf, -1
    combos = st.combos
    for c in range(combos.shape[0]):
        n = combos[c, N]
        if n > 0:
            score = combos[c, S] / n - math.sqrt(log_total / n)
            if score > best:
                best, pick = score, c
    if pick >= 0:
        decode(st, pick, x)
    return pick >= 0
