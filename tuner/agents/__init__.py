"""Agents from spec strings, `name:key=value,key=value`: the same syntax in Python, the CLI and studies.

>>> from tuner.agents import make_agent
>>> agent = make_agent("connect4", "mcts:simulations=300,c=0.5", seed=1)
>>> agent.select_action(agent.game.new_initial_state()) in range(7)
True

`sparring arena --help` lists every agent, key and default (`describe_agents`); the agents themselves
live in `search` (search.agents, search.az, search.perfect), their table in `tuner.agents.registry`.
"""

from __future__ import annotations

import secrets

import games
from games.game import two_players_only
from search.agents import Agent, AgentGroup
from tuner.agents import adjusters
from tuner.agents import spec as specs
from tuner.agents.registry import AGENTS, AgentKind
from tuner.agents.spec import AgentSpec

__all__ = [
    "AGENTS",
    "AgentKind",
    "AgentSpec",
    "adapts_between_games",
    "batches",
    "check_spec",
    "describe_agents",
    "group_key",
    "make_agent",
    "make_agents",
    "parse_spec",
]


def parse_spec(spec: str | AgentSpec, *, placeholders: bool = False) -> AgentSpec:
    """The parsed spec, every default filled in; ValueError in one line if malformed."""
    return spec if isinstance(spec, AgentSpec) else specs.parse(spec, AGENTS, placeholders)


def check_spec(game: games.Game | str, spec: str | AgentSpec) -> AgentSpec:
    """Parse `spec` and run every check that building it for `game` would run, without building it."""
    game = games.load(game) if isinstance(game, str) else game
    parsed = parse_spec(spec)
    if not AGENTS[parsed.name].any_players:
        two_players_only(game, f"{parsed.name} plays")
    check = AGENTS[parsed.name].check
    if check is not None:
        check(game, parsed.options)
    return parsed


def make_agent(game: games.Game | str, spec: str | AgentSpec, *, seed: int | None = None) -> Agent:
    """The agent described by `spec` for `game` (a Game or its name), seeded (a random seed if None)."""
    game = games.load(game) if isinstance(game, str) else game
    parsed = check_spec(game, spec)
    agent = AGENTS[parsed.name].build(game, secrets.randbits(63) if seed is None else seed, parsed.options)
    agent.spec = str(spec)
    return agent


def make_agents(game: games.Game | str, spec, *, seeds: list[int]) -> AgentGroup:
    """One agent per seed, for as many concurrent games (`az` agents share one search and its forwards).

    `spec` is one spec for every game, or a list with one per seed; specs that batch must then share a
    `group_key` (ValueError otherwise)."""
    game = games.load(game) if isinstance(game, str) else game
    specs = [spec] * len(seeds) if isinstance(spec, (str, AgentSpec)) else list(spec)
    if len(specs) != len(seeds):
        raise ValueError(f"{len(specs)} specs for {len(seeds)} seeds: give one spec, or one per seed")
    parsed = [check_spec(game, s) for s in specs]
    keys = {group_key(p) for p in parsed}
    if len(keys) > 1 and any(AGENTS[p.name].group is not None for p in parsed):
        raise ValueError(f"these specs cannot share one search: {', '.join(sorted({str(s) for s in specs}))}")
    kind = AGENTS[parsed[0].name]
    if kind.group is not None:
        group = kind.group(game, list(seeds), [p.options for p in parsed])
    else:
        group = AgentGroup(AGENTS[p.name].build(game, seed, p.options) for p, seed in zip(parsed, seeds))
    for agent, s in zip(group, specs):
        agent.spec = str(s)
    return group


def group_key(spec: str | AgentSpec) -> tuple:
    """Specs with equal keys can play in one `make_agents` group: an agent kind that batches (`az`) and
    its shared settings, or ("each",) for agents that search one game at a time."""
    parsed = parse_spec(spec)
    kind = AGENTS[parsed.name]
    if kind.group is None:
        return ("each",)
    return (parsed.name, *kind.shared(parsed.options))


def adapts_between_games(spec: str | AgentSpec) -> bool:
    """Whether agents of `spec` carry what they learn from one game to the next of a match (dsa=inter or
    both, dda=alphadda1z with a z_0 step), so that a match must give them its games one after another."""
    return adjusters.learns_between_games(parse_spec(spec).options)


def batches(spec: str | AgentSpec) -> bool:
    """Whether agents of `spec` batch their searches across concurrent games (`az`)."""
    return AGENTS[parse_spec(spec).name].group is not None


def nets_of(game: games.Game | str, specs) -> dict[str, str]:
    """Each network `specs` play with, by the name that picks it (`net=` as written, or the game's name for its
    default net), with its file's digest: a spec names a net, not its weights, and the file under a name changes
    (a better net shipped, another checkout). A `net={placeholder}` (a study's per-trial net) is left out."""
    from nets.shipped import NET_FREE, resolve_net
    from tuner.provenance import file_digest

    game = games.load(game) if isinstance(game, str) else game
    found = {}
    for spec in specs:
        parsed = parse_spec(spec, placeholders=True)
        if "net" in parsed.options and "net" not in parsed.placeholders:
            path = resolve_net(parsed.options["net"], game)
            if path not in NET_FREE:
                found[parsed.options["net"] or game.name] = file_digest(path)
    return found


def changed_net(then: dict[str, str], now: dict[str, str]) -> str | None:
    """The first name (in order) whose digest differs between two `nets_of` records, or None where they agree."""
    return next((name for name in sorted(set(then) | set(now)) if then.get(name) != now.get(name)), None)


def describe_agents() -> str:
    """Every agent with its keys and defaults, for --help."""
    return specs.describe(AGENTS)
