"""Allocation strategies for combinatorial bandits, compiled: NMC, LSI, EA, NTBEA, grid and random.

Sironi, Liu, Winands (002_e8212c0f21d8b4d0.txt), section V and the settings of VI-A. Each strategy
keeps its whole state in one `TunerState` of arrays and has two compiled steps, `choose` (write the
next combination of value indices into x) and `update` (learn the reward of x, in [0, 1]), so a
search can call them before and after every simulation. `Strategy` wraps them in the one interface
every caller uses:

>>> from tuner.space import sa_mcts_space
>>> s = Strategy(sa_mcts_space(["C", "eps"]), "ntbea", seed=0)
>>> x = s.ask(); s.tell(x, 1.0); len(s.recommend())
2
"""

from __future__ import annotations

import math
from collections import namedtuple

import numpy as np
from numba import types
from numba.experimental import structref
from numba.extending import overload

from games.jit import kernel
from games.rng import make_rng, randint, uniform
from tuner.space import Space, repair

TunerState = namedtuple(
    "TunerState",
    [
        "sizes",  # int64 [d]          values per parameter
        "rules",  # int64 [m, 4]       legality implications (tuner.space)
        "value_n",  # float64 [d, V]   samples per parameter value (the 1-tuples)
        "value_s",  # float64 [d, V]   reward sums per parameter value
        "value_m",  # float64 [d, V]   mean reward per value (0 while unsampled)
        "value_r",  # float64 [d, V]   1 / sqrt(samples) per value (inf while unsampled)
        "combo_n",  # float64 [T]      samples per combination, T = prod(sizes) (the d-tuple)
        "combo_s",  # float64 [T]
        "combo_m",  # float64 [T]      mean reward per combination (0 while unsampled)
        "combo_r",  # float64 [T]      1 / sqrt(samples) per combination (inf while unsampled)
        "pool",  # int64 [P, d]        strategy-specific combinations (population, candidates, ...)
        "pool_f",  # float64 [P]       strategy-specific scores of the pool
        "ints",  # int64 [8]           counters: 0 total updates, then strategy-specific
        "floats",  # float64 [8]       settings
        "current",  # int64 [d]        strategy-specific current combination
    ],
)
TOTAL = 0  # ints[0]: updates so far
UCB_CACHE = 7  # floats[7] > 0: keep value_m/value_r/combo_m/combo_r current (NMC and NTBEA)


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
def move_best_to_front(st, count, keep):
    """Reorder pool rows 0..count-1 (and pool_f) in place so that the `keep` best by pool_f come first,
    best first; ties keep the earlier row. A partial selection sort: no allocation."""
    d = st.pool.shape[1]
    for a in range(keep):
        best = a
        for b in range(a + 1, count):
            if st.pool_f[b] > st.pool_f[best]:
                best = b
        if best != a:
            st.pool_f[a], st.pool_f[best] = st.pool_f[best], st.pool_f[a]
            for i in range(d):
                st.pool[a, i], st.pool[best, i] = st.pool[best, i], st.pool[a, i]


@kernel(inline="always")
def record(st, x, reward):
    """Learn reward for x: its value and combination statistics and the total; the means and
    1 / sqrt(n) that UCB reads are kept up to date only for the strategies that use them (floats[7])."""
    ucb = st.floats[UCB_CACHE] > 0.0
    for i in range(x.shape[0]):
        v = x[i]
        st.value_n[i, v] += 1.0
        st.value_s[i, v] += reward
        if ucb:
            st.value_m[i, v] = st.value_s[i, v] / st.value_n[i, v]
            st.value_r[i, v] = 1.0 / math.sqrt(st.value_n[i, v])
    c = code(st, x)
    st.combo_n[c] += 1.0
    st.combo_s[c] += reward
    if ucb:
        st.combo_m[c] = st.combo_s[c] / st.combo_n[c]
        st.combo_r[c] = 1.0 / math.sqrt(st.combo_n[c])
    st.ints[TOTAL] += 1


@kernel(inline="always")
def random_combination(st, rng, x):
    for i in range(x.shape[0]):
        x[i] = randint(rng, st.sizes[i])
    repair(x, st.rules)


