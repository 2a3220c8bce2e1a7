"""Players built from spec strings: `name:key=value,key=value`, the same syntax in Python, the CLI and studies.

>>> import games, search
>>> agent = search.make_agent(games.load("connect4"), "mcts:simulations=300,c=0.5", seed=1)
>>> agent.select_action(games.load("connect4").new_initial_state()) in range(7)
True

Every agent answers `select_action(state)` and hears `new_game(seed=None)`, `observe(state, action)`
(each move of the game, its own and the opponent's, before it is applied) and `game_over(returns)`.
`select_action` stays correct when the hooks are never called: the search finds its place in the
game from the state's history.
"""

import math
import secrets
from dataclasses import dataclass
from typing import Any, Callable

import games
from games.rng import make_rng, randint
from search.mcts import ALPHADDA, EPSILON, MCTS, REF, UCB1, VO, C, K, SearchResult, T
from search.minimax import empty_squares, evaluation, minimax_action
from search.move_choice import choose_move
from search.strength import INTRA_MOVES, InterGame, IntraGame, StrengthAdjuster
from tuner.strategies import NAMES as STRATEGY_NAMES
from tuner.strategies import REGISTRY as STRATEGIES
from tuner.strategies import make_strategy, sa_mcts_space


class Agent:
    """The hooks every player hears; subclasses implement `select_action`."""

    def __init__(self, game, seed):
        self.game = game
        self.rng = make_rng(seed)

    def new_game(self, seed=None) -> None:
        """A new game starts; `seed`, if given, reseeds the agent so the game can be replayed alone."""
        if seed is not None:
            self.rng[:] = make_rng(seed)

    def observe(self, state, action) -> None:
        """`action` is about to be played in `state` (by either player)."""

    def game_over(self, returns) -> None:
        """The game ended with `returns` (+1 / -1 / 0 per player)."""

    def select_action(self, state) -> int:
        raise NotImplementedError


class RandomAgent(Agent):
    """Uniformly random legal moves."""

    def select_action(self, state):
        legal = state.legal_actions()
        return legal[randint(self.rng, len(legal))]


class MCTSAgent(Agent):
    """A tree search (AlphaDDA's MCTS, SP or AP) that chooses its move by the softmax-z rule.

    z = +inf (the default) plays the most visited move. An `adjuster` (StrengthAdjuster) may set
    z, and other knobs, around each search. `last_search` holds the latest root statistics.
    """

    def __init__(self, game, seed, params, settings, simulations=None, seconds=None, mast_decay=0.2,
                 z=math.inf, rth=0.1, adjuster: StrengthAdjuster | None = None, tuners=None, tuned=()):  # fmt: skip
        super().__init__(game, seed)
        self.simulations, self.seconds = simulations, seconds
        self.search = MCTS(game, params, settings, self.rng, mast_decay=mast_decay, tuners=tuners, tuned=tuned)
        self.z, self.rth = z, rth
        self.adjuster = adjuster
        self.last_search: SearchResult | None = None
        self._seat = None

    def new_game(self, seed=None):
        super().new_game(seed)
        self.search.reset()
        self._seat = None
        if self.adjuster is not None:
            self.adjuster.new_game()

    def observe(self, state, action):
        if self.adjuster is not None:
            self.adjuster.observe(state, action)

    def game_over(self, returns):
        if self.adjuster is not None and self._seat is not None:
            self.adjuster.game_over(returns, self._seat)

    def tuning(self) -> list[dict] | None:
        """What the on-line tuners did this game, per player (e.g. samples per value, the recommendation)."""
        if self.search.tuners is None:
            return None
        return [tuner.report() for tuner in self.search.tuners]

    def select_action(self, state):
        self._seat = state.current_player()
        if self.adjuster is not None:
            self.adjuster.before_search(self, state)
        result = self.search.search(state, simulations=self.simulations, seconds=self.seconds)
        self.last_search = result
        if self.adjuster is not None:
            self.adjuster.after_search(self, state, result)
        return choose_move(result.actions, result.visits, self.z, self.rth, self.rng)


