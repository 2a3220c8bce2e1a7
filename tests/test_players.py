"""Games of more than two players (Chinese Checkers for three): each search backs up each player's own score
(max^n), each player has its own on-line tuner, the arena plays every assignment of two agents to the roles but the
all-same ones and splits a game's point among the agents with the highest score [SA-MCTS VI-A], and whatever is
made for two players says so in one line."""

import numpy as np
import pytest

import games
from games.chinesecheckers import CELLS, PASS
from games.rng import make_rng
from search.mcts import MCTS, UCB1, C
from tuner.agents import check_spec, make_agent
from tuner.match import assignments, play_match
from tuner.match.arena import seat_agents, split_point
from tuner.strategies import sa_mcts_space

CC = games.load("chinesecheckers3")
NAMES = "a1 b1 b2 c1 c2 c3 c4 c5 c6 c7 d1 d2 d3 d4 d5 d6 e1 e2 e3 e4 e5 f1 f2 f3 f4 f5 f6 g1 g2 g3 g4 g5 g6 g7 h1 h2 i1"


def position(red, green, blue, to_move):
    """A state with the given cells (names) of red, green and blue, `to_move` to play, ten moves in."""
    state = CC.new_initial_state()
    s = state.array
    s[4:7] = 0
    for p, cells in enumerate((red, green, blue)):
        for c in cells.split():
            s[4 + p] |= np.uint64(1 << NAMES.split().index(c))
    s[1] = s[4] | s[5] | s[6]
    s[0], s[2] = 10, to_move
    return state


def move(frm, to):
    names = NAMES.split()
    return names.index(frm) * CELLS + names.index(to)


# green (1) fills c1 c2 d1 by e4's double hop over e3 and d2; blue (2) fills c6 c7 d6 by e2's over e3 and d5. Each
# has three other moves (a step, the first hop alone, the pass), none of which ends the game.
WINS = [
    (position("e3 g4 g5", "c1 d1 e4", "d2 f1 g1", to_move=1), move("e4", "c2")),
    (position("e3 g4 g5", "d5 f6 g7", "c7 d6 e2", to_move=2), move("e2", "c6")),
]


@pytest.mark.parametrize("spec", ["mcts:simulations=200", "sp:simulations=200", "ap:simulations=200"])
@pytest.mark.parametrize("case", range(len(WINS)))
def test_a_search_credits_each_move_with_the_score_of_the_player_who_made_it(spec, case):
    """Every simulation through the winning move ends there with the mover's score 1: its mean is exactly 1 (backing
    up another player's score, player 0's say, gives it 0), and it is the most visited move under most seeds (a
    later win scores the same, so another move may tie it)."""
    state, win = WINS[case]
    assert len(state.legal_actions()) == 4 and win in state.legal_actions()
    picks = []
    for seed in range(5):
        agent = make_agent(CC, spec, seed=seed)
        picks.append(agent.select_action(state))
        result = agent.last_search
        assert result.values[list(result.actions).index(win)] == 1.0
    assert picks.count(win) >= 3


def test_each_move_is_credited_with_its_players_own_score_not_a_win_or_loss():
    """Green's last move of the game (the 59th): each move ends it with green's score 0.5 (two on its goal) or 0.25
    (one). Every child's mean, its MAST average and its AMAF average at the root are exactly that score: a backup of
    the winner's point (green wins with 0.5 against 0.25 and 0) would read 1, and of another player's score, 0.25
    or 0 alike."""
    state = position("e3 g4 g5", "c1 d2 f4", "c7 e4 e5", to_move=1)
    state.array[0] = 58
    want = {move("d2", "c2"): 0.5, move("d2", "d1"): 0.5, move("f4", "d1"): 0.5, move("f4", "d3"): 0.25}
    want |= {move("f4", "f3"): 0.25, PASS: 0.25}
    assert sorted(state.legal_actions()) == sorted(want)
    for spec in ("sp:simulations=300", "ap:simulations=300"):
        agent = make_agent(CC, spec, seed=0)
        agent.select_action(state)
        result, tree = agent.last_search, agent.search.tree
        assert {int(a): v for a, v in zip(result.actions, result.values)} == want
        actions = list(want)
        mast = tree.mast_value[1, actions] / tree.mast_visits[1, actions]
        assert mast.tolist() == list(want.values())
        if spec.startswith("ap"):
            row = tree.amaf_row[tree.meta[0]]
            amaf = tree.amaf_value[row, 1, actions] / tree.amaf_visits[row, 1, actions]
            assert np.allclose(amaf, list(want.values()))


def test_the_roles_of_a_match_every_assignment_but_the_all_same():
    assert assignments(2) == [(0, 1), (1, 0)]  # A first, then B first: the two-player seats
    assert assignments(3) == [(0, 0, 1), (0, 1, 0), (0, 1, 1), (1, 0, 0), (1, 0, 1), (1, 1, 0)]
    # game 2 gives A role 0 and B roles 1 and 2, played by B's first and second agents
    assert seat_agents(3, 2) == [(0, 0), (1, 0), (1, 1)]
    assert seat_agents(3, 8) == seat_agents(3, 2)


