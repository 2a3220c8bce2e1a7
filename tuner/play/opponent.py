"""An adaptive opponent for one person, in a few calls a game's own loop can make.

`Opponent` holds the agent (built from a spec), the game between it and the person, the undo stack and,
given a profile name, what the agent has learnt about that person (`Profiles`): loaded when it is
built, saved after every finished game. The terminal session, the web page and embedding games all
play through it.

>>> bot = Opponent("connect4", "mcts:simulations=50,dsa=both", seed=0)
>>> bot.new_game(human_first=True)
>>> bot.move("3")                       # the person's move, in the game's notation or as an action id
>>> turn = bot.reply()                  # the opponent's move, played on bot.state
>>> turn.text in "0123456", sorted(turn.strength), 0 <= turn.estimate <= 1
(True, ['simulations', 'z'], True)
>>> bot.undo()                          # takes back the person's move and the reply to it
>>> bot.state.history()
[]
"""

from __future__ import annotations

import copy
import math
import secrets
from dataclasses import dataclass

import games
from games.game import two_players_only
from games.rng import derive_seeds
from tuner.agents import check_spec, make_agent, parse_spec
from tuner.play.level import describe_level, elo_below_best
from tuner.play.profiles import Profile, ProfileError, Profiles, afresh, canonical_spec, check_name

# adaptive without a net: Wu et al.'s inter- and intra-game adjustment of z, its inter-game step heated by a run of
# results (issue 31: as fair as mcts:dsa=both on both games' tables, and back near even after a jump in the person's
# strength, where dsa=both stays lost; an on-line DDA tuner of its band added nothing measurable, at a state copy
# per move; experiments/results/online_dda, docs/guides/online-dda.md)
DEFAULT_SPEC = "mcts:dsa=both,dz_reheat=6"
HINT_SPEC = "mcts:simulations=2000"  # the helper a person asks for a hint: full strength, its own tree


class OutOfTurn(ValueError):
    """A call that does not fit the game's moment (its turn, a finished game, nothing to undo)."""


@dataclass(frozen=True)
class Turn:
    """One move of the opponent: the action and its name, the strength knobs in force when it chose it
    (e.g. {"z": 0.4, "simulations": 1000}) and its own expected score by its search (win 1, draw 0.5;
    None for a player without one, such as minimax or random)."""

    ply: int
    action: int
    text: str
    strength: dict
    estimate: float | None


