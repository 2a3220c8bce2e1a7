"""One conformance suite for every agent of `tuner.agents.AGENTS` (a new entry gets it all), on every game it
accepts: it plays whole legal games through the hooks, replays them from its seed,
answers for many games at once as for each, and its spec round-trips, is listed by --help and refuses an unknown key."""

import pytest

import games
from search.agents import Agent, RandomAgent
from tuner.agents import AGENTS, check_spec, describe_agents, make_agent, make_agents, parse_spec
from tuner.match import play_game


def tiny(name: str) -> str:
    """Agent `name` at a budget small enough for a test (a net-free AlphaZero)."""
    keys = AGENTS[name].keys
    small = {"simulations": "12", "depth": "2", "net": "uniform"}
    items = [f"{k}={v}" for k, v in small.items() if k in keys]
    return name + (":" + ",".join(items) if items else "")


def accepted():
    """(agent, game) for every game on which the agent's checks pass."""
    for name in AGENTS:
        for game in games.names():
            try:
                check_spec(game, tiny(name))
            except ValueError:
                continue
            yield name, game


CASES = list(accepted())


def test_every_agent_plays_some_game_and_every_game_has_agents():
    assert {name for name, _ in CASES} == set(AGENTS) - ({"perfect"} if not _solver() else set())
    assert {game for _, game in CASES} == set(games.names())


def _solver() -> bool:
    from search.perfect import available

    return available()


def moves_of(name: str, game: str, seed: int) -> list[int]:
    """The moves of one game of the agent (first) against a seeded random player."""
    g = games.load(game)
    agent = make_agent(g, tiny(name), seed=seed)
    assert isinstance(agent, Agent)
    if g.players == 2:
        result = play_game(g, agent, RandomAgent(g, 99), seed=seed, index=0)
    else:  # the agent first, seeded random players in the other roles (game 0: A's agents first, then B's)
        randoms = [RandomAgent(g, 99 + k) for k in range(2 * g.players - 3)]
        result = play_game(g, [agent, *randoms[: g.players - 2]], randoms[g.players - 2 :], seed=seed, index=0)
    return result.moves


@pytest.mark.parametrize("name, game", CASES)
@pytest.mark.slow
def test_an_agent_plays_legal_games_and_replays_them_from_its_seed(name, game):
    first = moves_of(name, game, seed=3)
    replay = games.load(game).new_initial_state()
    for action in first:
        replay.apply_action(action)  # ValueError on an illegal move
    assert replay.is_terminal()
    assert moves_of(name, game, seed=3) == first


@pytest.mark.parametrize("name, game", [c for c in CASES if c[1] == "connect4"])
def test_an_agent_answers_many_games_at_once_as_it_answers_each(name, game):
    g = games.load(game)
    group = make_agents(g, tiny(name), seeds=[5, 6, 7])
    start = g.new_initial_state()
    after = start.clone()
    after.apply_action(3)
    together = group.select_actions([0, 2], [start, after])
    alone = [make_agent(g, tiny(name), seed=s).select_action(st) for s, st in ((5, start), (7, after))]
    assert together == alone and all(a in st.legal_actions() for a, st in zip(together, (start, after)))


@pytest.mark.parametrize("name", AGENTS)
def test_a_spec_round_trips_is_listed_by_help_and_refuses_an_unknown_key(name):
    spec = parse_spec(tiny(name))
    assert parse_spec(str(spec)).options == spec.options
    text = describe_agents()
    assert f"  {name} " in text and all(f"{key}=" in text for key in AGENTS[name].keys)
    with pytest.raises(ValueError, match=f"unknown key 'nokey' for agent '{name}'.*valid keys") as error:
        parse_spec(f"{name}:nokey=1")
    assert "\n" not in str(error.value)


@pytest.mark.parametrize("spec", ["mcts:simulations=1e20", "az:simulations=1e19", "minimax:depth=1e30"])
def test_a_whole_number_too_large_for_the_search_is_a_one_line_error(spec):
    with pytest.raises(ValueError, match="expected a whole number from 1 to 9.22337e\\+18") as error:
        parse_spec(spec)
    assert "\n" not in str(error.value)


def _numeric_keys():
    """(agent, key, context) for every numeric key of every agent, the context the spec keys it needs to be read
    (an adjuster's keys need the adjuster that reads them; a strategy's settings, the strategy)."""
    from tuner.agents.adjusters import ADJUSTERS, TUNER_KEYS
    from tuner.strategies import REGISTRY

    context = {k: "dsa=fixed,dda_tuner=nmc" for k in TUNER_KEYS}
    for kind in ADJUSTERS.values():
        for key in kind.keys:
            context.setdefault(key, f"{kind.selector}={kind.name}")
    for strategy, entry in REGISTRY.items():
        for setting in entry.settings:
            context.setdefault(setting.spec_key, f"tuner={strategy}")
    for name, agent in AGENTS.items():
        for key, spec_key in agent.keys.items():
            if spec_key.parse.__qualname__.startswith("number."):
                needed = context.get(key, "")
                yield name, key, needed if needed.split("=")[0] in agent.keys else ""


@pytest.mark.slow
@pytest.mark.parametrize("name, key, context", list(_numeric_keys()))
def test_every_number_of_every_agent_is_refused_in_one_line_or_plays(name, key, context):
    """Each numeric key fed 0, -1, 1e20, nan, inf, -inf and x: a value its range refuses is one line naming the
    key before anything is built; one it takes makes legal moves at a tiny budget, from the start and from a
    position one move from the end (no compiled code sees a value it cannot take: 1e20 simulations once ended in
    a 60-line numba error, 1e20 seconds a move never ended)."""
    g = games.load("connect4")
    base = [kv for kv in tiny(name).partition(":")[2].split(",") if kv and not kv.startswith(f"{key}=")]
    for value in ("0", "-1", "1e20", "nan", "inf", "-inf", "x"):
        spec = f"{name}:" + ",".join([*base, *filter(None, [context]), f"{key}={value}"])
        try:
            agent = make_agent(g, spec, seed=0)
        except ValueError as error:
            assert "\n" not in str(error) and key in str(error), (spec, str(error))
            continue
        if name == "perfect" and not _solver():
            continue
        agent.new_game(0, seat=0)
        for moves in ([], [0, 1, 0, 1, 0, 1]):  # the first player wins at column 0 next
            state = g.new_initial_state()
            for move in moves:
                state.apply_action(move)
            assert agent.select_action(state) in state.legal_actions(), spec
