"""AlphaDDA1-3 [AlphaDDA eqs. 1-7]: the formulas hand-checked, the value history's window and signs, the
undamaged value of AlphaDDA2, AlphaDDA3's search at a win in one, and the spec's checks."""

import math

import numpy as np
import pytest

import games
from games.rng import make_rng
from search.alphadda import (
    ALPHADDA3_RULE,
    TABLE_1,
    TABLE_2,
    AlphaDDA1,
    AlphaDDA1Z,
    AlphaDDA2,
    AlphaDDA3,
    n_sim,
    p_drop,
)
from search.az import AZAgent
from search.evaluator import Batch, UniformEvaluator
from search.puct import FREE, PUCT, Request, best_child, new_forest
from tuner.agents import adapts_between_games, check_spec, make_agent, make_agents

C4 = games.load("connect4")


class StoneCounter:
    """A fake net: value 0.01 x stones on the board for the player to move, priors on the lowest legal
    column; it records the dropout of every row it answers."""

    def __init__(self, scale=0.01):
        self.scale, self.dropouts = scale, []

    def new_batch(self, game, capacity):
        return Batch.zeros(game, capacity)

    def evaluate(self, batch, n):
        self.dropouts.extend(batch.dropout[:n].tolist())
        batch.values[:n] = self.scale * batch.planes[:n, :2].sum(axis=(1, 2, 3))
        batch.priors[:n] = 0.0
        for r in range(n):
            batch.priors[r, np.flatnonzero(batch.legal[r])[0]] = 1.0


def play(moves):
    state = C4.new_initial_state()
    for m in moves:
        state.apply_action(m)
    return state


def test_n_sim_hand_checked_against_table_1():
    t = TABLE_1["connect4"]  # A_sim 2.0, B_sim0 -1.4, N_max 200
    args = (t["a_sim"], t["b_sim0"], t["n_max"])
    assert n_sim(1.0, *args) == 7  # ceil(10^0.8) = ceil(6.31)
    assert n_sim(0.5, *args) == 64  # ceil(10^1.8) = ceil(63.1)
    assert n_sim(0.0, *args) == 200  # 10^2.8 = 631, capped
    assert n_sim(-1.0, *args) == 200
    assert n_sim(1.0, 2.0, -1.0, 200) == 1  # ceil(10^0) = 1: never below one simulation
    assert n_sim(5.0, 2.0, -1.4, 200) == 1  # 10^-7.2 rounds up to 1
    assert n_sim(-1e6, 2.0, -1.4, 200) == 200  # no overflow far below
    sims = [n_sim(x, *args) for x in np.linspace(-1, 1, 41)]
    assert sims == sorted(sims, reverse=True)  # fewer simulations the more AlphaDDA1 is winning


def test_p_drop_hand_checked_against_table_2():
    t = TABLE_2["connect4"]  # A_drop 10, P_drop0 -0.2, P_max 0.95
    args = (t["a_drop"], t["p_drop0"], t["p_max"])
    assert p_drop(0.25, *args) == pytest.approx(0.5)
    assert p_drop(0.2, *args) == 0.0 and p_drop(-1.0, *args) == 0.0
    assert p_drop(1.0, *args) == 0.95
    o6 = TABLE_2["othello6"]  # A_drop 5, P_drop0 -0.5
    assert p_drop(0.6, o6["a_drop"], o6["p_drop0"], o6["p_max"]) == pytest.approx(0.5)


@pytest.mark.parametrize(
    "moves, nh, expected",
    [
        # plies 2, 3, 4 (the last 3 turns): first player's values +0.02, -0.03, +0.04; player 0 to move
        ([3, 3, 2, 2], 3, (0.02 - 0.03 + 0.04) / 3),
        # plies 3, 4, 5: -0.03, +0.04, -0.05 for the first player, seen by player 1 (c = -1)
        ([3, 3, 2, 2, 4], 3, -(-0.03 + 0.04 - 0.05) / 3),
        # fewer turns than N_h at the start: plies 0 and 1
        ([3], 3, -(0.0 - 0.01) / 2),
        ([3, 3, 2, 2, 4], 1, 0.05),  # the current position only, for its mover
    ],
)
def test_mean_value_window_and_signs(moves, nh, expected):
    adjuster = AlphaDDA1(C4, StoneCounter(), nh=nh, a_sim=2.0, b_sim0=-1.4, n_max=200)
    assert adjuster.mean_value(play(moves)) == pytest.approx(expected, abs=1e-6)