@kernel(inline="always")
def ucb_value(st, i, rng, width):
    """UCB1 over the values of parameter i, width = C sqrt(ln N) (unsampled values first, ties at random)."""
    best, pick, ties = -1.0, 0, 0
    for v in range(st.sizes[i]):
        score = st.value_m[i, v] + width * st.value_r[i, v]
        if score > best:
            best, pick, ties = score, v, 1
        elif score == best:
            ties += 1
            if randint(rng, ties) == 0:
                pick = v
    return pick


# --- random and grid ---------------------------------------------------------------------------


@kernel(inline="always")
def random_choose(st, rng, x):
    random_combination(st, rng, x)


@kernel(inline="always")
def grid_choose(st, rng, x):
    """The next legal combination in a fixed round-robin order (ints[1] is the position)."""
    total = st.combo_n.shape[0]
    legal = False
    tried = 0
    while not legal and tried < total:
        decode(st, st.ints[1] % total, x)
        st.ints[1] += 1
        tried += 1
        legal = True
        for r in range(st.rules.shape[0]):
            if x[st.rules[r, 0]] == st.rules[r, 1] and x[st.rules[r, 2]] != st.rules[r, 3]:
                legal = False


@kernel(inline="always")
def plain_update(st, x, reward, rng):
    record(st, x, reward)


# --- NMC (naive Monte Carlo) ---------------------------------------------------------------------
# floats: 0 exploration probability eps0, 1 local UCB constant, 2 global UCB constant; ints: 1 pool size


@kernel(inline="always")
def nmc_choose(st, rng, x):
    pooled = st.ints[1]
    sqrt_log = math.sqrt(math.log(max(1, st.ints[TOTAL])))
    if pooled == 0 or uniform(rng) < st.floats[0]:  # explore: each value by its own bandit
        for i in range(x.shape[0]):
            x[i] = ucb_value(st, i, rng, st.floats[1] * sqrt_log)
        repair(x, st.rules)
    else:  # exploit: the global bandit over the combinations evaluated so far
        width = st.floats[2] * sqrt_log
        best, pick, ties = -1.0, 0, 0
        for k in range(pooled):
            c = np.int64(st.pool_f[k])  # the pooled combination's code
            score = st.combo_m[c] + width * st.combo_r[c]
            if score > best:
                best, pick, ties = score, k, 1
            elif score == best:
                ties += 1
                if randint(rng, ties) == 0:
                    pick = k
        get_row(st.pool, pick, x)


@kernel(inline="always")
def nmc_update(st, x, reward, rng):
    c = code(st, x)
    if st.combo_n[c] == 0.0 and st.ints[1] < st.pool.shape[0]:
        set_row(st.pool, st.ints[1], x)  # a combination joins the global bandit when first evaluated
        st.pool_f[st.ints[1]] = c
        st.ints[1] += 1
    record(st, x, reward)


# --- EA (evolutionary algorithm) -----------------------------------------------------------------
# pool = population (lambda rows), pool_f = fitness this generation; floats: 0 elite size mu,
# 1 crossover probability; ints: 1 next individual, 2 generations completed, 3 population drawn;
# current = the best elite of the last generation


@kernel(inline="always")
def ea_choose(st, rng, x):
    if st.ints[3] == 0:
        for k in range(st.pool.shape[0]):
            for i in range(x.shape[0]):
                x[i] = randint(rng, st.sizes[i])
            repair(x, st.rules)
            set_row(st.pool, k, x)
        st.ints[3] = 1
    get_row(st.pool, st.ints[1], x)


@kernel(inline="always")
def ea_update(st, x, reward, rng):
    record(st, x, reward)
    st.pool_f[st.ints[1]] = reward
    st.ints[1] += 1
    if st.ints[1] == st.pool.shape[0]:
        ea_next_generation(st, x, rng)