class MinimaxAgent(Agent):
    """AlphaDDA's Minimax1/Minimax2: alpha-beta to `depth`, to the end once `endgame` squares are empty."""

    def __init__(self, game, seed, depth, variant, endgame):
        super().__init__(game, seed)
        self.evaluate, self.weights = evaluation(game.name, variant)
        self.depth, self.endgame = depth, endgame
        self.squares = game.board_shape[0] * game.board_shape[1]

    def select_action(self, state):
        depth = self.depth
        if self.game.name.startswith("othello"):
            if empty_squares(state.array, self.squares) <= self.endgame:
                depth = self.game.max_game_length
        g = self.game
        return int(minimax_action(g.kernels, self.evaluate, self.weights, state.array, depth, g.max_legal, self.rng))


# --- spec strings ------------------------------------------------------------------------------


@dataclass(frozen=True)
class Key:
    parse: Callable[[str], Any]
    default: Any
    doc: str


def _number(low=0.0, high=math.inf, infinite=False, integer=False):
    kind = ("a whole number" if integer else "a number") + (f" from {low:g}" if low > -math.inf else " or -inf")
    kind += f" to {high:g}" if high < math.inf else (" or inf" if infinite else "")

    def parse(text):
        try:
            value = float(text)
        except ValueError:
            value = math.nan
        ok = low <= value <= high and (infinite or value != math.inf)
        if integer and ok and value != math.inf:
            ok = value == int(value)
            value = int(value)
        if not ok:
            raise ValueError(f"expected {kind}")
        return value

    return parse


def _choice(*options):
    def parse(text):
        if text not in options:
            raise ValueError(f"expected one of {', '.join(options)}")
        return text

    return parse


_BUDGET = {
    "simulations": Key(_number(1, integer=True), 1000, "simulations per move"),
    "time": Key(_number(1e-6), None, "seconds per move, instead of a number of simulations"),
}
_CHOICE = {
    "z": Key(_number(-math.inf, infinite=True), None, "softmax strength index (inf: most visited; 0 with dsa)"),
    "rth": Key(_number(0, 1), 0.1, "candidates need at least rth times the top visit count"),
    "dsa": Key(_choice("none", "inter", "intra"), "none", "dynamic strength adjustment of z (Wu et al.)"),
    "dz": Key(_number(1e-9), None, "z step: inter 0.375 at the start, intra dZ 0.1 (the paper's defaults)"),
    "dz_decay": Key(_number(0, 1), 0.95, "inter: dz is multiplied by this after every game"),
    "dz_min": Key(_number(), 0.03, "inter: dz never falls below this"),
    "dsa_eps": Key(_number(1e-9, 0.5), 0.1, "intra: half-width of the band around W = 0.5 with smaller steps"),
    "dsa_moves": Key(_number(1, integer=True), None, "intra: own moves over which dZ cools to 0 (per game)"),
    "floor": Key(_number(-math.inf, infinite=True), -2.0, "dsa: below this z, halve the budget per unit of z"),
}
_MCTS_KEYS = {
    **_BUDGET,
    **_CHOICE,
    "c": Key(_number(), 0.5, "exploration constant C"),
    "n_open": Key(_number(1, integer=True), 5, "visits before a node's children are opened"),
}
_SP_KEYS = {
    **_BUDGET,
    **_CHOICE,
    "c": Key(_number(), 0.2, "UCT exploration constant C"),
    "eps": Key(_number(0, 1), 0.4, "MAST: probability of a random playout move"),
    "vo": Key(_number(), 0.01, "choose uniformly among moves within VO of the best"),
    "t": Key(_number(infinite=True), 0.0, "below T node visits, choose in-tree moves with the playout policy"),
    "decay": Key(_number(0, 1), 0.2, "MAST statistics are multiplied by this after each real move"),
}
_TUNE_KEYS = {
    "tuner": Key(_choice("none", *STRATEGY_NAMES), "none", "on-line tuning strategy"),
    "tune": Key(str, "C+eps", "tuned parameters joined by +, from C, eps, VO, T (ap also K, Ref), or all"),
    **{  # every strategy's settings; left out, the strategy's own default
        s.spec_key: Key(_number(s.low, s.high, integer=s.integer), None, f"{s.doc} (default {s.default})")
        for entry in STRATEGIES.values()
        for s in entry.settings
    },
}
_SP_KEYS.update(_TUNE_KEYS)
_AP_KEYS = {
    **_SP_KEYS,
    "k": Key(_number(infinite=True), 250.0, "GRAVE equivalence K (0: pure UCT, inf: AMAF only)"),
    "ref": Key(_number(infinite=True), 50.0, "AMAF from the deepest ancestor with >= Ref visits"),
}
_MINIMAX_KEYS = {
    "depth": Key(_number(1, integer=True), 3, "search depth in plies"),
    "eval": Key(_choice("minimax1", "minimax2"), "minimax1", "AlphaDDA's evaluation: minimax1 or minimax2"),
    "endgame": Key(_number(0, integer=True), 6, "Othello: search to the end with this many empty squares or fewer"),
}


