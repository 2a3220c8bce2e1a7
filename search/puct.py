"""AlphaZero's PUCT search over a policy-value evaluator, many searches in lock-step [AlphaDDA App. 1.2].

A `Forest` holds G independent search trees, one per concurrent game, in arrays [G, M] (M nodes per
tree, grown by doubling when a tree runs out of room). One step of the lock-step loop:
1. `select_leaves` (compiled) descends every active tree up to `leaves` times, by eq. (8) with
   virtual loss, and writes each new leaf's state, network planes (the game's `encode` kernel),
   legal-move mask and dropout probability straight into the evaluator's batch;
2. the evaluator answers the whole batch with one forward (`search.evaluator`);
3. `backup` (compiled) expands each leaf with the priors, adds Dirichlet noise at a freshly
   expanded root, backs the values up and takes the virtual losses back exactly.
Terminal leaves are scored exactly (+1 / 0 / -1) and need no evaluation.

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

import numpy as np

from games.jit import kernel
from games.rng import derive_seeds, gamma, make_rng, next_u64, randint, uniform
from search.evaluator import write_legal
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
def best_child(visits, value, prior, vloss, first, n, parent_n, c, uct, rng):
    """The child to descend to, with virtual loss, ties at random: eq. (8)'s argmax Q + c P sqrt(N) / (1 + N_a),
    or with `uct` AlphaDDA3's eq. (6), argmax Q + c sqrt(2 ln(N + 1) / (1 + N_a)) without priors.

    visits..vloss are one tree's rows; parent_n is the parent's N with its pending descents, at least
    1 (its own evaluation) once it is expanded, so the priors count from its first descent and
    ln(parent_n) is eq. (6)'s ln(N + 1) with N its children's visits."""
    sqrt_n = math.sqrt(parent_n)
    log_n = math.log(parent_n) if uct else 0.0
    best, pick, ties = -np.inf, first, 0
    for k in range(first, first + n):
        n_a = visits[k] + vloss[k]
        q = (value[k] - vloss[k]) / n_a if n_a > 0.0 else 0.0  # a pending descent counts as a loss
        if uct:
            score = q + c * math.sqrt(2.0 * log_n / (1.0 + n_a))
        else:
            score = q + c * prior[k] * sqrt_n / (1.0 + n_a)
        if score > best:
            best, pick, ties = score, k, 1
        elif score == best:
            ties += 1
            if randint(rng, ties) == 0:
                pick = k
    return pick


@kernel
def select_leaves(g, f, roots, todo, leaves, c_puct, root_eps, rngs, game_dropout, game_target, game_uct_c, states,
                  planes, legal, dropout, keys, pend_game, pend_path, pend_len, pend_row, pend_value, s,
                  moves):  # fmt: skip
    """Descend every tree i with todo[i] > 0 up to min(leaves, todo[i]) times and queue the leaves.

    With probability root_eps a descent leaves an expanded root by a uniformly random child instead
    of eq. (8) (the AlphaDDA authors' reading of Table A1's epsilon); root_eps = 0 draws nothing. A tree
    whose game_target is not nan descends by AlphaDDA3's eq. (6) with its constant game_uct_c instead.

    A leaf to evaluate gets a batch row (states, planes, legal, dropout [row]); a terminal leaf is
    scored at once (pend_row -1, pend_value from its mover's view). Every node on a path gets one
    virtual visit. A descent that ends at a leaf already waiting in this step ends the tree's step.
    Returns (batch rows used, leaves queued); todo is decremented by the leaves queued.
    """
    rows, pending = 0, 0
    for i in range(f.meta.shape[0]):
        first_of_tree = pending
        for _ in range(min(leaves, todo[i])):
            rng = rngs[i]
            node = f.meta[i, ROOT]
            s[:] = roots[i]
            depth = 0
            pend_path[pending, 0] = node
            while f.first_child[i, node] >= 0 and not g.terminal(s):
                first, n = f.first_child[i, node], f.n_children[i, node]
                parent_n = f.visits[i, node] + f.vloss[i, node]
                if depth == 0 and root_eps > 0.0 and uniform(rng) < root_eps:
                    node = first + randint(rng, n)
                else:
                    uct = not math.isnan(game_target[i])
                    node = best_child(f.visits[i], f.value[i], f.prior[i], f.vloss[i], first, n, parent_n,
                                      game_uct_c[i] if uct else c_puct, uct, rng)  # fmt: skip
                g.apply(s, f.action[i, node])
                depth += 1
                pend_path[pending, depth] = node
            terminal = g.terminal(s)
            collision = False
            for q in range(first_of_tree, pending):  # a leaf already waiting for its evaluation
                if not terminal and pend_path[q, pend_len[q] - 1] == node:
                    collision = True
            if collision:  # this tree's later descents would only find waiting leaves too: its step is over
                break
            for d in range(depth + 1):
                f.vloss[i, pend_path[pending, d]] += 1.0
            pend_game[pending], pend_len[pending] = i, depth + 1
            if terminal:
                w = g.winner(s)
                pend_row[pending] = -1
                pend_value[pending] = 0.0 if w < 0 else (1.0 if w == f.mover[i, node] else -1.0)
            else:
                row = rows
                rows += 1
                states[row] = s
                g.encode(s, planes, row)
                write_legal(g, s, legal, row, moves)
                dropout[row] = game_dropout[i]
                keys[row] = next_u64(rng)
                pend_row[pending] = row
            pending += 1
            todo[i] -= 1
    return rows, pending


@kernel
def backup(g, f, pending, pend_game, pend_path, pend_len, pend_row, pend_value, states, priors, values,
           noise_weight, noise_alpha, rngs, game_target, moves):  # fmt: skip
    """Expand each queued leaf with its row's priors, back its value up the path and take back the
    virtual visits. A tree with no room left for a leaf's children is flagged FULL (the leaf is
    backed up unexpanded; the caller grows the forest). A root expanded here gets Dirichlet noise.
    A tree with a game_target t backs up -|v_m + t| instead of v_m, v_m the value for the node's
    mover [AlphaDDA eq. 7 from the mover's view; search.alphadda.AlphaDDA3]."""
    for p in range(pending):
        i = pend_game[p]
        leaf = pend_path[p, pend_len[p] - 1]
        row = pend_row[p]
        if row < 0:
            v = pend_value[p]  # terminal: already from the leaf's mover's view
        else:
            s = states[row]
            to_move = g.to_move(s)
            v = values[row] if to_move == f.mover[i, leaf] else -values[row]
            if f.first_child[i, leaf] < 0:
                n = g.legal(s, moves)
                free = f.meta[i, FREE]
                if free + n > f.visits.shape[1]:
                    f.meta[i, FULL] = 1
                else:
                    for k in range(n):
                        c = free + k
                        f.visits[i, c], f.value[i, c], f.vloss[i, c] = 0.0, 0.0, 0.0
                        f.prior[i, c] = priors[row, moves[k]]
                        f.action[i, c], f.first_child[i, c], f.n_children[i, c] = moves[k], -1, 0
                        f.mover[i, c] = to_move
                    f.first_child[i, leaf], f.n_children[i, leaf] = free, n
                    f.meta[i, FREE] = free + n
                    if leaf == f.meta[i, ROOT] and noise_weight > 0.0:
                        mix_noise(f, i, noise_weight, noise_alpha, rngs[i])
        target = game_target[i]
        for d in range(pend_len[p]):
            node = pend_path[p, d]
            v_m = v if f.mover[i, node] == f.mover[i, leaf] else -v
            f.visits[i, node] += 1.0
            f.value[i, node] += v_m if math.isnan(target) else -abs(v_m + target)
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
        games: rows G. c_puct: eq. (8)'s exploration rate (Table A1: 1.25).
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

    def __init__(self, game, evaluator, *, games: int = 1, c_puct: float = 1.25, leaves: int = 1,
                 root_eps: float = 0.0, noise_weight: float = 0.0, noise_alpha: float = 0.3,
                 reuse: bool = False, seed: int = 0, nodes: int = 1024):  # fmt: skip
        if games < 1 or leaves < 1:
            raise ValueError("games and leaves must be at least 1")
        if not 0.0 <= root_eps <= 1.0:
            raise ValueError(f"root_eps is a probability in [0, 1], got {root_eps}")
        self.game, self.evaluator = game, evaluator
        self.c_puct, self.leaves, self.root_eps = float(c_puct), int(leaves), float(root_eps)
        self.noise_weight, self.noise_alpha = float(noise_weight), float(noise_alpha)
        self.reuse = bool(reuse)
        self.forest = new_forest(games, nodes)
        self.roots = np.zeros((games, game.state_size), dtype=np.uint64)
        self.rngs = np.vstack([make_rng(s) for s in derive_seeds(seed, count=games, bits=64)])
        self.histories: list[list[int] | None] = [None] * games
        self.batch = evaluator.new_batch(game, games * self.leaves)
        pending, depth = games * self.leaves, game.max_game_length + 1
        self._pend = (np.zeros(pending, np.int64), np.zeros((pending, depth), np.int64), np.zeros(pending, np.int64),
                      np.zeros(pending, np.int64), np.zeros(pending, np.float32))  # fmt: skip
        self._state = np.zeros(game.state_size, dtype=np.uint64)
        self._moves = np.zeros(game.max_legal, dtype=np.int64)
        for i in range(games):
            self.reset(i)

    @property
    def games(self) -> int:
        return self.roots.shape[0]

    def reset(self, i: int, seed: int | None = None) -> None:
        """Forget row i's tree (a new game); `seed` reseeds its stream."""
        clear_tree(self.forest, i, 1)
        self.histories[i] = None
        if seed is not None:
            self.rngs[i] = make_rng(seed)

    def search(self, rows, states, *, simulations=None, seconds=None, dropout=None, target=None,
               uct_c=None) -> list[SearchResult]:  # fmt: skip
        """Search the positions `states[k]` in rows `rows[k]`, all at once; one result per row.

        Args:
            rows: the forest's rows to search (each at most once); states: their positions.
            simulations: per row (an int for all); seconds: instead, a deadline for the whole step loop.
            dropout: per row, the evaluator's dropout probability (AlphaDDA2); None: 0 everywhere.
            target: per row, AlphaDDA3's v̄ c (nan: plain PUCT); None: nan everywhere.
            uct_c: per row, AlphaDDA3's constant C of eq. (6), needed by the rows with a target.
        Returns:
            per row, the root's children: actions, visits and mean value (v + 1) / 2 for the player to
            move, in [0, 1]; for a row with a target, the mean of eq. (7)'s values mapped alike.
        """
        if (simulations is None) == (seconds is None):
            raise ValueError("give exactly one budget: simulations or seconds")
        rows = [int(r) for r in rows]
        todo = np.zeros(self.games, dtype=np.int64)
        budget = simulations if simulations is not None else 1 << 40
        budgets = [budget] * len(rows) if np.isscalar(budget) else list(budget)
        game_dropout = np.zeros(self.games, dtype=np.float32)
        game_target = np.full(self.games, np.nan, dtype=np.float32)
        game_uct_c = np.full(self.games, np.nan, dtype=np.float64)
        for k, (i, state) in enumerate(zip(rows, states)):
            moved = self._move_root(i, state)
            todo[i] = max(1, int(budgets[k]))
            if dropout is not None:
                game_dropout[i] = dropout[k]
            if target is not None:
                game_target[i] = target[k]
            if uct_c is not None:
                game_uct_c[i] = uct_c[k]
            expanded = self.forest.first_child[i, self.forest.meta[i, ROOT]] >= 0
            if self.noise_weight > 0.0 and moved and expanded:  # a kept subtree's new root; a fresh root
                mix_noise(self.forest, i, self.noise_weight, self.noise_alpha, self.rngs[i])  # gets it on expansion
        if np.isnan(game_uct_c[~np.isnan(game_target)]).any():
            raise ValueError("a row searched with a target needs its uct_c (eq. 6's C)")
        done = np.zeros(self.games, dtype=np.int64)
        start = time.perf_counter()
        while todo.any():
            self._grow_if_needed(todo)
            before = todo.copy()
            b = self.batch
            n_rows, pending = select_leaves(self.game.kernels, self.forest, self.roots, todo, self.leaves,
                                            self.c_puct, self.root_eps, self.rngs, game_dropout, game_target,
                                            game_uct_c, b.states, b.planes, b.legal, b.dropout, b.keys, *self._pend,
                                            self._state, self._moves)  # fmt: skip
            if n_rows:
                self.evaluator.evaluate(b, n_rows)
            backup(self.game.kernels, self.forest, pending, *self._pend, b.states, b.priors, b.values,
                   self.noise_weight, self.noise_alpha, self.rngs, game_target, self._moves)  # fmt: skip
            done += before - todo
            if seconds is not None and time.perf_counter() - start >= seconds:
                break
        elapsed = time.perf_counter() - start
        return [self._result(i, int(done[i]), elapsed) for i in rows]

    def _result(self, i: int, simulations: int, seconds: float) -> SearchResult:
        f = self.forest
        root = f.meta[i, ROOT]
        first, n = f.first_child[i, root], f.n_children[i, root]
        if first < 0:
            return SearchResult(np.zeros(0, np.int64), np.zeros(0), np.zeros(0), simulations, seconds)
        visits = f.visits[i, first : first + n].astype(np.float64)
        q = np.divide(f.value[i, first : first + n], visits, out=np.zeros(n), where=visits > 0)
        return SearchResult(f.action[i, first : first + n].astype(np.int64), visits, (q + 1.0) / 2.0,
                            simulations, seconds)  # fmt: skip

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
        self.roots[i] = state.array
        self.histories[i] = list(history)
        return moved

    def _grow_if_needed(self, todo) -> None:
        """Double every tree's room when one could run out in the next step (or ran out in the last)."""
        f = self.forest
        need = f.meta[:, FREE] + np.minimum(todo, self.leaves) * self.game.max_legal
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
