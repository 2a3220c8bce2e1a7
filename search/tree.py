"""The search tree as preallocated arrays, shared by every tree search.

Nodes live in flat arrays; a node's children are contiguous (first_child .. first_child +
n_children). Values are sums of rewards in [0, 1] from the view of the player who made the move
into the node. Visited nodes may own a row of AMAF statistics (GRAVE); MAST statistics are per
player and action. Shapes: M nodes, R AMAF rows, P players, A = the game's num_distinct_actions.
"""

from collections import namedtuple

import numpy as np

from games.jit import kernel
from games.kernels import copy_into

Tree = namedtuple(
    "Tree",
    [
        "visits",  # float64 [M]
        "value",  # float64 [M]   reward sum for the player who moved into the node
        "first_child",  # int64 [M]  -1 until expanded
        "n_children",  # int64 [M]
        "action",  # int64 [M]     the move leading to the node
        "amaf_row",  # int64 [M]   row in the AMAF tables, -1 for none
        "amaf_value",  # float32 [R, P, A]  reward sums per player to move and action
        "amaf_visits",  # float32 [R, P, A]
        "mast_value",  # float64 [P, A]
        "mast_visits",  # float64 [P, A]
        "meta",  # int64 [4]: root, next free node, next free AMAF row, 1 if the tree ran out of room
    ],
)
ROOT, FREE_NODE, FREE_ROW, FULL = 0, 1, 2, 3


def new_tree(num_actions: int, nodes: int, amaf_rows: int = 0, players: int = 2) -> Tree:
    """An empty tree for a game of `players` players with room for `nodes` nodes and `amaf_rows` AMAF rows (0 when
    GRAVE is off)."""
    tree = Tree(
        visits=np.zeros(nodes),
        value=np.zeros(nodes),
        first_child=np.full(nodes, -1, dtype=np.int64),
        n_children=np.zeros(nodes, dtype=np.int64),
        action=np.full(nodes, -1, dtype=np.int64),
        amaf_row=np.full(nodes, -1, dtype=np.int64),
        amaf_value=np.zeros((amaf_rows, players, num_actions), dtype=np.float32),
        amaf_visits=np.zeros((amaf_rows, players, num_actions), dtype=np.float32),
        mast_value=np.zeros((players, num_actions)),
        mast_visits=np.zeros((players, num_actions)),
        meta=np.zeros(4, dtype=np.int64),
    )
    tree.meta[FREE_NODE] = 1  # node 0 is the root
    return tree


@kernel
def copy_subtree(src, dst, node):
    """Copy the subtree of `src` below `node` into `dst` (whatever it held), rooted at dst's node 0."""
    queue = np.empty(src.visits.shape[0], dtype=np.int64)  # src node of each dst node, in BFS order
    queue[0] = node
    head, tail = 0, 1
    free_row = 0
    while head < tail:
        s = queue[head]
        d = head
        head += 1
        dst.visits[d] = src.visits[s]
        dst.value[d] = src.value[s]
        dst.action[d] = src.action[s]
        dst.first_child[d] = -1  # every field is written: `dst` may be a reused tree
        dst.n_children[d] = 0
        dst.amaf_row[d] = -1
        if src.amaf_row[s] >= 0 and free_row < dst.amaf_value.shape[0]:
            dst.amaf_row[d] = free_row
            for p in range(src.amaf_value.shape[1]):
                copy_into(src.amaf_value[src.amaf_row[s], p], dst.amaf_value[free_row, p])
                copy_into(src.amaf_visits[src.amaf_row[s], p], dst.amaf_visits[free_row, p])
            free_row += 1
        if src.first_child[s] >= 0:
            dst.first_child[d] = tail
            dst.n_children[d] = src.n_children[s]
            for k in range(src.n_children[s]):
                queue[tail] = src.first_child[s] + k
                tail += 1
    for p in range(src.mast_value.shape[0]):
        copy_into(src.mast_value[p], dst.mast_value[p])
        copy_into(src.mast_visits[p], dst.mast_visits[p])
    dst.meta[ROOT] = 0
    dst.meta[FREE_NODE] = tail
    dst.meta[FREE_ROW] = free_row
    dst.meta[FULL] = 0
    return tail


def clear(tree: Tree, keep_mast: bool = False) -> None:
    """Empty the tree in place (a lone root); only the fields that `expand` does not rewrite are reset."""
    tree.meta[:] = (0, 1, 0, 0)
    tree.visits[0], tree.value[0] = 0.0, 0.0
    tree.first_child[0], tree.n_children[0], tree.action[0], tree.amaf_row[0] = -1, 0, -1, -1
    if not keep_mast:
        tree.mast_value[:] = 0.0
        tree.mast_visits[:] = 0.0


def child(tree: Tree, node: int, action: int) -> int:
    """The child of `node` reached by `action`, or -1 if it is not in the tree."""
    first = tree.first_child[node]
    if first < 0:
        return -1
    hits = np.nonzero(tree.action[first : first + tree.n_children[node]] == action)[0]
    return int(first + hits[0]) if len(hits) else -1


def root_statistics(tree: Tree) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(actions, visits, mean reward in [0, 1] for the player to move) of the root's children."""
    root = tree.meta[ROOT]
    first, n = tree.first_child[root], tree.n_children[root]
    if first < 0:
        return np.zeros(0, dtype=np.int64), np.zeros(0), np.zeros(0)
    visits = tree.visits[first : first + n].copy()
    values = tree.value[first : first + n]
    mean = np.divide(values, visits, out=np.full(n, 0.5), where=visits > 0)
    return tree.action[first : first + n].copy(), visits, mean