def test_value_history_is_per_game():
    counter = StoneCounter()
    adjuster = AlphaDDA1(C4, counter, nh=3, a_sim=2.0, b_sim0=-1.4, n_max=200)
    adjuster.mean_value(play([3, 3, 2, 2]))
    adjuster.mean_value(play([3, 3, 2, 2, 4, 4]))  # the same game: only plies 5 and 6 are new
    assert len(counter.dropouts) == 3 + 2
    # another game reaching ply 4 by other moves: its values are evaluated afresh, none carried over
    assert adjuster.mean_value(play([0, 0, 1, 1])) == pytest.approx((0.02 - 0.03 + 0.04) / 3, abs=1e-6)
    assert len(counter.dropouts) == 5 + 3


def test_alphadda1_searches_the_simulations_of_eq_2():
    counter = StoneCounter(scale=0.1)  # 0.1 per stone: at ply 8, v = 0.8 for the player to move
    puct = PUCT(C4, counter, seed=0)
    adjuster = AlphaDDA1(C4, counter, nh=1, a_sim=2.0, b_sim0=-1.4, n_max=200)
    agent = AZAgent(C4, 0, puct, 0, simulations=200, adjuster=adjuster)
    agent.select_action(play([0, 0, 1, 1, 2, 2, 6, 6]))
    assert agent.last_search.simulations == n_sim(0.8, 2.0, -1.4, 200) == 16  # ceil(10^1.2) = ceil(15.8)
    agent.select_action(play([0, 0]))  # v = 0.2: the full N_max
    assert agent.last_search.simulations == 200


def test_alphadda2_value_from_the_undamaged_net_search_damaged():
    counter = StoneCounter(scale=0.1)
    puct = PUCT(C4, counter, seed=0)
    adjuster = AlphaDDA2(C4, counter, nh=1, a_drop=10.0, p_drop0=-0.2, p_max=0.95)
    agent = AZAgent(C4, 0, puct, 0, simulations=50, adjuster=adjuster)
    agent.select_action(play([0, 0, 1, 1, 2, 2]))  # v = 0.6: P_drop = 10 (0.6 - 0.2) = 4, capped at 0.95
    assert agent.dropout == pytest.approx(0.95)
    seen = np.array(counter.dropouts)
    assert seen[0] == 0.0  # the adjuster's evaluation of the position, undamaged
    assert len(seen) > 10 and np.allclose(seen[1:], 0.95)  # every leaf the search evaluated, damaged


class TwoFaced(StoneCounter):
    """StoneCounter whose damaged forwards (dropout > 0) answer -0.9 wherever they are asked."""

    def evaluate(self, batch, n):
        super().evaluate(batch, n)
        batch.values[:n] = np.where(batch.dropout[:n] > 0, -0.9, batch.values[:n])


def test_alphadda2_value_stays_undamaged_after_a_damaged_search():
    """The reference code evaluates the history at the previous search's P_drop: here that would read -0.9."""
    net = TwoFaced(scale=0.1)
    agent = AZAgent(
        C4,
        0,
        PUCT(C4, net, seed=0),
        0,
        simulations=10,
        adjuster=AlphaDDA2(C4, net, nh=1, a_drop=1.0, p_drop0=-0.2, p_max=0.95),
    )
    agent.select_action(play([0, 0, 1, 1, 2, 2]))  # v = 0.6: P_drop = 1 (0.6 - 0.2) = 0.4
    assert agent.dropout == pytest.approx(0.4)
    agent.select_action(play([0, 0, 1, 1, 2, 2, 6, 6]))  # clean v = 0.8: 0.6; damaged -0.9 would give 0
    assert agent.dropout == pytest.approx(0.6)


