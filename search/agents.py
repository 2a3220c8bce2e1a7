"""Players built from spec strings: `name:key=value,key=value`, the same syntax in Python, the CLI and studies.

>>> import games, search
>>> agent = search.make_agent(games.load("connect4"), "mcts:simulations=300,c=0.5", seed=1)
>>> agent.select_action(games.load("connect4").new_initial_state()) in range(7)
True

Every agent answers `select_action(state)` and hears `new_game(seed=None)`, `observe(state, action)`
(each move of the game, its own and the opponent's, before it is applied) and `game_over(returns)`.
`select_action` stays correct when the hooks are never called: the search finds its place in the
game from the state's history. `new_game(seed, seat=p)` tells an agent its seat up front, so that it can
learn from a game it lost before it ever moved (a resignation).
"""

from __future__ import annotations

import math
import secrets
from dataclasses import dataclass
from typing import Callable

import games
from games.rng import make_rng, randint
from search import spec as specs
from search.evaluator import MAX_DROPOUT
from search.mcts import ALPHADDA, EPSILON, MCTS, REF, UCB1, VO, C, K, SearchResult, T
from search.minimax import empty_squares, evaluation, minimax_action
from search.move_choice import choose_move
from search.spec import AgentSpec, Key, choice, number
from search.strength import InterGame, InterIntra, IntraGame, Knobs, StrengthAdjuster
from tuner.strategies import NAMES as STRATEGY_NAMES
from tuner.strategies import REGISTRY as STRATEGIES
from tuner.strategies import check_settings, make_strategy, sa_mcts_space


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
        """The game ended with `returns` (+1 / -1 / 0 per player)."""

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

    def __init__(self, game, seed, *, simulations=None, seconds=None, z=math.inf, rth=0.1,
                 adjuster: StrengthAdjuster | None = None):  # fmt: skip
        super().__init__(game, seed)
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

    def __init__(self, game, seed, params, settings, *, simulations=None, seconds=None, mast_decay=0.2,
                 z=math.inf, rth=0.1, adjuster: StrengthAdjuster | None = None, tuners=None, tuned=()):  # fmt: skip
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
    """AlphaDDA's Minimax1/Minimax2 [AlphaDDA App. 4]: alpha-beta to `depth`; on Othello boards, to the end
    once `endgame` squares or fewer are empty."""

    def __init__(self, game, seed, *, depth, variant, endgame):
        super().__init__(game, seed)
        self.evaluate, self.weights = evaluation(game, variant)
        self.depth, self.endgame = depth, endgame
        self.squares = game.board_shape[0] * game.board_shape[1]

    def select_action(self, state):
        depth = self.depth
        if self.game.minimax == "othello" and empty_squares(state.array, self.squares) <= self.endgame:
            depth = self.game.max_game_length
        g = self.game
        return int(minimax_action(g.kernels, self.evaluate, self.weights, state.array, depth, g.max_legal, self.rng))


# --- keys of each agent ------------------------------------------------------------------------

