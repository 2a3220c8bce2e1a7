"""What the compiled search needs from an on-line allocation strategy: its compiled steps and its state.

SA-MCTS Fig. 1: before every simulation each player's strategy chooses the search-control values,
after it the strategy learns the simulation's reward. The search receives the two steps as a kernel
argument, as it receives a game's kernels (`games.kernels.GameKernels`): numba specialises the search
on them and caches the result, so `search` never imports the strategies (they live above it, in
`tuner.strategies`) and a search compiles only the steps of the strategy it is given.

Compiled code calls them as `steps.choose(st, rng, x)` and `steps.update(st, x, reward, rng)`: each step is then
its own compiled function. They used to be put in place through an inlining `overload`, 3-13 ns less per step, but
numba typed such an overload three times over (its impl compiled whole, then typed and inlined twice): a tuned
search's first move compiled in 25-34 s instead of 8-11 s, a strategy's Python ask and tell in 9 s instead of 4.
"""

from collections import namedtuple

from games.jit import kernel_tuple

AllocationSteps = kernel_tuple(namedtuple("AllocationSteps", ["choose", "update"]))
AllocationSteps.__doc__ = """The compiled steps of one allocation strategy over its state `st` (a numba StructRef).

choose(st, rng, x)          -> None  write the next combination (int64 value indices [d]) into x
update(st, x, reward, rng)  -> None  learn `reward` in [0, 1] for combination x (x may serve as scratch)
"""
