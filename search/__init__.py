"""Tree searches (UCT, MAST, GRAVE), minimax and random players, built from spec strings."""

from search.agents import (
    AGENTS,
    Agent,
    AgentKind,
    MCTSAgent,
    MinimaxAgent,
    RandomAgent,
    check_spec,
    make_agent,
    parse_spec,
)
from search.mcts import MCTS, SearchResult
from search.spec import AgentSpec

__all__ = [
    "AGENTS",
    "Agent",
    "AgentKind",
    "AgentSpec",
    "MCTS",
    "MCTSAgent",
    "MinimaxAgent",
    "RandomAgent",
    "SearchResult",
    "check_spec",
    "make_agent",
    "parse_spec",
]
