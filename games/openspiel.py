"""Our games as pyspiel games, so that OpenSpiel's algorithms and tools run on them (DESIGN section 11).

>>> import pyspiel, games.openspiel
>>> game = pyspiel.load_game("sparring_connect4")

Importing this module registers every game of `games.names()` under `sparring_NAME`, as OpenSpiel's own
Python games register on import. Each is a deterministic, perfect-information, sequential game with terminal
rewards, zero-sum with two players and general-sum with more (returns 2 score - 1 each); its states wrap ours (the
rules stay in our compiled kernels) and a two-player game's observation tensor, from any player's view, is
`State.encode(player)`'s planes [3, rows, cols] (a game of more players has only the observation string).

As every pyspiel game written in Python, these are slow inside OpenSpiel's C++ algorithms (each call
crosses into Python). With open_spiel 2.0.2, calling the C++ `MCTSBot.step` from Python crashes on every
Python game (OpenSpiel's own `python_tic_tac_toe` too); its `step_with_policy`, `mcts_search` and the C++
`evaluate_bots` work, as do OpenSpiel's Python `MCTSBot` and `evaluate_bots`.
"""

from __future__ import annotations

try:
    import pyspiel
    from open_spiel.python.observation import IIGObserverForPublicInfoGame
except ImportError as error:  # pragma: no cover - the test extra installs it
    raise ImportError("games.openspiel needs OpenSpiel: pip install open_spiel") from error

import numpy as np

import games

PREFIX = "sparring_"


def spiel_name(name: str) -> str:
    """The pyspiel name of our game `name`."""
    return PREFIX + name


def _game_type(ours: games.Game) -> pyspiel.GameType:
    two = ours.players == 2
    return pyspiel.GameType(
        short_name=spiel_name(ours.name),
        long_name=f"sparring's {ours.name}",
        dynamics=pyspiel.GameType.Dynamics.SEQUENTIAL,
        chance_mode=pyspiel.GameType.ChanceMode.DETERMINISTIC,
        information=pyspiel.GameType.Information.PERFECT_INFORMATION,
        utility=pyspiel.GameType.Utility.ZERO_SUM if two else pyspiel.GameType.Utility.GENERAL_SUM,
        reward_model=pyspiel.GameType.RewardModel.TERMINAL,
        max_num_players=ours.players,
        min_num_players=ours.players,
        provides_information_state_string=True,
        provides_information_state_tensor=False,
        provides_observation_string=True,
        provides_observation_tensor=two,
        parameter_specification={},
    )


class SpielGame(pyspiel.Game):
    """One of our games as a pyspiel game: a subclass per game names it (`NAME`); `ours` is our `games.Game`."""

    NAME: str

    def __init__(self, params=None):
        ours = games.load(self.NAME)
        info = pyspiel.GameInfo(
            num_distinct_actions=ours.num_actions,
            max_chance_outcomes=0,
            num_players=ours.players,
            min_utility=-1.0,
            max_utility=1.0,
            utility_sum=0.0 if ours.players == 2 else None,
            max_game_length=ours.max_game_length,
        )
        super().__init__(_game_type(ours), info, params or {})
        self.ours = ours

    def new_initial_state(self) -> SpielState:
        return SpielState(self)

    def make_py_observer(self, iig_obs_type=None, params=None):
        """The board from a player's view, or for a perfect-recall type the history (all of it is public)."""
        if iig_obs_type is None or (iig_obs_type.public_info and not iig_obs_type.perfect_recall):
            return BoardObserver(self.ours, params)
        return IIGObserverForPublicInfoGame(iig_obs_type, params)


class SpielState(pyspiel.State):
    """A position of a `SpielGame`: our `State` (`ours`) behind pyspiel's methods."""

    def __init__(self, game: SpielGame):
        super().__init__(game)
        self.ours = game.ours.new_initial_state()

    def current_player(self) -> int:
        player = self.ours.current_player()
        return pyspiel.PlayerId.TERMINAL if player == games.TERMINAL_PLAYER else player

    def _legal_actions(self, player: int) -> list[int]:
        return self.ours.legal_actions()

    def _apply_action(self, action: int) -> None:
        self.ours.apply_action(action)

    def _action_to_string(self, player: int, action: int) -> str:
        return self.ours.action_to_string(action)

    def is_terminal(self) -> bool:
        return self.ours.is_terminal()

    def returns(self) -> list[float]:
        return self.ours.returns()

    def __str__(self) -> str:
        return str(self.ours)


class BoardObserver:
    """OpenSpiel's observer interface (`tensor`, `dict`, `set_from`, `string_from`) over `State.encode`."""

    def __init__(self, ours: games.Game, params):
        if params:
            raise ValueError(f"sparring's games take no observation parameters, got {params}")
        shape = (3, *ours.board_shape) if ours.players == 2 else (0,)  # no planes for more players
        self.tensor = np.zeros(int(np.prod(shape)), np.float32)
        self.dict = {"observation": self.tensor.reshape(shape)}

    def set_from(self, state: SpielState, player: int) -> None:
        if self.tensor.size:
            self.dict["observation"][...] = state.ours.encode(player)

    def string_from(self, state: SpielState, player: int) -> str:
        return str(state.ours)


def _register() -> None:
    """A SpielGame subclass per game, registered by class as OpenSpiel's own Python games are."""
    registered = set(pyspiel.registered_names())
    for name in games.names():
        if spiel_name(name) not in registered:
            pyspiel.register_game(_game_type(games.load(name)), type(f"SpielGame_{name}", (SpielGame,), {"NAME": name}))


_register()
