"""Monte-Carlo tree search in one compiled loop: UCT, GRAVE, MAST playouts, the VO band and the T switch.

Three engines share the kernel, told apart by fixed `settings`:
- AlphaDDA's opponents MCTS1-4 (Fujita, App. 3): score q/N_c + C sqrt(ln(N_p + 1) / (N_c + 1e-7))
  with q summed over rewards +1/0/-1, a node's children opened once it has N_open visits, random playouts;
- SP (Sironi et al., UCT + MAST) and AP (GRAVE + MAST): eq. (1) with Q in [0, 1], unvisited moves
  first, GRAVE's Q replaced by eq. (2) with beta = sqrt(K / (3 N(s) + K)) from eq. (3), MAST
  epsilon-greedy playouts, one node added per simulation (N_open = 1).
The search-control parameters (C, epsilon, K, Ref, VO, T) travel as a float vector, so a tuner
may change them between simulations.
"""

import math
import time
from dataclasses import dataclass

import numpy as np
from numba import types
from numba.experimental import structref

from games.jit import kernel
from games.kernels import copy_into, play_out
from games.rng import next_u64, randint, uniform
from search.tree import FREE_NODE, FREE_ROW, FULL, ROOT, Tree, child, clear, copy_subtree, new_tree, root_statistics

# indices of the search-control parameter vector (SA-MCTS Table I)
C, EPSILON, K, REF, VO, T = range(6)
COLUMNS = {"C": C, "eps": EPSILON, "K": K, "Ref": REF, "VO": VO, "T": T}  # Table I's names
# indices of the fixed settings vector
N_OPEN, FORMULA, USE_MAST, USE_AMAF = range(4)
ALPHADDA, UCB1, ALPHADDA_CODE = 0, 1, 2  # the selection formulas (ALPHADDA_CODE: eq. 12 as the authors coded it)
_EPS_DIV = 1e-7  # AlphaDDA App. 3's epsilon
MAX_TABLE = 1 << 20  # the walk's tables for select_child hold at most this many visit counts (8 MB each)


@kernel(inline="always")
def policy_index(w, player, in_tree, first, n, epsilon, use_mast):
    """The playout policy over n moves, the children of a node from `first` on (`in_tree`) or w.legal: random
    with probability epsilon (or without MAST), else the best MAST average for `player`, moves never seen first,
    ties at random."""
    if not use_mast or uniform(w.rng) < epsilon:
        return randint(w.rng, n)
    best, ties, pick = -1.0, 0, 0
    for i in range(n):
        a = w.action[first + i] if in_tree else w.legal[i]
        seen = w.mast_visits[player, a]
        q = w.mast_value[player, a] / seen if seen > 0 else 2.0
        if q > best:
            best, ties, pick = q, 1, i
        elif q == best:
            ties += 1
            if randint(w.rng, ties) == 0:
                pick = i
    return pick


@kernel(inline="always")
def expand(g, w, node, use_amaf):
    """Add every legal move of the walk `w`'s state as a child of `node`; False (and the FULL flag) if out of room."""
    n = g.legal(w.s, w.legal)
    free = w.meta[FREE_NODE]
    if free + n > w.visits.shape[0]:
        w.meta[FULL] = 1
        return False
    for k in range(n):
        c = free + k
        w.action[c] = w.legal[k]
        w.visits[c] = 0.0
        w.value[c] = 0.0
        w.first_child[c] = -1
        w.n_children[c] = 0
        w.amaf_row[c] = -1
    w.first_child[node] = free
    w.n_children[node] = n
    w.meta[FREE_NODE] = free + n
    if use_amaf:
        give_amaf_row(w, node)
    return True


@kernel(inline="always")
def give_amaf_row(w, node):
    """A zeroed AMAF row for `node` if it has none (the FULL flag when none is free). A node gets it on its first
    visit, so its AMAF statistics count every playout through it, its first ones too (the authors' code does)."""
    if w.amaf_row[node] >= 0:
        return
    row = w.meta[FREE_ROW]
    if row < w.amaf_value.shape[0]:
        w.amaf_row[node] = row
        w.amaf_value[row] = 0.0
        w.amaf_visits[row] = 0.0
        w.meta[FREE_ROW] = row + 1
    else:
        w.meta[FULL] = 1


