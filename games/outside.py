"""Games from outside the package: any OpenSpiel-shaped game in plain Python, or a pyspiel game, played by
our compiled searches through Python callbacks (DESIGN section 11).

A source game needs only OpenSpiel's names: the game has `new_initial_state()`, `num_distinct_actions()`,
`max_game_length()`, `num_players()`; its states `current_player()` (negative once over), `legal_actions()`,
`apply_action(a)` (in place), `clone()`, `is_terminal()`, `returns()`, `action_to_string(player, a)` and
`__str__`. A pyspiel game is one as it stands; a plain-Python class written to these names is another.

`OutsideGame` wraps it as a `games.Game` whose kernels are the same for every outside game: a state array
holds the game's id and the moves played ([id, n, a_1, ..., a_n]), so the searches copy and extend positions
as they do ours, at compiled speed, and ask the source game only what the rules say (legal moves, the mover,
the end, the winner) through numba's object mode, a few microseconds a call. The source states behind those
questions are cached by the moves that led to them, each built from its parent by one `clone` and one
`apply_action`; the cache is cleared when it grows past `CACHE` positions (any position can be rebuilt from
the start). Slower than our own games by the source game's own cost plus the crossing, and said so wherever
such a game is offered.

Only two-player, zero-sum, deterministic, sequential, perfect-information games with terminal results come
in: the winner is the player with the larger return, a draw when they are equal.
"""

from __future__ import annotations

import threading
import warnings

import numpy as np
from numba import objmode
from numba.core.errors import NumbaWarning

from games.game import Game, State
from games.jit import kernel
from games.kernels import GameKernels, winner_returns

warnings.filterwarnings("ignore", message=".*Code running in object mode", category=NumbaWarning)

CACHE = 1 << 17  # source positions kept before the cache starts again
ID, LENGTH, MOVES = 0, 1, 2  # layout of an outside game's state array
_GAMES: list[OutsideGame] = []  # by id: the state array's first entry
_LOCK = threading.Lock()


def _source(s):
    """The source game's state for state array `s` (cached)."""
    return _GAMES[int(s[ID])].source_state(s)


def _legal(s, out) -> int:
    actions = _source(s).legal_actions()
    out[: len(actions)] = actions
    return len(actions)


def _terminal(s) -> bool:
    return bool(_source(s).is_terminal())


def _winner(s) -> int:
    first, second = _source(s).returns()[:2]
    return 0 if first > second else 1 if second > first else -1


def _to_move(s) -> int:
    return int(_source(s).current_player())


def _encode(s, out, row) -> None:
    _GAMES[int(s[ID])].write_planes(s, out[row])


@kernel
def outside_init(s):
    """Nothing to write: `OutsideGame.new_initial_state` writes the id, and no moves."""


@kernel
def outside_legal(s, out):
    with objmode(n="int64"):
        n = _legal(s, out)
    return n


@kernel
def outside_apply(s, action):
    s[MOVES + s[LENGTH]] = np.uint64(action)
    s[LENGTH] += np.uint64(1)


@kernel
def outside_terminal(s):
    with objmode(over="boolean"):
        over = _terminal(s)
    return over


@kernel
def outside_winner(s):
    with objmode(w="int64"):
        w = _winner(s)
    return w


@kernel
def outside_returns(s, out):
    winner_returns(outside_winner(s), out)


@kernel
def outside_to_move(s):
    with objmode(p="int64"):
        p = _to_move(s)
    return p


@kernel
def outside_encode(s, out, row):
    with objmode():
        _encode(s, out, row)


KERNELS = GameKernels(
    outside_init,
    outside_legal,
    outside_apply,
    outside_terminal,
    outside_winner,
    outside_returns,
    outside_to_move,
    outside_encode,
)


