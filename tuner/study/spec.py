"""A study folder's `study.toml`: the schema, its validation and the templates `study new` writes.

A study tunes the parameters of one agent spec, whose placeholders (`sp:c={C},eps={eps}`) name the
parameters of its space, by playing seat-balanced games against a list of opponents. Everything a
run produces lives beside the file (DESIGN section 7). Every mistake is one `StudyError` line that
says what is wrong and how to fix it.

>>> spec = StudySpec.from_dict(TEMPLATES["sp-offline"].values)
>>> spec.space.names
['C', 'eps']
"""

from __future__ import annotations

import difflib
import math
import string
import tomllib
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

import games
import search
from tuner.strategies import Param, Space

OBJECTIVES = {
    "winrate": "maximise the mean score (wins + draws / 2) / games over the opponents",
    "dda_d": "minimise AlphaDDA's D (eq. 11): sum over opponents and seats of |wins - losses|",
    "balance": "minimise the mean over opponents and seats of |win rate - loss rate|",
}
OUR_STRATEGIES = ("grid", "random", "nmc", "lsi", "ea", "ntbea", "cmaes")
OPTUNA_STRATEGIES = ("optuna-tpe", "optuna-cmaes", "optuna-gp")
STRATEGIES = (*OUR_STRATEGIES, *OPTUNA_STRATEGIES, "skopt-gp")
DEFAULT_STEPS = 5  # discrete values of a parameter given only as a range


class StudyError(ValueError):
    """A study that cannot be used as it is: one line, what is wrong and how to fix it."""


def _suggest(word: str, known) -> str:
    close = difflib.get_close_matches(word, list(known), n=1)
    return f" (did you mean {close[0]!r}?)" if close else ""


def _check_keys(table: dict, known: dict, where: str) -> None:
    for key in table:
        if key not in known:
            raise StudyError(f"{where}: unknown key {key!r}{_suggest(key, known)}; known: {', '.join(known)}")


# Top-level keys: what each means (the template comments repeat these)
KEYS = {
    "game": "the game: " + ", ".join(games.names()),
    "agent": "the agent under tuning, a spec with a {placeholder} for each tuned parameter",
    "opponents": "list of opponent specs",
    "objective": "winrate, dda_d or balance",
    "games": "games per trial against each opponent in each seat",
    "trials": "finished trials to reach (the budget; `study run --trials` overrides it)",
    "total_games": "the budget as games in all, instead of trials (trials = total_games / games of a trial)",
    "seed": "seeds the strategy and every game: same study and seed, same results",
    "workers": "trials run at once (processes); `study run --workers` overrides it",
    "game_workers": "games of one trial run at once (threads)",
    "strategy": "table: name = the allocation strategy, then its settings",
    "space": "one table per tuned parameter: values = [...] and/or low, high; default",
}
PARAM_KEYS = {"values": "discrete values", "low": "range start", "high": "range end", "default": "default value"}


@dataclass
class StudySpec:
    """A validated study.toml."""

    game: str
    agent: str
    opponents: list[str]
    objective: str
    games: int
    trials: int
    seed: int
    workers: int
    game_workers: int
    strategy: str
    settings: dict
    space: Space
    continuous: list[bool] = field(default_factory=list)  # per parameter: a range was given

    @classmethod
    def from_dict(cls, raw: dict) -> StudySpec:
        _check_keys(raw, KEYS, "study.toml")
        missing = [k for k in ("game", "agent", "opponents", "space", "strategy") if k not in raw]
        if missing:
            fix = "`sparring study new` writes a complete example"
            raise StudyError(f"study.toml: missing {', '.join(missing)}; {fix}")
        game = _string(raw, "game")
        if game not in games.names():
            known = games.names()
            raise StudyError(f"game {game!r} is unknown{_suggest(game, known)}; known: {', '.join(known)}")
        space, continuous = _space(raw["space"])
        strategy, settings = _strategy(raw["strategy"])
        spec = cls(
            game=game,
            agent=_string(raw, "agent"),
            opponents=_opponents(raw["opponents"]),
            objective=_choice(raw.get("objective", "winrate"), OBJECTIVES, "objective"),
            games=_positive(raw, "games", 10),
            trials=_trials(raw),
            seed=_integer(raw, "seed", 0),
            workers=_positive(raw, "workers", 1),
            game_workers=_positive(raw, "game_workers", 1),
            strategy=strategy,
            settings=settings,
            space=space,
            continuous=continuous,
        )
        spec._check_agents()
        return spec

    @classmethod
    def load(cls, folder) -> StudySpec:
        """The study of `folder` (which holds study.toml)."""
        path = Path(folder) / "study.toml"
        if not path.is_file():
            fix = "create one with `sparring study new NAME`"
            raise StudyError(f"{folder} is not a study folder (no study.toml); {fix}")
        try:
            raw = tomllib.loads(path.read_text())
        except tomllib.TOMLDecodeError as e:
            raise StudyError(f"{path}: malformed TOML: {e}") from None
        return cls.from_dict(raw)

    @property
    def games_per_trial(self) -> int:
        return trial_games(self.games, len(self.opponents))

    def placeholders(self) -> list[str]:
        return [name for _, name, _, _ in string.Formatter().parse(self.agent) if name is not None]

    def agent_spec(self, values: dict) -> str:
        """The agent spec with the tuned parameters' values filled in."""
        return self.agent.format(**{k: _format_value(v) for k, v in values.items()})

    def default_values(self) -> dict:
        return {p.name: p.default for p in self.space.params}

    def _check_agents(self) -> None:
        names = self.placeholders()
        unknown = sorted(set(names) - set(self.space.names))
        if unknown:
            name = unknown[0]
            raise StudyError(f"agent: placeholder {{{name}}} is not a parameter of [space]; add [space.{name}]")
        unused = [n for n in self.space.names if n not in names]
        if unused:
            raise StudyError(f"[space.{unused[0]}] is not used by the agent; put {{{unused[0]}}} in its spec")
        game = games.load(self.game)
        specs = [("agent", self.agent_spec(self.default_values()))] + [("opponent", o) for o in self.opponents]
        for label, spec in specs:
            try:
                search.make_agent(game, spec, seed=0)
            except ValueError as e:
                raise StudyError(f"{label} {spec!r}: {e}") from None


