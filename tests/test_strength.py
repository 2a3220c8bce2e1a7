"""Softmax-z move choice and the dynamic strength adjusters, against Wu et al.'s formulas."""

import math

import numpy as np
import pytest

import games
from games.rng import make_rng
from search.move_choice import choose_move, move_probabilities
from search.strength import InterGame, IntraGame
from tuner.agents import make_agent
from tuner.match import play_game, play_match

VISITS = np.array([100.0, 50.0, 20.0, 9.0, 0.0])  # with R_th = 0.1 the candidates are 100, 50, 20


@pytest.mark.parametrize(
    "z, expected",
    [
        (1.0, [100 / 170, 50 / 170, 20 / 170, 0, 0]),
        (0.5, np.array([10, math.sqrt(50), math.sqrt(20), 0, 0]) / (10 + math.sqrt(50) + math.sqrt(20))),
        (0.0, [1 / 3, 1 / 3, 1 / 3, 0, 0]),
        (-1.0, np.array([1 / 100, 1 / 50, 1 / 20, 0, 0]) / (1 / 100 + 1 / 50 + 1 / 20)),
        (math.inf, [1, 0, 0, 0, 0]),
        (-math.inf, [0, 0, 1, 0, 0]),
    ],
)
def test_softmax_z_matches_the_formula(z, expected):
    np.testing.assert_allclose(move_probabilities(VISITS, z, 0.1), expected, rtol=1e-12)


def test_threshold_and_ties():
    # R_th = 0: every searched move is a candidate (never an unsearched one)
    np.testing.assert_allclose(move_probabilities(VISITS, 1.0, 0.0), [100 / 179, 50 / 179, 20 / 179, 9 / 179, 0])
    np.testing.assert_allclose(move_probabilities(VISITS, -math.inf, 0.0), [0, 0, 0, 1, 0])
    # R_th = 1: only the most visited move, as plain MCTS
    assert move_probabilities(VISITS, -3.0, 1.0).tolist() == [1, 0, 0, 0, 0]
    np.testing.assert_allclose(move_probabilities([10, 10, 5], math.inf, 0.1), [0.5, 0.5, 0])
    np.testing.assert_allclose(move_probabilities([10, 5, 5], -math.inf, 0.1), [0, 0.5, 0.5])


def test_sampling_follows_the_probabilities():
    rng = make_rng(0)
    actions = np.arange(5)
    draws = np.bincount([choose_move(actions, VISITS, 0.5, 0.1, rng) for _ in range(20000)], minlength=5)
    expected = move_probabilities(VISITS, 0.5, 0.1) * 20000
    assert draws[3] == 0 and draws[4] == 0
    assert np.all(np.abs(draws[:3] - expected[:3]) < 4 * np.sqrt(expected[:3]))


def test_inter_game_schedule_by_hand():
    adj = InterGame()
    assert adj.z == 0 and adj.dz == 0.375
    adj.game_over([1.0, -1.0], player=0)  # a win: z falls by 0.375
    assert adj.z == pytest.approx(-0.375) and adj.dz == pytest.approx(0.375 * 0.95)
    adj.game_over([1.0, -1.0], player=1)  # a loss: z rises by 0.375 * 0.95
    assert adj.z == pytest.approx(-0.375 + 0.375 * 0.95)
    adj.game_over([0.0, 0.0], player=1)  # a draw: z stays, dz still shrinks
    assert adj.z == pytest.approx(-0.375 + 0.375 * 0.95) and adj.dz == pytest.approx(0.375 * 0.95**3)
    for _ in range(200):
        adj.game_over([0.0, 0.0], player=0)
    assert adj.dz == 0.03  # the floor
    adj.reset()
    assert (adj.z, adj.dz, adj.games) == (0.0, 0.375, 0)


def test_inter_game_reheat_by_hand():
    """dz_reheat=3: Wu's x0.95 after every game, except that the third decisive result of one sign in a row, and
    each further one, doubles dz (at most its start); a draw neither breaks nor extends the run, and cools dz.
    z moves by the dz in force before the game, as Wu's."""
    adj = InterGame(dz=0.4, decay=0.5, dz_min=0.03, reheat=3)
    win, loss, draw = [1.0, -1.0], [-1.0, 1.0], [0.0, 0.0]
    steps = [  # (returns, player 0's z after, dz after, the run)
        (loss, 0.4, 0.2, -1),
        (loss, 0.6, 0.1, -2),
        (draw, 0.6, 0.05, -2),
        (loss, 0.65, 0.1, -3),  # the third loss in a row (the draw between): doubled
        (loss, 0.75, 0.2, -4),
        (loss, 0.95, 0.4, -5),
        (loss, 1.35, 0.4, -6),  # at most the starting dz
        (win, 0.95, 0.2, 1),  # the run is broken: Wu's cooling again
        (win, 0.75, 0.1, 2),
    ]
    for returns, z, dz, run in steps:
        adj.game_over(returns, player=0)
        assert (adj.z, adj.dz, adj.run) == (pytest.approx(z), pytest.approx(dz), run)
    adj.game_over(loss, player=1)  # from player 1's view this is a win: the run is the agent's own
    assert adj.run == 3 and adj.dz == pytest.approx(0.2)


def test_inter_game_reheat_follows_a_stronger_opponent_where_wus_schedule_cannot():
    """After 60 games of alternating results both dz are at the floor 0.03; 10 losses then raise Wu's z by 0.3,
    and with dz_reheat=6 by 6 x 0.03 (the sixth loss is played at the floor, then doubles it) + 0.06 + 0.12 + 0.24
    + 0.375 = 0.975."""
    wu, reheat = InterGame(), InterGame(reheat=6)
    for adj in (wu, reheat):
        for i in range(60):
            adj.game_over([1.0, -1.0] if i % 2 else [-1.0, 1.0], player=0)
        assert adj.dz == 0.03
        before = adj.z
        for _ in range(10):
            adj.game_over([-1.0, 1.0], player=0)
        adj.rise = adj.z - before
    assert wu.rise == pytest.approx(0.3) and reheat.rise == pytest.approx(6 * 0.03 + 0.06 + 0.12 + 0.24 + 0.375)


