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
from nets.shipped import resolve_net
from search.agents import MCTSAgent, MinimaxAgent, RandomAgent
from search.alphadda import ADJUSTERS, TABLES
from search.az import AZAgent, AZGroup
from search.evaluator import MAX_DROPOUT
from search.mcts import ALPHADDA, EPSILON, REF, UCB1, VO, C, K, T
from search.perfect import INSTALL, PerfectAgent, available
from search.puct import PUCT
from search.strength import InterGame, InterIntra, IntraGame
from tuner.agents.spec import Key, choice, number
from tuner.strategies import NAMES as STRATEGY_NAMES
from tuner.strategies import REGISTRY as STRATEGIES
from tuner.strategies import check_settings, make_strategy, sa_mcts_space

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
    from nets.shipped import make_evaluator

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
    resolve_net(o["net"], game)
    _dda_settings(game, o)


def _make_perfect(game, seed, o):
    return PerfectAgent(game, seed, depth=o["depth"])


def _check_perfect(game, o):
    if game.name != "connect4":
        raise ValueError(f"perfect plays connect4 only (a solver of that game), not {game.name!r}")
    if not available():
        raise ValueError(INSTALL)


def _make_minimax(game, seed, o):
    return MinimaxAgent(game, seed, depth=o["depth"], evaluation=o["eval"], endgame=o["endgame"])


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
