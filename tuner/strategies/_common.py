"""What every compiled strategy shares: the reward statistics of values and combinations, and small steps.

A strategy's state is a numba StructRef of named fields, one type per strategy. Every type starts
with the statistics fields below; `record` and the other helpers read them by name, so one helper
serves every strategy. A StructRef is one reference-counted object: a namedtuple of arrays had each
array counted at every inlined helper whose counts numba could not prune (measured: NMC's choose +
update 100 ns more per step).
"""

from __future__ import annotations

import functools
import math

import numpy as np
from llvmlite import binding as llvm
from llvmlite import ir
from numba import types
from numba.core import cgutils
from numba.experimental import structref
from numba.extending import intrinsic, overload

from games.jit import kernel
from games.rng import randint
from tuner.strategies._space import Space, make_legal

INT1, INT2 = types.int64[::1], types.int64[:, ::1]
FLOAT1, FLOAT2 = types.float64[::1], types.float64[:, ::1]

STATS_FIELDS = [
    ("sizes", INT1),  # [d]        values per parameter
    ("strides", INT1),  # [d]      each parameter's weight in a combination's code: the product of later sizes
    ("rules", INT2),  # [m, 4]     legality implications (Space.rules)
    ("value_n", FLOAT2),  # [d, V] samples per parameter value (the 1-tuples)
    ("value_s", FLOAT2),  # [d, V] reward sums per parameter value
    # The combinations (d-tuples) rewarded so far: combos[slot] holds a combination's samples and reward sum (and,
    # where UCB reads them, its mean and 1 / sqrt(samples): one row, one cache line, per lookup). Up to DIRECT_MAX
    # combinations, a row per combination, the slot its mixed-radix code (keys None); in larger spaces an
    # open-addressed hash table that doubles at half full, keys[slot] being 1 + the code (0: an empty slot), so
    # that a game's cost and memory follow the combinations it visits, not the size of the space (475,200 at 6
    # SA-MCTS parameters).
    ("keys", INT1),
    # a bit per combination of a hash table's space, set once it takes a slot, for a strategy that looks up many
    # combinations never told (NTBEA's neighbours): it reads a bit, not a cache line of the table (58 kB at 475,200
    # combinations; None with a direct table or for the other strategies)
    ("seen", types.uint64[::1]),
    ("combos", FLOAT2),
    ("filled", types.int64),  # slots in use (0 in a direct table)
    ("shift", types.int64),  # 64 - log2(H): a code's first slot is the top bits of code * 2^64 / phi (0: direct)
    ("combinations", types.int64),  # T = prod(sizes)
    ("total", types.int64),  # updates so far
]
# derived from the space or the table's layout (a saved state holds combos by code instead), or shared (roots): a
# saved state leaves them out, make_state makes them
LAYOUT = ("strides", "keys", "seen", "filled", "shift", "combinations", "roots")
DIRECT_MAX = 1 << 14  # spaces of at most this many combinations: a row per combination (at most 640 kB)
FIRST_SLOTS = 1 << 12  # a hash table's slots at the start of a game
FIBONACCI = np.uint64(0x9E3779B97F4A7C15)  # 2^64 / golden ratio: spreads runs of neighbouring codes
# The means and 1 / sqrt(n) that UCB reads, kept current by `record_ucb` (NMC and NTBEA only)
UCB_FIELDS = [
    ("value_m", FLOAT2),  # [d, V] mean reward per value (0 while unsampled)
    ("value_r", FLOAT2),  # [d, V] 1 / sqrt(samples) per value (inf while unsampled)
    ("roots", FLOAT1),  # INVERSE_ROOTS, shared by every state (read only)
]
# 1 / sqrt(n) for the whole counts n below 2^15, which `inverse_root` reads rather than computes (a root and a
# division whose latency was a tenth of an NTBEA step at 6 parameters); bit for bit the same, both correctly rounded
with np.errstate(divide="ignore"):
    INVERSE_ROOTS = 1.0 / np.sqrt(np.arange(1 << 15, dtype=np.float64))
N, S, M, R = range(4)  # the columns of `combos`: samples, reward sum, mean, 1 / sqrt(samples)


class StateType(types.StructRef):
    """Base of every strategy's StructRef type (each strategy registers its own subclass)."""

    def preprocess_fields(self, fields):
        return tuple((name, types.unliteral(t)) for name, t in fields)


class CompiledState(structref.StructRefProxy):
    """What Python holds of a StructRef state: an opaque handle to pass to compiled code."""