def test_alphadda2_as_the_authors_ran_it_reads_its_value_through_the_last_moves_damage():
    """history=damaged (AlphaDDA2.py: Store_outcome predicts with the dropout net at the P_drop of the last move):
    the damaged forwards answer -0.9, so the second move sees -0.9 and plays clean, the third clean again."""
    net = TwoFaced(scale=0.1)
    adjuster = AlphaDDA2(C4, net, nh=1, a_drop=1.0, p_drop0=-0.2, p_max=0.95, history="damaged", seed=1)
    agent = AZAgent(C4, 0, PUCT(C4, net, seed=0), 0, simulations=10, adjuster=adjuster)
    played = []
    for moves in ([0, 0, 1, 1, 2, 2], [0, 0, 1, 1, 2, 2, 6, 6], [0, 0, 1, 1, 2, 2, 6, 6, 5, 5]):
        agent.select_action(play(moves))
        played.append(agent.dropout)
    # clean 0.6 read at P_drop 0: 0.4; then -0.9 read at 0.4: 0; then clean 1.0 read at 0: 0.8 (clean: 0.4, 0.6, 0.8)
    assert played == pytest.approx([0.4, 0.0, 0.8])
    agent.select_action(play([0, 0, 1, 1]))  # another game: read clean again (P_drop 0), not at 0.8 (-0.9: 0)
    assert agent.dropout == pytest.approx(0.2)


class KeyRecorder(StoneCounter):
    """StoneCounter that also records, for each row with dropout, its dropout and key."""

    def __init__(self, scale=0.01):
        super().__init__(scale)
        self.draws = []

    def evaluate(self, batch, n):
        super().evaluate(batch, n)
        self.draws.extend((float(p), int(k)) for p, k in zip(batch.dropout[:n], batch.keys[:n]) if p > 0)


def test_alphadda2_damaged_rereads_its_whole_window_with_fresh_draws_from_its_own_seed():
    """N_h 2: at each move both positions of the window are read again at the P_drop in force, each with a key of
    its own; the same seed draws the same keys, another seed others. The values alternate in sign (0.1 a stone for
    the player to move), so v̄ c is 0.05 at every ply here and P_drop 1 (0.05 + 0.3) = 0.35."""

    def readings(seed):
        net = KeyRecorder(scale=0.1)
        adjuster = AlphaDDA2(C4, net, nh=2, a_drop=1.0, p_drop0=0.3, p_max=0.95, history="damaged", seed=seed)
        adjuster.before_search(play([0, 0, 1, 1, 2, 2]))  # plies 5 and 6, read at P_drop 0
        assert net.draws == [] and adjuster.p == pytest.approx(0.35)
        adjuster.before_search(play([0, 0, 1, 1, 2, 2, 6, 6]))  # plies 7 and 8, both at 0.35
        adjuster.before_search(play([0, 0, 1, 1, 2, 2, 6, 6, 6]))  # ply 8 again and ply 9
        assert [p for p, _ in net.draws] == pytest.approx([0.35] * 4)
        return [k for _, k in net.draws]

    keys = readings(1)
    assert len(set(keys)) == 4  # ply 8 read twice, with other draws each time
    assert readings(1) == keys and readings(2) != keys


@pytest.mark.parametrize("moves", [[0, 0, 1, 1, 2, 2, 6], [0, 0, 1, 1, 2]])
def test_the_second_player_reads_the_value_from_its_own_side(moves):
    """With player 1 to move, StoneCounter's value (0.1 a stone) is already player 1's view: v̄ c = 0.7 or 0.5,
    never its negation, in eqs. 2, 4 and AlphaDDA3's target."""
    x = 0.1 * len(moves)
    net = StoneCounter(scale=0.1)
    one = AZAgent(
        C4,
        1,
        PUCT(C4, net, seed=0),
        0,
        simulations=200,
        adjuster=AlphaDDA1(C4, net, nh=1, a_sim=2.0, b_sim0=-1.4, n_max=200),
    )
    one.select_action(play(moves))
    assert one.last_search.simulations == n_sim(x, 2.0, -1.4, 200) < 200  # -x would give the full 200
    two = AZAgent(
        C4,
        1,
        PUCT(C4, net, seed=0),
        0,
        simulations=10,
        adjuster=AlphaDDA2(C4, net, nh=1, a_drop=1.0, p_drop0=-0.2, p_max=0.95),
    )
    two.select_action(play(moves))
    assert two.dropout == pytest.approx(x - 0.2)  # -x would give 0
    assert AlphaDDA3(C4, net, nh=1, c=1.0).before_search(play(moves)).target == pytest.approx(x)


