"""AlphaZero's PUCT search: eq. (8) by hand, first-visit priors, backup signs, virtual loss, lock-step batches."""

import math

import numpy as np
import pytest

import games
from games.rng import make_rng
from search.evaluator import Batch, UniformEvaluator
from search.puct import PUCT, PUCT_RULE, Request, best_child, new_forest

C4 = games.load("connect4")


class FixedPriors:
    """A deterministic evaluator: priors proportional to `weights` over the legal actions, value `value`."""

    game = None

    def __init__(self, weights, value=0.0):
        self.weights, self.value = np.asarray(weights, dtype=np.float32), value
        self.calls = []

    def new_batch(self, game, capacity):
        return Batch.zeros(game, capacity)

    def evaluate(self, batch, n):
        self.calls.append(n)
        p = batch.legal[:n] * self.weights[None, :]
        batch.priors[:n] = p / p.sum(axis=1, keepdims=True)
        batch.values[:n] = self.value


class HashPriors(FixedPriors):
    """Priors and values that depend on each row's position: a mix-up between rows changes the search."""

    def evaluate(self, batch, n):
        self.calls.append(n)
        for b in range(n):
            h = np.frombuffer(batch.states[b].tobytes(), dtype=np.uint8).astype(np.int64)
            weights = 1.0 + (h.sum() * 7 + np.arange(batch.legal.shape[1]) * 13) % 11
            p = batch.legal[b] * weights
            batch.priors[b] = p / p.sum()
            batch.values[b] = ((h * np.arange(1, h.size + 1)).sum() % 201 - 100) / 100.0


def play(moves, game=C4):
    state = game.new_initial_state()
    for a in moves:
        state.apply_action(a)
    return state


def test_eq_8_by_hand():
    # a root with three children: (visits, value sum for the mover, prior)
    f = new_forest(1, 8)
    first, visits, value, prior = 1, [10.0, 3.0, 0.0], [6.0, 0.0, 0.0], [0.2, 0.3, 0.5]
    f.visits[0, 1:4], f.value[0, 1:4], f.prior[0, 1:4] = visits, value, prior
    parent_n = 1.0 + sum(visits)

    def score(k, c):
        q = value[k] / visits[k] if visits[k] else 0.0
        return q + c * prior[k] * math.sqrt(parent_n) / (1 + visits[k])

    for c in (0.1, 1.25, 5.0):
        expected = 1 + int(np.argmax([score(k, c) for k in range(3)]))
        got = best_child(PUCT_RULE, f.visits[0], f.value[0], f.prior[0], f.vloss[0], first, 3, parent_n, c, make_rng(0))
        assert got == expected
    # the winners differ across c: the test can tell the exploration term from the value term
    assert len({int(np.argmax([score(k, c) for k in range(3)])) for c in (0.1, 5.0)}) == 2


def test_virtual_loss_counts_as_a_pending_loss():
    f = new_forest(1, 8)
    f.visits[0, 1:3], f.value[0, 1:3], f.prior[0, 1:3] = [4.0, 4.0], [3.0, 2.9], [0.5, 0.5]
    assert best_child(PUCT_RULE, f.visits[0], f.value[0], f.prior[0], f.vloss[0], 1, 2, 9.0, 0.0, make_rng(0)) == 1
    f.vloss[0, 1] = 1.0  # one descent pending through child 1: Q = (3 - 1) / 5 < 2.9 / 4
    assert best_child(PUCT_RULE, f.visits[0], f.value[0], f.prior[0], f.vloss[0], 1, 2, 10.0, 0.0, make_rng(0)) == 2


def test_the_prior_counts_from_a_nodes_first_descent():
    # the root is expanded by the first simulation; the second must follow the prior (column 5), not a tie
    weights = np.ones(7)
    weights[5] = 50.0
    puct = PUCT(C4, FixedPriors(weights), games=1)
    (result,) = puct.search([Request(0, C4.new_initial_state(), 2)])
    assert result.visits.sum() == 1 and result.actions[np.argmax(result.visits)] == 5


