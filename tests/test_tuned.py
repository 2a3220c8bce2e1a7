"""On-line DDA tuning (search.tuned): the reward's formula and view, one tuner per seat, per-move and per-game
telling, forgetting, a tuner that finds a known balance point, its state through a profile, and the spec's checks."""

import json
import math
from dataclasses import dataclass

import numpy as np
import pytest

import games
from search.alphadda import AlphaDDA1
from search.mcts import SearchResult
from search.strength import Level
from search.tuned import TunedAdjuster, closeness
from tests.test_alphadda import StoneCounter, play
from tuner.agents import check_spec, make_agent
from tuner.agents.adjusters import ADJUSTERS, tuner_space
from tuner.strategies import NAMES, make_strategy

C4 = games.load("connect4")


class Recorder:
    """A stand-in strategy: asks the points it is given in turn and records what it is told."""

    def __init__(self, points=((0,),)):
        self.points, self.asks, self.tells, self.forgets = list(points), 0, [], []

    def ask(self):
        self.asks += 1
        return np.array(self.points[(self.asks - 1) % len(self.points)])

    def tell(self, x, reward):
        self.tells.append((tuple(x), reward))

    def values(self, x):
        return [float(v) for v in x]

    def forget(self, factor):
        self.forgets.append(factor)


@dataclass
class Position:
    """Just what the tuner reads of a state: whose turn, and how many plies were played."""

    player: int
    plies: int

    def current_player(self):
        return self.player

    def history(self):
        return [0] * self.plies


def result(value: float) -> SearchResult:
    """A search whose move 0 has mean value `value` for the mover."""
    return SearchResult(np.array([0, 1]), np.array([3.0, 1.0]), np.array([value, 0.5]), 4, 0.0)


def tuned(points=((0.0,),), **kwargs):
    recorders = {}

    def make(seed):
        recorders[seed] = Recorder(points)
        return recorders[seed]

    adjuster = TunedAdjuster(Level(), make, ("z",), (0, 1), **kwargs)
    return adjuster, recorders


def move(adjuster, seat, plies, value):
    """The tuned agent (in `seat`) searches at ply `plies`, its move 0 valued `value`, and plays it."""
    position = Position(seat, plies)
    adjuster.before_search(position)
    adjuster.after_search(position, result(value))
    adjuster.observe(position, 0)


def test_closeness_is_one_at_the_aim_and_zero_at_the_far_end():
    assert closeness(0.5, 0.5) == 1.0 and closeness(1.0, 0.5) == 0.0 and closeness(0.0, 0.5) == 0.0
    assert closeness(0.75, 0.5) == pytest.approx(0.5)
    assert closeness(0.0, 0.4) == pytest.approx(1 / 3) and closeness(1.0, 0.4) == 0.0  # aim 0.4: 1 - 0.4 / 0.6


def test_each_move_is_told_after_the_reply_and_the_result_from_its_own_seats_view():
    """Target 0.25 (the agent aims at 0.75). Seat 1's moves are valued 0.9 then 0.6; it wins. The first move is
    told when the agent moves again (by 0.9), the last at the end by its own result, a win (a loss: 0)."""
    adjuster, rec = tuned(target=0.25)
    adjuster.new_game()
    move(adjuster, 1, 1, 0.9)
    assert rec[1].tells == []  # not before the reply
    move(adjuster, 1, 3, 0.6)
    adjuster.game_over([-1.0, 1.0], 1)
    assert [r for _, r in rec[1].tells] == pytest.approx([1 - 0.15 / 0.75, 1 - 0.25 / 0.75])
    assert rec[0].tells == [] and rec[0].asks == 0  # the other seat's tuner heard nothing
    assert rec[1].asks == 2 and rec[1].forgets == []  # forget 1: nothing forgotten


def test_one_setting_per_game_is_told_the_mean_of_its_moves():
    adjuster, rec = tuned(target=0.25, per="game", forget=0.5)
    adjuster.new_game()
    move(adjuster, 0, 0, 0.9)
    move(adjuster, 0, 2, 0.6)
    move(adjuster, 0, 4, 0.75)
    adjuster.game_over([-1.0, 1.0], 0)  # a loss
    assert rec[0].asks == 1
    (told,) = rec[0].tells
    assert told[1] == pytest.approx(np.mean([0.8, 0.8, 0.0]))  # 0.9 and 0.6 after the replies, then the loss
    assert rec[0].forgets == [0.5]