def test_eq_7_backs_each_edge_up_from_its_movers_view():
    """A constant net (V = 0.3 for the player to move) and target t = v̄ c = 0.5: a leaf is worth -V to the
    player who moved into it, whichever player that is, so every node evaluated once holds -|-V + t| = -0.2,
    and a node with one evaluated child below it adds -|V + t| = -0.8 for that simulation."""
    puct = PUCT(C4, Constant(0.3), rule=ALPHADDA3_RULE, seed=0)
    puct.search([Request(0, C4.new_initial_state(), 60, target=0.5, c=1.0)])
    f = puct.forest
    once, pairs, movers = 0, 0, set()
    for node in range(1, int(f.meta[0, FREE])):
        first, n = f.first_child[0, node], f.n_children[0, node]
        visited = [c for c in range(first, first + n) if f.visits[0, c] > 0] if first >= 0 else []
        if f.visits[0, node] == 1:
            assert f.value[0, node] == pytest.approx(-0.2)
            once, movers = once + 1, movers | {int(f.mover[0, node])}
        elif f.visits[0, node] == 2 and len(visited) == 1:
            assert f.value[0, node] == pytest.approx(-0.2 - 0.8)
            pairs += 1
    assert once > 5 and pairs > 0 and movers == {0, 1}  # both players' edges were checked


def test_one_simulation_plays_the_priors_choice():
    counter = StoneCounter()  # all prior on the lowest legal column
    agent = AZAgent(C4, 0, PUCT(C4, counter, seed=0), 0, simulations=1)
    assert agent.select_action(play([0] * 6)) == 1  # column 0 is full
    assert agent.select_action(play([])) == 0


@pytest.mark.parametrize("target, plays_the_win", [(-1.0, True), (0.9, False)])
def test_alphadda3_search_at_a_win_in_one(target, plays_the_win):
    # player 0 has three in column 0 and wins by playing it again; every other move leaves the game open
    state = play([0, 1, 0, 1, 0, 6])
    puct = PUCT(C4, UniformEvaluator(), rule=ALPHADDA3_RULE, seed=0)
    (result,) = puct.search([Request(0, state, 400, target=target, c=0.5)])
    win = int(np.flatnonzero(result.actions == 0)[0])
    others = np.delete(result.visits, win)
    if plays_the_win:  # losing (v̄ c = -1): eq. 7 scores the win 0, every other move about -1
        assert result.visits[win] > others.max()
    else:  # winning (v̄ c = 0.9): the win scores -1.9, worse than any move that keeps the game even
        assert result.visits[win] < others.min()
    (plain,) = PUCT(C4, UniformEvaluator(), seed=0).search([Request(0, state, 400)])
    assert plain.visits.argmax() == win  # plain PUCT finds the win either way


def test_eq_6_scores_hand_checked():
    """Children with (W, n) = (-0.5, 1), (-0.8, 4), (-1.5, 2) under parent N = 7 + 1: eq. 6 gives -0.36, -0.11,
    -0.63 at C = 0.1 (the best mean wins) and 0.94, 0.71, 0.43 at C = 1 (the least visited good one wins);
    the prior, all on the third child, plays no part."""
    f = new_forest(1, 8)
    f.visits[0, 1:4], f.value[0, 1:4], f.prior[0, 1:4] = [1.0, 4.0, 2.0], [-0.5, -0.8, -1.5], [0.0, 0.0, 1.0]
    for c, expected in ((0.1, 2), (1.0, 1)):
        assert (
            best_child(ALPHADDA3_RULE, f.visits[0], f.value[0], f.prior[0], f.vloss[0], 1, 3, 8.0, c, make_rng(0))
            == expected
        )


def test_a_forest_searches_by_its_rule_and_every_row_by_its_own_target():
    """Two games in an AlphaDDA3 forest at the same win in one: the row aiming at 0.9 avoids the win, the row
    aiming at -1 takes it; a forest under eq. 8 finds it whatever the target (its rule has none)."""
    state = play([0, 1, 0, 1, 0, 6])
    puct = PUCT(C4, UniformEvaluator(), games=2, rule=ALPHADDA3_RULE, seed=0)
    requests = [Request(0, state, 400, target=0.9, c=0.5), Request(1, state, 400, target=-1.0, c=0.5)]
    aimed, losing = puct.search(requests)
    win = int(np.flatnonzero(aimed.actions == 0)[0])
    assert aimed.visits[win] < np.delete(aimed.visits, win).min()
    assert losing.visits.argmax() == win
    (plain,) = PUCT(C4, UniformEvaluator(), seed=0).search([Request(0, state, 400, target=0.9)])
    assert plain.visits.argmax() == win


