"""AlphaZero's PUCT search over a policy-value evaluator, many searches in lock-step [AlphaDDA App. 1.2].

A `Forest` holds G independent search trees, one per concurrent game, in arrays [G, M] (M nodes per
tree, grown by doubling when a tree runs out of room). One step of the lock-step loop:
1. `select_leaves` (compiled) descends every active tree up to `leaves` times, by the forest's `Rule`
   (eq. 8 by default) with virtual loss, and writes each new leaf's state, network planes (the game's
   `encode` kernel), legal-move mask and dropout probability straight into the evaluator's batch;
2. the evaluator answers the whole batch with one forward (`search.evaluator`);
3. `backup` (compiled) expands each leaf with the priors, adds Dirichlet noise at a freshly
   expanded root, backs the values up (as the rule says) and takes the virtual losses back exactly.
Terminal leaves are scored exactly (+1 / 0 / -1) and need no evaluation. The data of a step travel as
named records (`Forest`, `Rows`, `Pending`, `Settings`, the batch's `BatchArrays`), shapes in their
docstrings; a search is asked for by one `Request` per game.

Conventions. A node's `value` sums the values of its simulations from the view of the player who
moved into it (`mover`), so a parent chooses among its children by their own Q. The evaluator's
value is from the view of the player to move at the leaf. A node's `visits` count the simulations
through it including its own evaluation, so a node expanded once already has N = 1 when it is
first descended: the priors count from a node's very first descent (the AlphaDDA reference code
scores a fresh node's children with sqrt(N) = 0 and so ignores them; DESIGN section 8). An
unvisited child has Q = 0 (App. 1.2: edges are initialised with Q = 0).
"""

from __future__ import annotations

import math
import time
from collections import namedtuple
from dataclasses import dataclass

import numpy as np

from games.game import State, two_players_only
from games.jit import kernel, kernel_tuple
from games.kernels import copy_into
from games.rng import derive_seeds, gamma, make_rng, next_u64, randint, uniform
from search.evaluator import Batch, clean_values, write_legal
from search.mcts import SearchResult

Forest = namedtuple(
    "Forest",
    [
        "visits",  # float32 [G, M]  simulations through the node, its own evaluation included
        "value",  # float32 [G, M]   sum of their values for the player who moved into the node
        "prior",  # float32 [G, M]   P of the edge into the node
        "vloss",  # float32 [G, M]   virtual visits of descents still waiting for their values
        "action",  # int32 [G, M]    the move into the node
        "first_child",  # int32 [G, M]  -1 until expanded; children are contiguous
        "n_children",  # int32 [G, M]
        "mover",  # int8 [G, M]      the player who moved into the node
        "meta",  # int64 [G, 3]      root, next free node, 1 if the tree ran out of room
    ],
)
ROOT, FREE, FULL = 0, 1, 2

Rows = namedtuple("Rows", ["root", "todo", "rng", "dropout", "target", "c"])
Rows.__doc__ = """Each tree's search of this call, one row per tree (G rows).

root     uint64 [G, S]  the position searched (the game's state array)
todo     int64 [G]      simulations still to run (0: the tree sits this search out)
rng      uint64 [G, R]  the tree's own random stream
dropout  float32 [G]    the evaluator's dropout probability for the tree's leaves (AlphaDDA2)
target   float32 [G]    the value the rule aims at (AlphaDDA3's v̄ c; eq. 8 ignores it)
c        float64 [G]    the rule's exploration constant (eq. 8's C_puct, or eq. 6's C)
"""

Pending = namedtuple("Pending", ["tree", "path", "length", "row", "value", "state", "moves"])
Pending.__doc__ = """The leaves queued in one step (P = G * leaves of them at most), and scratch.

tree    int64 [P]        the leaf's tree
path    int64 [P, D]     the nodes from the root to the leaf (D = max_game_length + 1)
length  int64 [P]        the path's length
row     int64 [P]        the leaf's batch row, -1 for a terminal leaf (scored at once)
value   float32 [P]      a terminal leaf's value for the player who moved into it
state   uint64 [S]       scratch: the position of a descent
moves   int64 [max_legal] scratch: legal actions
"""