def test_a_match_plays_every_assignment_as_often():
    with pytest.raises(ValueError, match="a multiple of 6 games, not 20"):
        play_match("chinesecheckers3", "random", "random", games=20)


def test_the_point_goes_to_the_agents_with_the_highest_score():
    assert split_point([1.0, 0.5, 0.5], (0, 0, 1)) == 1
    assert split_point([1.0, 0.5, 0.5], (1, 0, 0)) == -1
    assert split_point([0.5, 0.0, 0.5], (0, 1, 1)) == 0  # both agents hold a role with the top score
    assert split_point([0.25, 0.25, 0.25], (0, 1, 0)) == 0
    assert split_point([0.0, 0.5], (0, 1)) == -1 and split_point([0.5, 0.5], (1, 0)) == 0


def test_a_searching_agent_beats_random_players_in_every_assignment():
    result = play_match("chinesecheckers3", "sp:simulations=100", "random", games=12, seed=3)
    assert [g.a_seat for g in result.games] == [0, 0, 0, 1, 1, 2] * 2  # A's first role in each assignment
    assert result.total.games == 12 and result.total.score > 0.8
    # and replaying a game alone with fresh agents gives the same moves
    from tuner.match import play_game

    a = [make_agent(CC, "sp:simulations=100", seed=s) for s in (1, 2)]
    b = [make_agent(CC, "random", seed=s) for s in (3, 4)]
    for index in (0, 4):  # A in roles 0 and 1 (both its agents), then A in roles 1 and 2 with B in role 0
        assert play_game(CC, a, b, seed=3, index=index).moves == result.games[index].moves


@pytest.mark.parametrize("case", range(len(WINS)))
def test_each_player_has_its_own_on_line_tuner_told_its_own_score(case):
    """Where green (blue) wins at once, its tuner's simulations scored it near 1, the others' theirs near 0."""
    agent = make_agent(CC, "sp:simulations=300,tuner=nmc", seed=1)
    agent.new_game(seed=1)
    agent.select_action(WINS[case][0])
    tuners = agent.search.tuners
    assert len({id(t) for t in tuners}) == 3 and [t.total for t in tuners] == [300, 300, 300]
    means = [t.arrays["combo_s"].sum() / t.arrays["combo_n"].sum() for t in tuners]
    winner = case + 1
    assert means[winner] > 0.9 and all(m < 0.4 for p, m in enumerate(means) if p != winner)


def test_a_tuner_of_whole_generations_runs_one_per_player():
    """CMA-ES asks for generations of different sizes per player (the mean alone once pycma stops): each player's
    batch is used up and told in its own time."""
    agent = make_agent(CC, "sp:simulations=400,tuner=cmaes", seed=1)
    agent.new_game(seed=1)
    agent.select_action(WINS[0][0])
    tuners = agent.search.tuners
    assert len(tuners) == 3 and all(t.evaluations > 0 for t in tuners)


class Generations:
    """A tuner of whole generations (as CMA-ES) of `size` points a generation, each point its own value of C, that
    keeps every generation it is told."""

    finished = False

    def __init__(self, size, first):
        self.space = sa_mcts_space(["C"])
        self.size, self.next, self.told = size, first, []

    def reset(self, seed=None):
        pass

    def ask_generation(self):
        self.asked = [[self.next + k] for k in range(self.size)]
        self.next += self.size
        return self.asked

    def values(self, x):
        return [float(x[0])]

    def tell_generation(self, rewards):
        self.told.append(len(rewards))


def test_generations_of_different_sizes_are_each_used_up_and_told_in_their_own_time():
    """Players' generations of 5, 2 and 3 points: after 30 simulations, 6, 15 and 10 of them told, whole."""
    tuners = [Generations(5, 0), Generations(2, 100), Generations(3, 200)]
    search = MCTS(CC, [0.2, 0.4, 0, np.inf, 0, 0], [1, UCB1, 1, 0], make_rng(0), tuners=tuners, tuned=[C])
    search.search(CC.new_initial_state(), simulations=30)
    assert [t.told for t in tuners] == [[5] * 6, [2] * 15, [3] * 10]


@pytest.mark.parametrize(
    "spec, what",
    [
        ("az:simulations=2,net=uniform", "az plays two-player games only"),
        ("minimax", "minimax plays two-player games only"),
        ("mcts:dsa=inter", "dsa=inter plays two-player games only"),
        ("sp:simulations=9,dsa=both", "dsa=both plays two-player games only"),
    ],
)
def test_what_is_made_for_two_players_says_so_in_one_line(spec, what):
    with pytest.raises(ValueError, match=f"{what}; chinesecheckers3 has 3 players: play it with mcts, sp or ap") as e:
        check_spec(CC, spec)
    assert "\n" not in str(e.value)


def test_a_searchs_tables_have_a_row_per_player():
    agent = make_agent(CC, "ap:simulations=50", seed=0)
    agent.select_action(CC.new_initial_state())
    tree = agent.search.tree
    assert tree.mast_value.shape == (3, CC.num_actions) and tree.amaf_value.shape[1] == 3
    assert agent.search.params.shape == (3, 6)
