"""What the compiled search needs from an on-line allocation strategy: its compiled steps and its state.

SA-MCTS Fig. 1: before every simulation each player's strategy chooses the search-control values,
after it the strategy learns the simulation's reward. The search receives the two steps as a kernel
argument, as it receives a game's kernels (`games.kernels.GameKernels`): numba specialises the search
on them and caches the result, so `search` never imports the strategies (they live above it, in
`tuner.strategies`) and a search compiles only the steps of the strategy it is given.

Compiled code calls them through `choose(steps, ...)` and `update(steps, ...)` below, which put the
step's own body in place (numba inlines it while typing): measured against calling `steps.choose`
directly, 3-13 ns less per step (15 against 18 ns for random's, 206 against 219 for NTBEA's, at 2
parameters), as fast as the strategies were when the search imported them.
"""

from collections import namedtuple

from numba.extending import overload

from games.jit import kernel_tuple

AllocationSteps = kernel_tuple(namedtuple("AllocationSteps", ["choose", "update"]))
AllocationSteps.__doc__ = """The compiled steps of one allocation strategy over its state `st` (a numba StructRef).

choose(st, rng, x)          -> None  write the next combination (int64 value indices [d]) into x
update(st, x, reward, rng)  -> None  learn `reward` in [0, 1] for combination x (x may serve as scratch)
Both are kernels compiled with inline="always", so that `choose` and `update` below can inline them.
"""


def choose(steps, st, rng, x):
    """steps.choose(st, rng, x), inlined (compiled code only)."""
    raise TypeError("choose runs in compiled code; from Python use the strategy's ask")


def update(steps, st, x, reward, rng):
    """steps.update(st, x, reward, rng), inlined (compiled code only)."""
    raise TypeError("update runs in compiled code; from Python use the strategy's tell")


@overload(choose, inline="always")
def _choose(steps, st, rng, x):
    step = steps.types[0].dispatcher  # the kernel itself, read from the argument's numba type

    def impl(steps, st, rng, x):
        step(st, rng, x)

    return impl


@overload(update, inline="always")
def _update(steps, st, x, reward, rng):
    step = steps.types[1].dispatcher

    def impl(steps, st, x, reward, rng):
        step(st, x, reward, rng)

    return impl