Settings = namedtuple("Settings", ["leaves", "root_eps", "noise_weight", "noise_alpha"])
Settings.__doc__ = """A forest's fixed settings: descents per tree and step (int), the chance of a random root
child, and the Dirichlet noise's weight and concentration at a new root (floats)."""

Rule = kernel_tuple(namedtuple("Rule", ["score", "backed"]))
Rule.__doc__ = """How a forest chooses and values edges, compiled kernels passed in as the game's are:

score(q, prior, n_a, parent_n, c) -> float  an edge's descent score: Q (pending descents count as losses),
                                            its prior P, its visits N_a with pending ones, its parent's N
                                            (at least 1) and the row's constant c
backed(v, target) -> float                  what one simulation adds to an edge's value sum, v the simulation's
                                            value for the edge's mover, target the row's
"""


@kernel(inline="always")
def puct_score(q, prior, n_a, parent_n, c):
    """Eq. (8): Q + c P sqrt(N) / (1 + N_a)."""
    # [AlphaDDA eq. 8]
    return q + c * prior * math.sqrt(parent_n) / (1.0 + n_a)


@kernel(inline="always")
def plain_value(v, target):
    """The simulation's value itself."""
    return v


PUCT_RULE = Rule(puct_score, plain_value)  # AlphaZero's search [AlphaDDA App. 1.2]


@dataclass(frozen=True)
class Request:
    """One game's search in a lock-step call: its tree (`row`), its position, and this move's knobs."""

    row: int
    state: State
    simulations: int  # the budget, unless the call gives seconds
    dropout: float = 0.0  # the evaluator's dropout probability for this game's leaves (AlphaDDA2)
    target: float = 0.0  # the value the forest's rule aims at (AlphaDDA3's v̄ c)
    c: float | None = None  # the rule's exploration constant; None: the forest's c_puct


def new_forest(games: int, nodes: int) -> Forest:
    """G empty trees (each a lone, unexpanded root) with room for `nodes` nodes each."""
    forest = Forest(
        visits=np.zeros((games, nodes), dtype=np.float32),
        value=np.zeros((games, nodes), dtype=np.float32),
        prior=np.zeros((games, nodes), dtype=np.float32),
        vloss=np.zeros((games, nodes), dtype=np.float32),
        action=np.full((games, nodes), -1, dtype=np.int32),
        first_child=np.full((games, nodes), -1, dtype=np.int32),
        n_children=np.zeros((games, nodes), dtype=np.int32),
        mover=np.zeros((games, nodes), dtype=np.int8),
        meta=np.zeros((games, 3), dtype=np.int64),
    )
    forest.meta[:, FREE] = 1
    return forest


@kernel
def clear_tree(f, i, mover):
    """Empty tree i: a lone unexpanded root into which `mover` moved."""
    f.meta[i, ROOT], f.meta[i, FREE], f.meta[i, FULL] = 0, 1, 0
    f.visits[i, 0], f.value[i, 0], f.prior[i, 0], f.vloss[i, 0] = 0.0, 0.0, 1.0, 0.0
    f.action[i, 0], f.first_child[i, 0], f.n_children[i, 0], f.mover[i, 0] = -1, -1, 0, mover


@kernel(inline="always")
def best_child(rule, visits, value, prior, vloss, first, n, parent_n, c, rng):
    """The child to descend to, with virtual loss, ties at random: the argmax of `rule.score` over the children.

    visits..vloss are one tree's rows; parent_n is the parent's N with its pending descents, at least 1 (its own
    evaluation) once it is expanded, so the priors count from its first descent, and ln(parent_n) is eq. (6)'s
    ln(N + 1) with N its children's visits."""
    best, pick, ties = -np.inf, first, 0
    for k in range(first, first + n):
        n_a = visits[k] + vloss[k]
        q = (value[k] - vloss[k]) / n_a if n_a > 0.0 else 0.0  # a pending descent counts as a loss
        score = rule.score(q, prior[k], n_a, parent_n, c)
        if score > best:
            best, pick, ties = score, k, 1
        elif score == best:
            ties += 1
            if randint(rng, ties) == 0:
                pick = k
    return pick


