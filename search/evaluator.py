"""The evaluator protocol of the batched searches: a batch of leaf positions in, priors and values out.

DESIGN §8: many searches advance in lock-step (one per concurrent game, optionally several leaves per
tree with virtual loss). Each step, compiled code gathers every pending leaf into one preallocated
`Batch` (its state, its network planes, its legal-action mask, its dropout probability), one call
of `Evaluator.evaluate` answers all rows at once, and compiled code expands and backs up. The
evaluator owns the batch's arrays, so it can place them where its forward pass wants them (pinned
host memory for a GPU) while the compiled search writes into them directly as plain numpy arrays.

This layer declares the protocol and imports neither torch nor `nets` (imports point down only);
`nets.NetEvaluator` implements it over a policy-value network [AlphaDDA App. 1], and `nets.shipped`
turns `az:net=...` into an evaluator. Two net-free
evaluators live here, for tests and as baselines: `UniformEvaluator(value="zero")` (uniform priors,
value 0) and `UniformEvaluator(value="playout")` (uniform priors, one random playout per row, the
classic MCTS estimate), both compiled where work is done per row.

Conventions, shared by every evaluator:
- priors[b] is a probability distribution over the legal actions of row b, exactly 0 on illegal ones;
  a row with no legal action (an unused or terminal row; every non-terminal position of our games
  has one, a pass in Othello) gets priors all 0, never NaN.
- values[b] lies in [-1, 1], from the view of the player to move in states[b].
- Only rows [:n] are read and written; rows beyond n keep whatever they held.
"""

from __future__ import annotations

from collections import namedtuple
from dataclasses import dataclass
from typing import Protocol, runtime_checkable

import numpy as np

import games
from games.jit import kernel
from games.kernels import copy_into, random_playout

MAX_DROPOUT = 0.99  # the largest dropout probability of a row (nets.model refuses more): the authors' code clamps
# AlphaDDA2 there; the paper's P_max is 0.95 [AlphaDDA §3.3] (search.alphadda.P_MAX)


BatchArrays = namedtuple("BatchArrays", ["states", "planes", "legal", "dropout", "keys", "priors", "values"])
BatchArrays.__doc__ = """A `Batch`'s arrays as one record, as compiled code takes them (same memory, same shapes)."""


@dataclass(eq=False)
class Batch:
    """Preallocated inputs and outputs of one evaluation call, for up to `capacity` rows (B below).

    Shapes: S = game.state_size, (H, W) = game.board_shape, A = game.num_distinct_actions().
    The compiled search writes a leaf into a row (states, planes, legal, dropout) and reads the
    answer (priors, values) after `Evaluator.evaluate(batch, n)`. All arrays are C-contiguous; write
    into them, never rebind them (an evaluator may hold other views of the same memory).

    >>> batch = Batch.zeros(games.load("connect4"), 4)
    >>> batch.capacity, batch.planes.shape, batch.legal.dtype
    (4, (4, 3, 6, 7), dtype('bool'))
    """

    game: games.Game  # the game every row belongs to
    states: np.ndarray  # uint64 [B, S]: the leaf states (the game's kernel arrays)
    planes: np.ndarray  # float32 [B, 3, H, W]: network input, State.encode() of each row
    legal: np.ndarray  # bool [B, A]: True where the action is legal in that row's state
    dropout: np.ndarray  # float32 [B]: AlphaDDA2's per-row dropout probability, 0 = the clean net
    keys: np.ndarray  # uint64 [B]: a random key per row, drawn by the search from that game's own stream;
    # an evaluator that draws (playouts) seeds the row's draws from it, so no row depends on the others
    priors: np.ndarray  # float32 [B, A], output: distribution over the legal actions, 0 on illegal ones
    values: np.ndarray  # float32 [B], output: in [-1, 1], from the view of the player to move

    def __post_init__(self) -> None:
        g = self.game
        b, a = self.states.shape[0], g.num_distinct_actions()
        expect = {
            "states": ((b, g.state_size), np.uint64),
            "planes": ((b, 3, *g.board_shape), np.float32),
            "legal": ((b, a), np.bool_),
            "dropout": ((b,), np.float32),
            "keys": ((b,), np.uint64),
            "priors": ((b, a), np.float32),
            "values": ((b,), np.float32),
        }
        for name, (shape, dtype) in expect.items():
            array = getattr(self, name)
            if array.shape != shape or array.dtype != dtype or not array.flags.c_contiguous:
                raise ValueError(
                    f"Batch.{name} must be a C-contiguous {np.dtype(dtype).name} array of shape {list(shape)} for "
                    f"{g.name}, got {array.dtype.name} {list(array.shape)}"
                )

    @classmethod
    def zeros(cls, game: games.Game, capacity: int) -> Batch:
        """A batch of plain numpy arrays, all zero, for `capacity` rows of `game`."""
        if capacity < 1:
            raise ValueError(f"a batch needs a capacity of at least 1 row, got {capacity}")
        a = game.num_distinct_actions()
        return cls(
            game=game,
            states=np.zeros((capacity, game.state_size), dtype=np.uint64),
            planes=np.zeros((capacity, 3, *game.board_shape), dtype=np.float32),
            legal=np.zeros((capacity, a), dtype=np.bool_),
            dropout=np.zeros(capacity, dtype=np.float32),
            keys=np.zeros(capacity, dtype=np.uint64),
            priors=np.zeros((capacity, a), dtype=np.float32),
            values=np.zeros(capacity, dtype=np.float32),
        )

    @property
    def capacity(self) -> int:
        """B, the number of rows."""
        return self.states.shape[0]

    @property
    def arrays(self) -> BatchArrays:
        """The arrays as one record for compiled code (views of the same memory)."""
        return BatchArrays(self.states, self.planes, self.legal, self.dropout, self.keys, self.priors, self.values)

    def put(self, row: int, state: games.State, *, dropout: float = 0.0, key: int = 0) -> None:
        """Write `state`'s inputs into `row` through the Python State API.

        The slow path, for roots, tools and tests; the search fills rows in compiled code (the
        game's encode kernel and `write_legal`).
        """
        if state.game is not self.game:
            raise ValueError(f"a {state.game.name} state cannot go into a batch for {self.game.name}")
        self.states[row] = state.array
        self.planes[row] = state.encode()
        write_legal(self.game.kernels, state.array, self.legal, row, np.empty(self.game.max_legal, dtype=np.int64))
        self.dropout[row] = dropout
        self.keys[row] = key

    def check_rows(self, n: int) -> None:
        """ValueError unless 0 <= n <= capacity (what every `evaluate` checks first)."""
        if not 0 <= n <= self.capacity:
            raise ValueError(f"cannot evaluate {n} rows of a batch with capacity {self.capacity}")


