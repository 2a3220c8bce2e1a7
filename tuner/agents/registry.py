"""The agent table: one entry per agent name, with its spec keys, how to build it, and its checks.

The composition root of sparring: each builder wires the lower layers together (a search from
`search`, an evaluator from `nets`, on-line strategies from `tuner.strategies`, a strength adjuster),
so none of them needs to know the others. `nets` is imported on the first `az` agent only, so a spec
that needs no network never pays for torch.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Callable

import games
from games.outside import OutsideGame
from nets.shipped import resolve_net
from search import perfect
from search.agents import MCTSAgent, MinimaxAgent, RandomAgent
from search.az import AZAgent, AZGroup
from search.evaluator import MAX_DROPOUT
from search.mcts import ALPHADDA, ALPHADDA_CODE, COLUMNS, UCB1
from search.puct import PUCT, PUCT_RULE
from tuner.agents import adjusters
from tuner.agents.adjusters import DDA_KEYS, DSA_KEYS, TUNER_KEYS
from tuner.agents.spec import Key, choice, number, value_text
from tuner.strategies import NAMES as STRATEGY_NAMES
from tuner.strategies import REGISTRY as STRATEGIES
from tuner.strategies import check_settings, make_strategy, sa_mcts_space

# --- keys of each agent ------------------------------------------------------------------------

_BUDGET = {
    "simulations": Key(number(1, integer=True), 1000, "simulations per move"),
    "time": Key(number(1e-6, 86400), None, "seconds per move (at most a day), instead of a number of simulations"),
}
_CHOICE = {
    "z": Key(number(-math.inf, infinite=True), None, "softmax strength index (inf: most visited; 0 with dsa)"),
    "rth": Key(number(0, 1), 0.1, "candidates need at least rth times the top visit count"),
    "dsa": Key(
        choice("none", *adjusters.named("dsa")),
        "none",
        "dynamic strength adjustment of z (Wu et al.); both: each game starts at inter's level, intra moves it; "
        "fixed: z stays (for dda_tuner)",
    ),
    **DSA_KEYS,
    **TUNER_KEYS,
}
_MCTS_KEYS = {
    **_BUDGET,
    **_CHOICE,
    "c": Key(number(), 0.5, "exploration constant C"),
    "n_open": Key(number(1, integer=True), 5, "visits before a node's children are opened"),
    "uct": Key(
        choice("eq12", "code"),
        "eq12",
        "eq12: AlphaDDA's eq. 12 as printed; code: as the authors' code, 2 ln(N + 1) with N the children's visits",
    ),
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
    "dda": Key(
        choice("none", *adjusters.named("dda")),
        "none",
        "AlphaDDA's value-driven strength adjustment (eqs. 1-7), its keys defaulting to Tables 1-3; "
        "alphadda1z: ours, AlphaDDA1 with a value-driven move choice that can play worse than Random",
    ),
    **DDA_KEYS,
}
_MINIMAX_KEYS = {
    "depth": Key(number(1, integer=True), 3, "search depth in plies"),
    "eval": Key(choice("minimax1", "minimax2"), "minimax1", "AlphaDDA's evaluation: minimax1 or minimax2"),
    "endgame": Key(number(0, integer=True), 6, "Othello: search to the end with this many empty squares or fewer"),
    "tree": Key(
        choice(*MinimaxAgent.TREES),
        "negamax",
        "negamax, or code: the authors' minimax (a root child scores its worst leaf; Connect4: their evaluation)",
    ),
}


# --- building agents ---------------------------------------------------------------------------


def _choice(game, seed, o, evaluator=None) -> dict:
    """The move-choice arguments of a search agent: z, rth and the strength adjuster its spec names (with its
    on-line DDA tuner, if it names one)."""
    kind = adjusters.selected(o)
    if kind is None:
        return {"z": math.inf if o["z"] is None else o["z"], "rth": o["rth"]}
    z = o["z"] if kind.selector == "dda" else adjusters.start_z(o)  # AlphaDDA leaves z alone
    adjuster = adjusters.build(kind, game, o, evaluator, seed)
    return {"z": math.inf if z is None else z, "rth": o["rth"], "adjuster": adjuster}


def _make_mcts(game, seed, o):
    params = [o["c"], 1.0, 0.0, math.inf, 0.0, 0.0]
    settings = [o["n_open"], ALPHADDA if o["uct"] == "eq12" else ALPHADDA_CODE, 0, 0]
    return MCTSAgent(
        game, seed, params, settings, simulations=o["simulations"], seconds=o["time"], **_choice(game, seed, o)
    )


def _tuned_names(o, grave) -> list[str]:
    """The parameters named by `tune=`; ValueError in one line if one is not tunable by this agent."""
    allowed = list(COLUMNS) if grave else ["C", "eps", "VO", "T"]
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
    """The on-line tuners (one per player [SA-MCTS IV]) and the parameter columns they set, or (None, ())."""
    if o["tuner"] == "none":
        return None, ()
    names = _tuned_names(o, grave)
    space = sa_mcts_space(names)
    settings = _tuner_settings(game, o)
    tuners = tuple(make_strategy(space, o["tuner"], seed + p, **settings) for p in range(game.players))
    return tuners, [COLUMNS[n] for n in names]


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
    return MCTSAgent(
        game,
        seed,
        params,
        settings,
        simulations=o["simulations"],
        seconds=o["time"],
        mast_decay=o["decay"],
        **_choice(game, seed, o),
        tuners=tuners,
        tuned=tuned,
    )


def _check_sironi(game, o, grave):
    """What building an SP/AP agent would reject, without building it: its adjuster, tune= and the strategy's
    settings."""
    adjusters.check(game, o)
    if o["tuner"] != "none":
        _tuned_names(o, grave)
        check_settings(o["tuner"], _tuner_settings(game, o))


def _make_az_group(game, seeds, options):
    """`az` agents for len(seeds) concurrent games over one PUCT forest and one evaluator; options[k] are
    game k's (they agree on what `_forest` reads, and may differ in the rest)."""
    from nets.shipped import make_evaluator

    o = options[0]
    evaluator = make_evaluator(o["net"], game, device=o["device"])
    puct = PUCT(
        game,
        evaluator,
        games=len(seeds),
        c_puct=o["c_puct"],
        rule=_rule(o),
        leaves=o["leaves"],
        root_eps=o["eps"],
        noise_weight=o["noise"],
        noise_alpha=o["alpha"],
        reuse=o["reuse"] == "yes",
        seed=seeds[0],
    )

    def agent(row, seed, o):
        choice = _choice(game, seed, o, evaluator)  # each game its own adjuster
        return AZAgent(
            game,
            seed,
            puct,
            row,
            simulations=o["simulations"],
            seconds=o["time"],
            t_opening=o["t_opening"],
            tau=o["tau"],
            dropout=o["dropout"],
            **choice,
        )

    return AZGroup([agent(row, seed, o) for row, (seed, o) in enumerate(zip(seeds, options))])