def test_backup_by_hand_signs_from_each_movers_view():
    # every evaluation says +0.5 for the player to move at the leaf
    puct = PUCT(C4, FixedPriors(np.ones(7), value=0.5), games=1)
    state = C4.new_initial_state()
    puct.search([Request(0, state, 3)])  # root, then two of its children
    f = puct.forest
    first, n = f.first_child[0, 0], f.n_children[0, 0]
    visited = [c for c in range(first, first + n) if f.visits[0, c] > 0]
    assert f.visits[0, 0] == 3 and len(visited) == 2
    for c in visited:
        # the child's position has player 1 to move, who scores +0.5: for player 0, who moved into it, -0.5
        assert f.mover[0, c] == 0 and f.value[0, c] == pytest.approx(-0.5) and f.visits[0, c] == 1


def test_a_won_position_is_scored_exactly_and_found():
    # player 0 (to move) has three in column 0: playing 0 wins at once; every other move lets player 1 win
    state = play([0, 1, 0, 1, 0, 1])
    puct = PUCT(C4, UniformEvaluator(value="zero"), games=1)
    (result,) = puct.search([Request(0, state, 200)])
    best = result.actions[np.argmax(result.visits)]
    assert best == 0 and result.values[list(result.actions).index(0)] == 1.0  # a sure win: Q = +1
    # from player 1's side: it must block at 0; anything else loses
    state = play([0, 1, 0, 1, 0])
    (result,) = puct.search([Request(0, state, 400)])
    assert result.actions[np.argmax(result.visits)] == 0


def test_illegal_actions_never_become_children():
    rng = np.random.default_rng(0)
    othello = games.load("othello6")
    puct = PUCT(othello, FixedPriors(rng.random(othello.num_distinct_actions()) + 0.01), games=1)
    state = othello.new_initial_state()
    for _ in range(20):
        (result,) = puct.search([Request(0, state, 30)])
        assert sorted(result.actions.tolist()) == state.legal_actions()
        state.apply_action(int(result.actions[np.argmax(result.visits)]))
        if state.is_terminal():
            break


@pytest.mark.parametrize("leaves", [4, 16])
def test_virtual_loss_is_taken_back_exactly(leaves):
    puct = PUCT(C4, UniformEvaluator(value="playout", seed=1), games=3, leaves=leaves)
    states = [play([3]), play([2, 4]), C4.new_initial_state()]
    results = puct.search([Request(i, state, n) for i, state, n in zip([0, 1, 2], states, [100, 37, 64])])
    f = puct.forest
    assert not f.vloss.any()
    assert [r.simulations for r in results] == [100, 37, 64]
    for i, r in enumerate(results):
        root = f.meta[i, 0]
        # every simulation passed the root; all but the root's own evaluation went on to a child
        assert f.visits[i, root] == r.simulations and r.visits.sum() == r.simulations - 1


@pytest.mark.parametrize(
    "evaluator", [HashPriors(None), UniformEvaluator(value="playout", seed=4)], ids=["hash", "playout"]
)
@pytest.mark.slow
def test_a_game_alone_and_inside_a_batch_of_others_plays_the_same_moves(evaluator):
    openings = [[k % 7, (3 * k) % 7] for k in range(100)]  # every row its own position

    def moves_of(rows, row_of_interest):
        puct = PUCT(C4, evaluator, games=len(rows))
        for slot, i in enumerate(rows):
            puct.reset(slot, seed=1000 + i)
        states = [play(openings[i]) for i in rows]
        played = []
        for _ in range(10):
            live = [k for k in range(len(rows)) if not states[k].is_terminal()]
            results = puct.search([Request(k, states[k], 60) for k in live])
            for k, r in zip(live, results):
                a = int(r.actions[np.argmax(r.visits)])
                if rows[k] == row_of_interest:
                    played.append((a, r.visits.tolist()))
                states[k].apply_action(a)
        return played

    alone = moves_of([37], 37)
    inside = moves_of(list(range(100)), 37)
    assert alone == inside and len(alone) >= 5


def test_the_tree_is_kept_from_move_to_move():
    puct = PUCT(C4, UniformEvaluator(value="playout", seed=2), games=1, reuse=True)
    state = C4.new_initial_state()
    (first,) = puct.search([Request(0, state, 300)])
    a = int(first.actions[np.argmax(first.visits)])
    kept = first.visits.max()
    state.apply_action(a)
    (second,) = puct.search([Request(0, state, 1)])  # the root already holds the child's visits
    assert puct.forest.visits[0, 0] == kept + 1 and second.visits.sum() == kept


