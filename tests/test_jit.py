"""games.jit: a namedtuple of compiled functions is typed once (kernel_tuple), to the type numba itself gives it;
copies forwarded and arguments borrowed keep every answer and every count of references."""

import gc
import re

import numba
import numpy as np
from numba.core import types
from numba.core.runtime import _nrt_python, rtsys

import games
from games.jit import _Compiler, kernel
from search.puct import PUCT_RULE
from tuner.agents import make_agent
from tuner.strategies import _ntbea

as_kernels = numba.njit(pipeline_class=_Compiler, error_model="numpy")  # compiled as `kernel` does, not cached


@kernel
def first_legal_count(g):
    """How many moves the game's initial position has: the game's own `legal`, reached through the tuple."""
    s = np.zeros(16, dtype=np.uint64)
    out = np.zeros(256, dtype=np.int64)
    g.init(s)
    return g.legal(s, out)


def numba_type(functions):
    """The type numba gives a namedtuple of compiled functions, field by field."""
    return types.BaseTuple.from_types([numba.typeof(f) for f in functions], type(functions))


def test_each_kernel_tuple_is_typed_as_numba_types_it_and_each_game_keeps_its_own():
    """Connect4 has 7 first moves, 8x8 Othello 4, Breakthrough 22 (OpenSpiel's count): one kernel handed each
    game's tuple runs each game's rules, so no value borrows another's remembered type (keyed by class, the
    second game would run the first one's compiled code)."""
    for name, moves in (("connect4", 7), ("othello", 4), ("breakthrough", 22)):
        kernels = games.load(name).kernels
        assert numba.typeof(kernels) == numba_type(kernels) and numba.typeof(kernels) is numba.typeof(kernels)
        assert first_legal_count(kernels) == moves
    assert len({numba.typeof(games.load(n).kernels) for n in ("connect4", "othello", "breakthrough")}) == 3
    assert numba.typeof(PUCT_RULE) == numba_type(PUCT_RULE)


@kernel
def stale_copy(n):
    """Python's answer: t keeps the first round's array, though s has one definition (in the loop)."""
    total = 0
    for i in range(n):
        s = np.full(1, i + 1)
        if i == 0:
            t = s
        total += t[0]
    return total


@kernel
def copy_then_rebind(a, b):
    s = a
    t = s
    s = b
    return t[0] * 10 + s[0]


@kernel(inline="always")
def array_sum(values):
    total = 0.0
    for v in values:
        total += v
    return total


def sum_twice(values):
    """An inlined helper handed an array in a loop: what ForwardCopies exists for."""
    total = 0.0
    for _ in range(2):
        total += array_sum(values)
    return total


def test_forwarded_copies_keep_pythons_answers():
    # a copy of a variable defined in the same loop is not forwarded (it would read the later rounds' arrays: 6)
    assert stale_copy(3) == stale_copy.py_func(3) == 3
    # nor one of a variable bound twice
    a, b = np.array([1]), np.array([2])
    assert copy_then_rebind(a, b) == copy_then_rebind.py_func(a, b) == 12
    assert as_kernels(sum_twice)(np.arange(4.0)) == 12.0


def star_print(a):
    s = (a, a + 1)
    t = s
    print(*t)  # numba keeps a starred argument where its variable replacing does not look
    return a


def declared(a):
    t = a
    return t


def test_copies_forwarding_cannot_reach_or_that_carry_a_declared_type_stay(capfd):
    assert as_kernels(star_print)(1) == 1
    assert capfd.readouterr().out == "1 2\n"
    uint8 = numba.njit(declared, locals={"t": types.uint8}, pipeline_class=_Compiler)
    assert uint8(300) == 300 % 256


@as_kernels
def passed_on(a):
    return a  # the returned array is counted for the caller (its own reference), the borrowed one is not


@as_kernels
def summed(a):
    s = 0.0
    for v in a:
        s += v
    return s


@as_kernels
def rebound(a):
    a = a + 1.0  # a second binding, which numba's SSA names apart: the argument itself is still bound once
    return summed(a)


@as_kernels
def values(a):
    for v in a:
        yield v  # a generator keeps its arguments past the call: counted as numba does


@as_kernels
def owner(n):
    """Arrays made in compiled code (one reference each) handed to compiled callees, returned, held in a tuple and
    rebound."""
    a = np.arange(n * 1.0)
    b = passed_on(a)
    held = (a, passed_on(b))
    return summed(b) + summed(held[1]) + rebound(a)


@as_kernels
def counted(n):
    ones = values(np.ones(n))  # the generator alone holds the array of ones
    fives = np.full(n, 5.0)  # it would take the array's memory if the generator did not hold it
    total = fives[0] - 5.0
    for v in ones:
        total += v
    return total


def test_borrowed_arguments_keep_every_count_of_references():
    _nrt_python.memsys_enable_stats()
    owner(1)  # compiled outside the counted window, and arrays left over from earlier tests freed before it
    gc.collect()
    before = rtsys.get_allocation_stats()
    for n in (1, 5, 50):
        assert owner(n) == 2 * n * (n - 1) / 2 + n * (n - 1) / 2 + n
    after = rtsys.get_allocation_stats()
    made = after.mi_alloc - before.mi_alloc
    assert made == 6 and after.mi_free - before.mi_free == made  # none freed twice, none kept
    assert counted(7) == 7.0  # (numba's generators keep their arguments for good: not in the counts above)


def test_a_tuner_step_counts_none_of_its_arguments():
    """NTBEA's choose(st, rng, x) under our pipeline: no reference count at all. numba counts each argument in and
    out around the function, and its pruning left 13 such calls (measured; every step paid them)."""
    tuner = make_agent(games.load("connect4"), "ap:tuner=ntbea,tune=all", seed=0).search.tuners[0]
    choose = as_kernels(_ntbea.choose.py_func)
    x = np.zeros(len(tuner.space), dtype=np.int64)
    choose(tuner.compiled, tuner.rng, x)
    assert x.tolist() == tuner.arrays["current"].tolist()
    body = choose.inspect_llvm(choose.signatures[0]).split("\ndefine ")[1]  # the function, not its wrappers
    assert re.findall(r"call void @NRT_(?:incref|decref)", body) == []
