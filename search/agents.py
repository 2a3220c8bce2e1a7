"""The players: every agent answers `select_action(state)` and hears the hooks of a game.

Every agent hears `new_game(seed=None)`, `observe(state, action)` (each move of the game, its own and the
opponent's, before it is applied) and `game_over(returns)`. `select_action` stays correct when the hooks
are never called: the search finds its place in the game from the state's history. `new_game(seed, seat=p)`
tells an agent its seat up front, so that it can learn from a game it lost before it ever moved (a
resignation). Agents are built from spec strings by the composition root above this layer (`tuner.agents`).
"""

from __future__ import annotations

import math

import games
from games.game import two_players_only
from games.rng import make_rng, randint
from search.mcts import MCTS, SearchResult
from search.minimax import minimax_action
from search.move_choice import choose_move
from search.strength import Knobs, StrengthAdjuster


class Agent:
    """The hooks every player hears; subclasses implement `select_action`."""

    def __init__(self, game: games.Game, seed: int):
        self.game = game
        self.rng = make_rng(seed)

    def new_game(self, seed: int | None = None, *, seat: int | None = None) -> None:
        """A new game starts; `seed`, if given, reseeds the agent so the game can be replayed alone; `seat`, if
        given, is the agent's player (else it learns it at its first move)."""
        if seed is not None:
            self.rng[:] = make_rng(seed)

    def observe(self, state: games.State, action: int) -> None:
        """`action` is about to be played in `state` (by either player)."""

    def game_over(self, returns) -> None:
        """The game ended with `returns` (State.returns: 2 score - 1 per player, +1 / -1 / 0 in two-player games)."""

    def select_action(self, state: games.State) -> int:
        raise NotImplementedError

    def strength(self) -> dict[str, float]:
        """The strength knobs in force, by name, for a person to see (none for a fixed player)."""
        return {}

    def estimate(self) -> float | None:
        """Its expected score in the game (win 1, draw 0.5) as its last move saw it; None if it has no view."""
        return None


class RandomAgent(Agent):
    """Uniformly random legal moves."""

    def select_action(self, state):
        legal = state.legal_actions()
        return legal[randint(self.rng, len(legal))]


class SearchAgent(Agent):
    """A search player that chooses its move by the softmax-z rule [Wu softmax] and takes strength knobs.

    z = +inf (the default) plays the most visited move. An `adjuster` (StrengthAdjuster) returns the
    knobs it wants (z, a scale of the search budget) around each search, and the agent applies them.
    Subclasses search between `before` and `after`; `last_search` holds the latest root statistics.
    """

    def __init__(
        self,
        game,
        seed,
        *,
        simulations=None,
        seconds=None,
        z=math.inf,
        rth=0.1,
        adjuster: StrengthAdjuster | None = None,
    ):
        super().__init__(game, seed)
        if adjuster is not None:  # it adjusts to one opponent
            two_players_only(game, f"a strength adjuster ({type(adjuster).__name__}) plays")
        self.budget = (simulations, seconds)  # as configured; an adjuster's knobs scale it
        self.simulations, self.seconds = simulations, seconds
        self.z, self.rth = z, rth
        self.adjuster = adjuster
        self.last_search: SearchResult | None = None
        self.seat: int | None = None  # its player in the current game: given at new_game, else seen at its first move

    def new_game(self, seed=None, *, seat=None):
        super().new_game(seed)
        self.seat = seat
        if self.adjuster is not None:
            self.adjuster.new_game()

    def observe(self, state, action):
        if self.adjuster is not None:
            self.adjuster.observe(state, action)

    def game_over(self, returns):
        if self.adjuster is not None and self.seat is not None:
            self.adjuster.game_over(returns, self.seat)

    def strength(self):
        """z (inf: the most visited move) and the search budget as they stand."""
        budget = {"simulations": self.simulations} if self.seconds is None else {"seconds": self.seconds}
        return {"z": self.z, **budget}

    def estimate(self):
        """The visit-weighted value of the root's moves at its last search (`SearchResult.score`)."""
        return None if self.last_search is None else self.last_search.score()

    def apply(self, knobs: Knobs | None) -> None:
        """Take the strength knobs an adjuster asks for (None: keep everything as it is)."""
        if knobs is None:
            return
        if knobs.z is not None:
            self.z = knobs.z
        if knobs.budget_scale is not None:
            simulations, seconds = self.budget
            self.simulations = None if simulations is None else max(1, round(simulations * knobs.budget_scale))
            self.seconds = None if seconds is None else seconds * knobs.budget_scale
        if knobs.simulations is not None:
            self.simulations, self.seconds = max(1, int(knobs.simulations)), None

    def before(self, state) -> None:
        """Before the search of `state`: note the seat and take the adjuster's knobs."""
        self.seat = state.current_player()
        if self.adjuster is not None:
            self.apply(self.adjuster.before_search(state))

    def after(self, state, result: SearchResult) -> int:
        """After the search: let the adjuster see it, then choose the move."""
        self.last_search = result
        if self.adjuster is not None:
            self.apply(self.adjuster.after_search(state, result))
        return self.choose(state, result)

    def choose(self, state, result: SearchResult) -> int:
        """The move, by the softmax-z rule over the root's visit counts."""
        return choose_move(result.actions, result.visits, self.z, self.rth, self.rng)


