"""The compiled random stream and the random-playout kernel: seeded, repeatable, uniform."""

import numpy as np
import pytest
from numba import njit

import games
from games.kernels import random_playouts
from games.rng import make_rng, randint, uniform
from tuner.agents import make_agent


def draws(seed, n, k):
    rng = make_rng(seed)
    return [randint(rng, k) for _ in range(n)]


def test_same_seed_same_stream_other_seed_other_stream():
    assert draws(42, 50, 1000) == draws(42, 50, 1000)
    assert draws(42, 50, 1000) != draws(43, 50, 1000)


def test_splitmix64_reference_values():
    # SplitMix64 (Steele, Lea, Flood 2014) from state 0: the first output is 0xE220A8397B1DCDAF.
    from games.rng import next_u64

    assert int(next_u64(np.zeros(1, dtype=np.uint64))) == 0xE220A8397B1DCDAF


@pytest.mark.parametrize("k", [2, 7, 37])
def test_randint_is_uniform(k):
    counts = np.bincount(draws(7, 20000 * k, k), minlength=k)
    assert len(counts) == k
    expected = 20000
    chi2 = ((counts - expected) ** 2 / expected).sum()
    assert chi2 < k + 6 * np.sqrt(2 * k)  # far beyond the 99.9% quantile of chi-square(k - 1)


def test_uniform_floats_in_unit_interval():
    rng = make_rng(3)
    xs = np.array([uniform(rng) for _ in range(20000)])
    assert xs.min() >= 0.0 and xs.max() < 1.0
    assert abs(xs.mean() - 0.5) < 0.01


@pytest.mark.parametrize("name", games.names())
def test_playouts_are_seeded_and_counted(name):
    game = games.load(name)
    root = game.new_initial_state().array
    a = random_playouts(game.kernels, root, 300, game.max_legal, make_rng(5))
    b = random_playouts(game.kernels, root, 300, game.max_legal, make_rng(5))
    assert a.sum() == 300 and np.array_equal(a, b)
    assert np.array_equal(root, game.new_initial_state().array)  # the root is not touched


def test_playout_from_a_won_position_returns_the_winner():
    state = games.load("connect4").new_initial_state()
    for a in [0, 1, 0, 1, 0, 1, 0]:  # player 0 stacks four in column 0
        state.apply_action(a)
    assert state.returns() == [1.0, -1.0]
    counts = random_playouts(state.game.kernels, state.array, 10, 7, make_rng(0))
    assert counts.tolist() == [10, 0, 0]


@njit
def _loop_playout(g, s, buf, rng):
    """The generic playout, written out: a game's own `playout` must play these very moves."""
    while not g.terminal(s):
        n = g.legal(s, buf)
        g.apply(s, buf[randint(rng, n)])


@pytest.mark.parametrize("name", [n for n in games.names() if games.load(n).kernels.playout is not None])
def test_a_games_own_playout_plays_the_moves_of_the_generic_loop(name):
    game = games.load(name)
    picks = np.random.default_rng(3)
    for seed in range(300):  # from positions 0 to 40 plies in: columns fill, the list of open ones shrinks
        state = game.new_initial_state()
        for _ in range(picks.integers(0, 41)):
            if state.is_terminal():
                break
            state.apply_action(int(picks.choice(state.legal_actions())))
        ours, loop = state.array.copy(), state.array.copy()
        rng_ours, rng_loop = make_rng(seed), make_rng(seed)
        game.kernels.playout(ours, np.empty(game.max_legal, dtype=np.int64), rng_ours)
        _loop_playout(game.kernels, loop, np.empty(game.max_legal, dtype=np.int64), rng_loop)
        assert np.array_equal(ours, loop) and rng_ours[0] == rng_loop[0], seed


def test_a_search_with_the_games_own_playout_is_the_search_without_it():
    # plain MCTS plays out through the game's own playout (MAST and GRAVE read the moves, so they never do:
    # test_t_switch_uses_the_playout_policy_below_t_visits catches a MAST search that would)
    game = games.load("connect4")
    plain = type("Connect4Loop", (type(game),), {"kernels": game.kernels._replace(playout=None)})()
    state = game.new_initial_state()
    for a in [3, 3, 2, 4]:
        state.apply_action(a)
    found = []
    for g in (game, plain):
        agent = make_agent(g, "mcts:simulations=400", seed=11)
        agent.select_action(state)
        found.append(agent.last_search)
    assert np.array_equal(found[0].visits, found[1].visits) and np.array_equal(found[0].values, found[1].values)