@kernel
def select_leaves(g, rule, f, rows, batch, pend, settings):
    """Descend every tree i with rows.todo[i] > 0 up to min(leaves, todo[i]) times and queue the leaves.

    With probability root_eps a descent leaves an expanded root by a uniformly random child instead of the
    rule (the AlphaDDA authors' reading of Table A1's epsilon); root_eps = 0 draws nothing.

    A leaf to evaluate gets a batch row (states, planes, legal, dropout, keys); a terminal leaf is scored at
    once (pend.row -1, pend.value from its mover's view). Every node on a path gets one virtual visit. A
    descent that ends at a leaf already waiting in this step ends the tree's step. Returns (batch rows used,
    leaves queued); rows.todo is decremented by the leaves queued.
    """
    n_rows, pending = 0, 0
    s, path = pend.state, pend.path
    for i in range(f.meta.shape[0]):
        first_of_tree = pending
        for _ in range(min(settings.leaves, rows.todo[i])):
            rng = rows.rng[i]
            node = f.meta[i, ROOT]
            copy_into(rows.root[i], s)
            depth = 0
            path[pending, 0] = node
            while f.first_child[i, node] >= 0 and not g.terminal(s):
                first, n = f.first_child[i, node], f.n_children[i, node]
                parent_n = f.visits[i, node] + f.vloss[i, node]
                if depth == 0 and settings.root_eps > 0.0 and uniform(rng) < settings.root_eps:
                    node = first + randint(rng, n)
                else:
                    node = best_child(
                        rule, f.visits[i], f.value[i], f.prior[i], f.vloss[i], first, n, parent_n, rows.c[i], rng
                    )
                g.apply(s, f.action[i, node])
                depth += 1
                path[pending, depth] = node
            terminal = g.terminal(s)
            collision = False
            for q in range(first_of_tree, pending):  # a leaf already waiting for its evaluation
                if not terminal and path[q, pend.length[q] - 1] == node:
                    collision = True
            if collision:  # this tree's later descents would only find waiting leaves too: its step is over
                break
            for d in range(depth + 1):
                f.vloss[i, path[pending, d]] += 1.0
            pend.tree[pending], pend.length[pending] = i, depth + 1
            if terminal:
                w = g.winner(s)
                pend.row[pending] = -1
                pend.value[pending] = 0.0 if w < 0 else (1.0 if w == f.mover[i, node] else -1.0)
            else:
                row = n_rows
                n_rows += 1
                copy_into(s, batch.states[row])
                g.encode(s, batch.planes, row)
                write_legal(g, s, batch.legal, row, pend.moves)
                batch.dropout[row] = rows.dropout[i]
                batch.keys[row] = next_u64(rng)
                pend.row[pending] = row
            pending += 1
            rows.todo[i] -= 1
    return n_rows, pending


@kernel
def backup(g, rule, f, rows, batch, pend, pending, settings):
    """Expand each of the `pending` queued leaves with its row's priors, back its value up the path as the rule
    says (`rule.backed`, from each edge's mover's view) and take back the virtual visits. A tree with no room
    left for a leaf's children is flagged FULL (the leaf is backed up unexpanded; the caller grows the forest).
    A root expanded here gets Dirichlet noise."""
    moves = pend.moves
    for p in range(pending):
        i = pend.tree[p]
        leaf = pend.path[p, pend.length[p] - 1]
        row = pend.row[p]
        if row < 0:
            v = pend.value[p]  # terminal: already from the leaf's mover's view
        else:
            s = batch.states[row]
            to_move = g.to_move(s)
            v = batch.values[row] if to_move == f.mover[i, leaf] else -batch.values[row]
            if f.first_child[i, leaf] < 0:
                n = g.legal(s, moves)
                free = f.meta[i, FREE]
                if free + n > f.visits.shape[1]:
                    f.meta[i, FULL] = 1
                else:
                    for k in range(n):
                        c = free + k
                        f.visits[i, c], f.value[i, c], f.vloss[i, c] = 0.0, 0.0, 0.0
                        f.prior[i, c] = batch.priors[row, moves[k]]
                        f.action[i, c], f.first_child[i, c], f.n_children[i, c] = moves[k], -1, 0
                        f.mover[i, c] = to_move
                    f.first_child[i, leaf], f.n_children[i, leaf] = free, n
                    f.meta[i, FREE] = free + n
                    if leaf == f.meta[i, ROOT] and settings.noise_weight > 0.0:
                        mix_noise(f, i, settings.noise_weight, settings.noise_alpha, rows.rng[i])
        target = rows.target[i]
        for d in range(pend.length[p]):
            node = pend.path[p, d]
            v_m = v if f.mover[i, node] == f.mover[i, leaf] else -v
            f.visits[i, node] += 1.0
            f.value[i, node] += rule.backed(v_m, target)
            f.vloss[i, node] -= 1.0


