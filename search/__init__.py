"""Tree searches (UCT, MAST, GRAVE), minimax and random players, built from spec strings."""

from search.agents import AGENTS, Agent, MCTSAgent, MinimaxAgent, RandomAgent, make_agent, parse_spec
from search.mcts import MCTS, SearchResult

__all__ = [
    "AGENTS",
    "Agent",
    "MCTS",
    "MCTSAgent",
    "MinimaxAgent",
    "RandomAgent",
    "SearchResult",
    "make_agent",
    "parse_spec",
]