def _choice(game, o) -> dict:
    """The move-choice arguments of an MCTSAgent: z, rth and the strength adjuster."""
    if o["dsa"] == "none":
        return {"z": math.inf if o["z"] is None else o["z"], "rth": o["rth"]}
    z0 = 0.0 if o["z"] is None else o["z"]
    floor = None if o["floor"] == -math.inf else o["floor"]
    if o["dsa"] == "inter":
        adjuster = InterGame(o["dz"] or 0.375, o["dz_decay"], o["dz_min"], z0, floor)
    else:
        moves = o["dsa_moves"] or INTRA_MOVES.get(game.name, game.max_game_length // 2)
        adjuster = IntraGame(o["dz"] or 0.1, o["dsa_eps"], moves, z0, floor)
    return {"z": z0, "rth": o["rth"], "adjuster": adjuster}


def _make_mcts(game, seed, o):
    params = [o["c"], 1.0, 0.0, math.inf, 0.0, 0.0]
    settings = [o["n_open"], ALPHADDA, 0, 0]
    return MCTSAgent(game, seed, params, settings, o["simulations"], o["time"], **_choice(game, o))


_COLUMNS = {"C": C, "eps": EPSILON, "K": K, "Ref": REF, "VO": VO, "T": T}


def _tuners(game, seed, o, grave):
    """The pair of on-line tuners (one per player) and the parameter columns they set, or (None, ())."""
    if o["tuner"] == "none":
        return None, ()
    allowed = list(_COLUMNS) if grave else ["C", "eps", "VO", "T"]
    names = allowed if o["tune"] == "all" else o["tune"].split("+")
    bad = [n for n in names if n not in allowed] or ([] if len(set(names)) == len(names) else ["(repeated)"])
    if bad:
        raise ValueError(f"bad tune={o['tune']!r}: {', '.join(bad)} not tunable here; choose from {'+'.join(allowed)}")
    space = sa_mcts_space(names)
    kind = o["tuner"]
    settings = {s.name: o[s.spec_key] for s in STRATEGIES[kind].settings if o[s.spec_key] is not None}
    if kind == "lsi" and "budget" not in settings:
        settings["budget"] = _lsi_budget(game, o)
    tuners = tuple(make_strategy(space, kind, seed + p, **settings) for p in (0, 1))
    return tuners, [_COLUMNS[n] for n in names]


# One player's moves in a typical game, measured: SP against SP at 1000 simulations, 10 games each
# (Connect4 34.5 plies on average, Breakthrough 66.2, 6x6 Othello 32.7); Othello: 60 plies, less passes
EXPECTED_OWN_MOVES = {"connect4": 17, "breakthrough": 33, "othello6": 16, "othello": 30}


def _lsi_budget(game, o):
    """LSI's samples for a game: simulations per move times one player's moves in a typical game.

    The expected length matters: with the longest game instead (21 own moves on Connect4), LSI
    spent whole games generating side information and never evaluated its candidates."""
    per_move = o["simulations"] if o["simulations"] is not None else 100_000 * o["time"]  # a rough rate
    return int(per_move * EXPECTED_OWN_MOVES.get(game.name, game.max_game_length // 4))


def _make_sironi(game, seed, o, grave):
    params = [o["c"], o["eps"], o["k"] if grave else 0.0, o["ref"] if grave else math.inf, o["vo"], o["t"]]
    settings = [1, UCB1, 1, 1 if grave else 0]
    tuners, tuned = _tuners(game, seed, o, grave)
    return MCTSAgent(game, seed, params, settings, o["simulations"], o["time"], o["decay"], **_choice(game, o),
                     tuners=tuners, tuned=tuned)  # fmt: skip


def _make_minimax(game, seed, o):
    return MinimaxAgent(game, seed, o["depth"], int(o["eval"][-1]), o["endgame"])


def _with_defaults(keys, **defaults):
    return {name: Key(k.parse, defaults.get(name, k.default), k.doc) for name, k in keys.items()}


AGENTS = {
    "random": ({}, lambda game, seed, o: RandomAgent(game, seed), "uniformly random moves"),
    "mcts": (_MCTS_KEYS, _make_mcts, "random-rollout UCT as AlphaDDA's opponents (Fujita, App. 3)"),
    **{
        f"mcts{i}": (_with_defaults(_MCTS_KEYS, simulations=n), _make_mcts, f"AlphaDDA's MCTS{i}: {n} simulations")
        for i, n in ((1, 300), (2, 100), (3, 200), (4, 50))
    },
    "sp": (_SP_KEYS, lambda g, s, o: _make_sironi(g, s, o, False), "UCT + MAST (Sironi et al., SP)"),
    "ap": (_AP_KEYS, lambda g, s, o: _make_sironi(g, s, o, True), "GRAVE + MAST (Sironi et al., AP)"),
    "minimax": (_MINIMAX_KEYS, _make_minimax, "alpha-beta minimax with AlphaDDA's evaluations (App. 4)"),
    "minimax1": (_MINIMAX_KEYS, _make_minimax, "AlphaDDA's Minimax1"),
    "minimax2": (_with_defaults(_MINIMAX_KEYS, eval="minimax2"), _make_minimax, "AlphaDDA's Minimax2"),
}


def parse_spec(spec: str) -> tuple[str, dict]:
    """(agent name, {key: value} with every default filled in); ValueError in one line if malformed."""
    name, _, rest = spec.strip().partition(":")
    if name not in AGENTS:
        raise ValueError(f"unknown agent {name!r} in {spec!r}; known agents: {', '.join(AGENTS)}")
    keys = AGENTS[name][0]
    given = {}
    for item in filter(None, (part.strip() for part in rest.split(","))):
        key, eq, text = item.partition("=")
        key = key.strip()
        if key not in keys:
            valid = ", ".join(keys) or "none"
            raise ValueError(f"unknown key {key!r} for agent {name!r} in {spec!r}; valid keys: {valid}")
        if not eq:
            raise ValueError(f"key {key!r} in {spec!r} has no value: write {key}=VALUE")
        try:
            given[key] = keys[key].parse(text.strip())
        except ValueError as error:
            raise ValueError(f"bad value {text.strip()!r} for {key!r} in {spec!r}: {error}") from None
    if "simulations" in given and "time" in given:
        raise ValueError(f"{spec!r} gives both simulations and time: give one budget")
    options = {key: k.default for key, k in keys.items()}
    options.update(given)
    if "time" in given:
        options["simulations"] = None
    return name, options


def make_agent(game, spec: str, seed: int | None = None) -> Agent:
    """The agent described by `spec` for `game` (a Game or its name), seeded (random seed if None)."""
    game = games.load(game) if isinstance(game, str) else game
    name, options = parse_spec(spec)
    if name.startswith("minimax") and game.name not in ("connect4", "othello", "othello6"):
        raise ValueError(f"agent {name!r} has evaluations for connect4, othello and othello6, not {game.name!r}")
    agent = AGENTS[name][1](game, secrets.randbits(63) if seed is None else seed, options)
    agent.spec = spec
    return agent


def describe_agents() -> str:
    """Every agent with its keys and defaults, for --help."""
    lines = []
    for name, (keys, _, doc) in AGENTS.items():
        lines.append(f"  {name:<10}{doc}")
        for key, k in keys.items():
            lines.append(f"      {key}={k.default!s:<10}{k.doc}")
    return "\n".join(lines)