def test_an_agent_refuses_a_forest_of_another_rule_or_an_adjuster_reading_another_net():
    net = UniformEvaluator()
    with pytest.raises(ValueError, match="searches under ALPHADDA3_RULE"):
        AZAgent(C4, 0, PUCT(C4, net), 0, simulations=8, adjuster=AlphaDDA3(C4, net, nh=1, c=1.0))
    with pytest.raises(ValueError, match="searches under PUCT_RULE"):
        AZAgent(C4, 0, PUCT(C4, net, rule=ALPHADDA3_RULE), 0, simulations=8)
    with pytest.raises(ValueError, match="reads the values of its agent's forest"):
        AZAgent(
            C4, 0, PUCT(C4, net), 0, simulations=8, adjuster=AlphaDDA1(C4, UniformEvaluator(), **TABLE_1["connect4"])
        )


@pytest.mark.parametrize(
    "spec, message",
    [
        ("az:a_sim=2", "add dda=alphadda1"),
        ("az:dda=alphadda2,a_sim=2", "takes nh, a_drop, p_drop0, p_max, history, not a_sim"),
        ("az:dda=alphadda1,history=damaged", "takes nh, a_sim, b_sim0, n_max, not history"),
        ("az:dda=alphadda2,history=noisy", "clean, damaged"),
        ("az:dda=alphadda1,dsa=inter", "choose one"),
        ("az:dda=alphadda1,time=1", "drop time="),
        ("az:dda=alphadda2,p_max=0.995", "from 0 to 0.99"),  # the net refuses more: fail before a match starts
        ("az:dropout=0.995", "from 0 to 0.99"),
        ("az:dda=alphadda3,reuse=yes", "drop reuse=yes"),
    ],
)
def test_spec_errors(spec, message):
    with pytest.raises(ValueError, match=message):
        make_agent(C4, spec, seed=0)


def test_games_without_paper_settings_need_every_key():
    bt = games.load("breakthrough")
    with pytest.raises(ValueError, match="no alphadda1 settings for breakthrough to default to: give nh, a_sim"):
        check_spec(bt, "az:dda=alphadda1,net=uniform")
    check_spec(bt, "az:dda=alphadda3,net=uniform,nh=2,c=1")
    check_spec(bt, "az:dda=alphadda2,net=uniform,nh=2,a_drop=5,p_drop0=-0.5,p_max=0.95")  # history: clean
    check_spec(games.load("othello6"), "az:dda=alphadda1z,net=uniform")  # every paper game has defaults


def test_paper_defaults_fill_the_spec():
    agent = make_agent(C4, "az:dda=alphadda1,net=uniform,n_max=300", seed=0)
    assert (agent.adjuster.nh, agent.adjuster.a_sim, agent.adjuster.b_sim0, agent.adjuster.n_max) == (3, 2.0, -1.4, 300)
    agent = make_agent(C4, "az:dda=alphadda3,net=uniform", seed=0)
    assert agent.adjuster.c == 1.25 and agent.adjuster.nh == 5 and agent.puct.rule is ALPHADDA3_RULE
    agent.select_action(C4.new_initial_state())
    assert agent.c == 1.25  # eq. 6's C reaches the search as a knob
    assert math.isnan(make_agent(C4, "az:net=uniform", seed=0).target)


def test_the_grids_negative_offsets_parse():
    """Tables A2-A3 give B_sim0 and P_drop0 below zero: a spec must take them."""
    agent = make_agent(C4, "az:dda=alphadda1,net=uniform,b_sim0=-1.6", seed=0)
    assert agent.adjuster.b_sim0 == -1.6
    agent = make_agent(C4, "az:dda=alphadda2,net=uniform,p_drop0=-0.9", seed=0)
    assert agent.adjuster.p_drop0 == -0.9