@kernel(inline="always")
def log_root(formula, n):
    """The root of the exploration term's logarithm for a parent count n: [AlphaDDA eq. 12]'s ln(n + 1), the
    AlphaDDA authors' 2 ln(n + 1) (n their children's visits), [SA-MCTS eq. 1]'s ln n."""
    if formula == ALPHADDA:
        return math.sqrt(math.log(n + 1.0))
    if formula == ALPHADDA_CODE:
        return math.sqrt(2.0 * math.log(n + 1.0))
    return math.sqrt(math.log(n))


@kernel(inline="always")
def inverse_root(formula, n):
    """1 / sqrt(n + eps) for a child's count n, eps AlphaDDA App. 3's (0 for UCB1, whose unvisited are apart)."""
    return 1.0 / math.sqrt(n + (0.0 if formula == UCB1 else _EPS_DIV))


@kernel(inline="always")
def select_child(w, node, first, n, mover, formula, use_amaf):
    """The child of `node` (children first .. first + n - 1) to descend into: best score, uniformly among those
    within VO of the best, by the parameters of the player to move."""
    c_explore = w.params[mover, C]
    k_equiv = w.params[mover, K]
    row = w.amaf_row[w.refs[mover]] if use_amaf else -1
    parent_visits = w.visits[node]
    # the exploration term's roots and logarithm are read from the walk's tables for the counts they hold
    # (computed, per child a division and a root and per node a logarithm cost a Connect4 search a fifth
    # of its speed)
    parent = parent_visits
    if formula == ALPHADDA_CODE:  # the AlphaDDA authors' MCTS: N the sum of the children's visits
        parent = 0.0
        for i in range(n):
            parent += w.visits[first + i]
    p = np.int64(parent)
    bonus = c_explore * (w.logs[p] if p < w.logs.shape[0] else log_root(formula, parent))
    best = -np.inf
    for i in range(n):
        visits = w.visits[first + i]
        v = np.int64(visits)
        root = w.roots[v] if v < w.roots.shape[0] else inverse_root(formula, visits)
        if formula != UCB1:
            # the sum of 2 x - 1 over scores x in [0, 1]: +1 / 0 / -1 a win / draw / loss
            q = 2.0 * w.value[first + i] - visits
            # [AlphaDDA eq. 12]: q / (N + eps) + C sqrt(ln(.) / (N + eps))
            score = q * root * root + bonus * root
        elif visits == 0.0:
            score = np.inf
        else:
            q = w.value[first + i] / visits  # a mean rounded once: equal means tie whatever their counts
            if row >= 0 and k_equiv > 0.0:
                a = w.action[first + i]
                amaf_n = w.amaf_visits[row, mover, a]
                if amaf_n > 0.0:
                    # [SA-MCTS eq. 3]
                    beta = 1.0 if k_equiv == np.inf else math.sqrt(k_equiv / (3.0 * parent_visits + k_equiv))
                    # [SA-MCTS eq. 2]
                    q = (1.0 - beta) * q + beta * w.amaf_value[row, mover, a] / amaf_n
            # [SA-MCTS eq. 1]
            score = q + bonus * root
        w.scores[i] = score
        if score > best:
            best = score
    floor = best - w.params[mover, VO]
    count = 0
    for i in range(n):
        if w.scores[i] >= floor:
            count += 1
    pick = randint(w.rng, count)
    chosen = first + n - 1
    for i in range(n):
        if w.scores[i] >= floor:
            if pick == 0:
                chosen = first + i
                break
            pick -= 1
    return chosen


@kernel(inline="always")
def descend(g, w, n_open, formula, use_mast, use_amaf):
    """The tree part of a simulation: from the root's state, select (or below T visits follow the playout policy)
    and expand until a leaf or the end of the game; the path and moves are left in the walk, its depth returned."""
    s = w.s
    copy_into(w.root_state, s)
    node = w.meta[ROOT]
    players = w.params.shape[0]
    if use_amaf:
        for p in range(players):  # per player, its GRAVE reference node: each player has its own Ref
            w.refs[p] = node
    depth = 0
    w.path[0] = node
    while not g.terminal(s):
        if w.first_child[node] < 0:
            if depth > 0 and w.visits[node] < n_open:
                if use_amaf:
                    give_amaf_row(w, node)
                break
            if not expand(g, w, node, use_amaf):
                break
        if use_amaf:
            # [SA-MCTS eq. 2] each player's reference: the deepest node on the path with at least that
            # player's Ref visits (else the root), whoever moves there
            for p in range(players):
                if w.visits[node] >= w.params[p, REF]:
                    w.refs[p] = node
        mover = g.to_move(s)
        first = w.first_child[node]
        n = w.n_children[node]
        if w.visits[node] < w.params[mover, T]:
            c = first + policy_index(w, mover, True, first, n, w.params[mover, EPSILON], use_mast)
        else:
            c = select_child(w, node, first, n, mover, formula, use_amaf)
        g.apply(s, w.action[c])
        w.moves[depth] = w.action[c]
        w.players[depth] = mover
        depth += 1
        w.path[depth] = c
        w.movers[depth] = mover
        node = c
    return depth


