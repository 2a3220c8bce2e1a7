"""Parameter spaces: named parameters with discrete values, continuous bounds, defaults and legality.

One `Space` object serves every allocation strategy (DESIGN section 3). A discrete combination is
a vector of value indices; a continuous point is a vector in [0, 1]^d, mapped linearly onto each
parameter's bounds (what CMA-ES searches). Legality is a list of implications "if parameter a
takes value index va then parameter b takes value index vb", which every strategy applies with
`make_legal` and checks with `is_legal`, in compiled code too.

Sironi, Liu, Winands [SA-MCTS Table I] give the space of the tuned search-control parameters.

>>> space = sa_mcts_space(["K", "Ref"])
>>> space.values_of(space.default_indices())
[250, 50]
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

import numpy as np

from games.jit import kernel


@dataclass(frozen=True)
class Param:
    name: str
    values: tuple[float, ...]  # the discrete domain
    low: float  # the continuous domain [low, high]
    high: float
    default: float
    doc: str = ""

    def __post_init__(self):
        if not self.values:
            raise ValueError(f"parameter {self.name!r} needs at least one discrete value")
        if not self.low <= self.high:
            raise ValueError(f"parameter {self.name!r}: bad range [{self.low}, {self.high}], low must not exceed high")


@dataclass
class Space:
    params: list[Param]
    # (a, va, b, vb): if parameter a has value index va, parameter b must have value index vb
    implications: list[tuple[int, int, int, int]] = field(default_factory=list)

    def __post_init__(self):
        names = [p.name for p in self.params]
        if len(set(names)) != len(names):
            raise ValueError(f"parameter names must be unique, got {names}")
        self.sizes = np.array([len(p.values) for p in self.params], dtype=np.int64)
        self.rules = np.array(self.implications, dtype=np.int64).reshape(-1, 4)
        for a, va, b, vb in self.rules:
            if not (0 <= a < len(self.params) and 0 <= b < len(self.params) and a != b):
                raise ValueError(f"bad legality rule {(a, va, b, vb)}: parameters out of range")
            if not (0 <= va < self.sizes[a] and 0 <= vb < self.sizes[b]):
                raise ValueError(f"bad legality rule {(a, va, b, vb)}: value index out of range")

    @property
    def names(self) -> list[str]:
        return [p.name for p in self.params]

    def __len__(self) -> int:
        return len(self.params)

    def combinations(self) -> int:
        """Number of discrete combinations, legal or not."""
        return int(np.prod(self.sizes))

    def values_of(self, indices) -> list[float]:
        """Parameter values of a vector of value indices."""
        return [self.params[i].values[int(k)] for i, k in enumerate(indices)]

    def default_indices(self) -> np.ndarray:
        """Indices of the defaults (the nearest discrete value where a default is not in the domain)."""
        out = []
        for p in self.params:
            gaps = [abs(v - p.default) if not (math.isinf(v) and math.isinf(p.default)) else 0.0 for v in p.values]
            out.append(int(np.argmin(gaps)))
        x = np.array(out, dtype=np.int64)
        make_legal(x, self.rules)
        return x

    def from_unit(self, u) -> list[float]:
        """Continuous values of a point of [0, 1]^d (clipped into the box)."""
        u = np.clip(np.asarray(u, dtype=np.float64), 0.0, 1.0)
        return [p.low + ui * (p.high - p.low) for p, ui in zip(self.params, u)]

    def to_unit(self, values) -> np.ndarray:
        """The point of [0, 1]^d for continuous values (the inverse of from_unit)."""
        spans = [(p.low, p.high - p.low) for p in self.params]
        return np.array([(v - low) / span if span > 0 else 0.0 for (low, span), v in zip(spans, values)])

    def is_legal(self, indices) -> bool:
        return bool(is_legal(np.asarray(indices, dtype=np.int64), self.rules))


@kernel(inline="always")
def make_legal(x, rules):
    """Make the index vector `x` legal in place: apply every implication (in order, twice for chains)."""
    for _ in range(2):
        for r in range(rules.shape[0]):
            if x[rules[r, 0]] == rules[r, 1]:
                x[rules[r, 2]] = rules[r, 3]


@kernel
def is_legal(x, rules):
    for r in range(rules.shape[0]):
        if x[rules[r, 0]] == rules[r, 1] and x[rules[r, 2]] != rules[r, 3]:
            return False
    return True


INF = math.inf
# Sironi, Liu, Winands, Table I: discrete domain, continuous domain and default of each parameter
SA_MCTS_TABLE_I = {
    "C": Param("C", (0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9), 0.0, 1.0, 0.2, "UCT exploration constant"),
    "eps": Param("eps", tuple(i / 10 for i in range(11)), 0.0, 1.0, 0.4, "MAST random-move probability"),
    "K": Param("K", (0, 10, 50, 100, 250, 500, 750, 1000, 2000, INF), 0.0, 2000.0, 250, "GRAVE equivalence"),
    "Ref": Param("Ref", (0, 50, 100, 250, 500, 1000, 10000, INF), 0.0, 10000.0, 50, "GRAVE AMAF visit threshold"),
    "VO": Param("VO", (0.001, 0.005, 0.01, 0.015, 0.02, 0.025), 0.0, 0.025, 0.01, "value offset band"),
    "T": Param("T", (0, 5, 10, 20, 30, 40, 50, 100, 200, INF), 0.0, 200.0, 0, "playout policy below T visits"),
}


def sa_mcts_space(names) -> Space:
    """The SA-MCTS Table I space over `names` (e.g. ["C", "eps"] or ["K", "Ref"]).

    Legality: with K = 0 GRAVE is pure UCT and Ref is unused, so only Ref's first value is legal then
    (one combination instead of eight identical ones).
    """
    unknown = [n for n in names if n not in SA_MCTS_TABLE_I]
    if unknown:
        raise ValueError(f"unknown SA-MCTS parameters {unknown}; known: {', '.join(SA_MCTS_TABLE_I)}")
    params = [SA_MCTS_TABLE_I[n] for n in names]
    rules = []
    if "K" in names and "Ref" in names:
        rules.append((names.index("K"), 0, names.index("Ref"), 0))
    return Space(params, rules)