class Constant:
    """A fake net: uniform priors over the legal moves, the same value everywhere for the player to move."""

    def __init__(self, value):
        self.value = value

    def new_batch(self, game, capacity):
        return Batch.zeros(game, capacity)

    def evaluate(self, batch, n):
        batch.values[:n] = self.value
        batch.priors[:n] = batch.legal[:n] / batch.legal[:n].sum(axis=1, keepdims=True)


@pytest.mark.parametrize("value, z, sims, plays_the_win", [(-0.8, 10.0, 200, True), (0.8, -6.0, 16, False)])
@pytest.mark.slow
def test_alphadda1z_move_choice_follows_the_value(value, z, sims, plays_the_win):
    """z = z_a (z_0 - v̄ c) = 10 (0.2 - v̄ c) over N + 1 of every legal move: losing (v̄ c = -0.8), z = 10
    plays the most visited move, the win in one; winning (+0.8), z = -6 picks among the least visited
    moves, searched or not, never the win the search piled its visits on."""
    state = play([0, 1, 0, 1, 0, 6])  # player 0 wins by playing column 0
    evaluator = Constant(value)
    adjuster = AlphaDDA1Z(C4, evaluator, nh=1, a_sim=2.0, b_sim0=-1.4, n_max=200, z_a=10.0, z_0=0.2)
    agent = AZAgent(C4, 0, PUCT(C4, evaluator, seed=0), 0, simulations=200, adjuster=adjuster, rth=0.0)
    moves = []
    for seed in range(10):
        agent.new_game(seed)
        moves.append(agent.select_action(state))
        assert agent.last_search.visits[0] == agent.last_search.visits.max()  # the search finds the win
    assert agent.z == pytest.approx(z) and agent.last_search.simulations == sims
    if plays_the_win:
        assert moves == [0] * 10
    else:
        assert 0 not in moves and len(set(moves)) > 2


def test_alphadda1z_at_z_0_plays_every_legal_move_alike():
    """At v̄ c = z_0 (z = 0) the choice is uniform over every legal move, as Random's, not only over the
    moves the search visited (N_max 3: at most 2 of 7 columns visited): 140 draws land on all 7 columns,
    each within a generous band of 20."""
    net = Constant(0.2)
    adjuster = AlphaDDA1Z(C4, net, nh=1, a_sim=2.0, b_sim0=-1.4, n_max=3, z_a=10.0, z_0=0.2)
    agent = AZAgent(C4, 0, PUCT(C4, net, seed=0), 0, simulations=200, adjuster=adjuster, rth=0.0)
    state, moves = play([3, 3]), []
    for seed in range(140):
        agent.new_game(seed)
        moves.append(agent.select_action(state))
    assert agent.z == pytest.approx(0.0, abs=1e-6)  # the value 0.2 passes through float32
    assert (agent.last_search.visits > 0).sum() <= 2
    assert all(8 <= moves.count(c) <= 36 for c in range(7)), [moves.count(c) for c in range(7)]


def test_a_fixed_dropout_damages_every_evaluation():
    """az:dropout=P (AlphaDDA Fig. 4) sends P with every leaf; AlphaDDA2, which sets it itself, refuses it."""
    counter = StoneCounter()
    agent = make_agent(C4, "az:net=uniform,simulations=20,dropout=0.5", seed=0)
    agent.puct.evaluator = counter
    agent.select_action(play([3, 3]))
    assert len(counter.dropouts) >= 10 and set(counter.dropouts) == {0.5}
    # two games of one search, each with its own probability: every leaf carries its game's, none the other's
    group = make_agents(
        C4, ["az:net=uniform,simulations=20,dropout=0.2", "az:net=uniform,simulations=30,dropout=0.6"], seeds=[0, 1]
    )
    group[0].puct.evaluator = counter = StoneCounter()
    group.select_actions([0, 1], [play([3, 3]), play([2])])
    seen = np.float32(counter.dropouts).tolist()
    assert sorted(set(seen)) == np.float32([0.2, 0.6]).tolist()  # float32, as the batch holds them
    assert seen.count(np.float32(0.6)) > seen.count(np.float32(0.2)) >= 10  # 30 and 20 simulations' leaves
    with pytest.raises(ValueError, match="dda=alphadda2 sets the dropout probability: drop dropout="):
        check_spec(C4, "az:net=uniform,dda=alphadda2,dropout=0.3")