def test_a_value_adjuster_is_judged_by_the_clean_value_for_the_player_to_move():
    """StoneCounter values a position 0.01 x its stones for the player to move, whoever that is."""
    adjuster = AlphaDDA1(C4, StoneCounter(), nh=2, a_sim=2.0, b_sim0=-1.4, n_max=200)
    for moves in ([3, 3, 4, 4], [3, 3, 4, 4, 5]):
        assert adjuster.balance(play(moves)) == pytest.approx((1 + 0.01 * len(moves)) / 2)


def test_a_tuned_agent_tells_only_its_own_seats_tuner_and_each_agent_its_own():
    a = make_agent(C4, "mcts:simulations=8,dsa=fixed,dda_tuner=nmc", seed=1)
    b = make_agent(C4, "mcts:simulations=8,dsa=fixed,dda_tuner=nmc", seed=2)
    state = C4.new_initial_state()
    a.new_game(seed=0, seat=0)
    b.new_game(seed=0, seat=1)
    while not state.is_terminal():
        agent = (a, b)[state.current_player()]
        action = agent.select_action(state)
        a.observe(state, action)
        b.observe(state, action)
        state.apply_action(action)
    a.game_over(state.returns())
    b.game_over(state.returns())
    assert a.adjuster.events[1] == [] and b.adjuster.events[0] == []
    moves = [len(state.history()[p::2]) for p in (0, 1)]
    for agent, seat in ((a, 0), (b, 1)):
        events = agent.adjuster.events[seat]
        assert sum(isinstance(e, list) for e in events) == moves[seat]  # one ask per move
        assert sum(isinstance(e, float) for e in events) == moves[seat]  # each told, the last by the result
    last = closeness((1 + state.returns()[1]) / 2, 0.5)
    assert b.adjuster.events[1][-1] == pytest.approx(last)


@pytest.mark.parametrize("kind", NAMES)
def test_every_strategy_finds_the_level_that_balances_a_known_opponent(kind):
    """A synthetic opponent: the agent's move at level z is worth 1 / (1 + exp(-(z + 2))) to it, so z = -2 keeps
    the game even (reward 1) and the next levels, -3 and -1, are worth 0.27 and 0.73 (reward 0.54). After 600
    moves each strategy recommends -2 (CMA-ES, continuous: within 0.5 of it)."""
    space = tuner_space(ADJUSTERS["fixed"], C4, check_spec(C4, "mcts:dsa=fixed,dda_tuner=nmc").options)
    settings = {"budget": 600} if kind == "lsi" else {}
    tuners = {}

    def make(seed):
        tuners[seed - 3] = make_strategy(space, kind, seed=seed, **settings)
        return tuners[seed - 3]

    adjuster = TunedAdjuster(Level(), make, tuple(space.names), (3, 4))
    adjuster.new_game()
    for ply in range(0, 1200, 2):
        position = Position(0, ply)
        adjuster.before_search(position)
        z = adjuster.inner.z
        adjuster.after_search(position, result(1 / (1 + math.exp(-(min(z, 50) + 2)))))
        adjuster.observe(position, 0)
    (z,) = tuners[0].values(tuners[0].recommend())
    assert abs(z + 2) <= (0.5 if kind == "cmaes" else 0)


def test_the_state_round_trips_as_json_and_a_damaged_one_is_refused_whole():
    spec = "mcts:simulations=8,dsa=both,dda_tuner=ntbea"
    a = make_agent(C4, spec, seed=5)
    opponent = make_agent(C4, "random", seed=6)
    for game in range(2):
        state = C4.new_initial_state()
        a.new_game(seed=game, seat=game % 2)
        while not state.is_terminal():
            agent = a if state.current_player() == game % 2 else opponent
            action = agent.select_action(state)
            a.observe(state, action)
            state.apply_action(action)
        a.game_over(state.returns())
    saved = json.loads(json.dumps(a.adjuster.state_dict()))
    b = make_agent(C4, spec, seed=5)
    b.adjuster.load_state_dict(saved)
    assert b.adjuster.state_dict() == saved
    for seat in (0, 1):
        assert b.adjuster.tuners[seat].ask().tolist() == a.adjuster.tuners[seat].ask().tolist()

    fresh = make_agent(C4, spec, seed=5)
    before = fresh.adjuster.state_dict()
    damaged = [
        ("events", lambda s: s["events"][0].__setitem__(2, [9, 9])),  # an ask it would not make
        ("events", lambda s: s["events"][1].__setitem__(1, 1.5)),  # a reward outside [0, 1]
        ("inner", lambda s: s["inner"]["inter"].__setitem__("z", "x")),  # the adjuster's own part
        ("version", lambda s: s.__setitem__("version", 99)),
        ("tuned", lambda s: s.__setitem__("tuned", ["dz"])),
        ("seeds", lambda s: s.__setitem__("seeds", [1.5, 2])),
    ]
    for _, damage in damaged:
        state = json.loads(json.dumps(saved))
        damage(state)
        with pytest.raises(ValueError) as error:
            fresh.adjuster.load_state_dict(state)
        assert "\n" not in str(error.value)
        assert fresh.adjuster.state_dict() == before


