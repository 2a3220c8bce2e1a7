"""The perfect Connect4 player and exact position values, from the `bitbully` solver (extra `[solver]`).

Connect4 is solved: the first player wins by opening in the centre (Allis 1988; Allen). `bitbully`
(PyPI, with its opening books in `bitbully-databases`) is a fast exact solver; we wrap it rather than
write one. Its score of a move is from the view of the player making it: > 0 a win, 0 a draw, < 0 a
loss, and a larger magnitude a quicker win or a slower loss. Our Connect4 actions are its columns.

`depth` is the solver's own strength knob: beyond that many plies it stops searching and plays out
non-losing moves instead, so a small depth is a weaker, no longer perfect, player.
"""

from __future__ import annotations

import threading

from games.rng import randint
from search.agents import Agent

INSTALL = "the perfect player needs the solver extra: pip install 'sparring[solver]' (bitbully)"
_solvers: dict = {}  # one solver per process: loading the opening book takes about half a second
_lock = threading.Lock()  # the solver's tables are not shared safely between threads


def available() -> bool:
    """Whether the `bitbully` package can be imported."""
    try:
        import bitbully  # noqa: F401
    except ImportError:
        return False
    return True


def _solver():
    with _lock:
        if "solver" not in _solvers:
            try:
                from bitbully import BitBully
            except ImportError as e:
                raise ValueError(INSTALL) from e
            _solvers["solver"] = BitBully()
        return _solvers["solver"]


def move_scores(state, depth: int | None = None) -> dict[int, int]:
    """The solver's score of every legal move of a non-terminal Connect4 `state` (module docstring);
    `depth` limits its search (None: exact)."""
    from bitbully import Board

    if state.game.name != "connect4":
        raise ValueError(f"the solver plays connect4, not {state.game.name}")
    if state.is_terminal():
        raise ValueError("a finished game has no moves to score")
    solver = _solver()
    with _lock:
        if depth is not None:  # a cut-off search reads what earlier searches left in the table: start it empty,
            solver.reset_transposition_table()  # so that a seeded player replays (measured: the first game differed)
        return dict(solver.score_all_moves(Board(state.history()), max_depth=-1 if depth is None else depth))


def value(state) -> int:
    """The exact value of a non-terminal Connect4 position for the player to move: the best move's
    score (> 0 a win, 0 a draw, < 0 a loss)."""
    return max(move_scores(state).values())


def planes_value(planes) -> int | None:
    """The exact value for the player to move of an encoded Connect4 position (State.encode's planes [3, 6, 7], as
    self-play records them: the mover's pieces, the other's, all ones when the second player moves), or None if the
    game is over there."""
    from bitbully import Board

    first, second = (planes[0], planes[1]) if planes[2, 0, 0] == 0 else (planes[1], planes[0])
    rows = planes.shape[1]  # our row 0 is the top; bitbully's columns list cells from the bottom
    board = Board(
        [
            [1 if first[rows - 1 - h, c] else 2 if second[rows - 1 - h, c] else 0 for h in range(rows)]
            for c in range(planes.shape[2])
        ]
    )
    if board.is_game_over():
        return None
    solver = _solver()
    with _lock:
        return max(dict(solver.score_all_moves(board, max_depth=-1)).values())


def keeping(scores: dict[int, int]) -> set[int]:
    """The moves of `move_scores` that keep the position's value: a score of the best score's sign (a win stays a
    win, a draw a draw; in a lost position every move)."""
    best = _sign(max(scores.values()))
    return {move for move, score in scores.items() if _sign(score) == best}


def _sign(score: int) -> int:
    return (score > 0) - (score < 0)


class PerfectAgent(Agent):
    """Plays a move of the best score, chosen at random (seeded) among equally scored ones."""

    def __init__(self, game, seed: int, depth: int | None = None):
        if game.name != "connect4":
            raise ValueError(f"perfect plays connect4 only, not {game.name}")
        super().__init__(game, seed)
        self.depth = depth
        _solver()

    def select_action(self, state) -> int:
        scores = move_scores(state, self.depth)
        best = max(scores.values())
        ties = sorted(a for a, s in scores.items() if s == best)
        return ties[randint(self.rng, len(ties))]