_BUDGET = {
    "simulations": Key(number(1, integer=True), 1000, "simulations per move"),
    "time": Key(number(1e-6), None, "seconds per move, instead of a number of simulations"),
}
_CHOICE = {
    "z": Key(number(-math.inf, infinite=True), None, "softmax strength index (inf: most visited; 0 with dsa)"),
    "rth": Key(number(0, 1), 0.1, "candidates need at least rth times the top visit count"),
    "dsa": Key(
        choice("none", "inter", "intra", "both"),
        "none",
        "dynamic strength adjustment of z (Wu et al.); both: each game starts at inter's level, intra moves it",
    ),
    "dz": Key(
        number(1e-9),
        None,
        "z step: inter 0.375 at the start, intra dZ 0.1 (the paper's defaults); both: inter's (intra keeps 0.1)",
    ),
    "dz_decay": Key(number(0, 1), 0.95, "inter: dz is multiplied by this after every game"),
    "dz_min": Key(number(), 0.03, "inter: dz never falls below this"),
    "dsa_eps": Key(number(1e-9, 0.5), 0.1, "intra: half-width of the band around W = 0.5 with smaller steps"),
    "dsa_moves": Key(number(1, integer=True), None, "intra: own moves over which dZ cools to 0 (per game)"),
    "floor": Key(number(-math.inf, infinite=True), -2.0, "dsa: below this z, halve the budget per unit of z"),
}
_MCTS_KEYS = {
    **_BUDGET,
    **_CHOICE,
    "c": Key(number(), 0.5, "exploration constant C"),
    "n_open": Key(number(1, integer=True), 5, "visits before a node's children are opened"),
}
_TUNE_KEYS = {
    "tuner": Key(choice("none", *STRATEGY_NAMES), "none", "on-line tuning strategy"),
    "tune": Key(str, "C+eps", "tuned parameters joined by +, from C, eps, VO, T (ap also K, Ref), or all"),
    **{  # every strategy's settings; left out, the strategy's own default
        s.spec_key: Key(number(s.low, s.high, integer=s.integer), None, f"{s.doc} (default {s.default})")
        for entry in STRATEGIES.values()
        for s in entry.settings
    },
}
_SP_KEYS = {
    **_BUDGET,
    **_CHOICE,
    "c": Key(number(), 0.2, "UCT exploration constant C"),
    "eps": Key(number(0, 1), 0.4, "MAST: probability of a random playout move"),
    "vo": Key(number(), 0.01, "choose uniformly among moves within VO of the best"),
    "t": Key(number(infinite=True), 0.0, "below T node visits, choose in-tree moves with the playout policy"),
    "decay": Key(number(0, 1), 0.2, "MAST statistics are multiplied by this after each real move"),
    **_TUNE_KEYS,
}
_AP_KEYS = {
    **_SP_KEYS,
    "k": Key(number(infinite=True), 250.0, "GRAVE equivalence K (0: pure UCT, inf: AMAF only)"),
    "ref": Key(number(infinite=True), 50.0, "AMAF from the deepest ancestor with >= Ref visits"),
}
_AZ_KEYS = {
    "simulations": Key(number(1, integer=True), 200, "simulations per move (AlphaDDA Table A1: 200; 400 for Othello)"),
    "time": _BUDGET["time"],
    **_CHOICE,
    "net": Key(str, None, "a checkpoint's path, a shipped net's name (default: the game's), or uniform / playout"),
    "c_puct": Key(number(), 1.25, "PUCT exploration rate C_puct of eq. (8) (AlphaDDA Table A1)"),
    "leaves": Key(number(1, integer=True), 1, "descents per tree and search step, with virtual loss"),
    "eps": Key(number(0, 1), 0.0, "chance a simulation leaves the root by a random child (authors' Table A1 epsilon)"),
    "noise": Key(number(0, 1), 0.0, "Dirichlet noise weight at the root, AlphaZero's self-play exploration"),
    "alpha": Key(number(1e-6), 0.3, "Dirichlet noise concentration alpha"),
    "dropout": Key(number(0, MAX_DROPOUT), 0.0, "dropout probability in the net's heads at each evaluation (Fig. 4)"),
    "reuse": Key(choice("no", "yes"), "no", "keep the searched subtree from move to move (the paper: no)"),
    "t_opening": Key(number(0, integer=True), 0, "plies played by eq. (9), exp(N / tau) (self-play: 4, 4, 6)"),
    "tau": Key(number(1e-6), 50.0, "eq. (9)'s temperature for the opening plies (Table A1: 50, 20, 40)"),
    "device": Key(choice("auto", "cpu", "cuda"), "auto", "where the network runs (auto: CUDA when there is one)"),
    "dda": Key(choice("none", "alphadda1", "alphadda2", "alphadda3", "alphadda1z"), "none",
               "AlphaDDA's value-driven strength adjustment (eqs. 1-7), its keys defaulting to Tables 1-3; "
               "alphadda1z: ours, AlphaDDA1 with a value-driven move choice that can play worse than Random"),
    "nh": Key(number(1, integer=True), None, "AlphaDDA: N_h, the turns whose values are averaged (eq. 1)"),
    "a_sim": Key(number(), None, "AlphaDDA1: A_sim of eq. 2"),
    "b_sim0": Key(number(-math.inf), None, "AlphaDDA1: B_sim0 of eq. 2 (negative: Table 1)"),
    "n_max": Key(number(1, integer=True), None, "AlphaDDA1: N_max, the most simulations (eq. 3)"),
    "a_drop": Key(number(), None, "AlphaDDA2: A_drop of eq. 4"),
    "p_drop0": Key(number(-math.inf), None, "AlphaDDA2: P_drop0 of eq. 4 (negative: Table 2)"),
    "p_max": Key(number(0, MAX_DROPOUT), None, "AlphaDDA2: the largest dropout probability (the paper: 0.95)"),
    "c": Key(number(), None, "AlphaDDA3: the exploration constant C of eq. 6"),
    "z_a": Key(number(), None, "AlphaDDA1Z: softmax index z = z_a (z_0 - mean value) of the move choice"),
    "z_0": Key(number(-1, 2), None, "AlphaDDA1Z: the mean value at which the move choice is uniform (z = 0), "
               "at the match's start"),
    "dz_0": Key(number(), None, "AlphaDDA1Z: z_0's step between games, down after a win, up after a loss (0: fixed)"),
}  # fmt: skip
_DDA_KEYS = {
    "alphadda1": ("nh", "a_sim", "b_sim0", "n_max"),
    "alphadda2": ("nh", "a_drop", "p_drop0", "p_max"),
    "alphadda3": ("nh", "c"),
    "alphadda1z": ("nh", "a_sim", "b_sim0", "n_max", "z_a", "z_0", "dz_0"),
}
_MINIMAX_KEYS = {
    "depth": Key(number(1, integer=True), 3, "search depth in plies"),
    "eval": Key(choice("minimax1", "minimax2"), "minimax1", "AlphaDDA's evaluation: minimax1 or minimax2"),
    "endgame": Key(number(0, integer=True), 6, "Othello: search to the end with this many empty squares or fewer"),
}