def test_a_kept_subtree_keeps_its_statistics_and_its_root_gets_noise_once():
    puct = PUCT(C4, HashPriors(None), games=1, reuse=True, noise_weight=0.25, noise_alpha=0.5, seed=3)
    state = C4.new_initial_state()
    puct.search([Request(0, state, 200)])
    f = puct.forest
    child = [c for c in range(f.first_child[0, 0], f.first_child[0, 0] + 7) if f.action[0, c] == 3][0]
    first = f.first_child[0, child]
    kept = {int(f.action[0, k]): (f.visits[0, k], f.value[0, k]) for k in range(first, first + f.n_children[0, child])}
    clean = {int(f.action[0, k]): f.prior[0, k] for k in range(first, first + f.n_children[0, child])}
    state.apply_action(3)
    puct.search([Request(0, state, 1)])  # re-rooted at the kept child: fresh noise on its priors, once
    first = f.first_child[0, 0]
    moved = {int(f.action[0, k]): (f.visits[0, k], f.value[0, k]) for k in range(first, first + 7)}
    noisy = {int(f.action[0, k]): f.prior[0, k] for k in range(first, first + 7)}
    assert sum(v for v, _ in moved.values()) == sum(v for v, _ in kept.values()) + 1
    assert all(moved[a][1] == kept[a][1] for a in kept if moved[a][0] == kept[a][0])  # value sums kept
    assert noisy != clean
    puct.search([Request(0, state, 1)])  # the same root again: no second helping of noise
    assert {int(f.action[0, k]): f.prior[0, k] for k in range(first, first + 7)} == noisy


def test_without_reuse_every_search_starts_from_a_fresh_tree():
    puct = PUCT(C4, HashPriors(None), games=1)
    state = C4.new_initial_state()
    puct.search([Request(0, state, 50)])
    state.apply_action(3)
    (result,) = puct.search([Request(0, state, 10)])
    assert puct.forest.visits[0, 0] == 10 and result.visits.sum() == 9


def test_dirichlet_noise_mixes_the_root_priors_and_repeats_from_a_seed():
    def root_priors(seed):
        puct = PUCT(C4, FixedPriors(np.ones(7)), games=1, noise_weight=0.25, noise_alpha=0.5, seed=seed)
        puct.search([Request(0, C4.new_initial_state(), 1)])
        f = puct.forest
        return f.prior[0, f.first_child[0, 0] : f.first_child[0, 0] + 7].copy()

    a, b, c = root_priors(0), root_priors(0), root_priors(1)
    assert a.sum() == pytest.approx(1.0) and (a >= 0.75 / 7 - 1e-6).all()  # (1 - w) / 7 at least
    assert np.array_equal(a, b) and not np.allclose(a, c) and not np.allclose(a, 1 / 7)


def test_the_forest_grows_when_a_tree_fills_up():
    puct = PUCT(C4, UniformEvaluator(value="playout", seed=3), games=2, nodes=16)
    results = puct.search([Request(0, C4.new_initial_state(), 500), Request(1, play([3]), 500)])
    assert puct.forest.visits.shape[1] >= 500 and [r.simulations for r in results] == [500, 500]
    assert results[0].visits.sum() == 499


@pytest.mark.parametrize("eps, lo, hi", [(0.0, 0.0, 0.03), (0.2, 0.13, 0.22), (1.0, 0.8, 0.9)])
def test_root_eps_sends_that_share_of_simulations_to_uniformly_random_root_children(eps, lo, hi):
    """Player 0 wins in one at column 0. Eq. (8) alone sends almost every simulation there; with root_eps
    a share eps of them goes to a random child, 6/7 of those elsewhere: 0.2 -> about 0.17, 1 -> 6/7."""
    state = C4.new_initial_state()
    for a in (0, 6, 0, 6, 0, 5):
        state.apply_action(a)
    puct = PUCT(C4, FixedPriors(np.ones(7)), games=1, root_eps=eps, seed=3)
    (result,) = puct.search([Request(0, state, 2000)])
    elsewhere = result.visits[result.actions != 0].sum() / result.visits.sum()
    assert lo <= elsewhere <= hi
    if eps == 1.0:
        assert result.visits.min() > 0.7 * result.visits.max()  # uniform over the 7 children
    with pytest.raises(ValueError, match="root_eps is a probability"):
        PUCT(C4, FixedPriors(np.ones(7)), root_eps=1.5)