@kernel
def mix_noise(f, i, weight, alpha, rng):
    """P <- (1 - weight) P + weight eta, eta ~ Dir(alpha), over the children of tree i's root [AlphaZero]."""
    root = f.meta[i, ROOT]
    first, n = f.first_child[i, root], f.n_children[i, root]
    total = 0.0
    for k in range(first, first + n):
        f.vloss[i, k] = gamma(rng, alpha)  # scratch: vloss is 0 between steps
        total += f.vloss[i, k]
    for k in range(first, first + n):
        eta = f.vloss[i, k] / total if total > 0.0 else 1.0 / n
        f.prior[i, k] = (1.0 - weight) * f.prior[i, k] + weight * eta
        f.vloss[i, k] = 0.0


@kernel
def reroot(f, i, node):
    """Keep only the subtree of tree i below `node`, moved to the front of the row in BFS order.

    Nodes are gathered first and written back after: a node's new place may hold another kept node."""
    queue = np.empty(f.meta[i, FREE], dtype=np.int64)
    queue[0] = node
    head, tail = 0, 1
    while head < tail:
        first = f.first_child[i, queue[head]]
        if first >= 0:
            for k in range(f.n_children[i, queue[head]]):
                queue[tail] = first + k
                tail += 1
        head += 1
    kept = queue[:tail]
    visits, value, prior = f.visits[i, kept], f.value[i, kept], f.prior[i, kept]
    action, mover, n_children, expanded = (
        f.action[i, kept],
        f.mover[i, kept],
        f.n_children[i, kept],
        f.first_child[i, kept],
    )
    position = 1  # where the next expanded node's children start: BFS keeps siblings contiguous
    for d in range(tail):
        f.visits[i, d], f.value[i, d], f.prior[i, d], f.vloss[i, d] = visits[d], value[d], prior[d], 0.0
        f.action[i, d], f.mover[i, d], f.n_children[i, d] = action[d], mover[d], n_children[d]
        if expanded[d] >= 0:
            f.first_child[i, d] = position
            position += n_children[d]
        else:
            f.first_child[i, d] = -1
    f.meta[i, ROOT], f.meta[i, FREE], f.meta[i, FULL] = 0, tail, 0


def child(f: Forest, i: int, node: int, action: int) -> int:
    """The child of `node` in tree i reached by `action`, or -1."""
    first = f.first_child[i, node]
    if first < 0:
        return -1
    hits = np.nonzero(f.action[i, first : first + f.n_children[i, node]] == action)[0]
    return int(first + hits[0]) if len(hits) else -1


