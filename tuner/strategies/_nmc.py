"""NMC, naive Monte Carlo [SA-MCTS Alg. 1]: with probability eps0 explore, choosing each parameter's
value by its own UCB1 bandit (the local MABs); otherwise exploit, choosing by UCB1 among the
combinations evaluated so far (the global MAB). Settings of VI-A: eps0 = 0.75, C = 1 for both.

The global bandit is UCB1 (ties at random) without scanning every evaluated combination: all
combinations with n samples share the bonus C sqrt(ln N / n), so they form one group, whose best
score is its best mean plus that bonus. The groups' members lie in one array, each group a
contiguous segment sorted by mean (largest n first), so a group's best mean is its last. An update
moves one combination from its group to the next group's segment, one swap per run of equal means
it passes: a few with game rewards (0, 0.5, 1), up to the group's size with continuous ones. A
choice reads one score per group, from the fewest samples (the largest bonus) on, and stops where even
the largest mean with that group's bonus would fall below the best found: distinct sample counts are
few (at most sqrt(2 N)) where the combinations evaluated may be thousands, and most are passed over.
The choice is the scan's, except that equal scores from unequal means (floats one ulp apart) are not
ties here. In spaces of at most SCAN_MAX combinations the groups cost more than they save, and a
choice reads every member's score.
"""

from __future__ import annotations

import math

import numpy as np
from numba import types
from numba.experimental import structref

from games.jit import kernel
from games.rng import randint, uniform
from tuner.strategies._common import (
    DIRECT_MAX,
    FLOAT1,
    FLOAT2,
    INT1,
    INT2,
    STATS_FIELDS,
    UCB_FIELDS,
    M,
    N,
    R,
    StateType,
    code,
    forget_stats,
    get_row,
    record_ucb,
    refresh_inverse_sqrt,
    set_row,
    set_stats,
    set_ucb,
    state_type,
    stats_args,
    stats_arrays,
    ucb_args,
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
        ("pool", INT2),  # [P, d] the combinations of the global bandit (its members), in the order first evaluated
        ("pool_codes", INT1),  # [P] their codes
        ("pooled", types.int64),  # members so far
        ("order", INT1),  # [P] the members by position: the groups' segments, largest n first
        ("means", FLOAT1),  # [P] the mean reward of the member at each position
        ("position", INT1),  # [P] each member's position in order
        ("group", INT1),  # [P] each member's group id
        # [P, 5] per group id: START, END (its segment of order), PREV, NEXT (the groups of the segments
        # before and after, -1: none), SLOT (its place in live)
        ("groups", INT2),
        ("group_stats", FLOAT2),  # [P, 2] per group id: its samples n, 1 / sqrt(n) (copies, read per choice)
        ("live", INT1),  # [P] the ids of the groups in use, in no order
        ("live_count", types.int64),
        ("free", INT1),  # [P] a stack of the group ids freed (ids never used are live_count + free_count on)
        ("free_count", types.int64),
        ("grouped", types.boolean),  # whether the members are kept in groups (else a choice scans them all)
        ("tail", types.int64),  # the group with the fewest samples, whose segment ends the order (-1: none)
        # bounds on every member's mean: the largest and smallest given to one since the state was made, loaded
        # or discounted. Like `inversions`, not saved: `know_groups` works them out after a load or a forgetting
        ("mean_cap", types.float64),
        ("mean_floor", types.float64),
        # neighbouring groups whose samples do not fall from head to tail. None until a forgetting makes samples
        # fractional: one more sample can then take a member past the group before (and two groups may hold equal
        # samples, whose scores tie), and while there are any, a choice reads every group
        ("inversions", types.int64),
    ]
)
START, END, PREV, NEXT, SLOT = range(5)  # the columns of `groups`
GN, GR = range(2)  # the columns of `group_stats`
MEMBER = 4  # NMC's column of `combos`: 1 + the combination's member, 0 if none
MEMBERS_MAX = 1 << 16  # the global bandit's members at most (combinations evaluated later are not added)
FIRST_MEMBERS = 1 << 8  # room for members at the start of a game: a reset allocates kilobytes, not megabytes
SCAN_MAX = 256  # spaces of at most this many combinations: no groups (measured: cheaper below ~150 members)
assert SCAN_MAX <= DIRECT_MAX  # a scan reads its members' rows by code: a slot per combination


@kernel
def new_state(
    state_type,
    stats,
    ucb,
    eps0,
    c_local,
    c_global,
    pool,
    pool_codes,
    order,
    means,
    position,
    group,
    groups,
    group_stats,
    live,
    free,
    grouped,
):
    st = structref.new(state_type)
    set_stats(st, stats)
    set_ucb(st, ucb)
    st.eps0, st.c_local, st.c_global = eps0, c_local, c_global
    st.pool, st.pool_codes, st.pooled = pool, pool_codes, 0
    st.order, st.means, st.position, st.group = order, means, position, group
    st.groups, st.group_stats, st.live, st.live_count = groups, group_stats, live, 0
    st.free, st.free_count, st.tail, st.grouped = free, 0, -1, grouped
    st.mean_cap, st.mean_floor, st.inversions = -np.inf, np.inf, 0
    return st


