"""One conformance suite for every strength adjuster of `tuner.agents.adjusters.ADJUSTERS` (a new entry gets it all):
it builds from its spec, plays whole games through the agent's hooks, saves and restores what it learnt, refuses
another adjuster's state, starts a match afresh on reset, and learns between games exactly when its entry says so."""

import json
import re

import pytest

import games
from games.game import State
from search.agents import RandomAgent, SearchAgent
from search.puct import PUCT_RULE
from search.strength import Knobs, StrengthAdjuster
from tuner.agents import AGENTS, make_agent, parse_spec
from tuner.agents.adjusters import ADJUSTERS, DDA_KEYS, DSA_KEYS, SELECTORS, learns_between_games, named
from tuner.match import play_game

C4 = games.load("connect4")


def spec_of(name: str) -> str:
    """A small agent that uses adjuster `name`: MCTS for Wu et al.'s, AlphaZero over net-free priors for AlphaDDA's."""
    kind = ADJUSTERS[name]
    return f"mcts:simulations=30,dsa={name}" if kind.selector == "dsa" else f"az:net=uniform,simulations=8,dda={name}"


def adjuster_of(name: str, seed: int = 0) -> StrengthAdjuster:
    agent = make_agent(C4, spec_of(name), seed=seed)
    assert isinstance(agent, SearchAgent) and isinstance(agent.adjuster, StrengthAdjuster)
    return agent.adjuster


def test_every_selector_value_is_an_entry_and_every_key_is_an_agents_key():
    for selector in SELECTORS:
        takers = [name for name, kind in AGENTS.items() if selector in kind.keys]
        assert takers, f"no agent takes {selector}="
        for agent in takers:
            key = AGENTS[agent].keys[selector]
            assert [v for v in named(selector) if key.parse(v) == v] == list(named(selector))
    for name, kind in ADJUSTERS.items():
        assert set(kind.keys) <= set(DSA_KEYS if kind.selector == "dsa" else DDA_KEYS), name
        for agent in (a for a, k in AGENTS.items() if kind.selector in k.keys):
            assert set(kind.keys) <= set(AGENTS[agent].keys), (name, agent)


@pytest.mark.parametrize("name", ADJUSTERS)
@pytest.mark.slow
def test_an_adjuster_plays_whole_games_through_the_hooks_with_knobs_the_agent_takes(name):
    agent = make_agent(C4, spec_of(name), seed=1)
    seen = []
    adjuster = agent.adjuster
    before = adjuster.before_search

    def watched(state: State):
        knobs = before(state)
        seen.append(knobs)
        return knobs

    adjuster.before_search = watched
    for index in range(2):
        result = play_game(C4, agent, RandomAgent(C4, 5), seed=index, index=index)
        assert result.outcome in (-1, 0, 1)
    assert seen and all(k is None or isinstance(k, Knobs) for k in seen)
    json.dumps(adjuster.state_dict())  # what a profile keeps is plain data


@pytest.mark.parametrize("name", ADJUSTERS)
def test_what_it_learnt_is_saved_and_restored_and_another_kinds_state_is_refused(name):
    played = adjuster_of(name)
    played.new_game()
    played.game_over([1.0, -1.0], 0)
    played.new_game()
    fresh = adjuster_of(name)
    fresh.load_state_dict(json.loads(json.dumps(played.state_dict())))
    assert fresh.state_dict() == played.state_dict()
    kinds = {adjuster_of(n).state_dict()["kind"]: n for n in ADJUSTERS}
    foreign = adjuster_of(next(n for k, n in kinds.items() if k != played.state_dict()["kind"])).state_dict()
    with pytest.raises(ValueError, match="saved state"):
        fresh.load_state_dict(foreign)
    assert fresh.state_dict() == played.state_dict()  # a refused state changes nothing


@pytest.mark.parametrize("name", ADJUSTERS)
def test_it_learns_between_games_exactly_when_its_entry_says_so_and_reset_forgets(name):
    adjuster = adjuster_of(name)
    start = adjuster.state_dict()
    adjuster.new_game()
    adjuster.game_over([1.0, -1.0], 0)  # a win for the adjuster's player 0
    adjuster.new_game()
    learnt = adjuster.state_dict() != start
    assert learnt == learns_between_games(parse_spec(spec_of(name)).options)
    after_win = adjuster.state_dict()
    adjuster.reset()
    assert adjuster.state_dict() == start
    adjuster.new_game()
    adjuster.game_over([-1.0, 1.0], 0)  # a loss: what a learner takes from it is not what it took from a win
    adjuster.new_game()
    assert (adjuster.state_dict() != after_win) == learnt


def test_a_dda_key_without_its_adjuster_and_two_adjusters_are_one_line_errors():
    with pytest.raises(ValueError, match="a_sim set AlphaDDA's adjustment"):
        make_agent(C4, "az:net=uniform,a_sim=2")
    with pytest.raises(ValueError, match="dda=alphadda2 takes nh, a_drop, p_drop0, p_max, history, not a_sim"):
        make_agent(C4, "az:net=uniform,dda=alphadda2,a_sim=2")
    with pytest.raises(ValueError, match="both adjust strength"):
        make_agent(C4, "az:net=uniform,dda=alphadda1,dsa=inter")
    with pytest.raises(ValueError, match="no alphadda1 settings for breakthrough to default to: give nh, a_sim"):
        make_agent("breakthrough", "az:net=uniform,dda=alphadda1")


def test_a_dsa_key_its_adjuster_does_not_read_is_a_one_line_error():
    cases = {
        "mcts:dz_min=0.1": "dz_min sets Wu's adjustment: use dsa=inter|both",
        "mcts:dsa=intra,dz_decay=0.5": "dz_decay sets Wu's adjustment, which dsa=intra does not read: use "
        "dsa=inter|both",
        "mcts:dsa=fixed,dz=0.2,dsa_eps=0.2": "dz, dsa_eps set Wu's adjustment, which dsa=fixed does not read: use "
        "dsa=intra|both",
        "mcts:dsa=intra,dz_reheat=6": "dz_reheat sets Wu's adjustment, which dsa=intra does not read: use "
        "dsa=inter|both",
        "az:net=uniform,dda=alphadda1,dz_min=0.1": "dz_min sets Wu's adjustment, which dda=alphadda1 does not read: "
        "use dsa=inter|both instead of dda=alphadda1",
    }
    for spec, message in cases.items():
        with pytest.raises(ValueError, match=re.escape(message)) as error:
            make_agent(C4, spec)
        assert "\n" not in str(error.value)
    assert make_agent(C4, "mcts:dsa=both,dz_reheat=6", seed=0).adjuster.inter.reheat == 6
    assert make_agent(C4, "mcts:dsa=inter", seed=0).adjuster.reheat is None  # Wu's schedule alone


@pytest.mark.parametrize("name", named("dda"))
def test_an_az_agent_searches_under_its_adjusters_rule_and_refuses_the_keys_it_sets(name):
    kind = ADJUSTERS[name]
    agent = make_agent(C4, spec_of(name), seed=0)
    assert agent.puct.rule is (kind.rule or PUCT_RULE) is (type(agent.adjuster).RULE or PUCT_RULE)
    for key, why in kind.conflicts:
        value = {"time": "1", "dropout": "0.2", "reuse": "yes"}[key]
        with pytest.raises(ValueError, match=re.escape(f"dda={name} {why}: drop {key}=")) as error:
            make_agent(C4, f"az:net=uniform,dda={name},{key}={value}")
        assert "\n" not in str(error.value)