# --- building agents ---------------------------------------------------------------------------


def _choice(game, o) -> dict:
    """The move-choice arguments of an MCTSAgent: z, rth and the strength adjuster."""
    if o["dsa"] == "none":
        return {"z": math.inf if o["z"] is None else o["z"], "rth": o["rth"]}
    z0 = 0.0 if o["z"] is None else o["z"]
    floor = None if o["floor"] == -math.inf else o["floor"]
    inter = InterGame(o["dz"] or 0.375, o["dz_decay"], o["dz_min"], z0, floor)
    intra_dz = 0.1 if o["dsa"] == "both" else o["dz"] or 0.1
    intra = IntraGame(intra_dz, o["dsa_eps"], o["dsa_moves"] or game.intra_moves, z0, floor)
    adjuster = {"inter": inter, "intra": intra}.get(o["dsa"]) or InterIntra(inter, intra)
    return {"z": z0, "rth": o["rth"], "adjuster": adjuster}


def _make_mcts(game, seed, o):
    params = [o["c"], 1.0, 0.0, math.inf, 0.0, 0.0]
    settings = [o["n_open"], ALPHADDA, 0, 0]
    return MCTSAgent(game, seed, params, settings, simulations=o["simulations"], seconds=o["time"],
                     **_choice(game, o))  # fmt: skip


_COLUMNS = {"C": C, "eps": EPSILON, "K": K, "Ref": REF, "VO": VO, "T": T}


def _tuned_names(o, grave) -> list[str]:
    """The parameters named by `tune=`; ValueError in one line if one is not tunable by this agent."""
    allowed = list(_COLUMNS) if grave else ["C", "eps", "VO", "T"]
    names = allowed if o["tune"] == "all" else o["tune"].split("+")
    bad = [n for n in names if n not in allowed] or ([] if len(set(names)) == len(names) else ["(repeated)"])
    if bad:
        raise ValueError(f"bad tune={o['tune']!r}: {', '.join(bad)} not tunable here; choose from {'+'.join(allowed)}")
    return names


def _tuner_settings(game, o) -> dict:
    """The settings given to the on-line strategy: those given in the spec, LSI's budget from the game."""
    kind = o["tuner"]
    settings = {s.name: o[s.spec_key] for s in STRATEGIES[kind].settings if o[s.spec_key] is not None}
    if kind == "lsi" and "budget" not in settings:
        settings["budget"] = _lsi_budget(game, o)
    return settings


