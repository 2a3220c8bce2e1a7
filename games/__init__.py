"""Game rules: a Python state API with OpenSpiel's names, over numba-compiled kernels.

>>> import games
>>> state = games.load("connect4").new_initial_state()
>>> state.apply_action(3)
>>> state.legal_actions()
[0, 1, 2, 3, 4, 5, 6]

Adding a game: write one module with its kernels and a `Game` subclass, and add it to `_REGISTRY`.
"""

from games.breakthrough import Breakthrough
from games.connect4 import Connect4
from games.game import TERMINAL_PLAYER, Game, Outcome, State
from games.kernels import GameKernels
from games.othello import Othello

__all__ = ["Game", "GameKernels", "Outcome", "State", "TERMINAL_PLAYER", "load", "names"]

_REGISTRY = {
    "connect4": Connect4,
    "othello": lambda: Othello(8),
    "othello6": lambda: Othello(6),
    "breakthrough": Breakthrough,
}
_LOADED: dict[str, Game] = {}


def names() -> list[str]:
    """The names `load` accepts."""
    return sorted(_REGISTRY)


def load(name: str) -> Game:
    """The game called `name`; an unknown name raises ValueError listing the known ones."""
    if name not in _REGISTRY:
        raise ValueError(f"unknown game {name!r}; known games: {', '.join(names())}")
    if name not in _LOADED:
        game = _REGISTRY[name]()
        missing = [fact for fact in Game.FACTS if not hasattr(game, fact)]
        if missing:  # a new game works everywhere or fails here, in one line
            raise TypeError(f"game {name!r} does not set {', '.join(missing)} (see games.Game)")
        _LOADED[name] = game
    return _LOADED[name]
