"""The strength adjusters a spec can name, one entry each: Wu et al.'s (`dsa=`, every search agent) and
AlphaDDA's (`dda=`, the `az` agent), with the spec keys each reads, its defaults and how to build it, and
what an on-line DDA tuner (`dda_tuner=`, search.tuned) may set of it and over which values.

Everything that lists adjusters reads `ADJUSTERS`: the `dsa` and `dda` keys' choices and their keys in the
agent table, the checks of a spec, the builders, and whether an agent learns between the games of a match.
A new adjuster is its class (in `search`) and one entry here; tests/test_adjusters.py then runs the
conformance suite over it.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Callable

from games.game import two_players_only
from games.rng import derive_seeds
from search.alphadda import GRIDS, TABLES, AlphaDDA1, AlphaDDA1Z, AlphaDDA2, AlphaDDA3
from search.evaluator import MAX_DROPOUT
from search.strength import InterGame, InterIntra, IntraGame, Level, StrengthAdjuster
from search.tuned import TunedAdjuster
from tuner.agents.spec import Key, choice, number
from tuner.strategies import NAMES as STRATEGY_NAMES
from tuner.strategies import Param, Space, make_strategy

SELECTORS = ("dsa", "dda")  # the agent keys that name an adjuster; "none" is no adjuster


@dataclass(frozen=True)
class AdjusterKind:
    """One strength adjuster: `selector=name` in a spec builds it with `build(game, options, evaluator, seed)`.

    `keys` are the spec keys it reads (defined in DSA_KEYS or DDA_KEYS); a key left out (None) takes the
    game's row of `tables` (AlphaDDA Tables 1-3) where it has one. `learns_between_games(options)` says
    whether it carries what it learnt from one game of a match to the next. For the agent that carries it:
    `rule` is the search rule it needs (None: the agent's own), and `conflicts` are the agent's keys it sets
    itself, each with why, which a spec must leave at their defaults. `space(game, options)` gives, for each
    setting a DDA tuner may set (the class's TUNABLE), its Param, whose default is the setting the spec builds;
    `tune` names those a tuner sets when the spec does not say (`dda_tune=`); `defaults` are the settings of every
    game beneath its row of `tables`.
    """

    name: str
    selector: str
    doc: str
    keys: tuple[str, ...]
    build: Callable[..., StrengthAdjuster]
    tables: dict = field(default_factory=dict)
    learns_between_games: Callable[[dict], bool] = lambda options: False
    rule: object = None
    conflicts: tuple[tuple[str, str], ...] = ()
    space: Callable[..., dict] = lambda game, options: {}
    tune: tuple[str, ...] = ()
    defaults: dict = field(default_factory=dict)


DSA_KEYS = {
    "dz": Key(
        number(1e-9),
        None,
        "z step: inter 0.375 at the start, intra dZ 0.1 (the paper's defaults); both: inter's (intra keeps 0.1)",
    ),
    "dz_decay": Key(number(0, 1), 0.95, "inter: dz is multiplied by this after every game"),
    "dz_min": Key(number(), 0.03, "inter: dz never falls below this"),
    "dz_reheat": Key(
        number(2, integer=True),
        None,
        "inter (ours): after this many decisive results of one sign in a row, each doubles dz (6 follows an "
        "opponent whose strength jumps; default: Wu's schedule alone)",
    ),
    "dsa_eps": Key(
        number(1e-9, 0.5), 0.1, "intra: half-width of the band around W = 0.5 (1 - dda_target) with smaller steps"
    ),
    "dsa_moves": Key(number(1, integer=True), None, "intra: own moves over which dZ cools to 0 (per game)"),
    "floor": Key(number(-math.inf, infinite=True), -2.0, "dsa: below this z, halve the budget per unit of z"),
}
DDA_KEYS = {
    "nh": Key(number(1, integer=True), None, "AlphaDDA: N_h, the turns whose values are averaged (eq. 1)"),
    "a_sim": Key(number(), None, "AlphaDDA1: A_sim of eq. 2"),
    "b_sim0": Key(number(-math.inf), None, "AlphaDDA1: B_sim0 of eq. 2 (negative: Table 1)"),
    "n_max": Key(number(1, integer=True), None, "AlphaDDA1: N_max, the most simulations (eq. 3)"),
    "a_drop": Key(number(), None, "AlphaDDA2: A_drop of eq. 4"),
    "p_drop0": Key(number(-math.inf), None, "AlphaDDA2: P_drop0 of eq. 4 (negative: Table 2)"),
    "p_max": Key(number(0, MAX_DROPOUT), None, "AlphaDDA2: the largest dropout probability (the paper: 0.95)"),
    "history": Key(
        choice(*AlphaDDA2.HISTORIES),
        None,
        "AlphaDDA2: the net that reads the value history: clean (the paper) or damaged (the authors' code: the net "
        "at the last move's P_drop)",
    ),
    "c": Key(number(), None, "AlphaDDA3: the exploration constant C of eq. 6"),
    "z_a": Key(number(), None, "AlphaDDA1Z: softmax index z = z_a (z_0 - mean value) of the move choice"),
    "z_0": Key(
        number(-1, 2),
        None,
        "AlphaDDA1Z: the mean value at which the move choice is uniform (z = 0), at the match's start",
    ),
    "dz_0": Key(number(), None, "AlphaDDA1Z: z_0's step between games, down after a win, up after a loss (0: fixed)"),
}


TUNER_KEYS = {
    "dda_tuner": Key(
        choice("none", *STRATEGY_NAMES),
        "none",
        "on-line DDA: this allocation strategy sets the strength adjuster's settings (dsa= or dda=) as it plays",
    ),
    "dda_tune": Key(str, None, "the settings it tunes, joined by + (default: the adjuster's; all: every one)"),
    "dda_target": Key(
        number(0, 1),
        0.5,
        "the opponent's score to aim at (0.6: the opponent wins 60%), for an on-line tuner or Wu's rules (dsa=)",
    ),
    "dda_per": Key(
        choice("move", "game"), "move", "a setting per two moves, told after the second's reply; or per two games"
    ),
    "dda_forget": Key(number(1e-9, 1), 1.0, "after each game, what every reward learnt so far weighs (1: all)"),
}
# a setting an adjuster also steps between games itself, and that step: a tuner that sets the first turns the
# second off, else the games of a round would play a stepped value while the tuner is told about the one it set
STEPPED = {"z_0": "dz_0"}
AIMING = ("inter", "intra", "both")  # the adjusters that read dda_target without a tuner (Wu's rules)
LSI_GAMES = 20  # an on-line DDA LSI's budget in rewards: this many games' moves (per move a game tells about half)
# SA-MCTS's NMC explores with UCB's C = 1, made for thousands of playouts a move; an on-line DDA tuner has a few
# hundred rounds a match, whose rewards sit near 1/2, and C = 1 kept NMC near uniform over its levels. On the
# synthetic matches of experiments.dda_reward (5 seeds, judge noise 0 / 0.1 / 0.2), C = 0.5 held the score 0.049 /
# 0.046 / 0.072 from the aim with 67% / 55% / 34% of moves at a fair level, where C = 1 gave 0.045 / 0.074 / 0.094
# and 42% / 33% / 24%.
DDA_SETTINGS = {"nmc": {"c_local": 0.5, "c_global": 0.5}}  # an on-line DDA tuner's strategy settings, by strategy


def start_z(options: dict) -> float:
    """Where Wu et al.'s adjusters start z: the spec's z, else 0 (an even strength)."""
    return 0.0 if options["z"] is None else options["z"]


def _floor(options: dict) -> float | None:
    return None if options["floor"] == -math.inf else options["floor"]


def _aim(o) -> float:
    """The adjusting agent's score to aim at: what the opponent's target leaves it."""
    return 1.0 - o["dda_target"]


def _inter(game, o, evaluator=None, seed=0) -> InterGame:
    return InterGame(o["dz"] or 0.375, o["dz_decay"], o["dz_min"], start_z(o), _floor(o), o["dz_reheat"], _aim(o))


def _intra(game, o, evaluator=None, seed=0, dz=None) -> IntraGame:
    moves = o["dsa_moves"] or game.intra_moves
    return IntraGame(dz or o["dz"] or 0.1, o["dsa_eps"], moves, start_z(o), _floor(o), _aim(o))


def _both(game, o, evaluator=None, seed=0) -> InterIntra:
    return InterIntra(_inter(game, o), _intra(game, o, dz=0.1))  # dz= is inter's; intra keeps the paper's 0.1


def _level(game, o, evaluator=None, seed=0) -> Level:
    return Level(start_z(o), _floor(o))


def _param(name: str, values, default, doc: str = "") -> Param:
    """A tunable setting over `values`, its continuous range theirs, its default the setting built; a setting the
    spec built off those values is taken into them, so that the strategies may try what the developer asked."""
    if math.isfinite(default) and not any(math.isclose(v, default) for v in values):
        values = tuple(sorted((*values, float(default))))
    finite = [v for v in values if math.isfinite(v)]
    return Param(name, tuple(values), min(finite), max(finite), default, doc)


_Z_VALUES = (-6.0, -5.0, -4.0, -3.0, -2.0, -1.0, -0.5, 0.0, 0.5, 1.0, 2.0, 4.0, math.inf)
_FLOORS = (-3.0, -2.0, -1.0, 0.0)
_INTRA_DZ = (0.025, 0.05, 0.1, 0.2, 0.4)
_EPS = (0.05, 0.1, 0.2, 0.3)


def _level_space(game, o) -> dict:
    floor = _floor(o)
    return {
        "z": _param("z", _Z_VALUES, start_z(o), "softmax strength index"),
        "floor": _param("floor", _FLOORS, -math.inf if floor is None else floor, "budget halves per unit of z below"),
    }


def _intra_space(dz: bool):
    """The space of Wu's intra-game adjuster: its dZ (if `dz`) and its band; `both` tunes the band alone, its dz
    being inter's step, which acts between games (search.strength.InterGame)."""

    def space(game, o) -> dict:
        out = {"dz": _param("dz", _INTRA_DZ, o["dz"] or 0.1, "intra: dZ of eq. 18")} if dz else {}
        return {**out, "dsa_eps": _param("dsa_eps", _EPS, o["dsa_eps"], "intra: band half-width")}

    return space


def _dda_space(name):
    """The space of an AlphaDDA adjuster: the game's values in the paper's grid (Tables A2-A4; Connect4's for a
    game it lacks), each defaulting to the setting built."""

    def space(game, o) -> dict:
        kind = ADJUSTERS[name]
        built = dda_settings(kind, game, o)
        grid = GRIDS[name].get(game.name, GRIDS[name]["connect4"])
        return {key: _param(key, values, built[key]) for key, values in grid.items()}

    return space


def _alphadda(cls, name):
    """The builder of AlphaDDA adjuster `cls`: its settings from the spec, else the game's table row."""

    def build(game, o, evaluator, seed=0) -> StrengthAdjuster:
        return cls(game, evaluator, **dda_settings(ADJUSTERS[name], game, o))

    return build


def _alphadda2(game, o, evaluator, seed=0) -> AlphaDDA2:
    """AlphaDDA2, seeded: read through its damaged net (history=damaged), its values draw (a stream of their own,
    34: the issue that made it)."""
    return AlphaDDA2(game, evaluator, **dda_settings(ADJUSTERS["alphadda2"], game, o), seed=derive_seeds(seed, 34)[0])


_SETS_SIMULATIONS = ("time", "sets the number of simulations")
_INTER_KEYS = ("dz", "dz_decay", "dz_min", "dz_reheat", "floor")
_INTRA_KEYS = ("dz", "dsa_eps", "dsa_moves", "floor")
ADJUSTERS = {
    kind.name: kind
    for kind in (
        AdjusterKind(
            "inter",
            "dsa",
            "Wu et al.'s inter-game adjustment of z: down after a win, up after a loss",
            _INTER_KEYS,
            _inter,
            learns_between_games=lambda o: True,
        ),
        AdjusterKind(
            "intra",
            "dsa",
            "Wu et al.'s intra-game adjustment of z by the root's win rate (eq. 18)",
            _INTRA_KEYS,
            _intra,
            space=_intra_space(dz=True),
            tune=("dz", "dsa_eps"),
        ),
        AdjusterKind(
            "both",
            "dsa",
            "each game starts at inter's level, intra moves it (ours)",
            tuple(dict.fromkeys(_INTER_KEYS + _INTRA_KEYS)),
            _both,
            learns_between_games=lambda o: True,
            space=_intra_space(dz=False),
            tune=("dsa_eps",),
        ),
        AdjusterKind(
            "fixed",
            "dsa",
            "softmax-z at the spec's z (0 if none), never adjusted: the level a DDA tuner sets",
            ("floor",),
            _level,
            space=_level_space,
            tune=("z",),
        ),
        AdjusterKind(
            "alphadda1",
            "dda",
            "AlphaDDA1: simulations follow the net's value (eqs. 1-3, Table 1)",
            ("nh", "a_sim", "b_sim0", "n_max"),
            _alphadda(AlphaDDA1, "alphadda1"),
            TABLES["alphadda1"],
            conflicts=(_SETS_SIMULATIONS,),
            space=_dda_space("alphadda1"),
            tune=("nh", "a_sim", "b_sim0", "n_max"),
        ),
        AdjusterKind(
            "alphadda2",
            "dda",
            "AlphaDDA2: the net's dropout follows its value (eqs. 4-5, Table 2)",
            ("nh", "a_drop", "p_drop0", "p_max", "history"),
            _alphadda2,
            TABLES["alphadda2"],
            conflicts=(("dropout", "sets the dropout probability"),),
            space=_dda_space("alphadda2"),
            tune=("nh", "a_drop", "p_drop0"),
            defaults={"history": "clean"},
        ),
        AdjusterKind(
            "alphadda3",
            "dda",
            "AlphaDDA3: the search aims at the net's value (eqs. 6-7, Table 3)",
            ("nh", "c"),
            _alphadda(AlphaDDA3, "alphadda3"),
            TABLES["alphadda3"],
            rule=AlphaDDA3.RULE,
            conflicts=(("reuse", "backs up values for one target at a time (eq. 7)"),),
            space=_dda_space("alphadda3"),
            tune=("nh", "c"),
        ),
        AdjusterKind(
            "alphadda1z",
            "dda",
            "ours: AlphaDDA1 with a value-driven move choice that can play worse than Random",
            ("nh", "a_sim", "b_sim0", "n_max", "z_a", "z_0", "dz_0"),
            _alphadda(AlphaDDA1Z, "alphadda1z"),
            TABLES["alphadda1z"],
            learns_between_games=lambda o: o["dz_0"] != 0,
            conflicts=(_SETS_SIMULATIONS,),
            space=_dda_space("alphadda1z"),
            tune=("z_a", "z_0"),
        ),
    )
}


def named(selector: str) -> tuple[str, ...]:
    """The adjusters that `selector=` (dsa or dda) can name."""
    return tuple(name for name, kind in ADJUSTERS.items() if kind.selector == selector)


def selected(options: dict) -> AdjusterKind | None:
    """The adjuster a spec's options name (dsa= or dda=), or None; ValueError in one line if it names two."""
    kinds = [ADJUSTERS[options[s]] for s in SELECTORS if options.get(s, "none") != "none"]
    if len(kinds) > 1:
        raise ValueError(f"dda={options['dda']} and dsa={options['dsa']} both adjust strength: choose one")
    return kinds[0] if kinds else None


def dda_settings(kind: AdjusterKind, game, options: dict) -> dict:
    """An AlphaDDA adjuster's settings: the spec's keys, else the game's row of the paper's tables; ValueError in
    one line for a key of another adjuster, or a game the tables lack with a key left out."""
    given = {k for k in DDA_KEYS if options.get(k) is not None}
    if given - set(kind.keys):
        raise ValueError(
            f"dda={kind.name} takes {', '.join(kind.keys)}, not {', '.join(sorted(given - set(kind.keys)))}"
        )
    table = {**kind.defaults, **kind.tables.get(game.name, {})}
    missing = [k for k in kind.keys if options[k] is None and k not in table]
    if missing:
        raise ValueError(f"no {kind.name} settings for {game.name} to default to: give {', '.join(missing)}")
    return {k: table[k] if options[k] is None else options[k] for k in kind.keys}


def check(game, options: dict) -> AdjusterKind | None:
    """Every check of the adjuster a spec names that needs the game, without building it; the adjuster or None."""
    kind = selected(options)
    if kind is not None:
        two_players_only(game, f"{kind.selector}={kind.name} plays")
    dda_given = sorted(k for k in DDA_KEYS if options.get(k) is not None) if "dda" in options else []
    if (kind is None or kind.selector != "dda") and dda_given:
        raise ValueError(f"{', '.join(dda_given)} set AlphaDDA's adjustment: add dda=alphadda1, 2 or 3")
    if kind is not None and kind.selector == "dda":
        dda_settings(kind, game, options)
    dsa_given = [k for k in DSA_KEYS if k in options and options[k] != DSA_KEYS[k].default]
    stray = [k for k in dsa_given if kind is None or k not in kind.keys]
    if stray:
        takers = [name for name in named("dsa") if set(stray) <= set(ADJUSTERS[name].keys)]
        raise ValueError(
            f"{', '.join(stray)} set{'s' if len(stray) == 1 else ''} Wu's adjustment"
            + ("" if kind is None else f", which {kind.selector}={kind.name} does not read")
            + (f": use dsa={'|'.join(takers)}" if takers else "")
            + (f" instead of dda={kind.name}" if takers and kind is not None and kind.selector == "dda" else "")
        )
    if options.get("dda_tuner", "none") != "none":
        if kind is None:
            raise ValueError(
                f"dda_tuner={options['dda_tuner']} tunes a strength adjuster: add dsa={'|'.join(named('dsa'))}"
                + (f" or dda={'|'.join(named('dda'))}" if "dda" in options else "")
            )
        tuner_space(kind, game, options)
    else:
        given = [k for k in TUNER_KEYS if k in options and options[k] != TUNER_KEYS[k].default]
        if kind is not None and kind.name in AIMING:
            given = [k for k in given if k != "dda_target"]  # Wu's rules aim at it themselves
        if given:
            wu = f" (or dsa={'|'.join(AIMING)}, whose rules aim at it)" if given == ["dda_target"] else ""
            raise ValueError(f"{', '.join(given)} set the on-line DDA tuner: add dda_tuner=STRATEGY{wu}")
    return kind


def tuner_space(kind: AdjusterKind, game, options: dict) -> Space:
    """The space a DDA tuner searches: the settings `dda_tune=` names (default: the adjuster's `tune`; all: every
    one), each over its values; ValueError in one line for a setting the adjuster does not have."""
    params = kind.space(game, options)
    if not params:
        raise ValueError(
            f"{kind.selector}={kind.name} has nothing an on-line tuner can set (its dz acts between games, after "
            "the reward of the game it was set for): tune dsa=both's band, dsa=intra or dsa=fixed instead"
        )
    text = options["dda_tune"]
    if text == "":
        raise ValueError(
            f"dda_tune= is empty: name settings of {kind.selector}={kind.name} ({'+'.join(params)}) or all"
        )
    names = list(kind.tune) if text is None else list(params) if text == "all" else text.split("+")
    bad = [n for n in names if n not in params] or ([] if len(set(names)) == len(names) else ["(repeated)"])
    if bad:
        raise ValueError(
            f"bad dda_tune={text}: {', '.join(bad)} not tunable in {kind.selector}={kind.name}; "
            f"choose from {'+'.join(params)}, or all"
        )
    for name, step in STEPPED.items():
        if name in names and step in kind.keys and options.get(step) not in (None, 0):
            raise ValueError(
                f"{step} steps {name} between games, which the tuner sets: leave {step} out (a tuned {name} has "
                f"no step) or take {name} out of dda_tune"
            )
    return Space([params[n] for n in names])


def build(kind: AdjusterKind, game, options: dict, evaluator, seed: int) -> StrengthAdjuster:
    """The adjuster a spec names, wrapped in its on-line DDA tuner if it names one (one strategy per seat,
    seeded from the agent's seed)."""
    if options.get("dda_tuner", "none") == "none":
        return kind.build(game, options, evaluator, seed)
    space, strategy = tuner_space(kind, game, options), options["dda_tuner"]
    steps_off = {step: 0.0 for name, step in STEPPED.items() if name in space.names and step in kind.keys}
    inner = kind.build(game, {**options, **steps_off}, evaluator, seed)
    per_game = options["dda_per"] == "game"
    base = {"budget": LSI_GAMES * (1 if per_game else game.own_moves)} if strategy == "lsi" else {}

    def make_tuner(seed: int, settings: dict | None = None):
        """A fresh tuner (DDA_SETTINGS on the strategy's defaults) or one with a saved one's `settings`."""
        if settings is not None:
            _check_saved_settings(space, strategy, base, settings)
        chosen = DDA_SETTINGS.get(strategy, {}) if settings is None else settings
        return make_strategy(space, strategy, seed, **{**base, **chosen})

    return TunedAdjuster(
        inner,
        make_tuner,
        tuple(space.names),
        tuple(derive_seeds(seed, 31, count=2, bits=64)),  # 31: the issue that made them, apart from SP/AP's tuners
        target=options["dda_target"],
        per=options["dda_per"],
        forget=options["dda_forget"],
    )


def _check_saved_settings(space, strategy: str, base: dict, settings: dict) -> None:
    """ValueError in one line unless each of a saved strategy's settings is this release's or the strategy's own
    default (what an earlier release made): a crafted state cannot size a strategy (a population of 10^11)."""
    made = [getattr(make_strategy(space, strategy, 0, **b), "settings", None) or {} for b in (base, {})]
    made.append({**made[0], **DDA_SETTINGS.get(strategy, {})})
    for key, value in settings.items():
        if not any(key in m and value == m[key] and type(value) is type(m[key]) for m in made):
            raise ValueError(
                f"a saved {strategy} strategy's setting {key}={value!r} is neither this release's nor the "
                "strategy's default: start its tuning afresh"
            )


def learns_between_games(options: dict) -> bool:
    """Whether the adjuster a spec's options name carries what it learns from one game of a match to the next
    (an on-line DDA tuner always does)."""
    kind = selected(options)
    return kind is not None and (kind.learns_between_games(options) or options.get("dda_tuner", "none") != "none")
