"""The Python face of a game: `Game` and `State`, named as in OpenSpiel, over the compiled kernels.

A `State` wraps the same uint64 array that the compiled kernels read, and asks them for
everything (legality, moves, the end), so the rules exist once. Per-game subclasses of `Game`
add only what is about text and pictures: the board drawing, action names, network planes and
board symmetries.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Callable

import numpy as np

from games.kernels import GameKernels

TERMINAL_PLAYER = -4  # OpenSpiel's kTerminalPlayerId: what current_player() says once the game is over


@dataclass(frozen=True)
class Outcome:
    """How a finished game ended: `winner` is the player with the highest score alone, or None when several share
    it (a draw in a two-player game; compiled kernels say -1)."""

    winner: int | None

    @property
    def draw(self) -> bool:
        return self.winner is None


@dataclass(frozen=True)
class Evaluation:
    """A static evaluation of positions for a depth-limited search: `evaluate(s, weights, player)`, a compiled
    kernel, scores state array `s` from `player`'s view (higher is better for that player), a won game
    above any unfinished one; `weights` (float64) are its constants."""

    evaluate: Callable
    weights: np.ndarray


class Game:
    """Rules and metadata of a sequential, deterministic, perfect-information game: two players, zero-sum, or more
    (each with its own score).

    Subclasses set the class attributes below and implement `render`, `action_to_string`,
    `string_to_action`, `planes`, `action_squares` and `symmetry_maps`.
    """

    name: str
    players: int = 2  # how many players take turns (with more, what is made for two refuses: two_players_only)
    kernels: GameKernels
    state_size: int  # length of the uint64 state array
    scratch: int = 0  # its last words: not the position but room the kernels write in as they work, even legal()
    max_legal: int  # an upper bound on the number of legal actions in any position
    num_actions: int  # size of the action space
    board_shape: tuple[int, int]  # (rows, columns) of encode()'s planes
    max_game_length: int  # an upper bound on the number of plies of any game
    own_moves: int  # one player's moves in a typical game (what on-line LSI budgets a game by)
    intra_moves: int  # one player's moves over which intra-game strength adjustment cools down
    evaluations: dict[str, Evaluation]  # static evaluations by name (AlphaDDA's "minimax1", "minimax2"), maybe none
    symbols: tuple[str, str] = ("x", "o")  # how `render` draws player 0's pieces and player 1's
    drawn = True  # whether `planes` draws the board as pieces (else a page shows `render`'s text and a move list)

    FACTS = (
        "name",
        "players",
        "kernels",
        "state_size",
        "max_legal",
        "num_actions",
        "board_shape",
        "max_game_length",
        "own_moves",
        "intra_moves",
        "evaluations",
    )

    def __init__(self):
        self._symmetries = None

    def __repr__(self) -> str:
        return f"games.load({self.name!r})"

    def __getstate__(self) -> dict:
        """Pickled (a state pickles its game) without the cached symmetry functions, lambdas rebuilt on use."""
        return {**self.__dict__, "_symmetries": None}

    def num_players(self) -> int:
        return self.players

    def num_distinct_actions(self) -> int:
        return self.num_actions

    def new_initial_state(self) -> State:
        s = np.zeros(self.state_size, dtype=np.uint64)
        self.kernels.init(s)
        return State(self, s, [])

    def search_depth(self, s: np.ndarray, depth: int, endgame: int) -> int:
        """How deep a minimax search with `evaluations` looks from state array `s`: `depth`, or to the end
        where the game counts `s` as an endgame of `endgame` or fewer (here never: Othello overrides)."""
        return depth

    def symmetries(self, planes: np.ndarray, policy: np.ndarray) -> list[tuple[np.ndarray, np.ndarray]]:
        """Every board symmetry applied to encoded planes [C, rows, cols] and a policy [num_actions].

        The identity comes first. A symmetry maps a legal action of a position to the legal action
        of the transformed position, so (planes, policy) pairs stay consistent for training.
        """
        if self._symmetries is None:
            self._symmetries = [(f, _inverse(perm)) for f, perm in self.symmetry_maps()]
        out = []
        for transform, inverse in self._symmetries:
            out.append((np.ascontiguousarray(transform(planes)), policy[..., inverse]))
        return out

    # --- what each game provides -------------------------------------------------------------
    def render(self, s: np.ndarray) -> str:
        raise NotImplementedError

    def action_to_string(self, s: np.ndarray, action: int) -> str:
        raise NotImplementedError

    def string_to_action(self, s: np.ndarray, text: str) -> int:
        """Parse an action name; raise ValueError saying what a valid name looks like."""
        raise NotImplementedError

    def planes(self, s: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """Boolean boards [rows, cols] of the pieces of player 0 and of player 1."""
        raise NotImplementedError

    def action_squares(self, s: np.ndarray, action: int) -> tuple[tuple[int, int] | None, tuple[int, int] | None]:
        """The (row, column) squares of `planes` that `action` moves a piece from and to in position `s`;
        None where it has none (a piece dropped or placed has no from-square, a pass neither)."""
        raise NotImplementedError

    def symmetry_maps(self) -> list[tuple[callable, np.ndarray]]:
        """(board transform over the last two axes, action permutation) for each symmetry, identity first.

        perm[a] is the image of action a under the symmetry.
        """
        raise NotImplementedError


def two_players_only(game: Game, what: str, instead: str = "play it with mcts, sp or ap") -> None:
    """ValueError in one line where `what` ("az plays"), made for two players (one opponent, one value per
    position), is asked to work on a game of more; `instead` says what to do."""
    if game.players != 2:
        raise ValueError(f"{what} two-player games only; {game.name} has {game.players} players: {instead}")


def bitboard_planes(s: np.ndarray, rows: int, cols: int) -> tuple[np.ndarray, np.ndarray]:
    """`Game.planes` of a game that keeps each player's pieces in s[0] and s[1], square (r, c) at bit r * cols + c."""
    bits = np.arange(rows * cols, dtype=np.uint64).reshape(rows, cols)
    return tuple(((s[p] >> bits) & np.uint64(1)).astype(bool) for p in (0, 1))