@kernel(inline="always")
def ea_next_generation(st, x, rng):
    """Keep the elite (the best mu, moved to the front) and breed the rest of the population from it."""
    lam = st.pool.shape[0]
    mu = np.int64(st.floats[0])
    move_best_to_front(st, lam, mu)
    get_row(st.pool, 0, st.current)
    d = x.shape[0]
    for k in range(mu, lam):  # offspring, written over the rest of the population
        if uniform(rng) < st.floats[1]:
            a, b = randint(rng, mu), randint(rng, mu)
            for i in range(d):
                st.pool[k, i] = st.pool[a, i] if uniform(rng) < 0.5 else st.pool[b, i]
        else:
            a = randint(rng, mu)
            for i in range(d):
                st.pool[k, i] = st.pool[a, i]
            i = randint(rng, d)
            if st.sizes[i] > 1:
                st.pool[k, i] = (st.pool[k, i] + 1 + randint(rng, st.sizes[i] - 1)) % st.sizes[i]
        get_row(st.pool, k, x)
        repair(x, st.rules)
        set_row(st.pool, k, x)
    st.ints[1] = 0
    st.ints[2] += 1


# --- NTBEA (n-tuple bandit evolutionary algorithm), tuples of length 1 and d -------------------
# floats: 0 UCB constant, 1 neighbours per step; current = the point evaluated next


@kernel(inline="always")
def ntbea_score(st, x, width):
    """Model UCB of x: the mean over its 1-tuples and its d-tuple of mean + C sqrt(ln N / n),
    width = C sqrt(ln N); a tuple never sampled scores infinity (explored first)."""
    d = x.shape[0]
    total = 0.0
    for i in range(d):
        total += st.value_m[i, x[i]] + width * st.value_r[i, x[i]]
    if d > 1:
        c = code(st, x)
        total += st.combo_m[c] + width * st.combo_r[c]
        return total / (d + 1)
    return total


@kernel(inline="always")
def ntbea_choose(st, rng, x):
    if st.ints[1] == 0:
        random_combination(st, rng, st.current)
        st.ints[1] = 1
    for i in range(x.shape[0]):
        x[i] = st.current[i]


@kernel(inline="always")
def ntbea_update(st, x, reward, rng):
    """Learn x's reward, then move to the neighbour of the current point with the best model UCB.

    x itself serves as scratch for the neighbours once its reward is recorded."""
    record(st, x, reward)
    neighbours = np.int64(st.floats[1])
    width = st.floats[0] * math.sqrt(math.log(st.ints[TOTAL] + 1.0))
    d = x.shape[0]
    best = -np.inf
    for _ in range(neighbours):
        for i in range(d):
            x[i] = st.current[i]
        i = randint(rng, d)
        if st.sizes[i] > 1:
            x[i] = (x[i] + 1 + randint(rng, st.sizes[i] - 1)) % st.sizes[i]
        repair(x, st.rules)
        score = ntbea_score(st, x, width)
        if score > best or (score == best and randint(rng, 2) == 0):
            best = score
            set_row(st.pool, 0, x)
    get_row(st.pool, 0, st.current)


# --- LSI (linear side information) ---------------------------------------------------------------
# floats: 0 total budget N, 1 generation share (0.75), 2 candidates k; ints: 1 phase (0 generate,
# 1 evaluate, 2 done), 2 candidates alive, 3 round, 4 samples left in this round for the current
# candidate, 5 candidate index; pool = candidates, pool_f = their reward sums this round


@kernel(inline="always")
def lsi_choose(st, rng, x):
    phase = st.ints[1]
    if phase == 0:
        random_combination(st, rng, x)
    elif phase == 1:
        get_row(st.pool, st.ints[5], x)
    else:
        for i in range(x.shape[0]):
            x[i] = st.current[i]


@kernel(inline="always")
def lsi_round_budget(st):
    """Samples per candidate in the current round of sequential halving (at least one)."""
    alive = st.ints[2]
    rounds = max(1, np.int64(math.ceil(math.log2(max(2, np.int64(st.floats[2]))))))
    evaluation = st.floats[0] * (1.0 - st.floats[1])
    return max(1, np.int64(evaluation / (alive * rounds)))