def test_alphadda1z_moves_z_0_between_games_by_wus_rule():
    """Hand-checked: z_0 0.6 with step 0.375 -> win: 0.225 (step 0.35625) -> loss: 0.58125 (step 0.3384375)
    -> draw: unchanged (step 0.321515625); clipped to [-1, 2]; the step never below 0.03; each seat its own
    z_0, moved by its own games only; reset restores."""
    adjuster = AlphaDDA1Z(C4, Constant(0.0), nh=1, a_sim=2.0, b_sim0=-1.4, n_max=200, z_a=10.0, z_0=0.6, dz_0=0.375)
    second, first = play([3]), play([3, 3])  # value 0 everywhere: z = z_a z_0 of the seat to move
    for outcome, z_0 in ((1.0, 0.225), (-1.0, 0.58125), (0.0, 0.58125)):
        adjuster.game_over([-outcome, outcome], 1)  # seen from player 1, the second
        adjuster.new_game()
        assert adjuster.before_search(second).z == pytest.approx(10 * z_0)
        assert adjuster.before_search(first).z == pytest.approx(6.0)  # the first seat's z_0 stays
        # the budget follows z_0: eqs. 2-3 at v̄ c = 0 - (z_0 - 0.6); after the win ceil(10^(-2 (0.375 - 1.4))) = 113
        assert adjuster.before_search(second).simulations == n_sim(0.6 - z_0, 2.0, -1.4, 200)
        assert adjuster.before_search(first).simulations == n_sim(0.0, 2.0, -1.4, 200)
    assert adjuster.dz_0 == pytest.approx([0.375, 0.375 * 0.95**3])
    for _ in range(200):
        adjuster.game_over([-1.0, 1.0], 1)
        adjuster.game_over([1.0, -1.0], 0)
    assert adjuster.z_0 == [-1.0, -1.0] and adjuster.dz_0 == [0.03, 0.03]
    assert adjuster.before_search(first).simulations == 1  # v̄ c read as 1.6: ceil(10^(-2 (1.6 - 1.4))) = ceil(0.398)
    adjuster.reset()
    assert (adjuster.z_0, adjuster.dz_0) == ([0.6, 0.6], [0.375, 0.375])
    fixed = AlphaDDA1Z(C4, Constant(0.0), nh=1, a_sim=2.0, b_sim0=-1.4, n_max=200, z_a=10.0, z_0=0.6, dz_0=0.0)
    fixed.game_over([-1.0, 1.0], 1)
    assert fixed.z_0 == [0.6, 0.6]


@pytest.mark.slow
def test_a_match_gives_an_adapting_agent_its_games_one_after_another():
    """With dz_0 > 0 the match plays game after game with one agent pair, whatever `concurrent` asks: the
    same games as play_game in index order with one pair; fresh agents per game (no memory) play others."""
    from tuner.match.arena import play_game, play_match

    spec = "az:net=playout,simulations=16,dda=alphadda1z,z_0=0.0,dz_0=0.5,rth=0"
    assert adapts_between_games(spec) and not adapts_between_games(spec.replace("0.5", "0"))
    result = play_match(C4, spec, "random", games=6, seed=3, concurrent=6)
    a, b = make_agent(C4, spec, seed=3), make_agent(C4, "random", seed=4)
    assert [g.moves for g in result.games] == [play_game(C4, a, b, 3, i).moves for i in range(6)]
    fresh = [play_game(C4, make_agent(C4, spec, seed=3), b, 3, i).moves for i in range(6)]
    assert fresh != [g.moves for g in result.games]