def _tuners(game, seed, o, grave):
    """The pair of on-line tuners (one per player) and the parameter columns they set, or (None, ())."""
    if o["tuner"] == "none":
        return None, ()
    names = _tuned_names(o, grave)
    space = sa_mcts_space(names)
    settings = _tuner_settings(game, o)
    tuners = tuple(make_strategy(space, o["tuner"], seed + p, **settings) for p in (0, 1))
    return tuners, [_COLUMNS[n] for n in names]


def _lsi_budget(game, o):
    """LSI's samples for a game: simulations per move times one player's moves in a typical game.

    The expected length matters: with the longest game instead (21 own moves on Connect4), LSI
    spent whole games generating side information and never evaluated its candidates."""
    per_move = o["simulations"] if o["simulations"] is not None else 100_000 * o["time"]  # a rough rate
    return int(per_move * game.own_moves)


def _make_sironi(game, seed, o, grave):
    params = [o["c"], o["eps"], o["k"] if grave else 0.0, o["ref"] if grave else math.inf, o["vo"], o["t"]]
    settings = [1, UCB1, 1, 1 if grave else 0]
    tuners, tuned = _tuners(game, seed, o, grave)
    return MCTSAgent(game, seed, params, settings, simulations=o["simulations"], seconds=o["time"],
                     mast_decay=o["decay"], **_choice(game, o), tuners=tuners, tuned=tuned)  # fmt: skip


def _check_sironi(game, o, grave):
    """What building an SP/AP agent would reject, without building it: tune= and the strategy's settings."""
    if o["tuner"] != "none":
        _tuned_names(o, grave)
        check_settings(o["tuner"], _tuner_settings(game, o))


def _make_az_group(game, seeds, options):
    """`az` agents for len(seeds) concurrent games over one PUCT forest and one evaluator; options[k] are
    game k's (they agree on the keys of AZ_SHARED, the forest's, and may differ in the rest)."""
    from search.alphadda import ADJUSTERS
    from search.az import AZAgent, AZGroup
    from search.evaluator import make_evaluator
    from search.puct import PUCT

    o = options[0]
    evaluator = make_evaluator(o["net"], game, device=o["device"])
    puct = PUCT(game, evaluator, games=len(seeds), c_puct=o["c_puct"], leaves=o["leaves"], root_eps=o["eps"],
                noise_weight=o["noise"], noise_alpha=o["alpha"], reuse=o["reuse"] == "yes", seed=seeds[0])  # fmt: skip

    def agent(row, seed, o):
        dda = _dda_settings(game, o)
        uct_c = dda.pop("c", 1.25)
        choice = _choice(game, o)  # dda refuses dsa, so this is z and rth only when dda is set
        if dda:  # each game its own adjuster
            choice["adjuster"] = ADJUSTERS[o["dda"]](game, evaluator, **dda)
        return AZAgent(game, seed, puct, row, simulations=o["simulations"], seconds=o["time"],
                       t_opening=o["t_opening"], tau=o["tau"], uct_c=uct_c, dropout=o["dropout"], **choice)  # fmt: skip

    return AZGroup([agent(row, seed, o) for row, (seed, o) in enumerate(zip(seeds, options))])


AZ_SHARED = ("net", "device", "c_puct", "leaves", "eps", "noise", "alpha", "reuse", "time")  # one forest's settings