def trial_games(games: int, opponents: int) -> int:
    """Games in one trial: `games` per opponent in each seat."""
    return 2 * games * opponents


def _string(raw, key) -> str:
    value = raw[key]
    if not isinstance(value, str) or not value:
        raise StudyError(f"{key} must be a non-empty string, got {value!r}")
    return value


def _integer(raw, key, default) -> int:
    value = raw.get(key, default)
    if isinstance(value, bool) or not isinstance(value, int):
        raise StudyError(f"{key} must be an integer, got {value!r}")
    return value


def _positive(raw, key, default) -> int:
    value = _integer(raw, key, default)
    if value < 1:
        raise StudyError(f"{key} must be at least 1, got {value}")
    return value


def _trials(raw) -> int:
    """The budget in trials: `trials`, or `total_games` over the games of one trial (rounded up)."""
    if "total_games" not in raw:
        return _positive(raw, "trials", 20)
    if "trials" in raw:
        raise StudyError("give the budget as trials or as total_games, not both")
    per_trial = trial_games(_positive(raw, "games", 10), len(_opponents(raw.get("opponents"))))
    return -(-_positive(raw, "total_games", 1) // per_trial)


def _choice(value, known, key) -> str:
    if value not in known:
        raise StudyError(f"{key} {value!r} is unknown{_suggest(str(value), known)}; choose from {', '.join(known)}")
    return value


def _opponents(value) -> list[str]:
    if not isinstance(value, list) or not value or not all(isinstance(v, str) and v for v in value):
        raise StudyError('opponents must be a non-empty list of agent specs, e.g. ["mcts1", "random"]')
    if len(set(value)) != len(value):
        raise StudyError("opponents: each opponent may appear only once")
    return value


def _strategy(value) -> tuple[str, dict]:
    if not isinstance(value, dict) or "name" not in value:
        raise StudyError(f'[strategy] needs name = one of {", ".join(STRATEGIES)} (e.g. name = "ntbea")')
    settings = dict(value)
    name = _choice(settings.pop("name"), STRATEGIES, "strategy")
    return name, settings


def _number(value, where) -> float:
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        if value in ("inf", "-inf"):
            return float(value)
        raise StudyError(f'{where} must be a number (or "inf"), got {value!r}')
    return float(value)


def _space(tables) -> tuple[Space, list[bool]]:
    if not isinstance(tables, dict) or not tables:
        raise StudyError("[space] needs at least one parameter table, e.g. [space.C] values = [0.1, 0.2]")
    params, continuous = [], []
    for name, t in tables.items():
        where = f"[space.{name}]"
        if not isinstance(t, dict):
            raise StudyError(f"{where} must be a table with values = [...] and/or low = ..., high = ...")
        _check_keys(t, PARAM_KEYS, where)
        has_range = "low" in t or "high" in t
        if has_range and not ("low" in t and "high" in t):
            raise StudyError(f"{where}: give both low and high for a range")
        if has_range:
            low, high = _number(t["low"], f"{where} low"), _number(t["high"], f"{where} high")
            if not (math.isfinite(low) and math.isfinite(high) and low < high):
                raise StudyError(f"{where}: bad range [{low}, {high}]; need finite low < high")
        if "values" in t:
            values = t["values"]
            if not isinstance(values, list) or not values:
                raise StudyError(f"{where}: values must be a non-empty list of numbers")
            values = [_number(v, f"{where} values") for v in values]
            if len(set(values)) != len(values):
                raise StudyError(f"{where}: values must be distinct")
        elif has_range:
            values = [float(v) for v in np.linspace(low, high, DEFAULT_STEPS)]
        else:
            raise StudyError(f"{where}: give values = [...] or low and high")
        if not has_range:
            finite = [v for v in values if math.isfinite(v)]
            low, high = (min(finite), max(finite)) if finite else (0.0, 0.0)
        elif any(v < low or v > high for v in values if math.isfinite(v)):
            raise StudyError(f"{where}: values lie outside [low, high]")
        default = _number(t.get("default", values[0]), f"{where} default")
        params.append(Param(name, tuple(values), low, high, default))
        continuous.append(has_range)
    return Space(params), continuous


def _format_value(v) -> str:
    """A value as an agent spec takes it: integers without '.0', inf as 'inf'."""
    v = float(v)
    if math.isinf(v):
        return "inf" if v > 0 else "-inf"
    return str(int(v)) if v == int(v) and abs(v) < 1e15 else repr(v)


@dataclass(frozen=True)
class Template:
    doc: str
    values: dict


TEMPLATES = {
    "sp-offline": Template(
        "Off-line tuning of SP's C and epsilon (Sironi et al.'s off-line tuned baseline) against default SP",
        {
            "game": "connect4",
            "agent": "sp:simulations=300,c={C},eps={eps}",
            "opponents": ["sp:simulations=300"],
            "objective": "winrate",
            "games": 10,
            "trials": 20,
            "seed": 0,
            "workers": 1,
            "game_workers": 1,
            "strategy": {"name": "ntbea"},
            "space": {
                "C": {"values": [0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9], "low": 0.0, "high": 1.0, "default": 0.2},
                "eps": {"values": [round(i / 10, 1) for i in range(11)], "low": 0.0, "high": 1.0, "default": 0.4},
            },
        },
    ),
    "dsa-grid": Template(
        "AlphaDDA's grid search (App. 2: metric D, 20 + 20 games per opponent) for the intra-game adjuster",
        {
            "game": "connect4",
            "agent": "mcts:simulations=300,dsa=intra,dz={dz},dsa_eps={dsa_eps}",
            "opponents": ["mcts1", "mcts2", "minimax1", "random"],
            "objective": "dda_d",
            "games": 20,
            "trials": 9,
            "seed": 0,
            "workers": 1,
            "game_workers": 1,
            "strategy": {"name": "grid"},
            "space": {
                "dz": {"values": [0.05, 0.1, 0.2], "default": 0.1},
                "dsa_eps": {"values": [0.05, 0.1, 0.2], "default": 0.1},
            },
        },
    ),
}


def render(template: Template, name: str) -> str:
    """A template as a commented study.toml."""
    v = template.values
    lines = [f"# {name}: {template.doc}.", f"# Run it with `sparring study run studies/{name}`.", ""]
    for key in ("game", "agent", "opponents", "objective", "games", "trials", "seed", "workers", "game_workers"):
        lines += [f"# {KEYS[key]}", f"{key} = {_toml(v[key])}", ""]
        if key == "trials":
            lines[-1:] = [f"# or {KEYS['total_games']}:", "# total_games = 1000", ""]
    lines += [
        f"# {KEYS['strategy']}",
        f"# name: {', '.join(STRATEGIES)} (skopt-gp needs `pip install scikit-optimize`)",
        "[strategy]",
    ]
    lines += [f"{k} = {_toml(x)}" for k, x in v["strategy"].items()] + [""]
    lines.append(f"# {KEYS['space']}; a range alone gives {DEFAULT_STEPS} evenly spaced values to discrete strategies")
    for pname, table in v["space"].items():
        lines.append(f"[space.{pname}]")
        lines += [f"{k} = {_toml(x)}" for k, x in table.items()] + [""]
    return "\n".join(lines)


def _toml(value) -> str:
    if isinstance(value, str):
        return '"' + value.replace("\\", "\\\\").replace('"', '\\"') + '"'
    if isinstance(value, list):
        return "[" + ", ".join(_toml(x) for x in value) + "]"
    if isinstance(value, float) and math.isinf(value):
        return '"inf"' if value > 0 else '"-inf"'
    return repr(value)