NAMES = ("pool", "pool_codes", "order", "means", "position", "group", "groups", "group_stats", "live", "free")


def limits(arrays, scalars, total) -> tuple[dict, tuple]:
    """What a saved NMC state may hold (Entry.limits): members, groups and places within the pool's rows."""
    rows = arrays["pool"].shape[0]
    places = {name: (0, rows - 1) for name in ("order", "position", "group", "live", "free")}
    counts = {name: (0, rows) for name in ("pooled", "live_count", "free_count")}
    bounds = {**places, **counts, "tail": (-1, rows - 1), "groups": (-1, rows), "pool_codes": (0, total - 1)}
    return {**bounds, "member": (0, scalars["pooled"])}, ("pool",)


def capacity(space) -> int:
    """The most members NMC keeps: one per combination, at most MEMBERS_MAX."""
    return min(space.combinations(), MEMBERS_MAX)


def make_state(space, settings, rows: int | None = None) -> tuple:
    """(compiled state, its arrays by name) for a fresh NMC over `space`, room for `rows` members (by default
    FIRST_MEMBERS; `grow` doubles them as a game evaluates more combinations, up to `capacity`)."""
    arrays = stats_arrays(space, ucb=True, columns=1)
    rows = min(capacity(space), FIRST_MEMBERS) if rows is None else rows
    arrays.update(
        pool=np.zeros((rows, len(space)), dtype=np.int64),
        pool_codes=np.zeros(rows, dtype=np.int64),
        order=np.zeros(rows, dtype=np.int64),
        means=np.zeros(rows),
        position=np.zeros(rows, dtype=np.int64),
        group=np.zeros(rows, dtype=np.int64),
        groups=np.zeros((rows, 5), dtype=np.int64),
        group_stats=np.zeros((rows, 2)),
        live=np.zeros(rows, dtype=np.int64),
        free=np.zeros(rows, dtype=np.int64),
    )
    eps0, c_local, c_global = (float(settings[k]) for k in ("eps0", "c_local", "c_global"))
    st = new_state(
        state_type(NMCState, FIELDS, arrays),
        stats_args(arrays),
        ucb_args(arrays),
        eps0,
        c_local,
        c_global,
        *(arrays[n] for n in NAMES),
        space.combinations() > SCAN_MAX,
    )
    return st, arrays


@kernel
def grow(st):
    """Double the member arrays (up to `capacity`), keeping their contents (not inlined: it allocates, and runs
    about log2 of the members a game makes times)."""
    rows = min(2 * st.pool.shape[0], st.combinations, MEMBERS_MAX)
    st.pool = _grown2(st.pool, rows)
    st.pool_codes = _grown1(st.pool_codes, rows)
    st.order = _grown1(st.order, rows)
    st.means = _grown1(st.means, rows)
    st.position = _grown1(st.position, rows)
    st.group = _grown1(st.group, rows)
    st.groups = _grown2(st.groups, rows)
    st.group_stats = _grown2(st.group_stats, rows)
    st.live = _grown1(st.live, rows)
    st.free = _grown1(st.free, rows)


@kernel
def _grown1(a, rows):
    out = np.zeros(rows, dtype=a.dtype)
    for i in range(a.shape[0]):
        out[i] = a[i]
    return out


@kernel
def _grown2(a, rows):
    out = np.zeros((rows, a.shape[1]), dtype=a.dtype)
    for i in range(a.shape[0]):
        for j in range(a.shape[1]):
            out[i, j] = a[i, j]
    return out


def forget(arrays: dict, factor: float) -> None:
    """`forget_stats`, and the copies of each group's samples that a choice reads: a group's members keep
    equal samples, and every mean its place, so the groups stay as they are."""
    forget_stats(arrays, factor)
    stats = arrays["group_stats"]
    stats[:, GN] *= factor
    refresh_inverse_sqrt(stats[:, GN], stats[:, GR])


@kernel(inline="always")
def run_start(means, lo, p):
    """The first position of the run of means equal to means[p] in means[lo : p + 1], which is sorted."""
    m = means[p]
    while lo < p:
        mid = (lo + p) // 2
        if means[mid] < m:
            lo = mid + 1
        else:
            p = mid
    return lo