def _dda_settings(game, o) -> dict:
    """The AlphaDDA adjuster's settings: the spec's keys, else the paper's Tables 1-3 for the game; {} without
    dda. ValueError in one line for a key of another adjuster, or a game the tables lack with a key left out."""
    from search.alphadda import TABLES

    given = {k for keys in _DDA_KEYS.values() for k in keys if o[k] is not None}
    if o["dda"] == "none":
        if given:
            raise ValueError(f"{', '.join(sorted(given))} set AlphaDDA's adjustment: add dda=alphadda1, 2 or 3")
        return {}
    keys = _DDA_KEYS[o["dda"]]
    if given - set(keys):
        raise ValueError(f"dda={o['dda']} takes {', '.join(keys)}, not {', '.join(sorted(given - set(keys)))}")
    table = TABLES[o["dda"]].get(game.name, {})
    missing = [k for k in keys if o[k] is None and k not in table]
    if missing:
        raise ValueError(f"no {o['dda']} settings for {game.name} to default to: give {', '.join(missing)}")
    if o["dsa"] != "none":
        raise ValueError(f"dda={o['dda']} and dsa={o['dsa']} both adjust strength: choose one")
    if o["dda"] in ("alphadda1", "alphadda1z") and o["time"] is not None:
        raise ValueError(f"dda={o['dda']} sets the number of simulations: drop time=")
    if o["dda"] == "alphadda3" and o["reuse"] == "yes":
        raise ValueError("dda=alphadda3 backs up values for one target at a time (eq. 7): drop reuse=yes")
    if o["dda"] == "alphadda2" and o["dropout"] > 0:
        raise ValueError("dda=alphadda2 sets the dropout probability: drop dropout=")
    return {k: table[k] if o[k] is None else o[k] for k in keys}


def _check_az(game, o):
    from search.evaluator import resolve_net

    resolve_net(o["net"], game)
    _dda_settings(game, o)


def _make_perfect(game, seed, o):
    from search.perfect import PerfectAgent

    return PerfectAgent(game, seed, depth=o["depth"])


def _check_perfect(game, o):
    from search.perfect import INSTALL, available

    if game.name != "connect4":
        raise ValueError(f"perfect plays connect4 only (a solver of that game), not {game.name!r}")
    if not available():
        raise ValueError(INSTALL)


def _make_minimax(game, seed, o):
    return MinimaxAgent(game, seed, depth=o["depth"], variant=int(o["eval"][-1]), endgame=o["endgame"])


def _check_minimax(game, o):
    if game.minimax is None:
        have = ", ".join(g for g in games.names() if games.load(g).minimax is not None)
        raise ValueError(f"minimax agents have evaluations for {have}, not {game.name!r}")


@dataclass(frozen=True)
class AgentKind:
    """One entry of the agent table: its keys, how to build it, what it is, and the checks that need
    the game (run before anything is built)."""

    keys: dict
    build: Callable
    doc: str
    check: Callable | None = None
    group: Callable | None = None  # (game, seeds, options per seed) -> agents sharing one search, else None
    shared: tuple = ()  # the keys on which the specs of one group must agree


def _with_defaults(keys, **defaults):
    return {name: Key(k.parse, defaults.get(name, k.default), k.doc) for name, k in keys.items()}


AGENTS = {
    "random": AgentKind({}, lambda game, seed, o: RandomAgent(game, seed), "uniformly random moves"),
    "mcts": AgentKind(_MCTS_KEYS, _make_mcts, "random-rollout UCT as AlphaDDA's opponents (Fujita, App. 3)"),
    **{
        f"mcts{i}": AgentKind(
            _with_defaults(_MCTS_KEYS, simulations=n), _make_mcts, f"AlphaDDA's MCTS{i}: {n} simulations"
        )
        for i, n in ((1, 300), (2, 100), (3, 200), (4, 50))
    },
    "sp": AgentKind(_SP_KEYS, lambda g, s, o: _make_sironi(g, s, o, False), "UCT + MAST (Sironi et al., SP)",
                    lambda g, o: _check_sironi(g, o, False)),
    "ap": AgentKind(_AP_KEYS, lambda g, s, o: _make_sironi(g, s, o, True), "GRAVE + MAST (Sironi et al., AP)",
                    lambda g, o: _check_sironi(g, o, True)),
    "az": AgentKind(_AZ_KEYS, lambda game, seed, o: _make_az_group(game, [seed], [o])[0],
                    "AlphaZero: PUCT search over a policy-value net (AlphaDDA App. 1)", _check_az, _make_az_group,
                    AZ_SHARED),
    "perfect": AgentKind({"depth": Key(number(1, integer=True), None, "search depth in plies (none: exact)")},
                         _make_perfect, "Connect4's perfect player, the bitbully solver (extra [solver])",
                         _check_perfect),
    "minimax": AgentKind(_MINIMAX_KEYS, _make_minimax, "alpha-beta minimax with AlphaDDA's evaluations (App. 4)",
                         _check_minimax),
    "minimax1": AgentKind(_MINIMAX_KEYS, _make_minimax, "AlphaDDA's Minimax1", _check_minimax),
    "minimax2": AgentKind(_with_defaults(_MINIMAX_KEYS, eval="minimax2"), _make_minimax, "AlphaDDA's Minimax2",
                          _check_minimax),
}  # fmt: skip