@kernel(inline="always")
def play_on(g, w, depth, use_mast, use_amaf):
    """The playout: from the walk's leaf (its `depth` moves in the tree) to the end of the game, each player's
    moves drawn by its own epsilon-greedy MAST policy (uniform without MAST); returns the simulation's moves."""
    s, legal = w.s, w.legal  # held for the whole playout: read once, not at every move
    n_moves = depth
    if not use_mast and not use_amaf:  # nothing reads the playout's moves: uniform, as policy_index draws them
        play_out(g, s, legal, w.rng)
    while not g.terminal(s):
        mover = g.to_move(s)
        n = g.legal(s, legal)
        a = legal[policy_index(w, mover, False, 0, n, w.params[mover, EPSILON], use_mast)]
        g.apply(s, a)
        w.moves[n_moves] = a
        w.players[n_moves] = mover
        n_moves += 1
    return n_moves


@kernel(inline="always")
def back_up(g, w, depth, n_moves, use_mast, use_amaf):
    """The backup: each player's score at the end into w.ret, each node on the path credited with the score of
    the player who moved into it (max^n), and the MAST and GRAVE (AMAF) statistics of the simulation's moves."""
    g.returns(w.s, w.ret)
    w.visits[w.path[0]] += 1.0
    for d in range(1, depth + 1):
        w.visits[w.path[d]] += 1.0
        w.value[w.path[d]] += w.ret[w.movers[d]]
    if use_mast:
        for j in range(n_moves):
            w.mast_visits[w.players[j], w.moves[j]] += 1.0
            w.mast_value[w.players[j], w.moves[j]] += w.ret[w.players[j]]
    if use_amaf:
        for d in range(depth + 1):
            row = w.amaf_row[w.path[d]]
            if row < 0:
                continue
            for j in range(d, n_moves):
                w.amaf_visits[row, w.players[j], w.moves[j]] += 1.0
                w.amaf_value[row, w.players[j], w.moves[j]] += w.ret[w.players[j]]


@kernel
def simulate(g, w):
    """One simulation of the walk `w` (see `new_walk`): select and expand in the tree, play out, back up each
    player's own score (max^n: a node's value is the score of the player who moved into it), left in w.ret.
    w.params [P, 6]: each player's search-control parameters, used wherever that player is to move. Called, not
    inlined: a call counts nothing (its arguments are borrowed, `games.jit.BorrowingLowering`), and when a strategy's
    steps were still inlined, numba 0.68.1 lost the walk's writes to the tree with this inlined beside them
    (run_tuned_simulations; tests/test_search.py guards it)."""
    n_open = w.settings[N_OPEN]
    formula = w.settings[FORMULA]
    use_mast = w.settings[USE_MAST] == 1
    use_amaf = w.settings[USE_AMAF] == 1
    depth = descend(g, w, n_open, formula, use_mast, use_amaf)
    n_moves = play_on(g, w, depth, use_mast, use_amaf)
    back_up(g, w, depth, n_moves, use_mast, use_amaf)


@structref.register
class WalkType(types.StructRef):
    """A simulation's whole context as one reference-counted object. Handed to the inlined steps of a simulation
    as a namedtuple of arrays (the tree) and loose arrays (the scratch), every array was counted in and out at
    every step: about a third of a Connect4 simulation went to reference counts."""

    def preprocess_fields(self, fields):
        return tuple((name, types.unliteral(t)) for name, t in fields)


class Walk(structref.StructRefProxy):
    """A walk held in Python: an opaque handle for compiled code (tests build one to call `descend`)."""


# a simulation's state, moves and path, each player's GRAVE reference node and its scores at the end
SCRATCH = ("s", "legal", "scores", "path", "movers", "moves", "players", "refs", "ret", "logs", "roots")
structref.define_boxing(WalkType, Walk)
# compiled code builds a walk as Walk(*fields): its field types are its arguments' (no type object handed in)
structref.define_constructor(Walk, WalkType, [*Tree._fields, "root_state", "params", "settings", "rng", *SCRATCH])