def _rule(o):
    """The search rule of an az agent's forest: its adjuster's (AlphaDDA3's eqs. 6-7), else eq. 8."""
    kind = adjusters.selected(o)
    return kind.rule if kind is not None and kind.rule is not None else PUCT_RULE


def _forest(o) -> tuple:
    """What the az agents of one forest share: its evaluator, its settings and its rule."""
    keys = ("net", "device", "c_puct", "leaves", "eps", "noise", "alpha", "reuse", "time")
    return (*(o[k] for k in keys), _rule(o))


def _check_az(game, o):
    """What building an az agent would reject: a net that cannot be had, an adjuster's settings, and keys that
    fight the adjuster."""
    if isinstance(game, OutsideGame):
        raise ValueError(f"az needs network planes, which {game.name} (a game from outside) has not: play it with mcts")
    resolve_net(o["net"], game)
    kind = adjusters.check(game, o)
    for key, why in () if kind is None else kind.conflicts:
        if o[key] != _AZ_KEYS[key].default:
            raise ValueError(f"{kind.selector}={kind.name} {why}: drop {key}={value_text(o[key])}")


def _make_perfect(game, seed, o):
    return perfect.PerfectAgent(game, seed, depth=o["depth"])


def _check_perfect(game, o):
    if game.name != "connect4":
        raise ValueError(f"perfect plays connect4 only (a solver of that game), not {game.name!r}")
    if not perfect.available():
        raise ValueError(perfect.INSTALL)


def _make_minimax(game, seed, o):
    return MinimaxAgent(game, seed, depth=o["depth"], evaluation=o["eval"], endgame=o["endgame"], tree=o["tree"])


def _check_minimax(game, o):
    if o["eval"] not in game.evaluations:
        have = ", ".join(g for g in games.names() if o["eval"] in games.load(g).evaluations)
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
    shared: Callable | None = None  # options -> what the specs of one group must agree on
    any_players: bool = False  # whether it plays games of more than two players (else it says so in one line)


def _with_defaults(keys, **defaults):
    return {name: Key(k.parse, defaults.get(name, k.default), k.doc) for name, k in keys.items()}


AGENTS = {
    "random": AgentKind({}, lambda game, seed, o: RandomAgent(game, seed), "uniformly random moves", any_players=True),
    "mcts": AgentKind(
        _MCTS_KEYS,
        _make_mcts,
        "random-rollout UCT as AlphaDDA's opponents (Fujita, App. 3)",
        adjusters.check,
        any_players=True,
    ),
    **{
        f"mcts{i}": AgentKind(
            _with_defaults(_MCTS_KEYS, simulations=n),
            _make_mcts,
            f"AlphaDDA's MCTS{i}: {n} simulations",
            adjusters.check,
            any_players=True,
        )
        for i, n in ((1, 300), (2, 100), (3, 200), (4, 50))
    },
    "sp": AgentKind(
        _SP_KEYS,
        lambda g, s, o: _make_sironi(g, s, o, False),
        "UCT + MAST (Sironi et al., SP)",
        lambda g, o: _check_sironi(g, o, False),
        any_players=True,
    ),
    "ap": AgentKind(
        _AP_KEYS,
        lambda g, s, o: _make_sironi(g, s, o, True),
        "GRAVE + MAST (Sironi et al., AP)",
        lambda g, o: _check_sironi(g, o, True),
        any_players=True,
    ),
    "az": AgentKind(
        _AZ_KEYS,
        lambda game, seed, o: _make_az_group(game, [seed], [o])[0],
        "AlphaZero: PUCT search over a policy-value net (AlphaDDA App. 1)",
        _check_az,
        _make_az_group,
        _forest,
    ),
    "perfect": AgentKind(
        {"depth": Key(number(1, integer=True), None, "search depth in plies (none: exact)")},
        _make_perfect,
        "Connect4's perfect player, the bitbully solver (extra [solver])",
        _check_perfect,
    ),
    "minimax": AgentKind(
        _MINIMAX_KEYS, _make_minimax, "alpha-beta minimax with AlphaDDA's evaluations (App. 4)", _check_minimax
    ),
    "minimax1": AgentKind(_MINIMAX_KEYS, _make_minimax, "AlphaDDA's Minimax1", _check_minimax),
    "minimax2": AgentKind(
        _with_defaults(_MINIMAX_KEYS, eval="minimax2"), _make_minimax, "AlphaDDA's Minimax2", _check_minimax
    ),
}