def test_a_target_makes_wus_rules_aim_at_it():
    """Aim 0.4 (the opponent's target 0.6): a win lowers z by 2 x 0.6 dz, a loss raises it by 2 x 0.4 dz, so z stands
    still on average where the agent wins 0.4 of its decisive games; within a game W is held at 0.4."""
    adj = InterGame(dz=0.375, decay=1.0, aim=0.4)
    adj.game_over([1.0, -1.0], player=0)
    assert adj.z == pytest.approx(-0.45)
    adj.game_over([-1.0, 1.0], player=0)
    assert adj.z == pytest.approx(-0.45 + 0.3)
    intra = IntraGame(dz=0.2, eps=0.1, moves=10, aim=0.4)
    assert intra.step(0.45) == pytest.approx(-0.2 * 0.05 / 0.1) and intra.step(0.4) == 0.0 and intra.step(0.3) == 0.2
    # a logistic opponent: the agent wins with probability 1 / (1 + exp(-2 z)); Wu's schedule settles where that is
    # the aim, so over games 501-3000 the agent scores near 0.4 (0.5 with Wu's own aim)
    rng = np.random.default_rng(7)
    for aim in (0.4, 0.5):
        adj, wins = InterGame(aim=aim), []
        for _ in range(3000):
            win = rng.random() < 1.0 / (1.0 + math.exp(-2.0 * adj.z))
            adj.game_over([1.0, -1.0] if win else [-1.0, 1.0], player=0)
            wins.append(win)
        assert np.mean(wins[500:]) == pytest.approx(aim, abs=0.03)
    assert make_agent(C4, "mcts:dsa=both,dda_target=0.6").adjuster.inter.aim == pytest.approx(0.4)
    with pytest.raises(ValueError, match="dda_target set the on-line DDA tuner"):
        make_agent(C4, "mcts:dsa=fixed,dda_target=0.6")


def test_intra_game_eq_18_by_hand():
    adj = IntraGame(dz=0.2, eps=0.1, moves=10)
    assert adj.step(0.8) == pytest.approx(-0.2)  # |W - 0.5| >= eps: the full step, down when ahead
    assert adj.step(0.3) == pytest.approx(0.2)  # behind: up
    assert adj.step(0.55) == pytest.approx(-0.2 * 0.05 / 0.1)  # inside the band: proportional
    assert adj.step(0.5) == 0.0
    adj.moves_made = 4  # dZ cools linearly: 0.2 * (1 - 4/10)
    assert adj.step(0.9) == pytest.approx(-0.12)
    adj.moves_made = 10
    assert adj.step(0.9) == 0.0


C4 = games.load("connect4")


def test_intra_state_lives_for_one_game_and_inter_for_one_match():
    agent = make_agent(C4, "mcts:simulations=200,dsa=intra", seed=0)
    opponent = make_agent(C4, "random", seed=1)
    agent.new_game(seed=0)
    state = C4.new_initial_state()
    zs = []
    while not state.is_terminal():
        player = state.current_player()
        action = (agent if player == 0 else opponent).select_action(state)
        if player == 0:
            zs.append(agent.adjuster.z)
            assert agent.z == agent.adjuster.z  # the move was chosen with the adjusted z
        state.apply_action(action)
    assert len(set(zs)) > 1 and zs[-1] < 0  # z moved from move to move, falling while winning against random
    agent.new_game(seed=1)
    assert agent.adjuster.z == 0.0 and agent.adjuster.moves_made == 0

    inter = make_agent(C4, "mcts:simulations=100,dsa=inter", seed=0)
    for i in range(4):
        play_game(C4, inter, opponent, seed=0, index=i)
    assert inter.adjuster.games == 4 and inter.adjuster.z < 0  # kept across the games of the match
    fresh = play_match("connect4", "mcts:simulations=100,dsa=inter", "random", games=2, seed=0)
    assert fresh.total.games == 2  # every match builds new agents, so its adjusters start afresh


def test_z_keys_reach_the_move_choice():
    agent = make_agent(C4, "mcts:simulations=400,z=-inf,rth=0.1", seed=3)
    action = agent.select_action(C4.new_initial_state())
    result = agent.last_search
    candidates = result.visits[result.visits >= 0.1 * result.visits.max()]
    assert result.visits[list(result.actions).index(action)] == candidates.min()
    with pytest.raises(ValueError, match="expected one of none, inter, intra"):
        make_agent(C4, "mcts:dsa=sometimes")


def test_floor_turns_z_below_it_into_fewer_simulations():
    agent = make_agent(C4, "mcts:simulations=400,dsa=inter,floor=-2", seed=0)
    adj = agent.adjuster
    agent.apply(adj.knobs(-1.0))
    assert (agent.z, agent.simulations) == (-1.0, 400)
    agent.apply(adj.knobs(-3.0))
    assert (agent.z, agent.simulations) == (-2.0, 200)  # one unit below the floor: half the budget
    agent.apply(adj.knobs(-12.0))
    assert (agent.z, agent.simulations) == (-2.0, 1)  # never below one simulation
    off = make_agent(C4, "mcts:simulations=400,dsa=inter,floor=-inf", seed=0)
    off.apply(off.adjuster.knobs(-12.0))
    assert (off.z, off.simulations) == (-12.0, 400)  # the paper's rule: z alone