def parse_spec(spec: str | AgentSpec, *, placeholders: bool = False) -> AgentSpec:
    """The parsed spec, every default filled in; ValueError in one line if malformed."""
    return spec if isinstance(spec, AgentSpec) else specs.parse(spec, AGENTS, placeholders)


def check_spec(game: games.Game | str, spec: str | AgentSpec) -> AgentSpec:
    """Parse `spec` and run every check that building it for `game` would run, without building it."""
    game = games.load(game) if isinstance(game, str) else game
    parsed = parse_spec(spec)
    check = AGENTS[parsed.name].check
    if check is not None:
        check(game, parsed.options)
    return parsed


def make_agent(game: games.Game | str, spec: str | AgentSpec, *, seed: int | None = None) -> Agent:
    """The agent described by `spec` for `game` (a Game or its name), seeded (a random seed if None)."""
    game = games.load(game) if isinstance(game, str) else game
    parsed = check_spec(game, spec)
    agent = AGENTS[parsed.name].build(game, secrets.randbits(63) if seed is None else seed, parsed.options)
    agent.spec = str(spec)
    return agent


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


def make_agents(game: games.Game | str, spec, *, seeds: list[int]) -> AgentGroup:
    """One agent per seed, for as many concurrent games (`az` agents share one search and its forwards).

    `spec` is one spec for every game, or a list with one per seed; specs that batch must then share a
    `group_key` (ValueError otherwise)."""
    game = games.load(game) if isinstance(game, str) else game
    specs = [spec] * len(seeds) if isinstance(spec, (str, AgentSpec)) else list(spec)
    if len(specs) != len(seeds):
        raise ValueError(f"{len(specs)} specs for {len(seeds)} seeds: give one spec, or one per seed")
    parsed = [check_spec(game, s) for s in specs]
    keys = {group_key(p) for p in parsed}
    if len(keys) > 1 and any(AGENTS[p.name].group is not None for p in parsed):
        raise ValueError(f"these specs cannot share one search: {', '.join(sorted({str(s) for s in specs}))}")
    kind = AGENTS[parsed[0].name]
    if kind.group is not None:
        group = kind.group(game, list(seeds), [p.options for p in parsed])
    else:
        group = AgentGroup(AGENTS[p.name].build(game, seed, p.options) for p, seed in zip(parsed, seeds))
    for agent, s in zip(group, specs):
        agent.spec = str(s)
    return group


def group_key(spec: str | AgentSpec) -> tuple:
    """Specs with equal keys can play in one `make_agents` group: an agent kind that batches (`az`) and
    its shared settings, or ("each",) for agents that search one game at a time."""
    parsed = parse_spec(spec)
    kind = AGENTS[parsed.name]
    if kind.group is None:
        return ("each",)
    return (parsed.name, *(parsed.options[k] for k in kind.shared))


def adapts_between_games(spec: str | AgentSpec) -> bool:
    """Whether agents of `spec` carry what they learn from one game to the next of a match (dsa=inter or
    both, dda=alphadda1z with a z_0 step), so that a match must give them its games one after another."""
    o = parse_spec(spec).options
    return o.get("dsa") in ("inter", "both") or (o.get("dda") == "alphadda1z" and o.get("dz_0") != 0)


def batches(spec: str | AgentSpec) -> bool:
    """Whether agents of `spec` batch their searches across concurrent games (`az`)."""
    return AGENTS[parse_spec(spec).name].group is not None


def describe_agents() -> str:
    """Every agent with its keys and defaults, for --help."""
    return specs.describe(AGENTS)