class PUCT:
    """G AlphaZero searches that advance together and share every forward of one evaluator.

    Each row i is one game's search with its own random stream (and, with `reuse`, its tree kept from
    move to move: `search` finds the played moves in the state's history), so a game's moves do not
    depend on the other rows when leaves=1 and the evaluator's rows do not depend on each other (the
    net-free evaluators exactly; a network up to float rounding, about 1e-8 between batch sizes).

    Args:
        game: the game. evaluator: a `search.evaluator.Evaluator` for it.
        games: rows G. c_puct: eq. (8)'s exploration rate (Table A1: 1.25), a request's c by default.
        rule: how every tree of the forest chooses and values its edges (`PUCT_RULE`: eq. 8; AlphaDDA3's
            eqs. 6-7 are `search.alphadda.ALPHADDA3_RULE`).
        leaves: descents per tree and step, with virtual loss (1: none, the sequential search).
        root_eps: the probability that a descent leaves the root by a uniformly random child, the
            exploration of the AlphaDDA authors' self-play and test games (their reading of Table A1's
            epsilon = 0.2); 0 (default) is plain eq. (8).
        noise_weight, noise_alpha: Dirichlet noise at every new root, P <- (1 - w) P + w Dir(alpha)
            (AlphaZero's self-play; 0 turns it off).
        reuse: keep the subtree of the moves played from one search to the next. Off by default, as
            in the authors' code (a fresh tree every move): kept visits would skew eq. (9)'s opening
            draw and outlive a DDA agent's budget or dropout of the move before.
        seed: seeds row i's stream from (seed, i); `reset(i, seed)` reseeds one row.
    """

    def __init__(
        self,
        game,
        evaluator,
        *,
        games: int = 1,
        c_puct: float = 1.25,
        rule: Rule = PUCT_RULE,
        leaves: int = 1,
        root_eps: float = 0.0,
        noise_weight: float = 0.0,
        noise_alpha: float = 0.3,
        reuse: bool = False,
        seed: int = 0,
        nodes: int = 1024,
    ):
        two_players_only(game, "PUCT searches")
        if games < 1 or leaves < 1:
            raise ValueError("games and leaves must be at least 1")
        if not 0.0 <= root_eps <= 1.0:
            raise ValueError(f"root_eps is a probability in [0, 1], got {root_eps}")
        self.game, self.evaluator, self.rule = game, evaluator, rule
        self.c_puct = float(c_puct)
        self.settings = Settings(int(leaves), float(root_eps), float(noise_weight), float(noise_alpha))
        self.reuse = bool(reuse)
        self.forest = new_forest(games, nodes)
        self.rows = Rows(
            root=np.zeros((games, game.state_size), dtype=np.uint64),
            todo=np.zeros(games, dtype=np.int64),
            rng=np.vstack([make_rng(s) for s in derive_seeds(seed, count=games, bits=64)]),
            dropout=np.zeros(games, dtype=np.float32),
            target=np.zeros(games, dtype=np.float32),
            c=np.zeros(games, dtype=np.float64),
        )
        self.histories: list[list[int] | None] = [None] * games
        self.batch = evaluator.new_batch(game, games * leaves)
        pending, depth = games * leaves, game.max_game_length + 1
        self.pending = Pending(
            tree=np.zeros(pending, np.int64),
            path=np.zeros((pending, depth), np.int64),
            length=np.zeros(pending, np.int64),
            row=np.zeros(pending, np.int64),
            value=np.zeros(pending, np.float32),
            state=np.zeros(game.state_size, dtype=np.uint64),
            moves=np.zeros(game.max_legal, dtype=np.int64),
        )
        self._values: Batch | None = None  # for `values`, allocated on first use
        for i in range(games):
            self.reset(i)

    @property
    def games(self) -> int:
        return self.rows.todo.shape[0]

    def reset(self, i: int, seed: int | None = None) -> None:
        """Forget row i's tree (a new game); `seed` reseeds its stream."""
        clear_tree(self.forest, i, 1)
        self.histories[i] = None
        if seed is not None:
            self.rows.rng[i] = make_rng(seed)

    def search(self, requests: list[Request], *, seconds: float | None = None) -> list[SearchResult]:
        """Run every request's search at once, each in its own row (a row at most once); one result each.

        Each request runs its `simulations` (at least one), or, given `seconds`, every request runs until that
        deadline for the whole step loop. Returns per request the root's children: actions, visits and mean
        value (v + 1) / 2 for the player to move, in [0, 1] (under AlphaDDA3's rule, the mean of eq. 7's
        values mapped alike).
        """
        rows, s = self.rows, self.settings
        rows.todo[:] = 0
        for r in requests:
            i = r.row
            moved = self._move_root(i, r.state)
            rows.todo[i] = (1 << 40) if seconds is not None else max(1, int(r.simulations))
            rows.dropout[i], rows.target[i] = r.dropout, r.target
            rows.c[i] = self.c_puct if r.c is None else r.c
            expanded = self.forest.first_child[i, self.forest.meta[i, ROOT]] >= 0
            if s.noise_weight > 0.0 and moved and expanded:  # a kept subtree's new root; a fresh root
                mix_noise(self.forest, i, s.noise_weight, s.noise_alpha, rows.rng[i])  # gets it on expansion
        done = np.zeros(self.games, dtype=np.int64)
        start = time.perf_counter()
        g, batch = self.game.kernels, self.batch
        while rows.todo.any():
            self._grow_if_needed()
            before = rows.todo.copy()
            n_rows, pending = select_leaves(g, self.rule, self.forest, rows, batch.arrays, self.pending, s)
            if n_rows:
                self.evaluator.evaluate(batch, n_rows)
            backup(g, self.rule, self.forest, rows, batch.arrays, self.pending, pending, s)
            done += before - rows.todo
            if seconds is not None and time.perf_counter() - start >= seconds:
                break
        elapsed = time.perf_counter() - start
        return [self._result(r.row, int(done[r.row]), elapsed) for r in requests]

    def values(self, positions: list[State]) -> np.ndarray:
        """The evaluator's undamaged values of `positions` (from the view of each one's player to move), in one
        forward; positions outside any search, such as AlphaDDA's value history."""
        if self._values is None or self._values.capacity < len(positions):
            self._values = self.evaluator.new_batch(self.game, max(len(positions), self.games))
        return clean_values(self.evaluator, self._values, positions)

    def _result(self, i: int, simulations: int, seconds: float) -> SearchResult:
        f = self.forest
        root = f.meta[i, ROOT]
        first, n = f.first_child[i, root], f.n_children[i, root]
        if first < 0:
            return SearchResult(np.zeros(0, np.int64), np.zeros(0), np.zeros(0), simulations, seconds)
        visits = f.visits[i, first : first + n].astype(np.float64)
        q = np.divide(f.value[i, first : first + n], visits, out=np.zeros(n), where=visits > 0)
        return SearchResult(
            f.action[i, first : first + n].astype(np.int64), visits, (q + 1.0) / 2.0, simulations, seconds
        )

    def root_priors(self, i: int) -> np.ndarray:
        """The priors of row i's root children, in the order of its last result's actions."""
        f = self.forest
        first, n = f.first_child[i, f.meta[i, ROOT]], f.n_children[i, f.meta[i, ROOT]]
        return f.prior[i, first : first + n].astype(np.float64) if first >= 0 else np.zeros(0)

    def _move_root(self, i: int, state) -> bool:
        """Root row i at `state`: with `reuse`, keep the subtree if it continues the tree's game, else start
        afresh. Returns whether the root moved to a kept node (its priors have had no noise yet)."""
        history, known = state.history(), self.histories[i]
        f = self.forest
        continues = self.reuse and known is not None and history[: len(known)] == known
        node = f.meta[i, ROOT] if continues else -1
        for a in history[len(known) :] if node >= 0 else ():
            node = child(f, i, node, a) if node >= 0 else -1
        if node < 0:
            mover = 1 - state.current_player() if not state.is_terminal() else 0
            clear_tree(f, i, mover)
        moved = node >= 0 and node != f.meta[i, ROOT]
        if moved:
            reroot(f, i, node)
        self.rows.root[i] = state.array
        self.histories[i] = list(history)
        return moved

    def _grow_if_needed(self) -> None:
        """Double every tree's room when one could run out in the next step (or ran out in the last)."""
        f = self.forest
        need = f.meta[:, FREE] + np.minimum(self.rows.todo, self.settings.leaves) * self.game.max_legal
        if not (f.meta[:, FULL].any() or (need > f.visits.shape[1]).any()):
            return
        nodes = f.visits.shape[1]
        while (need > nodes).any():
            nodes *= 2
        grown = new_forest(self.games, nodes if nodes > f.visits.shape[1] else 2 * nodes)
        for old, new in zip(f, grown):
            if old is f.meta:
                new[:] = old
            else:
                new[:, : old.shape[1]] = old
        grown.meta[:, FULL] = 0
        self.forest = grown