@kernel
def fill_tables(formula, logs, roots):
    """logs[v] = log_root(formula, v) and roots[v] = inverse_root(formula, v) for every count v (compiled, so that
    the tables hold what the fallback in select_child computes, bit for bit)."""
    for v in range(logs.shape[0]):
        logs[v], roots[v] = log_root(formula, np.float64(v)), inverse_root(formula, np.float64(v))


_TABLES: dict[int, tuple[np.ndarray, np.ndarray]] = {}


def tables(formula: int, counts: int) -> tuple[np.ndarray, np.ndarray]:
    """`select_child`'s tables for visit counts 0 .. counts - 1 at least (up to MAX_TABLE), shared by every search
    in the process and grown by doubling, so that a search's chunks of simulations pay nothing for them."""
    held = _TABLES.get(formula)
    if held is None or (held[0].shape[0] < counts and held[0].shape[0] < MAX_TABLE):
        size = min(MAX_TABLE, 1 << max(10, (counts - 1).bit_length()))
        held = (np.empty(size), np.empty(size))
        fill_tables(formula, *held)
        _TABLES[formula] = held
    return held


@kernel(inline="always")
def new_walk(tree, root_state, params, settings, rng, max_legal, max_length, logs, roots):
    """A walk over `tree` from `root_state`, with scratch for games of `max_length` moves and the formula's tables
    (`tables`)."""
    return Walk(
        tree.visits,
        tree.value,
        tree.first_child,
        tree.n_children,
        tree.action,
        tree.amaf_row,
        tree.amaf_value,
        tree.amaf_visits,
        tree.mast_value,
        tree.mast_visits,
        tree.meta,
        root_state,
        params,
        settings,
        rng,
        root_state.copy(),
        np.empty(max_legal, dtype=np.int64),
        np.empty(max_legal),
        np.empty(max_length + 1, dtype=np.int64),
        np.empty(max_length + 1, dtype=np.int64),
        np.empty(max_length, dtype=np.int64),
        np.empty(max_length, dtype=np.int64),
        np.empty(params.shape[0], dtype=np.int64),
        np.empty(params.shape[0]),
        logs,
        roots,
    )


@kernel
def run_simulations(g, tree, root_state, params, settings, n_simulations, rng, max_legal, max_length, logs, roots):
    """Up to `n_simulations` simulations from the tree's root; stops early when the tree is full."""
    w = new_walk(tree, root_state, params, settings, rng, max_legal, max_length, logs, roots)
    for i in range(n_simulations):
        if w.meta[FULL] == 1:
            return i
        simulate(g, w)
    return n_simulations


@kernel
def run_tuned_simulations(
    g,
    tree,
    root_state,
    params,
    settings,
    n_simulations,
    rng,
    max_legal,
    max_length,
    logs,
    roots,
    steps,
    states,
    values,
    columns,
):
    """As run_simulations, with each player's tuned parameters chosen before every simulation.

    steps: the strategy's compiled steps (search.allocation.AllocationSteps); states: a tuple of each player's
    strategy state; values [d, V]: the values of the d tuned parameters; columns [d]: their places in params.
    """
    w = new_walk(tree, root_state, params, settings, rng, max_legal, max_length, logs, roots)
    d = columns.shape[0]
    x = np.zeros((len(states), d), dtype=np.int64)
    for i in range(n_simulations):
        if w.meta[FULL] == 1:
            return i
        # [SA-MCTS Fig. 1]: each player's strategy chooses before the simulation and learns its result after
        for p in range(len(states)):
            steps.choose(states[p], rng, x[p])
            for j in range(d):
                params[p, columns[j]] = values[j, x[p, j]]
        simulate(g, w)
        for p in range(len(states)):
            steps.update(states[p], x[p], w.ret[p], rng)
    return n_simulations


@kernel
def run_batch_simulations(
    g,
    tree,
    root_state,
    params,
    settings,
    n_simulations,
    rng,
    max_legal,
    max_length,
    logs,
    roots,
    batches,
    sizes,
    next_row,
    rewards,
    columns,
):
    """As run_simulations, each player's tuned parameters taken in turn from its batch (one simulation per row,
    from next_row[p] on) and each row's reward written out; stops when a batch is used up.

    batches [P, rows, d]: parameter values per player and row, player p's in its first sizes[p] rows; rewards
    [P, rows]; columns [d]: their places in params.
    """
    w = new_walk(tree, root_state, params, settings, rng, max_legal, max_length, logs, roots)
    d = columns.shape[0]
    players = batches.shape[0]
    for i in range(n_simulations):
        if w.meta[FULL] == 1:
            return i
        for p in range(players):
            if next_row[p] == sizes[p]:
                return i
        for p in range(players):
            for j in range(d):
                params[p, columns[j]] = batches[p, next_row[p], j]
        simulate(g, w)
        for p in range(players):
            rewards[p, next_row[p]] = w.ret[p]
            next_row[p] += 1
    return n_simulations


