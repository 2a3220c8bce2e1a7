"""Tree searches (UCT, MAST, GRAVE, AlphaZero's PUCT), minimax and random players, built from spec strings."""

from search.agents import (
    AGENTS,
    Agent,
    AgentGroup,
    AgentKind,
    MCTSAgent,
    MinimaxAgent,
    RandomAgent,
    SearchAgent,
    adapts_between_games,
    batches,
    check_spec,
    group_key,
    make_agent,
    make_agents,
    parse_spec,
)
from search.mcts import MCTS, SearchResult
from search.spec import AgentSpec

__all__ = [
    "AGENTS",
    "Agent",
    "AgentGroup",
    "AgentKind",
    "AgentSpec",
    "MCTS",
    "MCTSAgent",
    "MinimaxAgent",
    "RandomAgent",
    "SearchAgent",
    "SearchResult",
    "adapts_between_games",
    "batches",
    "check_spec",
    "group_key",
    "make_agent",
    "make_agents",
    "parse_spec",
]