@runtime_checkable
class Evaluator(Protocol):
    """What a batched search needs from whatever scores its leaves (a network, playouts, a constant).

    `game` is the name of the one game it answers for, or None if it serves any game.
    `new_batch(game, capacity)` allocates a batch in the memory its forward pass wants (refusing
    a game it cannot answer for, in one line); `evaluate(batch, n)` reads the first n rows'
    inputs and writes priors[:n] and values[:n] (module docstring: the conventions). One thread
    at a time per evaluator.
    """

    game: str | None

    def new_batch(self, game: games.Game, capacity: int) -> Batch: ...

    def evaluate(self, batch: Batch, n: int) -> None: ...


class UniformEvaluator:
    """Uniform priors over the legal actions; value 0, or one uniformly random playout per row.

    `value="playout"` is plain MCTS's estimate in the evaluator's shape: each row plays one random
    game from its state (games.kernels.random_playout) and scores it +1 / 0 / -1 for the player to
    move there; a row's playout draws from a SplitMix64 stream started at its key (xor `seed`), so it
    is the same whatever else is in the batch. Serves any game.

    >>> game = games.load("connect4")
    >>> ev = UniformEvaluator(value="zero")
    >>> batch = ev.new_batch(game, 2)
    >>> batch.put(0, game.new_initial_state())
    >>> ev.evaluate(batch, 1)
    >>> batch.priors[0] * 7, batch.values[:1]
    (array([1., 1., 1., 1., 1., 1., 1.], dtype=float32), array([0.], dtype=float32))
    """

    game = None

    def __init__(self, value: str = "zero", *, seed: int = 0):
        if value not in ("zero", "playout"):
            raise ValueError(f"unknown UniformEvaluator value {value!r}; known: zero, playout")
        self.value = value
        self.salt = np.uint64(seed & 0xFFFFFFFFFFFFFFFF)

    def __repr__(self) -> str:
        return f"UniformEvaluator(value={self.value!r})"

    def new_batch(self, game: games.Game, capacity: int) -> Batch:
        return Batch.zeros(game, capacity)

    def evaluate(self, batch: Batch, n: int) -> None:
        batch.check_rows(n)
        uniform_priors(batch.legal, n, batch.priors)
        if self.value == "zero":
            batch.values[:n] = 0.0
        else:
            g = batch.game
            playout_values(g.kernels, batch.states, batch.keys, n, g.max_legal, self.salt, batch.values)


def clean_values(evaluator: Evaluator, batch: Batch, states: list) -> np.ndarray:
    """The evaluator's undamaged values of `states` (each from its player to move's view), in one forward over the
    first rows of `batch` (capacity >= len(states)): positions outside a search, such as AlphaDDA's value history."""
    for row, state in enumerate(states):
        batch.put(row, state)  # dropout 0: the undamaged net
    evaluator.evaluate(batch, len(states))
    return batch.values[: len(states)].copy()


@kernel
def write_legal(g, s, out, row, buf):
    """Set out[row] (bool [B, A]) to the legal-action mask of state `s`; return the number of legal actions.

    `buf` (int64 [>= max_legal]) is scratch that holds the legal actions afterwards, in the order of
    `g.legal`. A terminal state gets an all-False row and 0.
    """
    out[row, :] = False
    if g.terminal(s):
        return 0
    k = g.legal(s, buf)
    for i in range(k):
        out[row, buf[i]] = True
    return k


@kernel
def uniform_priors(legal, n, priors):
    """priors[:n] (float32 [B, A]) = legal[:n] (bool [B, A]) normalised per row; a row with none stays all 0."""
    for b in range(n):
        k = 0
        for a in range(legal.shape[1]):
            k += legal[b, a]
        p = np.float32(1.0 / k) if k > 0 else np.float32(0.0)
        for a in range(legal.shape[1]):
            priors[b, a] = p if legal[b, a] else np.float32(0.0)


@kernel
def playout_values(g, states, keys, n, max_legal, salt, values):
    """values[:n] (float32 [B]) = the result of one random playout from each of states[:n] (uint64 [B, S]),
    row b's drawn from a stream started at keys[b] ^ salt.

    +1 if the player to move in the row's state wins, -1 if it loses, 0 for a draw.
    """
    s = np.empty(states.shape[1], dtype=states.dtype)
    buf = np.empty(max_legal, dtype=np.int64)
    rng = np.empty(1, dtype=np.uint64)
    for b in range(n):
        rng[0] = keys[b] ^ salt
        copy_into(states[b], s)
        mover = g.to_move(s)
        w = random_playout(g, s, buf, rng)
        values[b] = 0.0 if w < 0 else (1.0 if w == mover else -1.0)