@kernel
def choose(st, rng, x):
    sqrt_log = math.sqrt(math.log(max(1, st.total)))
    if st.pooled == 0 or uniform(rng) < st.eps0:  # explore: each value by its own bandit
        # UCB1 over each parameter's values (unsampled values first, ties at random), written out with the
        # arrays read once: a helper per parameter had its arguments reference-counted, and the arrays' fields
        # were read again at every value (the random stream's writes might have changed them)
        value_n, value_m, value_r, sizes = st.value_n, st.value_m, st.value_r, st.sizes
        width = st.c_local * sqrt_log
        for i in range(x.shape[0]):
            # first without branches (their outcomes are data: mispredicted), noting whether any score tied
            # the best so far; only then again with the tie draws, so that the random stream is the same
            best, pick, tied = -np.inf, 0, False
            for v in range(sizes[i]):
                score = np.inf if value_n[i, v] == 0.0 else value_m[i, v] + width * value_r[i, v]
                tied |= score == best
                pick = v if score > best else pick
                best = max(best, score)  # score if score > best: a NaN score is passed over, as below
            if tied:
                best, pick, ties = -np.inf, 0, 0
                for v in range(sizes[i]):
                    score = np.inf if value_n[i, v] == 0.0 else value_m[i, v] + width * value_r[i, v]
                    if score > best:
                        best, pick, ties = score, v, 1
                    elif score == best:
                        ties += 1
                        if randint(rng, ties) == 0:
                            pick = v
            x[i] = pick
        make_legal(x, st.rules)
    else:  # exploit: the global bandit, UCB1 over the members
        width = st.c_global * sqrt_log
        k = best_by_group(st, rng, width) if st.grouped else best_by_scan(st, rng, width)
        get_row(st.pool, k, x)


@kernel(inline="always")
def best_by_scan(st, rng, width):
    """The member of best UCB score, ties at random, reading every member's score."""
    best, ties, pick = -np.inf, 0, -1
    for k in range(st.pooled):
        c = st.pool_codes[k]  # its slot: a space this small has a direct table
        score = st.combos[c, M] + width * st.combos[c, R]
        if score > best:
            best, ties, pick = score, 1, k
        elif score == best:
            ties += 1
            if randint(rng, ties) == 0:
                pick = k
    return pick


@kernel
def know_groups(st):
    """Work out the bounds on the means and the inversions, after a load or a forgetting (Entry.derive); False if
    the groups do not form one list from the tail to a head (a damaged saved state)."""
    st.mean_cap, st.mean_floor = -np.inf, np.inf
    for p in range(st.pooled):
        bound_mean(st, st.means[p])
    g, steps, st.inversions = st.tail, 0, 0
    while g != -1 and steps < st.live_count:
        st.inversions += inverted(st.group_stats, st.groups[g, PREV], g)
        g, steps = st.groups[g, PREV], steps + 1
    return g == -1 and steps == st.live_count


@kernel(inline="always")
def bound_mean(st, m):
    st.mean_cap, st.mean_floor = max(st.mean_cap, m), min(st.mean_floor, m)


@kernel(inline="always")
def inverted(stats, a, b):
    """1 if group b follows group a but has no fewer samples (-1: none), else 0."""
    return 1 if a != -1 and b != -1 and stats[a, GN] <= stats[b, GN] else 0


@kernel(inline="always")
def best_by_group(st, rng, width):
    """The member of best UCB score, ties at random, reading each group's best (its last): reservoir sampling
    over the groups, each weighted by its members at its best mean; then one of those. While the groups are in
    order and every bonus counts, they are read from the fewest samples on, their bonus width / sqrt(n) falling,
    until mean_cap + the bonus is below the best score found: no later group can reach it (float operations are
    monotone), and groups of unequal samples tie only by a coincidence of roundings, so the choices and random
    stream are those of reading every group in `live`'s order, which is how the rest are read: there groups may
    tie (the greedy bandit, bonuses lost in the means' roundings or infinite, equal samples after forgetting)."""
    groups, stats, means, live, cap, floor = st.groups, st.group_stats, st.means, st.live, st.mean_cap, st.mean_floor
    least = width * (1.0 / math.sqrt(st.total))  # no group's bonus is smaller: its samples are at most the total
    walk = st.inversions == 0 and least > 0.0 and cap + least > cap and floor + least > floor
    walk = walk and width * stats[st.tail, GR] < np.inf  # the tail's bonus, the largest
    best, ties, pick, pick_top = -np.inf, 0, -1, 0
    i, g = 0, st.tail if walk else live[0]
    while g != -1:
        bonus = width * stats[g, GR]
        if walk and cap + bonus < best:
            break
        start, end = groups[g, START], groups[g, END]
        score = means[end - 1] + bonus
        if score >= best:
            top = end - run_start(means, start, end - 1)
            if score > best:
                best, ties, pick, pick_top = score, top, g, top
            else:
                ties += top
                if randint(rng, ties) < top:
                    pick, pick_top = g, top
        i += 1
        g = (groups[g, PREV] if walk else live[i]) if i < st.live_count else -1
    return st.order[groups[pick, END] - 1 - randint(rng, pick_top)]