class MCTSAgent(SearchAgent):
    """A tree search (AlphaDDA's MCTS, SP or AP) that keeps its tree (search.mcts) from move to move."""

    def __init__(
        self,
        game,
        seed,
        params,
        settings,
        *,
        simulations=None,
        seconds=None,
        mast_decay=0.2,
        z=math.inf,
        rth=0.1,
        adjuster: StrengthAdjuster | None = None,
        tuners=None,
        tuned=(),
    ):
        super().__init__(game, seed, simulations=simulations, seconds=seconds, z=z, rth=rth, adjuster=adjuster)
        self.search = MCTS(game, params, settings, self.rng, mast_decay=mast_decay, tuners=tuners, tuned=tuned)

    def new_game(self, seed=None, *, seat=None):
        super().new_game(seed, seat=seat)
        self.search.reset()

    def tuning(self) -> list[dict] | None:
        """What the on-line tuners did this game, per player (e.g. samples per value, the recommendation)."""
        if self.search.tuners is None:
            return None
        return [tuner.report() for tuner in self.search.tuners]

    def select_action(self, state):
        self.before(state)
        return self.after(state, self.search.search(state, simulations=self.simulations, seconds=self.seconds))


class MinimaxAgent(Agent):
    """Alpha-beta minimax to `depth` over one of the game's evaluations (`evaluation`, e.g. AlphaDDA's Minimax1 /
    Minimax2 [AlphaDDA App. 4]), deeper where the game counts `endgame` or fewer empty squares as its end.
    tree="code" plays the authors' minimax instead (`search.minimax.worst_leaf`), over their evaluation where the
    game has one of its own (`evaluation + "_code"`: Connect4's)."""

    TREES = ("negamax", "code")

    def __init__(self, game, seed, *, depth, evaluation, endgame, tree="negamax"):
        super().__init__(game, seed)
        two_players_only(game, "minimax plays")
        if tree not in self.TREES:
            raise ValueError(f"tree is {' or '.join(self.TREES)}, got {tree!r}")
        self.code = tree == "code"
        code = f"{evaluation}_code"
        self.evaluation = game.evaluations[code if self.code and code in game.evaluations else evaluation]
        self.depth, self.endgame = depth, endgame

    def select_action(self, state):
        g = self.game
        depth = g.search_depth(state.array, self.depth, self.endgame)
        e = self.evaluation
        return int(
            minimax_action(g.kernels, e.evaluate, e.weights, state.array, depth, g.max_legal, self.rng, self.code)
        )


class AgentGroup:
    """The agents of one spec in many concurrent games, one each: `select_actions` answers many games at
    once. Here one after the other; agents that batch their searches (`az`) override it."""

    def __init__(self, agents: list):
        self.agents = list(agents)

    def __getitem__(self, k: int):
        return self.agents[k]

    def __len__(self) -> int:
        return len(self.agents)

    def __iter__(self):
        return iter(self.agents)

    def select_actions(self, ks: list[int], states: list) -> list[int]:
        """A move for each game ks[j] in position states[j]."""
        return [self.agents[k].select_action(state) for k, state in zip(ks, states)]