class OutsideGame(Game):
    """`source`, an OpenSpiel-shaped game, as one of ours under `name`; its moves and rules stay the source's.

    own_moves and intra_moves (what on-line LSI and intra-game adjustment budget by) are measured as half
    the mean length of 20 seeded random games.
    """

    kernels = KERNELS
    evaluations: dict = {}

    def __init__(self, name: str, source):
        super().__init__()
        if source.num_players() != 2:
            raise ValueError(f"game {name!r} has {source.num_players()} players; sparring plays two-player games")
        kind = source.get_type() if hasattr(source, "get_type") else None  # a pyspiel game says what it is
        if kind is not None and not _sequential_perfect_zero_sum(kind):
            raise ValueError(
                f"game {name!r} is not sequential, deterministic, perfect-information and zero-sum "
                f"({kind.dynamics.name.lower()}, {kind.chance_mode.name.lower()}, {kind.information.name.lower()}, "
                f"{kind.utility.name.lower()}): sparring plays only such games"
            )
        self.name, self.source = name, source
        self.num_actions = self.max_legal = int(source.num_distinct_actions())
        self.max_game_length = int(source.max_game_length())
        self.state_size = MOVES + self.max_game_length
        shape = _observation_shape(source)
        self.board_shape = None if shape is None else tuple(shape[-2:])
        self._cache: dict[tuple, object] = {}
        with _LOCK:
            self.id = len(_GAMES)
            _GAMES.append(self)
        lengths = [len(self.new_initial_state_random(seed).history()) for seed in range(20)]
        self.own_moves = self.intra_moves = max(1, round(np.mean(lengths) / 2))

    def __repr__(self) -> str:
        return f"games.load({self.name!r})"

    def new_initial_state(self) -> State:
        s = np.zeros(self.state_size, dtype=np.uint64)
        s[ID] = self.id
        return State(self, s, [])

    def new_initial_state_random(self, seed: int):
        """A game played to its end by uniformly random moves (seeded): how long games run."""
        rng = np.random.default_rng(seed)
        state = self.new_initial_state()
        while not state.is_terminal():
            legal = state.legal_actions()
            state.apply_action(legal[rng.integers(len(legal))])
        return state

    def position(self, moves: list[int]):
        """The source state after `moves` from the start, from the cache or built from its longest cached
        prefix (never mutated once cached: a child is a clone)."""
        key = tuple(moves)
        state = self._cache.get(key)
        if state is not None:
            return state
        if len(self._cache) >= CACHE:
            self._cache.clear()
        known = len(key)
        while known > 0 and key[:known] not in self._cache:
            known -= 1
        state = self._cache.get(key[:known])
        if state is None:
            state = self.source.new_initial_state()
            self._cache[()] = state
        for k in range(known, len(key)):
            state = state.clone()
            state.apply_action(key[k])
            self._cache[key[: k + 1]] = state
        return state

    def source_state(self, s: np.ndarray):
        """The source game's state for our state array `s`."""
        return self.position(s[MOVES : MOVES + int(s[LENGTH])].tolist())

    def render(self, s):
        return str(self.source_state(s))

    def action_to_string(self, s, action):
        source = self.source_state(s)
        return source.action_to_string(max(0, source.current_player()), int(action))

    def string_to_action(self, s, text):
        source = self.source_state(s)
        names = {source.action_to_string(source.current_player(), a): a for a in source.legal_actions()}
        if text.strip() in names:
            return names[text.strip()]
        try:
            return int(text)
        except ValueError:
            raise ValueError(f"{text!r} is not a move: give a move's name ({', '.join(names)}) or number") from None

    drawn = False  # its own text (`render`) is all a page can show of it
    symbols = ("player 0", "player 1")  # who is who, in OpenSpiel's numbers: it has no pieces of ours

    def planes(self, s):
        raise NotImplementedError(f"{self.name} is drawn as text: it has no board of pieces")

    def action_squares(self, s, action):
        return None, None

    def symmetry_maps(self):
        return [(lambda planes: planes, np.arange(self.num_actions))]

    def write_planes(self, s, out):
        raise ValueError(f"{self.name} has no network planes: AlphaZero plays only sparring's own games")


def _observation_shape(source):
    try:
        return source.observation_tensor_shape()
    except (AttributeError, RuntimeError):
        return None


def _sequential_perfect_zero_sum(kind) -> bool:
    """Whether a pyspiel GameType is a game an outside game may be."""
    import pyspiel

    kinds = pyspiel.GameType
    return (
        kind.dynamics == kinds.Dynamics.SEQUENTIAL
        and kind.chance_mode == kinds.ChanceMode.DETERMINISTIC
        and kind.information == kinds.Information.PERFECT_INFORMATION
        and kind.utility in (kinds.Utility.ZERO_SUM, kinds.Utility.CONSTANT_SUM)
        and kind.reward_model == kinds.RewardModel.TERMINAL
    )