def stats_arrays(space: Space, ucb: bool = False, columns: int = 0, seen: bool = False) -> dict[str, np.ndarray]:
    """Fresh statistics arrays for `space` (with the UCB caches if `ucb`, `columns` more per combination, and the
    bits of combinations told if `seen` and the space takes a hash table), by field name."""
    d, width, total = len(space), int(space.sizes.max()), space.combinations()
    if total > 1 << 24:
        raise ValueError(f"the space has {total} combinations; at most {1 << 24} are supported")
    slots = total if total <= DIRECT_MAX else FIRST_SLOTS
    arrays = {
        "sizes": space.sizes.copy(),
        "strides": np.append(np.cumprod(space.sizes[:0:-1])[::-1], 1).astype(np.int64),
        "rules": space.rules.copy(),
        "value_n": np.zeros((d, width)),
        "value_s": np.zeros((d, width)),
        "combos": np.zeros((slots, (4 if ucb else 2) + columns)),
    }
    if slots < total:
        arrays["keys"] = np.zeros(slots, dtype=np.int64)
        if seen:
            arrays["seen"] = np.zeros((total + 63) // 64, dtype=np.uint64)
    if ucb:
        arrays.update(value_m=np.zeros((d, width)), value_r=np.full((d, width), np.inf), roots=INVERSE_ROOTS)
    return arrays


def stats_args(arrays: dict) -> tuple:
    """The statistics fields in the order `set_stats` takes them (a tuple: one argument of the constructors)."""
    keys = arrays.get("keys")
    shift = 0 if keys is None else 64 - keys.shape[0].bit_length() + 1
    names = ("sizes", "strides", "rules", "value_n", "value_s")
    total = int(np.prod(arrays["sizes"]))
    return (*(arrays[n] for n in names), keys, arrays.get("seen"), arrays["combos"], shift, total)


def ucb_args(arrays: dict) -> tuple:
    """The UCB caches as `set_ucb` takes them (a tuple: one argument of the constructors)."""
    return arrays["value_m"], arrays["value_r"], arrays["roots"]


def stat_columns(arrays: dict) -> int:
    """How many columns of `combos` are statistics (N, S and, with UCB, M, R); a strategy's own come after."""
    return 4 if "value_m" in arrays else 2


def by_code(arrays: dict) -> tuple[np.ndarray, np.ndarray]:
    """The codes of the combinations rewarded so far, ascending, and their rows of `combos`."""
    if "keys" not in arrays:  # a direct table: a row per code, the unrewarded zeros
        codes = np.flatnonzero(arrays["combos"].any(axis=1))
        return codes, arrays["combos"][codes]
    used = np.flatnonzero(arrays["keys"])
    codes = arrays["keys"][used] - 1
    order = np.argsort(codes, kind="stable")
    return codes[order], arrays["combos"][used[order]]


def dense(arrays: dict, columns: tuple[str, ...]) -> dict[str, np.ndarray]:
    """The combinations' rows by code, as a saved state holds them (whatever the table's layout): `combos`
    [T, statistics columns] and each of a strategy's own `columns` of it, named, [T] int32."""
    total, width = int(np.prod(arrays["sizes"])), stat_columns(arrays)
    codes, rows = by_code(arrays)
    out = {"combos": np.zeros((total, width))}
    out["combos"][codes] = rows[:, :width]
    for j, name in enumerate(columns):
        out[name] = np.zeros(total, dtype=np.int32)
        out[name][codes] = rows[:, width + j]
    return out


def sparse(saved: dict, columns: tuple[str, ...]) -> tuple[np.ndarray, np.ndarray]:
    """`dense`'s arrays back as the codes of the combinations rewarded and their whole rows of `combos`."""
    rows = np.column_stack([saved["combos"], *(saved[name] for name in columns)])
    codes = np.flatnonzero(rows.any(axis=1))
    return codes, rows[codes]


def forget_stats(arrays: dict, factor: float) -> None:
    """Weigh every reward learnt so far by `factor` (discounted statistics: a reward told k forgettings ago
    counts factor^k), keeping each mean; the 1 / sqrt(n) caches follow. The total stays, so UCB's
    exploration bonus grows as old rewards fade."""
    for name in ("value_n", "value_s"):
        arrays[name] *= factor
    combos = arrays["combos"]
    combos[:, N : S + 1] *= factor
    if "value_r" in arrays:
        refresh_inverse_sqrt(combos[:, N], combos[:, R])
        refresh_inverse_sqrt(arrays["value_n"], arrays["value_r"])


def refresh_inverse_sqrt(n: np.ndarray, out: np.ndarray) -> None:
    """out = 1 / sqrt(n) where n > 0, in place (elsewhere, the unsampled, out stays as it was)."""
    sampled = n > 0
    out[sampled] = 1.0 / np.sqrt(n[sampled])


@kernel(inline="always")
def set_stats(st, stats):
    """Fill the statistics fields of a new state from `stats_args` (constructors only)."""
    st.sizes, st.strides, st.rules, st.value_n, st.value_s, st.keys, st.seen, st.combos = stats[:8]
    st.shift, st.combinations = stats[8:]
    st.filled, st.total = 0, 0


@kernel(inline="always")
def set_ucb(st, ucb):
    st.value_m, st.value_r, st.roots = ucb


@kernel(inline="always")
def inverse_root(st, n):
    """1 / sqrt(n) for a sample count n (whole, unless forgotten), from INVERSE_ROOTS where it holds it."""
    k = np.int64(n)
    return st.roots[k] if k == n and k < st.roots.shape[0] else 1.0 / math.sqrt(n)


def hashed(state_type) -> bool:
    """Whether a state type keeps its combinations in a hash table (else a row per code: no `keys`)."""
    return isinstance(state_type.field_dict["keys"], types.Array)


def state_type(cls: type, fields: list, arrays: dict) -> types.StructRef:
    """The StructRef type `cls` with a strategy's `fields` for `arrays`: a direct table's `keys` are None, so that its
    compiled steps hold no hashing at all (the two tables are two types, each compiled for itself)."""
    absent = {"keys", "seen"} - set(arrays)
    return _state_type(cls, tuple((name, types.none if name in absent else t) for name, t in fields))


@functools.cache
def _state_type(cls: type, fields: tuple) -> types.StructRef:
    """Built once per strategy and table: numba checks every field of a new type (half of a reset's time)."""
    return cls(list(fields))


@kernel(inline="always")
def home(st, c):
    """The first slot of code c in a hash table: the top bits of its Fibonacci hash."""
    return np.int64((np.uint64(c) * FIBONACCI) >> np.uint64(st.shift))


def find(st, c):
    """The slot of the combination of code c if it was rewarded, else the empty slot it would take (its row
    zeros): the code itself in a direct table, else linear probing from the code's Fibonacci hash."""
    raise TypeError("find runs in compiled code")


@overload(find)
def _find(st, c):
    if not hashed(st):
        return lambda st, c: c

    def impl(st, c):
        keys = st.keys
        mask = keys.shape[0] - 1
        s = home(st, c)
        while keys[s] != 0 and keys[s] != c + 1:
            s = (s + 1) & mask
        return s

    return impl


# the intrinsic's name mangles its pointer type: opaque pointers from LLVM 15 on, i8* before
PREFETCH = "llvm.prefetch.p0" if llvm.llvm_version_info[0] >= 15 else "llvm.prefetch.p0i8"


@intrinsic
def prefetch(typingctx, array, i):
    """A hint to the CPU to bring element i (flat index) of a C-contiguous array into its caches for a read soon:
    one instruction (prefetcht0 on x86), nothing else changed."""
    if not isinstance(array, types.Array) or array.layout != "C" or not isinstance(i, types.Integer):
        return None

    def codegen(context, builder, signature, args):
        data = context.make_array(signature.args[0])(context, builder, args[0]).data
        address = builder.bitcast(builder.gep(data, [args[1]]), ir.IntType(8).as_pointer())
        int32 = ir.IntType(32)
        hint = cgutils.get_or_insert_function(
            builder.module, ir.FunctionType(ir.VoidType(), [address.type, int32, int32, int32]), PREFETCH
        )
        builder.call(hint, [address, ir.Constant(int32, 0), ir.Constant(int32, 3), ir.Constant(int32, 1)])  # read
        return context.get_dummy_value()

    return types.none(array, i), codegen


def prefetch_slot(st, c):
    """Start loading what `maybe_told` and `find` will read for code c (its bit, key and row), so that their cache
    misses overlap the work done meanwhile."""
    raise TypeError("prefetch_slot runs in compiled code")


@overload(prefetch_slot)
def _prefetch_slot(st, c):
    if not hashed(st):
        return lambda st, c: prefetch(st.combos, c * st.combos.shape[1])
    seen = has_seen(st)

    def impl(st, c):
        if seen:
            prefetch(st.seen, c >> 6)
        s = home(st, c)
        prefetch(st.keys, s)
        prefetch(st.combos, s * st.combos.shape[1])

    return impl


def slot_for(st, c):
    """The slot of code c, taken if it is new (a hash table then doubles if it is more than half full)."""
    raise TypeError("slot_for runs in compiled code")


@overload(slot_for)
def _slot_for(st, c):
    if not hashed(st):
        return lambda st, c: c

    def impl(st, c):
        s = find(st, c)
        if st.keys[s] == 0:
            st.keys[s] = c + 1
            mark_told(st, c)
            st.filled += 1
            if 2 * st.filled > st.keys.shape[0]:
                grow(st)
                s = find(st, c)
        return s

    return impl


def has_seen(state_type) -> bool:
    """Whether a state type keeps the bits of the combinations told (`seen`)."""
    return isinstance(state_type.field_dict["seen"], types.Array)


def maybe_told(st, c):
    """False if the combination of code c was surely never told (its bit in `seen` unset), else True."""
    raise TypeError("maybe_told runs in compiled code")


@overload(maybe_told)
def _maybe_told(st, c):
    if not has_seen(st):
        return lambda st, c: True
    return lambda st, c: (st.seen[c >> 6] >> np.uint64(c & 63)) & np.uint64(1) != 0


def mark_told(st, c):
    """Set the bit of code c in `seen`, if the state keeps them."""
    raise TypeError("mark_told runs in compiled code")


@overload(mark_told)
def _mark_told(st, c):
    if not has_seen(st):
        return lambda st, c: None

    def impl(st, c):
        st.seen[c >> 6] |= np.uint64(1) << np.uint64(c & 63)

    return impl


def code_at(st, s):
    """The code of the combination in slot s (taken)."""
    raise TypeError("code_at runs in compiled code")


@overload(code_at)
def _code_at(st, s):
    if not hashed(st):
        return lambda st, s: s
    return lambda st, s: st.keys[s] - 1


@kernel
def grow(st):
    """Double the hash table, each row to its slot in the new one (not inlined: it allocates, and runs
    about log2 of the combinations a game visits times)."""
    keys, combos = st.keys, st.combos
    st.keys = np.zeros(2 * keys.shape[0], dtype=np.int64)
    st.combos = np.zeros((2 * keys.shape[0], combos.shape[1]))
    st.shift -= 1
    for s in range(keys.shape[0]):
        if keys[s] != 0:
            t = find(st, keys[s] - 1)
            st.keys[t] = keys[s]
            for j in range(combos.shape[1]):
                st.combos[t, j] = combos[s, j]


@kernel
def fill(st, codes, rows):
    """Put back saved rows of `combos` by code (Strategy.load_state_dict)."""
    for i in range(codes.shape[0]):
        s = slot_for(st, codes[i])
        for j in range(rows.shape[1]):
            st.combos[s, j] = rows[i, j]


@kernel(inline="always")
def code(st, x):
    """The mixed-radix index of combination x (a sum of products, not Horner's chain of multiply-adds: the
    products run side by side)."""
    c = 0
    for i in range(x.shape[0]):
        c += x[i] * st.strides[i]
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
def record(st, x, reward):
    """Learn reward for x: its value and combination statistics and the total; returns x's slot."""
    for i in range(x.shape[0]):
        st.value_n[i, x[i]] += 1.0
        st.value_s[i, x[i]] += reward
    s = slot_for(st, code(st, x))
    st.combos[s, N] += 1.0
    st.combos[s, S] += reward
    st.total += 1
    return s


@kernel(inline="always")
def record_ucb(st, x, reward):
    """`record`, keeping the means and 1 / sqrt(n) that UCB reads up to date. The new counts and sums are kept in
    locals, not read back after their stores: each store might alias the next read, so each read waited on it (NMC's
    step -5%, NTBEA's -2.5% at 6 parameters, in one process)."""
    for i in range(x.shape[0]):
        v = x[i]
        n, total = st.value_n[i, v] + 1.0, st.value_s[i, v] + reward
        st.value_n[i, v], st.value_s[i, v] = n, total
        st.value_m[i, v] = total / n
        st.value_r[i, v] = inverse_root(st, n)
    s = slot_for(st, code(st, x))
    combos = st.combos
    n, total = combos[s, N] + 1.0, combos[s, S] + reward
    combos[s, N], combos[s, S] = n, total
    combos[s, M] = total / n
    combos[s, R] = inverse_root(st, n)
    st.total += 1
    return s


@kernel(inline="always")
def random_combination(st, rng, x):
    for i in range(x.shape[0]):
        x[i] = randint(rng, st.sizes[i])
    make_legal(x, st.rules)


@kernel(inline="always")
def recommend_lcb(st, x):
    """The sampled combination with the best lower confidence bound, mean - sqrt(ln N / n), into x (ties: the
    smallest code); False if nothing was sampled."""
    log_total = math.log(max(1, st.total) + 1.0)
    best, pick = -np.inf, -1
    combos = st.combos
    for s in range(combos.shape[0]):
        n = combos[s, N]
        if n > 0:
            score = combos[s, S] / n - math.sqrt(log_total / n)
            c = code_at(st, s)
            if score > best or (score == best and c < pick):
                best, pick = score, c
    if pick >= 0:
        decode(st, pick, x)
    return pick >= 0