class Opponent:
    """`spec` (default: adaptive MCTS) playing `game` against one person, who may have a `profile`.

    Args:
        game: a game name or `games.Game`.
        spec: the opponent's agent spec (`sparring arena --help` lists them); DEFAULT_SPEC if None.
        profile: the person's name; the agent's adjuster state and the person's results are loaded
            from `profiles` and saved there after every finished game. None: nothing is remembered.
        profiles: a `Profiles` store or the path of its file (default: the user's data directory).
        seed: seeds the opponent (game k replays from (seed, k)); None draws one (kept in `seed`).
        hint: the agent spec that answers `hint()`.
    Raises:
        ValueError: a bad game, spec or profile name (one line); ProfileError for an unusable profile.
    """

    def __init__(
        self,
        game,
        spec: str | None = None,
        *,
        profile: str | None = None,
        profiles: Profiles | str | None = None,
        seed: int | None = None,
        hint: str = HINT_SPEC,
    ):
        self.game = games.load(game) if isinstance(game, str) else game
        two_players_only(self.game, "a person plays", f"watch one with sparring demo --game {self.game.name}")
        self.spec = spec or DEFAULT_SPEC
        check_spec(self.game, self.spec)
        check_spec(self.game, hint)
        name = "" if profile is None else check_name(profile)
        self.seed = secrets.randbits(63) if seed is None else int(seed)
        self.agent = make_agent(self.game, self.spec, seed=self.seed)
        self.hint_spec, self._hint_agent = hint, None
        self.adjuster = getattr(self.agent, "adjuster", None)
        self.profiles = None if profile is None else profiles if isinstance(profiles, Profiles) else Profiles(profiles)
        self.record = Profile(name, self.game.name, canonical_spec(self.spec), None)
        self._load_profile()
        self.games_played = 0
        self.state: games.State | None = None
        self.human = 0  # the person's seat
        self._resigned = False
        self.turns: list[Turn] = []  # the opponent's moves this game
        self._undo: list[tuple[int, dict | None, int]] = []  # before each of the person's moves: plies, adjuster, turns
        self._start_games = 0  # the profile's games as this game started (more when it ends: another session's)
        self._shown: dict | None = self._preview()

    def _load_profile(self) -> None:
        """Take the profile's latest record and adjuster state (another session may have moved them)."""
        if self.profiles is None:
            return
        saved = self.profiles.load(self.record.name, self.game.name, self.spec)
        if saved is None:
            return
        if saved.state is None and self.adjuster is not None and saved.games > 0:
            raise ProfileError(
                f"profile {saved.name!r} ({self.game.name}, {saved.spec}) in {self.profiles.path} is "
                f"damaged: {saved.games} game{'s' * (saved.games != 1)} but no adjuster state; "
                f"{afresh(saved.name, self.game.name, saved.spec, self.profiles.path)}"
            )
        if saved.state is not None:
            if self.adjuster is None:
                raise ProfileError(f"profile {saved.name!r} holds an adjuster's state, but {self.spec} has none")
            try:
                self.adjuster.load_state_dict(saved.state)
            except ValueError as error:
                raise ProfileError(
                    f"profile {saved.name!r} ({self.game.name}, {saved.spec}) in "
                    f"{self.profiles.path} does not fit this opponent: {error}; "
                    f"{afresh(saved.name, self.game.name, saved.spec, self.profiles.path)}"
                ) from None
        self.record = saved

    # --- the game ----------------------------------------------------------------------------------

    def new_game(self, *, human_first: bool = True, moves=()) -> None:
        """Start a game with the person first or second (the person is player 0 if first), from the position
        after `moves` (action ids or names, both sides' in turn; e.g. a saved game or a puzzle); an
        unfinished game is dropped (not counted). With a profile, its latest level is loaded first.
        ValueError if a move is illegal or ends the game."""
        state = self.game.new_initial_state()
        for move in moves:
            action = int(move) if isinstance(move, int) else state.string_to_action(str(move))
            if action not in state.legal_actions():
                raise ValueError(f"{move!r} is not a legal move after {state.history()}")
            state.apply_action(action)
            if state.is_terminal():
                raise ValueError(f"the start position {list(moves)} ends the game: give an unfinished one")
        self._load_profile()
        self._start_games = self.record.games
        self.human = 0 if human_first else 1
        self.state = self.game.new_initial_state()
        self.turns, self._undo = [], []
        self._resigned = False
        seed, hint_seed = derive_seeds(self.seed, self.games_played, count=2, bits=64)  # game k replays alone
        self.agent.new_game(seed, seat=1 - self.human)
        for action in state.history():
            self.agent.observe(self.state, action)
            self.state.apply_action(action)
        if self._hint_agent is not None:
            self._hint_agent.new_game(hint_seed)
        self._shown = self._preview()

    def _preview(self) -> dict | None:
        """The knobs its next move will use where they do not depend on the position (Wu's z; a fixed
        player's), else those of its last move this game; None before its first move (AlphaDDA's)."""
        if self.adjuster is None:
            return self.agent.strength()
        knobs = self.adjuster.preview()
        if knobs is not None:
            self.agent.apply(knobs)
            return self.agent.strength()
        return self.turns[-1].strength if self.turns else None

    @property
    def over(self) -> bool:
        """Whether the game has ended: by the rules, or by the person's resignation."""
        return self.state is not None and (self._resigned or self.state.is_terminal())

    @property
    def human_to_move(self) -> bool:
        return self.state is not None and not self.over and self.state.current_player() == self.human

    @property
    def result(self) -> str | None:
        """The person's result once the game is over: win, draw or loss (a resignation is a loss)."""
        if not self.over:
            return None
        if self._resigned:
            return "loss"
        mine = self.state.returns()[self.human]
        return "win" if mine > 0 else "loss" if mine < 0 else "draw"

    def _playing(self, person: bool) -> games.State:
        if self.state is None:
            raise OutOfTurn("no game yet: start one first")
        if self.over:
            raise OutOfTurn("the game is over: start a new one")
        if person != (self.state.current_player() == self.human):
            raise OutOfTurn("it is the opponent's turn" if person else "it is the person's turn")
        return self.state

    def parse(self, move: int | str) -> int:
        """The person's move as a legal action: an action id or its name in the game's notation; ValueError
        in one line (naming the legal moves) otherwise."""
        state = self._playing(person=True)
        text = str(move)
        if len(text) > 64:  # no move's name is this long: refused before any game code reads it
            raise ValueError(f"{text[:16]!r}... is not a move of {self.game.name}")
        action = int(move) if isinstance(move, int) else state.string_to_action(text)
        legal = state.legal_actions()
        if action not in legal:
            names = [state.action_to_string(a) for a in legal]
            names = (", " if any(" " in n for n in names) else " ").join(names)  # a game's own names may hold spaces
            shown = state.action_to_string(action) if 0 <= action < self.game.num_actions else action
            raise ValueError(f"{shown} is not a legal move here; legal: {names}")
        return action

    def move(self, move: int | str) -> None:
        """Play the person's move (see `parse`); the state is unchanged if it is refused."""
        action = self.parse(move)
        adjuster = None if self.adjuster is None else self.adjuster.state_dict()
        self._undo.append((len(self.state.history()), adjuster, len(self.turns)))
        self._play(action)

    def reply(self) -> Turn:
        """The opponent chooses and plays its move."""
        state = self._playing(person=False)
        action = self.agent.select_action(state)
        strength = self.agent.strength()
        turn = Turn(len(state.history()), action, state.action_to_string(action), strength, self.agent.estimate())
        self.turns.append(turn)
        self._shown = strength
        self._play(action)
        return turn

    def _play(self, action: int) -> None:
        self.agent.observe(self.state, action)
        self.state.apply_action(action)
        if self.over:
            self._finish(self.state.returns())

    def resign(self) -> None:
        """The person gives up: a loss for them, a win the opponent learns from."""
        self._playing(person=self.human_to_move)
        returns = [0.0, 0.0]
        returns[self.human], returns[1 - self.human] = -1.0, 1.0
        self._resigned = True
        self._finish(returns)

    def _finish(self, returns) -> None:
        """The game is over: the agent learns from it and, with a profile, the result and its new level are
        added to the profile in one transaction (another session's games on it are kept)."""
        self.agent.game_over(returns)
        self.games_played += 1
        state = None if self.adjuster is None else self.adjuster.state_dict()
        if self.profiles is not None:

            def learnt(stored: Profile) -> dict | None:
                """This game's lesson on top of the stored level: another session may have saved a game since
                this one started, and its step is kept."""
                if self.adjuster is None or stored.state is None or stored.games == self._start_games:
                    return state
                return self.adjuster.merged(stored.state, returns, 1 - self.human)

            self.record = self.profiles.add_game(self.record, self.result, learnt, plies=len(self.state.history()))
        else:
            self.record.wins += self.result == "win"
            self.record.draws += self.result == "draw"
            self.record.losses += self.result == "loss"
            self.record.state = state

    def snapshot(self) -> tuple:
        """Everything a request may change, for `restore` to put back if it fails midway: the game, the
        adjuster, the agent's seat and random stream, the record."""
        adjuster = None if self.adjuster is None else self.adjuster.state_dict()
        history = None if self.state is None else self.state.history()
        return (
            history,
            adjuster,
            list(self.turns),
            list(self._undo),
            self._resigned,
            self.games_played,
            copy.copy(self.record),
            self._shown,
            self.human,
            self._start_games,
            getattr(self.agent, "seat", None),
            self.agent.rng.copy(),
        )

    def restore(self, snapshot: tuple) -> None:
        """Put back a `snapshot()` (a profile already written stays written)."""
        (
            history,
            adjuster,
            self.turns,
            self._undo,
            self._resigned,
            self.games_played,
            self.record,
            self._shown,
            self.human,
            self._start_games,
            seat,
            rng,
        ) = snapshot
        if history is not None:
            self.state = self._replay(history)
        if adjuster is not None:
            self.adjuster.load_state_dict(adjuster)
        if hasattr(self.agent, "seat"):
            self.agent.seat = seat
        self.agent.rng[:] = rng

    def _replay(self, history) -> games.State:
        state = self.game.new_initial_state()
        for action in history:
            state.apply_action(action)
        return state

    def undo(self) -> None:
        """Take back the person's last move and the opponent's reply to it; OutOfTurn if there is none."""
        if self.state is None or self.over:
            raise OutOfTurn("nothing to undo: the game is over" if self.state is not None else "no game yet")
        if not self._undo:
            raise OutOfTurn("nothing to undo: you have not moved yet")
        plies, adjuster, turns = self._undo.pop()
        self.state, self.turns = self._replay(self.state.history()[:plies]), self.turns[:turns]
        if adjuster is not None:
            self.adjuster.load_state_dict(adjuster)
        self._shown = self._preview()

    def hint(self) -> tuple[int, str]:
        """A move for the person by a full-strength helper (`hint`), which leaves the game as it is."""
        state = self._playing(person=True)
        if self._hint_agent is None:
            self._hint_agent = make_agent(self.game, self.hint_spec, seed=self.seed + 1)
        action = self._hint_agent.select_action(state.clone())
        return action, state.action_to_string(action)

    def strength(self) -> dict | None:
        """The opponent's strength knobs as they stand: those of its last move, or those it will start with
        where they do not depend on the position; None until AlphaDDA's first move sets them."""
        return self._shown

    def level(self, numbers: bool = True) -> str:
        """Its strength as a person reads it: for an MCTS opponent on Connect4 (where the curves were measured)
        about how far below its best it plays (an estimate, `tuner.play.level`), then, with `numbers`, its knobs;
        e.g. 'about 230 Elo below its best (an estimate): z +0.00, 1000 simulations'. Others: their knobs alone."""
        strength = self.strength()
        knobs = describe_strength(strength)
        simulations = getattr(self.agent, "budget", (None, None))[0]
        measured = self.game.name == "connect4" and parse_spec(self.spec).name.startswith("mcts")  # level.py's curves
        if not (measured and simulations and strength and "z" in strength):
            if numbers or strength is None:
                return knobs
            return describe_strength({k: v for k, v in strength.items() if (k, v) != ("z", math.inf)})  # no jargon
        words = describe_level(elo_below_best(strength["z"], strength.get("simulations", simulations) / simulations))
        return f"{words}: {knobs}" if numbers else words


def describe_strength(strength: dict | None) -> str:
    """The knobs as a person reads them, e.g. 'z +0.38, 1000 simulations'."""
    if strength is None:
        return "set by the position at its first move"
    parts = []
    for name, value in strength.items():
        if name == "z":
            parts.append("its most searched move (z inf)" if value == math.inf else f"z {value:+.2f}")
        elif name == "simulations":
            parts.append(f"{value} simulations")
        elif name == "seconds":
            parts.append(f"{value:.2g} s a move")
        else:
            parts.append(f"{name} {value:.2f}")
    return ", ".join(parts) or "a fixed strength"
