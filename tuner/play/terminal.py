"""`sparring play`: a person plays the adaptive opponent in the terminal, one line per move.

The board is drawn after every move; a move is typed in the game's notation, and `undo`, `hint`,
`resign`, `board`, `help` and `quit` do what they say. A refused line is one line of explanation and
leaves the game as it was. Each opponent move prints the strength knobs it used and its own estimate.
"""

from __future__ import annotations

from typing import Callable

from tuner.play.opponent import Opponent, describe_strength

COMMANDS = "a move, or: hint, undo, resign, board, help, quit"


def _record(opponent: Opponent) -> str:
    r = opponent.record
    name = f"profile {r.name!r}: " if r.name else ""
    games = f"{r.games} game{'s' * (r.games != 1)}"
    return f"{name}{games} against it, you won {r.wins}, drew {r.draws}, lost {r.losses}"


def _board(opponent: Opponent, say) -> None:
    say(str(opponent.state).rstrip("\n"))


def play_terminal(
    opponent: Opponent,
    *,
    human_first: bool | None = None,
    read: Callable[[str], str] = input,
    say: Callable[[str], None] = print,
) -> None:
    """Play games until the person quits (or the input ends). `human_first` None alternates, the person
    first in the first game. `read(prompt)` returns a line (EOFError at the end), `say` prints one."""
    game = opponent.game
    say(f"{game.name} against {opponent.spec} (seed {opponent.seed}). {_record(opponent)}.")
    say(f"Type {COMMANDS}.")
    while True:
        first = human_first if human_first is not None else opponent.games_played % 2 == 0
        opponent.new_game(human_first=first)
        mine = game.symbols[opponent.human]
        say(f"\nNew game: you play {'first' if first else 'second'}, as {mine}; it starts {opponent.level()}.")
        _board(opponent, say)
        if not _play_one(opponent, read, say):
            say("Left the game unfinished: it is not counted.")
            return
        say({"win": "You won.", "loss": "You lost.", "draw": "A draw."}[opponent.result] + f" {_record(opponent)}.")
        try:
            again = read("Another game? [Y/n] ").strip().lower()
        except EOFError:
            return
        if again not in ("", "y", "yes"):
            return


def _play_one(opponent: Opponent, read, say) -> bool:
    """One game to its end (True), or until the person quits (False)."""
    while not opponent.over:
        if not opponent.human_to_move:
            turn = opponent.reply()
            estimate = "" if turn.estimate is None else f"; it expects to score {turn.estimate:.2f} (1 = it wins)"
            say(f"It plays {turn.text} ({describe_strength(turn.strength)}{estimate}).")
            _board(opponent, say)
            continue
        legal = opponent.state.legal_actions()
        if len(legal) == 1 and opponent.state.action_squares(legal[0]) == (None, None):
            say("You have no move: type pass.")
        try:
            line = read("your move> ").strip()
        except EOFError:
            return False
        command = line.lower()
        try:
            if command in ("quit", "exit", "q"):
                return False
            elif command in ("help", "?", ""):
                say(f"Type {COMMANDS}. Moves look like {_examples(opponent)}.")
            elif command == "board":
                _board(opponent, say)
            elif command == "hint":
                say(f"Hint: {opponent.hint()[1]}")
            elif command == "undo":
                opponent.undo()
                say("Took back your last move and its reply.")
                _board(opponent, say)
            elif command == "resign":
                try:
                    sure = read("Resign? It counts as a loss. [y/N] ").strip().lower()
                except EOFError:
                    return False
                if sure in ("y", "yes"):
                    opponent.resign()
            else:
                opponent.move(line)
                _board(opponent, say)
        except ValueError as error:
            say(f"error: {error}")
    return True


def _examples(opponent: Opponent) -> str:
    state = opponent.state
    return ", ".join(state.action_to_string(a) for a in state.legal_actions()[:3])
