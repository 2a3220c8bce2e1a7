"""CMA-ES as an allocation strategy: repair and penalty by hand, tuning, stopping, seeding, inside the search."""

import math

import numpy as np
import pytest

import games
from tuner.agents import make_agent
from tuner.strategies import CMAES, Param, Space, clip_to_box, make_strategy


def unit_square():
    return Space([Param(f"p{i}", (0.0, 1.0), 0.0, 1.0, 0.5) for i in range(2)])


def test_repair_clips_into_the_box_and_the_penalty_is_alpha_times_the_distance():
    repaired, distance = clip_to_box([1.3, -0.4, 0.5])
    assert repaired.tolist() == [1.0, 0.0, 0.5] and distance == pytest.approx(0.5)
    strategy = CMAES(unit_square(), seed=0)
    # Algorithm 6: 100 - r + alpha ||p - p'||, r on GGP's 0..100 scale, alpha = 100
    assert strategy.fitness([1.3, -0.4], 0.25) == pytest.approx(75 + 50)
    assert strategy.fitness([0.2, 0.7], 1.0) == 0.0


def test_cmaes_tunes_a_noisy_continuous_bandit():
    target = np.array([0.2, 0.85])
    for seed in (0, 1):
        strategy = CMAES(unit_square(), seed=seed)
        rng = np.random.default_rng(seed)
        for _ in range(600):
            x = strategy.ask()
            assert ((0 <= x) & (x <= 1)).all()  # evaluated points are always repaired
            reward = np.clip(0.9 - np.linalg.norm(x - target) + rng.normal(0, 0.05), 0, 1)
            strategy.tell(x, float(reward))
        assert np.linalg.norm(strategy.recommend() - target) < 0.1


@pytest.mark.slow
def test_when_pycma_stops_the_mean_is_scored_once_and_the_best_point_is_played_after():
    strategy = CMAES(unit_square(), seed=1)
    while not strategy.finished:  # a flat landscape: pycma stops on a rule that is not fitness-based
        strategy.tell(strategy.ask(), 0.5)
    stop = strategy.es.stop()
    assert stop and not {"tolfun", "tolfunhist", "tolflatfitness", "tolstagnation", "ftarget"} & set(stop)
    assert strategy.evaluations == strategy.generations * strategy.es.popsize + 1  # + the mean
    best = strategy.recommend()
    assert strategy.best_fitness == 50.0 and ((0 <= best) & (best <= 1)).all()
    for _ in range(10):
        assert strategy.ask().tolist() == best.tolist()
        strategy.tell(best, 0.0)  # ignored: the search is over
    assert strategy.recommend().tolist() == best.tolist()


def test_seeded_runs_repeat_exactly_and_each_game_starts_from_a_new_random_point():
    def run(strategy):
        rng = np.random.default_rng(3)
        points = []
        for _ in range(200):
            x = strategy.ask()
            strategy.tell(x, float(rng.random() < x[0]))
            points.append(x.tolist())
        return points

    a = CMAES(unit_square(), seed=7)
    first = run(a)
    assert first == run(CMAES(unit_square(), seed=7)) and first != run(CMAES(unit_square(), seed=8))
    # [SA-MCTS VI-A] x0 is a random point for every game: a reset without a seed starts elsewhere
    starts = []
    for _ in range(5):
        a.reset()
        starts.append(np.array(a.es.mean))
        run(a)
    assert min(np.linalg.norm(p - q) for i, p in enumerate(starts) for q in starts[:i]) > 1e-3
    a.reset(seed=7)  # a reset with a seed replays that seed's game alone
    assert run(a) == first


@pytest.mark.slow
def test_every_game_of_a_cmaes_agent_starts_afresh_and_a_reseeded_game_replays():
    game = games.load("connect4")
    agent = make_agent(game, "sp:simulations=300,tuner=cmaes", seed=4)
    state = game.new_initial_state()

    def start_and_move(seed=None):
        agent.new_game(seed)
        start = np.array(agent.search.tuners[0].es.mean)
        return start, agent.select_action(state), agent.last_search.visits.tolist()

    games_ = [start_and_move() for _ in range(4)]
    assert len({tuple(s.round(9)) for s, _, _ in games_}) == 4  # four games, four start points
    a, b = start_and_move(11), start_and_move(11)
    assert np.array_equal(a[0], b[0]) and a[1:] == b[1:]


def test_make_strategy_names_every_strategy_and_values_maps_points():
    space = unit_square()
    assert isinstance(make_strategy(space, "cmaes", seed=0, sigma=0.2), CMAES)
    assert make_strategy(space, "cmaes", seed=0).values([0.25, 1.0]) == [0.25, 1.0]
    with pytest.raises(ValueError, match="unknown strategy 'cma'; known: random, grid, nmc, ea, ntbea, lsi, cmaes"):
        make_strategy(space, "cma", seed=0)
    with pytest.raises(ValueError, match="sigma must be positive"):
        CMAES(space, seed=0, sigma=0)


def test_a_search_tunes_with_cmaes_a_generation_at_a_time():
    game = games.load("connect4")
    agent = make_agent(game, "ap:simulations=1000,tuner=cmaes,tune=C+eps+K+Ref", seed=4)
    agent.select_action(game.new_initial_state())
    first, second = agent.search.tuners
    popsize = first.es.popsize  # pycma's default for d = 4: 4 + floor(3 ln 4) = 8
    assert popsize == 4 + math.floor(3 * math.log(4))
    for tuner in (first, second):  # every simulation evaluated one point; whole generations were told
        assert tuner.evaluations == tuner.generations * popsize == 1000 // popsize * popsize
    report = agent.tuning()[0]
    assert set(report["recommended"]) == {"C", "eps", "K", "Ref"} and 0 <= report["recommended"]["K"] <= 2000
    agent.new_game()
    assert agent.search.tuners[0].evaluations == 0


def test_a_stopped_cmaes_starts_again_when_it_forgets():
    es = CMAES(Space([Param("a", (0.0, 1.0), 0.0, 1.0, 0.5), Param("b", (0.0, 1.0), 0.0, 1.0, 0.5)]), seed=0)
    es.finished, es.best = True, np.array([0.5, 0.5])  # as after pycma stopped and its mean was scored
    es.forget(1.0)
    assert es.finished
    es.forget(0.5)
    assert not es.finished and es.generations == 0