@kernel(inline="always")
def swap(st, a, b):
    """Exchange the members at positions a and b of `order` (and their means)."""
    order, means, position = st.order, st.means, st.position
    ka, kb = order[a], order[b]
    order[a], order[b] = kb, ka
    means[a], means[b] = means[b], means[a]
    position[ka], position[kb] = b, a


@kernel
def update(st, x, reward, rng):
    s = record_ucb(st, x, reward)
    k, new = np.int64(st.combos[s, MEMBER]) - 1, False
    if k < 0 and st.pooled < min(st.combinations, MEMBERS_MAX):
        if st.pooled == st.pool.shape[0]:
            grow(st)
        k, new = add_member(st, x, code(st, x)), True
        st.combos[s, MEMBER] = k + 1
    if st.grouped and k >= 0:
        if new:
            join(st, k, st.tail, -1, s)
        else:
            regroup(st, k, s)


@kernel(inline="always")
def regroup(st, k, s):
    """Member k (slot s) has one sample more: from its group to the next."""
    groups, stats = st.groups, st.group_stats
    g = st.group[k]
    start, end, before = groups[g, START], groups[g, END], groups[g, PREV]
    n = st.combos[s, N]
    if end - start == 1 and (before == -1 or stats[before, GN] != n):
        after = groups[g, NEXT]  # alone, and no group to join: g moves on with it
        st.inversions -= inverted(stats, before, g) + inverted(stats, g, after)
        stats[g, GN], stats[g, GR] = n, st.combos[s, R]
        st.inversions += inverted(stats, before, g) + inverted(stats, g, after)
        st.means[start] = st.combos[s, M]
        bound_mean(st, st.combos[s, M])
        return
    # k to the front of g: first to the start of its own run, then, run after run, it takes the place of
    # the first of the run before it, which goes to that run's end: every run stays contiguous and sorted
    p = run_start(st.means, start, st.position[k])
    swap(st, st.position[k], p)
    while p > start:
        q = run_start(st.means, start, p - 1)
        swap(st, p, q)
        p = q
    groups[g, START] = start + 1  # then out of g
    join(st, k, before, g, s)
    if start + 1 == end:  # g is empty: unlink it and free its id
        a, b = groups[g, PREV], groups[g, NEXT]  # join may have put a new group before g
        st.inversions += inverted(stats, a, b) - inverted(stats, a, g) - inverted(stats, g, b)
        connect(st, a, b)
        st.live_count -= 1
        moved = st.live[st.live_count]
        st.live[groups[g, SLOT]], groups[moved, SLOT] = moved, groups[g, SLOT]
        st.free[st.free_count] = g
        st.free_count += 1


@kernel(inline="always")
def connect(st, a, b):
    """Make group b follow group a in the list (either may be -1: none; b = -1 makes a the tail)."""
    if a != -1:
        st.groups[a, NEXT] = b
    if b == -1:
        st.tail = a
    else:
        st.groups[b, PREV] = a


@kernel(inline="always")
def add_member(st, x, c):
    """Combination x (code c) joins the global bandit, evaluated for the first time: a new member, last in order."""
    k = st.pooled
    st.pooled += 1
    set_row(st.pool, k, x)
    st.pool_codes[k], st.order[k], st.position[k] = c, k, k
    return k


@kernel(inline="always")
def join(st, k, before, after, s):
    """Put member k (slot s), at the position just after `before`'s segment, into the group of its samples:
    `before` if that has as many (k then moves in front of the runs of larger means), else a new group between
    `before` and `after` (-1: none)."""
    groups, stats, means = st.groups, st.group_stats, st.means
    p = st.position[k]
    m = st.combos[s, M]
    means[p] = m
    bound_mean(st, m)
    if before != -1 and stats[before, GN] == st.combos[s, N]:
        g = before
        start = groups[g, START]
        groups[g, END] = p + 1
        while p > start and means[p - 1] > m:
            q = run_start(means, start, p - 1)
            swap(st, p, q)
            p = q
    else:
        if st.free_count > 0:
            st.free_count -= 1
            g = st.free[st.free_count]
        else:
            g = st.live_count
        groups[g, START], groups[g, END] = p, p + 1
        connect(st, before, g)
        connect(st, g, after)
        groups[g, SLOT], st.live[st.live_count] = st.live_count, g
        st.live_count += 1
        stats[g, GN], stats[g, GR] = st.combos[s, N], st.combos[s, R]
        st.inversions += inverted(stats, before, g) + inverted(stats, g, after) - inverted(stats, before, after)
    st.group[k] = g