def test_a_replay_reads_each_alphadda_move_its_knob_by_its_own_seat():
    """experiments.alphadda_knobs: AlphaDDA1 (N_h 1, Table 1's Connect4 point) over one game record in each seat,
    values 0.1 per stone for the player to move, so v̄ c = 0.1 t at ply t; eq. 2 by hand: ceil(10^(-2 (0.1 t - 1.4)))
    is 398 -> 200 at t 0-2, 100 at 4, 40 at 6; 159 at 3, 64 at 5, 26 at 7."""
    from experiments.alphadda_knobs import full_and_weakest, knobs, replayable, summary

    moves = [3, 3, 2, 2, 4, 4, 0, 0]
    records = [{"a_seat": 1, "moves": moves, "outcome": 1}, {"a_seat": 0, "moves": moves, "outcome": -1}]
    options = replayable(C4, "az:net=uniform,dda=alphadda1,nh=1")
    adjuster, read = knobs(C4, options, records, StoneCounter(scale=0.1))
    assert [[(ply, k) for ply, _, k in game] for game in read] == [
        [(1, 200), (3, 159), (5, 64), (7, 26)],
        [(0, 200), (2, 200), (4, 100), (6, 40)],
    ]
    assert [v for _, v, _ in read[0]] == pytest.approx([0.1, 0.3, 0.5, 0.7], abs=1e-6)
    assert full_and_weakest(adjuster) == (200.0, 7.0)  # ceil(10^0.8) at v̄ c = 1
    s = summary(records, read, 200.0, 7.0)
    assert (s["score"], s["moves"], s["full_strength"][1], s["weakest"][1]) == (0.5, 8, 3 / 8, 0.0)
    assert s["first_below_full_median_ply"] == 3.5  # plies 3 and 4


def test_a_replay_reads_alphadda2s_dropout_and_refuses_what_it_cannot_read():
    """AlphaDDA2 reading a damaged history drew values the games do not keep; AlphaDDA3 and 1Z set no such knob.
    A clean AlphaDDA2 (Table 2's Connect4 point, N_h 1) reads P_drop = 10 (0.1 t - 0.2): 0 at ply 1, P_max at 3."""
    from experiments.alphadda_knobs import full_and_weakest, knobs, replayable

    options = replayable(C4, "az:net=uniform,dda=alphadda2,nh=1")
    records = [{"a_seat": 1, "moves": [3, 3, 2, 2], "outcome": 0}]
    adjuster, read = knobs(C4, options, records, StoneCounter(scale=0.1))
    assert [(ply, k) for ply, _, k in read[0]] == [(1, 0.0), (3, pytest.approx(0.95))]
    assert full_and_weakest(adjuster) == (0.0, 0.95)
    for spec in (
        "az:net=uniform,dda=alphadda2,history=damaged",
        "az:net=uniform,dda=alphadda3",
        "az:net=uniform",
        "az:net=uniform,dda=alphadda1z",
        "mcts1",
    ):
        assert replayable(C4, spec) is None


def test_the_replay_command_writes_its_report_or_says_what_is_wrong(tmp_path, monkeypatch, capsys):
    """End to end on a partial file of value-0 games (net=uniform): every AlphaDDA1 move at N_max (eq. 2 at v̄ c 0
    is 10^2.8); a file that is not a partial file is a one-line error and writes nothing."""
    import json
    import sys

    from experiments import alphadda_knobs

    spec = "az:net=uniform,simulations=8,dda=alphadda1"
    games_ = [[{"index": i, "a_seat": i % 2, "outcome": 1, "moves": [3, 3, 2, 2, 4, 4]} for i in range(2)], []]
    saved = {"matches": [[spec, "random", 0, 2], ["az:net=uniform,dda=alphadda3", "random", 1, 2]], "games": games_}
    path = tmp_path / "tables-connect4.partial.json"
    path.write_text(json.dumps(saved))
    monkeypatch.setattr(sys, "argv", ["knobs", str(path), "--game", "connect4", "--out", str(tmp_path / "out")])
    alphadda_knobs.main()
    out = json.loads((tmp_path / "out" / "knobs-connect4.json").read_text())
    assert [(r["spec_a"], r["moves"], r["full_strength"], r["score"]) for r in out["rows"]] == [
        (spec, 6, [200, 1.0], 1.0)
    ]
    assert "| alphadda1 | random | 1.000 | 6 | 1.00 (200) |" in (tmp_path / "out" / "knobs-connect4.md").read_text()
    path.write_text("not json")
    monkeypatch.setattr(sys, "argv", ["knobs", str(path), "--game", "connect4", "--out", str(tmp_path / "bad")])
    with pytest.raises(SystemExit, match="is not a partial file"):
        alphadda_knobs.main()
    assert not (tmp_path / "bad").exists()