@dataclass(frozen=True)
class SearchResult:
    """Root statistics of one search: per legal action its visits and mean reward in [0, 1] for the mover."""

    actions: np.ndarray
    visits: np.ndarray
    values: np.ndarray
    simulations: int
    seconds: float

    def score(self) -> float | None:
        """The mover's expected score by this search (win 1, draw 0.5): its moves' values weighted by their
        visits; None if no move was visited."""
        total = float(self.visits.sum())
        return float(self.visits @ self.values) / total if total > 0 else None

    def most_visited(self, rng) -> int:
        """The most visited action, ties broken with `rng`."""
        best = np.flatnonzero(self.visits == self.visits.max())
        return int(self.actions[best[randint(rng, len(best))]])


class MCTS:
    """A tree search over one game that keeps its tree (and MAST statistics) from move to move.

    `params` is the float vector (C, epsilon, K, Ref, VO, T); `settings` the int vector
    (N_open, formula, use MAST, use AMAF). `mast_decay` multiplies the MAST statistics after
    every real move. `tuners` (optional): allocation strategies of one kind, one per player [SA-MCTS
    IV], that choose `tuned` (parameter indices C..T). A strategy with compiled `steps`
    (search.allocation) and state `compiled` chooses before every simulation; one without (CMA-ES)
    gives a generation at a time (`ask_generation`, `tell_generation`). Both give `space`, `values`,
    `recommend`, `reset(seed)` and `finished`.
    """

    def __init__(self, game, params, settings, rng, *, mast_decay=0.2, nodes=1 << 12, tuners=None, tuned=()):
        self.game = game
        self.params = np.tile(np.asarray(params, dtype=np.float64), (game.players, 1))
        self.tuners = tuners
        self._batches = None  # CMA-ES: its generations, player p's values in rows [p, :sizes[p]], and their rewards
        self._next_row = np.zeros(game.players, dtype=np.int64)  # per player, the row its next simulation uses
        if tuners is not None:
            if len(tuners) != game.players:
                raise ValueError(f"give one tuner per player: {game.name} has {game.players}, not {len(tuners)}")
            space = tuners[0].space
            self._columns = np.asarray(tuned, dtype=np.int64)
            self._values = np.full((len(space), int(space.sizes.max())), np.nan)
            for j, p in enumerate(space.params):
                self._values[j, : len(p.values)] = p.values
            self._batched = not hasattr(tuners[0], "steps")  # CMA-ES: a generation per call
        self.settings = np.asarray(settings, dtype=np.int64)
        self.rng = rng
        self.mast_decay = mast_decay
        self._allocate(nodes, nodes // 4 if self.settings[USE_AMAF] else 0)
        self._root_history = None

    def _allocate(self, nodes, amaf_rows):
        """The tree and a spare of the same size: re-rooting copies into the spare and swaps."""
        actions = self.game.num_distinct_actions()
        self.tree = new_tree(actions, nodes, amaf_rows, self.game.players)
        self._spare = new_tree(actions, nodes, amaf_rows, self.game.players)

    def reset(self):
        """Forget the tree, the MAST statistics and what the tuners learnt (a new game, whose tuners
        start from new random points: CMA-ES draws its x0 afresh [SA-MCTS VI-A])."""
        clear(self.tree)
        self._root_history = None
        self._batches = None
        if self.tuners is not None:  # seeded from the search's stream: a game reseeded alone replays alone
            for tuner in self.tuners:
                tuner.reset(seed=int(next_u64(self.rng)))

    def search(self, state, *, simulations: int | None = None, seconds: float | None = None) -> SearchResult:
        """Search from `state` for a number of simulations or of seconds (at least one simulation).

        Args:
            state: the position to search (a `games.State`); the tree is kept if it continues the last one.
            simulations, seconds: the budget, exactly one of them.
        Returns:
            the root's statistics: per legal action its visits and mean reward for the player to move.
        """
        if (simulations is None) == (seconds is None):
            raise ValueError("give exactly one budget: simulations or seconds")
        self.move_root(state.history())
        start = time.perf_counter()
        done, chunk = 0, 16
        while True:
            todo = chunk if seconds is not None else simulations - done
            done += self._simulate(state, todo)
            if self.tree.meta[FULL]:
                self._grow()
            elapsed = time.perf_counter() - start
            if seconds is None:
                if done >= simulations:
                    break
            elif elapsed >= seconds:
                break
            else:  # about 10 ms of simulations per call, never much past the deadline
                chunk = max(16, int(done / max(elapsed, 1e-9) * min(0.01, seconds - elapsed)))
        actions, visits, values = root_statistics(self.tree)
        return SearchResult(actions, visits, values, done, time.perf_counter() - start)

    def _simulate(self, state, n):
        """Up to n simulations from `state`, tuned as this search's tuners say; returns how many ran."""
        g = self.game
        common = (g.kernels, self.tree, state.array, self.params, self.settings, n, self.rng)
        counts = int(self.tree.visits[self.tree.meta[ROOT]]) + n + 1  # no node's visits pass them in this call
        common += (g.max_legal, g.max_game_length, *tables(int(self.settings[FORMULA]), counts))
        if self.tuners is None:
            return run_simulations(*common)
        if not self._batched:
            states = tuple(tuner.compiled for tuner in self.tuners)
            return run_tuned_simulations(*common, self.tuners[0].steps, states, self._values, self._columns)
        if all(tuner.finished for tuner in self.tuners):  # all have settled on their best: plain simulations
            for p, tuner in enumerate(self.tuners):
                self.params[p, self._columns] = tuner.values(tuner.recommend())
            return run_simulations(*common)
        if self._batches is None:
            self._batches = self._ask([tuner.ask_generation() for tuner in self.tuners])
            self._next_row[:] = 0
        batches, sizes, rewards = self._batches
        ran = run_batch_simulations(*common, batches, sizes, self._next_row, rewards, self._columns)
        if any(self._next_row == sizes):
            generations = []
            for p, tuner in enumerate(self.tuners):
                if self._next_row[p] == sizes[p]:
                    tuner.tell_generation(rewards[p, : sizes[p]])
                    generations.append(tuner.ask_generation())
                    self._next_row[p] = 0
                else:
                    generations.append(None)
            self._batches = self._ask(generations, self._batches)
        return ran

    def _ask(self, generations, old=None):
        """(batches, sizes, rewards) for run_batch_simulations: each player's generation (points of its tuner's
        ask_generation) as parameter values, one row per point, with room for their rewards; where a player's
        generation is None, its rows and rewards so far from `old`."""
        sizes = np.array([len(g) if g is not None else old[1][p] for p, g in enumerate(generations)], dtype=np.int64)
        batches = np.zeros((len(generations), int(sizes.max()), self._columns.size))
        rewards = np.zeros(batches.shape[:2])
        for p, (tuner, points) in enumerate(zip(self.tuners, generations)):
            if points is None:
                batches[p, : sizes[p]] = old[0][p, : sizes[p]]
                rewards[p, : sizes[p]] = old[2][p, : sizes[p]]
            else:
                batches[p, : sizes[p]] = [tuner.values(x) for x in points]
        return batches, sizes, rewards

    def move_root(self, history):
        """Re-root at `history` if it continues the tree's game (keeping the subtree), else start afresh."""
        known = self._root_history
        if known is None or history[: len(known)] != known:
            clear(self.tree)
        else:
            node = self.tree.meta[ROOT]
            for a in history[len(known) :]:
                node = child(self.tree, node, a) if node >= 0 else -1
            if node < 0:
                clear(self.tree, keep_mast=True)
            elif node != self.tree.meta[ROOT]:
                copy_subtree(self.tree, self._spare, node)
                self.tree, self._spare = self._spare, self.tree
            factor = self.mast_decay ** (len(history) - len(known))
            self.tree.mast_value[:] *= factor
            self.tree.mast_visits[:] *= factor
        self._root_history = list(history)

    def _grow(self):
        """Double the room of a full tree, keeping the current root's subtree."""
        old = self.tree
        nodes = old.visits.shape[0] * (2 if old.meta[FREE_NODE] > old.visits.shape[0] // 2 else 1)
        rows = old.amaf_value.shape[0] * (2 if old.meta[FREE_ROW] >= old.amaf_value.shape[0] // 2 else 1)
        self._allocate(nodes, rows)
        copy_subtree(old, self.tree, old.meta[ROOT])