def square_symmetries(n: int, extra: int = 0) -> list[tuple[callable, np.ndarray]]:
    """`Game.symmetry_maps` of a game on an n x n board whose actions are its squares (row * n + column), then
    `extra` actions that no symmetry moves (Othello's pass): the four turns, each with and without a mirror."""
    squares = np.arange(n * n).reshape(n, n)
    maps = []
    for flip in (False, True):
        for k in range(4):

            def transform(x, k=k, flip=flip):
                return np.rot90(x[..., ::-1] if flip else x, k, axes=(-2, -1))

            perm = np.arange(n * n + extra)
            perm[transform(squares).ravel()] = np.arange(n * n)
            maps.append((transform, perm))
    return maps


def _inverse(perm: np.ndarray) -> np.ndarray:
    inv = np.empty_like(perm)
    inv[perm] = np.arange(len(perm))
    return inv


class State:
    """A position and the moves that led to it. Methods follow OpenSpiel's `pyspiel.State`."""

    __slots__ = ("_game", "_s", "_history", "_buf")

    def __init__(self, game: Game, s: np.ndarray, history: list[int]):
        self._game = game
        self._s = s
        self._history = history
        self._buf = np.empty(game.max_legal, dtype=np.int64)

    @property
    def game(self) -> Game:
        return self._game

    @property
    def array(self) -> np.ndarray:
        """The state array the compiled kernels work on. Read it, copy it; do not write to it."""
        return self._s

    def current_player(self) -> int:
        """0 .. players - 1, or TERMINAL_PLAYER (-4) once the game is over."""
        k = self._game.kernels
        return TERMINAL_PLAYER if k.terminal(self._s) else int(k.to_move(self._s))

    def legal_actions(self) -> list[int]:
        """The legal actions in ascending order; empty when the game is over."""
        k = self._game.kernels
        if k.terminal(self._s):
            return []
        n = k.legal(self._s, self._buf)
        return sorted(self._buf[:n].tolist())

    def apply_action(self, action: int) -> None:
        """Play `action`; an illegal one raises ValueError and leaves the state as it was."""
        legal = self.legal_actions()
        if action not in legal:
            names = ", ".join(f"{a} ({self.action_to_string(a)})" for a in legal)
            why = "the game is over" if not legal else f"legal actions: {names}"
            raise ValueError(f"illegal action {action!r} in {self._game.name}: {why}")
        self._game.kernels.apply(self._s, int(action))
        self._history.append(int(action))

    def clone(self) -> State:
        return State(self._game, self._s.copy(), list(self._history))

    def __deepcopy__(self, memo) -> State:
        """A clone: the position and history copied, the game (its rules, immutable) shared."""
        return self.clone()

    def is_terminal(self) -> bool:
        return bool(self._game.kernels.terminal(self._s))

    def outcome(self) -> Outcome | None:
        """How the game ended, or None while it goes on."""
        k = self._game.kernels
        if not k.terminal(self._s):
            return None
        w = int(k.winner(self._s))
        return Outcome(None if w < 0 else w)

    def scores(self) -> list[float]:
        """Each player's score in [0, 1] (a win 1, a loss 0, a draw 0.5 each in a two-player game), 0.5 each while the
        game goes on."""
        out = np.full(self._game.players, 0.5)
        if self._game.kernels.terminal(self._s):
            self._game.kernels.returns(self._s, out)
        return out.tolist()

    def returns(self) -> list[float]:
        """OpenSpiel's returns, 2 score - 1 per player: +1 for the winner and -1 for the loser of a two-player game,
        0 each for a draw or an unfinished game."""
        return [2.0 * x - 1.0 for x in self.scores()]

    def history(self) -> list[int]:
        return list(self._history)

    def action_squares(self, action: int) -> tuple[tuple[int, int] | None, tuple[int, int] | None]:
        """The (row, column) squares of `planes()` that `action` moves a piece from and to (None: none)."""
        return self._game.action_squares(self._s, action)

    def planes(self) -> tuple[np.ndarray, np.ndarray]:
        """Boolean boards [rows, cols] of the pieces of player 0 and of player 1, row 0 drawn at the top."""
        return self._game.planes(self._s)

    def action_to_string(self, action: int) -> str:
        return self._game.action_to_string(self._s, int(action))

    def string_to_action(self, text: str) -> int:
        return self._game.string_to_action(self._s, text)

    def encode(self, player: int | None = None) -> np.ndarray:
        """Network input float32 [3, rows, cols] from the view of `player` (default: the player to move).

        Planes: that player's pieces, the opponent's pieces, and all ones when player 1 is to move.
        """
        p0, p1 = self._game.planes(self._s)
        mover = int(self._game.kernels.to_move(self._s))
        own, opp = (p0, p1) if (mover if player is None else player) == 0 else (p1, p0)
        out = np.zeros((3, *self._game.board_shape), dtype=np.float32)
        out[0][own] = 1.0
        out[1][opp] = 1.0
        out[2] = float(mover)
        return out

    def symmetries(self, policy: np.ndarray) -> list[tuple[np.ndarray, np.ndarray]]:
        """(planes, policy) under each board symmetry of the game, identity first."""
        return self._game.symmetries(self.encode(), np.asarray(policy))

    def __str__(self) -> str:
        return self._game.render(self._s)

    def __repr__(self) -> str:
        return f"<{self._game.name} state after {len(self._history)} moves>"