@kernel(inline="always")
def lsi_update(st, x, reward, rng):
    record(st, x, reward)
    if st.ints[1] == 0 and st.ints[TOTAL] >= st.floats[0] * st.floats[1]:
        lsi_draw_candidates(st, x, rng)
    elif st.ints[1] == 1:
        st.pool_f[st.ints[5]] += reward
        st.ints[4] -= 1
        if st.ints[4] == 0:  # the candidate's samples of this round are done
            st.ints[5] += 1
            st.ints[4] = lsi_round_budget(st)
            if st.ints[5] == st.ints[2]:
                lsi_halve(st)


@kernel(inline="always")
def lsi_draw_candidates(st, cand, rng):
    """End of the side-information phase: draw the k candidates, value by value in proportion to
    each value's mean reward (0.5 while unsampled), and start sequential halving. cand is scratch."""
    k = min(np.int64(st.floats[2]), st.pool.shape[0])
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
        repair(cand, st.rules)
        set_row(st.pool, j, cand)
    for j in range(st.pool_f.shape[0]):
        st.pool_f[j] = 0.0
    st.ints[1], st.ints[2], st.ints[3], st.ints[5] = 1, k, 0, 0
    st.ints[4] = lsi_round_budget(st)


@kernel(inline="always")
def lsi_halve(st):
    """End of a round of sequential halving: keep the better half by this round's rewards; one left wins."""
    alive = st.ints[2]
    keep = max(1, alive // 2)
    move_best_to_front(st, alive, keep)
    for j in range(st.pool_f.shape[0]):
        st.pool_f[j] = 0.0
    st.ints[2], st.ints[3], st.ints[5] = keep, st.ints[3] + 1, 0
    st.ints[4] = lsi_round_budget(st)
    if keep == 1:
        get_row(st.pool, 0, st.current)
        st.ints[1] = 2


@kernel
def recommend_lcb(st, x):
    """The sampled combination with the best lower confidence bound, mean - sqrt(ln N / n)."""
    log_total = math.log(max(1, st.ints[TOTAL]) + 1.0)
    best, pick = -np.inf, -1
    for c in range(st.combo_n.shape[0]):
        n = st.combo_n[c]
        if n > 0:
            score = st.combo_s[c] / n - math.sqrt(log_total / n)
            if score > best:
                best, pick = score, c
    if pick >= 0:
        decode(st, pick, x)
    return pick >= 0


# The compiled steps see a strategy's state as a numba StructRef over the same arrays, one type per
# strategy: `choose` and `update` pick the strategy's steps from that type while numba compiles the
# caller, so a search loop inlines only its own strategy. A StructRef is one reference-counted
# object; a namedtuple of 15 arrays had each array counted at every inlined helper whose counts numba
# could not prune (measured: NMC's choose + update 100 ns more per step).


class _StateType(types.StructRef):
    def preprocess_fields(self, fields):
        return tuple((name, types.unliteral(t)) for name, t in fields)


@structref.register
class RandomState(_StateType):
    pass


@structref.register
class GridState(_StateType):
    pass


@structref.register
class NMCState(_StateType):
    pass


@structref.register
class EAState(_StateType):
    pass


@structref.register
class NTBEAState(_StateType):
    pass


@structref.register
class LSIState(_StateType):
    pass


class CompiledState(structref.StructRefProxy):
    """What Python holds of a StructRef state: an opaque handle to pass to compiled code."""


_INT1, _INT2, _FLOAT1, _FLOAT2 = types.int64[::1], types.int64[:, ::1], types.float64[::1], types.float64[:, ::1]
_FIELD_TYPES = {"sizes": _INT1, "rules": _INT2, "pool": _INT2, "ints": _INT1, "current": _INT1}
_FIELDS = [(n, _FIELD_TYPES.get(n, _FLOAT2 if n.startswith("value") else _FLOAT1)) for n in TunerState._fields]
for _type in (RandomState, GridState, NMCState, EAState, NTBEAState, LSIState):
    structref.define_boxing(_type, CompiledState)


@kernel
def _compiled_state(state_type, sizes, rules, value_n, value_s, value_m, value_r, combo_n, combo_s, combo_m, combo_r,
                    pool, pool_f, ints, floats, current):  # fmt: skip
    """A StructRef of type `state_type` over the arrays of a TunerState (shared, not copied)."""
    st = structref.new(state_type)
    st.sizes, st.rules, st.pool, st.pool_f, st.ints, st.floats, st.current = (
        sizes, rules, pool, pool_f, ints, floats, current
    )  # fmt: skip
    st.value_n, st.value_s, st.value_m, st.value_r = value_n, value_s, value_m, value_r
    st.combo_n, st.combo_s, st.combo_m, st.combo_r = combo_n, combo_s, combo_m, combo_r
    return st


# kind -> (state type, choose step, update step)
KINDS = {
    "random": (RandomState, random_choose, plain_update),
    "grid": (GridState, grid_choose, plain_update),
    "nmc": (NMCState, nmc_choose, nmc_update),
    "ea": (EAState, ea_choose, ea_update),
    "ntbea": (NTBEAState, ntbea_choose, ntbea_update),
    "lsi": (LSIState, lsi_choose, lsi_update),
}
_STEPS = {state_type: steps for state_type, *steps in KINDS.values()}


def choose(st, rng, x):
    """Write the next combination of the strategy that owns compiled state `st` into x (compiled code only)."""
    raise TypeError("choose runs in compiled code; from Python use Strategy.ask")


def update(st, x, reward, rng):
    """Let the strategy that owns compiled state `st` learn the reward of x (x may be overwritten: scratch)."""
    raise TypeError("update runs in compiled code; from Python use Strategy.tell")


@overload(choose, inline="always")
def _choose_compiled(st, rng, x):
    return _STEPS[type(st)][0].py_func  # inlined in place: the step's own body


@overload(update, inline="always")
def _update_compiled(st, x, reward, rng):
    return _STEPS[type(st)][1].py_func


@kernel
def _ask(st, rng, x):
    choose(st, rng, x)


@kernel
def _tell(st, x, reward, rng):
    update(st, x, reward, rng)


DEFAULTS = {
    "random": {},
    "grid": {},
    "nmc": {"eps0": 0.75, "c_local": 1.0, "c_global": 1.0},
    "ea": {"population": 50, "elite": 25, "crossover": 0.5},
    "ntbea": {"c": 0.2, "neighbours": 5},
    "lsi": {"budget": 10000, "generation": 0.75, "candidates": None},
}


class Strategy:
    """An allocation strategy over the discrete combinations of a `Space`: ask, tell, recommend.

    kind: random, grid, nmc, ea, ntbea or lsi; settings default to Sironi et al.'s (VI-A).
    LSI needs its total `budget` of samples up front; `candidates` defaults to 20 for two
    parameters and 2000 for more, capped at half the evaluation budget (1 - generation) x budget.
    """

    def __init__(self, space: Space, kind: str, seed: int, **settings):
        if kind not in KINDS:
            raise ValueError(f"unknown strategy {kind!r}; known: {', '.join(KINDS)}")
        unknown = set(settings) - set(DEFAULTS[kind])
        if unknown:
            valid = ", ".join(DEFAULTS[kind]) or "none"
            raise ValueError(f"unknown settings {sorted(unknown)} for {kind}; valid: {valid}")
        self.space, self.kind = space, kind
        self.settings = {**DEFAULTS[kind], **settings}
        self.rng = make_rng(seed)
        self.reset()
        self._x = np.zeros(len(space), dtype=np.int64)

    def reset(self) -> None:
        """Forget everything learnt (a new game, for on-line tuning)."""
        self.state = self._new_state()
        state_type = KINDS[self.kind][0](_FIELDS)
        self.compiled = _compiled_state(state_type, *self.state)  # what compiled code (the search) is given

    def _new_state(self) -> TunerState:
        space, o = self.space, self.settings
        d, total = len(space), space.combinations()
        if total > 1 << 24:
            raise ValueError(f"the space has {total} combinations; at most {1 << 24} are supported")
        floats = np.zeros(8)
        pool_rows = 1
        if self.kind in ("nmc", "ntbea"):
            floats[UCB_CACHE] = 1.0
        if self.kind == "nmc":
            floats[:3] = o["eps0"], o["c_local"], o["c_global"]
            pool_rows = min(total, 1 << 16)
        elif self.kind == "ea":
            if not 1 <= o["elite"] <= o["population"]:
                raise ValueError("ea: need 1 <= elite <= population")
            floats[:2] = o["elite"], o["crossover"]
            pool_rows = o["population"]
        elif self.kind == "ntbea":
            floats[:2] = o["c"], o["neighbours"]
            pool_rows = 1  # the best neighbour so far
        elif self.kind == "lsi":
            k = o["candidates"] or (20 if d <= 2 else 2000)
            # sequential halving samples each of k candidates at least once per round, 2k in all:
            # keep k within half the evaluation budget so that LSI ends within its budget
            k = int(max(2, min(k, o["budget"] * (1 - o["generation"]) // 2)))
            floats[:3] = o["budget"], o["generation"], k
            pool_rows = k
        return TunerState(
            sizes=space.sizes.copy(),
            rules=space.rules.copy(),
            value_n=np.zeros((d, int(space.sizes.max()))),
            value_s=np.zeros((d, int(space.sizes.max()))),
            value_m=np.zeros((d, int(space.sizes.max()))),
            value_r=np.full((d, int(space.sizes.max())), np.inf),
            combo_n=np.zeros(total),
            combo_s=np.zeros(total),
            combo_m=np.zeros(total),
            combo_r=np.full(total, np.inf),
            pool=np.zeros((pool_rows, d), dtype=np.int64),
            pool_f=np.zeros(pool_rows),
            ints=np.zeros(8, dtype=np.int64),
            floats=floats,
            current=np.zeros(d, dtype=np.int64),
        )

    def ask(self) -> np.ndarray:
        """The next combination to evaluate (value indices)."""
        _ask(self.compiled, self.rng, self._x)
        return self._x.copy()

    def tell(self, x, reward: float) -> None:
        """The reward in [0, 1] of combination x (as returned by ask)."""
        x = np.array(x, dtype=np.int64)  # a copy: update may use it as scratch
        _tell(self.compiled, x, float(reward), self.rng)

    def values(self, x) -> list[float]:
        """The parameter values of combination x (as returned by ask or recommend)."""
        return self.space.values_of(x)

    def recommend(self) -> np.ndarray:
        """The best combination so far: the winner for LSI, else the best lower confidence bound."""
        x = np.zeros(len(self.space), dtype=np.int64)
        if self.kind == "lsi" and self.state.ints[1] == 2:
            return self.state.current.copy()
        if not recommend_lcb(self.state, x):
            x = self.space.default_indices()
        return x

    def report(self) -> dict:
        """What the strategy did so far, for people: samples per value and per combination, the recommendation."""
        n, total = self.state.combo_n, self.state.combo_s
        top = np.argsort(-n, kind="stable")[: min(10, int((n > 0).sum()))]
        return {
            "samples_per_value": self.samples_per_value(),
            "combinations_sampled": int((n > 0).sum()),
            "most_sampled": [  # the ten combinations sampled most: values, samples, mean reward
                {
                    "values": dict(zip(self.space.names, self.values(np.unravel_index(c, tuple(self.space.sizes))))),
                    "samples": int(n[c]),
                    "mean": float(total[c] / n[c]),
                }
                for c in top
            ],  # fmt: skip
            "recommended": dict(zip(self.space.names, self.values(self.recommend()))),
        }

    def samples_per_value(self) -> dict[str, list[int]]:
        """How often each value of each parameter was evaluated."""
        counts = self.state.value_n
        return {p.name: counts[i, : len(p.values)].astype(int).tolist() for i, p in enumerate(self.space.params)}


NAMES = (*KINDS, "cmaes")


def make_strategy(space: Space, kind: str, seed: int, **settings):
    """Any allocation strategy by name: a compiled discrete `Strategy`, or CMA-ES (tuner.cmaes).

    All share ask / tell / recommend / values / reset / report; ask's points are value indices for
    the discrete strategies and points of [0, 1]^d for CMA-ES, and `values` turns either into
    parameter values.
    """
    if kind == "cmaes":
        from tuner.cmaes import CMAES

        return CMAES(space, seed, **settings)
    if kind not in KINDS:
        raise ValueError(f"unknown strategy {kind!r}; known: {', '.join(NAMES)}")
    return Strategy(space, kind, seed, **settings)