@pytest.mark.parametrize(
    "spec, message",
    [
        ("mcts:dda_tuner=nmc", "dda_tuner=nmc tunes a strength adjuster: add dsa="),
        ("mcts:dsa=fixed,dda_tune=z", "dda_tune set the on-line DDA tuner: add dda_tuner="),
        ("mcts:dsa=fixed,dda_tuner=nmc,dda_tune=dz", "dz not tunable in dsa=fixed; choose from z+floor"),
        ("mcts:dsa=fixed,dda_tuner=nmc,dda_tune=z+z", "(repeated)"),
        ("mcts:dsa=fixed,dda_tuner=nmc,dda_target=1.5", "bad value '1.5' for 'dda_target'"),
        ("mcts:dsa=fixed,dda_tuner=nmc,dda_per=set", "bad value 'set' for 'dda_per'"),
        ("mcts:dsa=fixed,dda_tuner=nmc,dda_forget=0", "bad value '0' for 'dda_forget'"),
        ("mcts:dsa=fixed,dda_tuner=tpe", "bad value 'tpe' for 'dda_tuner'"),
        ("az:net=uniform,dda=alphadda2,dda_tuner=ea,dda_tune=c", "choose from nh+a_drop+p_drop0, or all"),
    ],
)
def test_a_bad_tuner_spec_is_one_line(spec, message):
    with pytest.raises(ValueError) as error:
        check_spec(C4, spec)
    assert message in str(error.value) and "\n" not in str(error.value)


@pytest.mark.parametrize("name", [n for n, k in ADJUSTERS.items()])
def test_every_adjuster_can_be_tuned_over_its_space_defaulting_to_its_built_settings(name):
    kind = ADJUSTERS[name]
    spec = f"az:net=uniform,{kind.selector}={name},dda_tuner=random,dda_tune=all"
    options = check_spec(C4, spec).options
    space = tuner_space(kind, C4, options)
    agent = make_agent(C4, spec, seed=0)
    inner = agent.adjuster.inner
    assert set(space.names) == set(inner.TUNABLE)
    built = {key: _attribute(inner, attribute) for key, attribute in inner.TUNABLE.items()}
    defaults = dict(zip(space.names, space.values_of(space.default_indices())))
    for key in space.names:
        if math.isfinite(built[key]):
            assert defaults[key] == pytest.approx(built[key]), key
    agent.select_action(C4.new_initial_state())  # and a tuned search runs


def _attribute(obj, dotted):
    for part in dotted.split("."):
        obj = getattr(obj, part)
    return float(obj[0]) if isinstance(obj, list) else (-math.inf if obj is None else float(obj))


def _play_out(bot):
    """The person plays the lowest legal column until the game ends (undoing once, midway)."""
    bot.new_game(human_first=True)
    undone = False
    while not bot.over:
        bot.move(bot.state.legal_actions()[0])
        if not bot.over:
            bot.reply()
        if not undone and len(bot.state.history()) >= 6 and not bot.over:
            bot.undo()
            undone = True


def test_the_tuner_lasts_in_a_profile_and_a_damaged_one_is_refused(tmp_path):
    from tuner.play.opponent import Opponent
    from tuner.play.profiles import ProfileError

    path, spec = tmp_path / "p.sqlite", "mcts:simulations=8,dsa=fixed,dda_tuner=ntbea"
    first = Opponent("connect4", spec, profile="ada", profiles=path, seed=0)
    _play_out(first)
    _play_out(first)
    saved = first.adjuster.state_dict()
    assert sum(isinstance(e, list) for e in saved["events"][1]) >= 2  # it moved second in both games
    again = Opponent("connect4", spec, profile="ada", profiles=path, seed=1)
    assert again.adjuster.state_dict() == saved
    assert again.adjuster.tuners[1].ask().tolist() == first.adjuster.tuners[1].ask().tolist()

    import sqlite3

    damaged = json.loads(json.dumps(saved))
    damaged["events"][1][0] = [99]
    with sqlite3.connect(path) as db:
        db.execute("UPDATE profiles SET state = ?", (json.dumps(damaged),))
    with pytest.raises(ProfileError, match="does not fit this opponent: the saved tuner does not replay"):
        Opponent("connect4", spec, profile="ada", profiles=path)
