"""A tiny seeded random number generator for compiled code (SplitMix64).

Its whole state is one uint64 in an array, so every game and search carries its own stream:
runs repeat exactly from a seed, and threads never share hidden global state.
"""

import math

import numpy as np

from games.jit import kernel

_GAMMA = np.uint64(0x9E3779B97F4A7C15)
_MUL1 = np.uint64(0xBF58476D1CE4E5B9)
_MUL2 = np.uint64(0x94D049BB133111EB)


def derive_seeds(*keys: int, count: int = 1, bits: int = 32) -> list[int]:
    """`count` seeds of `bits` bits (32 or 64) derived from the integers `keys` (numpy's SeedSequence):
    the one way every run derives the seed of a part (a game of a match, a trial of a study) from its
    own seed and the part's place, so any part replays alone."""
    dtype = {32: np.uint32, 64: np.uint64}[bits]
    return [int(v) for v in np.random.SeedSequence(list(keys)).generate_state(count, dtype=dtype)]


def make_rng(seed: int) -> np.ndarray:
    """A generator state for `seed` (any Python int; mixed so that nearby seeds give unrelated streams)."""
    rng = np.array([seed & 0xFFFFFFFFFFFFFFFF], dtype=np.uint64)
    next_u64(rng)
    return rng


@kernel(inline="always")
def next_u64(rng):
    """Advance the stream and return 64 random bits."""
    rng[0] += _GAMMA
    z = rng[0]
    z = (z ^ (z >> np.uint64(30))) * _MUL1
    z = (z ^ (z >> np.uint64(27))) * _MUL2
    return z ^ (z >> np.uint64(31))


@kernel(inline="always")
def randint(rng, n):
    """Uniform integer in [0, n) for 0 < n < 2**32 (multiply-shift; bias below n / 2**32)."""
    return np.int64(((next_u64(rng) >> np.uint64(32)) * np.uint64(n)) >> np.uint64(32))


@kernel(inline="always")
def uniform(rng):
    """Uniform float in [0, 1) with 53 random bits."""
    return np.float64(next_u64(rng) >> np.uint64(11)) * (1.0 / 9007199254740992.0)


@kernel(inline="always")
def normal(rng):
    """Standard normal variate (Box-Muller, one of the pair)."""
    u1 = 1.0 - uniform(rng)  # in (0, 1]: log is finite
    return math.sqrt(-2.0 * math.log(u1)) * math.cos(2.0 * math.pi * uniform(rng))


@kernel
def gamma(rng, alpha):
    """Gamma(alpha, 1) variate, Marsaglia and Tsang (2000); alpha < 1 as Gamma(alpha + 1) U^(1 / alpha).

    Dirichlet noise needs it from a stream of our own: numba's np.random draws from one global state."""
    boost = 1.0
    if alpha < 1.0:
        boost = uniform(rng) ** (1.0 / alpha)
        alpha += 1.0
    d = alpha - 1.0 / 3.0
    c = 1.0 / math.sqrt(9.0 * d)
    while True:
        x = normal(rng)
        v = 1.0 + c * x
        if v <= 0.0:
            continue
        v = v * v * v
        u = uniform(rng)
        if u < 1.0 - 0.0331 * x * x * x * x or math.log(u) < 0.5 * x * x + d * (1.0 - v + math.log(v)):
            return d * v * boost
