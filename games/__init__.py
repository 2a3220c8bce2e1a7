"""Game rules: a Python state API with OpenSpiel's names, over numba-compiled kernels.

>>> import games
>>> state = games.load("connect4").new_initial_state()
>>> state.apply_action(3)
>>> state.legal_actions()
[0, 1, 2, 3, 4, 5, 6]

Adding a game: write one module with its kernels and a `Game` subclass, and add it to `_REGISTRY` (the fast
path); or, from another package, register an OpenSpiel-shaped game in plain Python (games.outside).
"""

from importlib.metadata import entry_points

from games.breakthrough import Breakthrough
from games.checkers import Checkers
from games.chinesecheckers import ChineseCheckers
from games.chinook import Chinook
from games.connect4 import Connect4
from games.connect5 import Connect5
from games.game import TERMINAL_PLAYER, Game, Outcome, State
from games.go import Go
from games.kernels import GameKernels
from games.knightthrough import Knightthrough
from games.othello import Othello
from games.outside import OutsideGame
from games.pentago import Pentago, PentagoGGP
from games.quad import Quad
from games.sheepandwolf import SheepAndWolf
from games.tictactoe3d import TicTacToe3D
from games.ttcc4 import TTCC4

__all__ = ["Game", "GameKernels", "Outcome", "State", "TERMINAL_PLAYER", "base_name", "load", "names"]

_REGISTRY = {
    "connect4": Connect4,
    "othello": lambda: Othello(8),
    "othello6": lambda: Othello(6),
    "breakthrough": Breakthrough,
    "pentago": Pentago,
    "pentago_ggp": PentagoGGP,
    "knightthrough": Knightthrough,
    "connect5": Connect5,
    "tictactoe3d": TicTacToe3D,
    "sheepandwolf": SheepAndWolf,
    "chinesecheckers3": ChineseCheckers,
    "quad": Quad,
    "checkers": Checkers,
    "chinook": Chinook,
    "ttcc4_2p": lambda: TTCC4(2),
    "ttcc4_3p": lambda: TTCC4(3),
    "go9": Go,
}
_LOADED: dict[str, Game] = {}
ENTRY_POINTS = "sparring.games"  # another package's game: an entry point naming a callable that returns it
OPENSPIEL = "openspiel:"


def names() -> list[str]:
    """The names `load` accepts: our games and those other packages register (entry points in the group
    `sparring.games`); any pyspiel game is loaded as `openspiel:NAME`, e.g. `openspiel:hex(board_size=7)`."""
    return sorted({*_REGISTRY, *(e.name for e in entry_points(group=ENTRY_POINTS))})


def base_name(name: str) -> str:
    """A game's name without its parameters (`go9(komi=6.5)` -> `go9`): what per-game tables are keyed by."""
    return name.partition("(")[0]


def load(name: str) -> Game:
    """The game called `name`; an unknown name raises ValueError listing the known ones.

    Our games run on compiled rules; a game from OpenSpiel or another package (games.outside) runs its own
    Python rules, through the same searches, slower.
    """
    if name not in _LOADED:
        _LOADED[name] = _make(name)
    return _LOADED[name]


def _make(name: str) -> Game:
    base, _, args = name.partition("(")
    if args and base in _REGISTRY:  # a game's parameters, as OpenSpiel writes them: go9(komi=6.5)
        try:
            game = _REGISTRY[base](**_parameters(name, args))
        except TypeError:
            raise ValueError(f"bad game {name!r}: {base} takes no such parameter") from None
    elif name in _REGISTRY:
        game = _REGISTRY[name]()
    elif name.startswith(OPENSPIEL):
        game = OutsideGame(name, _pyspiel_game(name[len(OPENSPIEL) :]))
    else:
        found = [e for e in entry_points(group=ENTRY_POINTS) if e.name == name]
        if not found:
            raise ValueError(f"unknown game {name!r}; known games: {', '.join(names())}, or openspiel:NAME")
        game = OutsideGame(name, found[0].load()())
    missing = [fact for fact in Game.FACTS if not hasattr(game, fact)]
    if missing:  # a new game works everywhere or fails here, in one line
        raise TypeError(f"game {name!r} does not set {', '.join(missing)} (see games.Game)")
    return game


def _parameters(name: str, args: str) -> dict:
    """`key=value,...)` as numbers; ValueError in one line where malformed."""
    try:
        pairs = [item.split("=") for item in args.removesuffix(")").split(",")] if args.endswith(")") else None
        return {key.strip(): float(value) for key, value in pairs}
    except (TypeError, ValueError):
        raise ValueError(f"bad game {name!r}: write its parameters as numbers, e.g. go9(komi=6.5)") from None


def _pyspiel_game(spec: str):
    try:
        import pyspiel
    except ImportError:
        raise ValueError("openspiel: games need OpenSpiel: pip install open_spiel") from None
    try:
        return pyspiel.load_game(spec)
    except pyspiel.SpielError as error:
        raise ValueError(f"OpenSpiel has no game {spec!r} ({str(error).strip().splitlines()[-1]})") from None
