"""A study folder's `study.toml`: the schema, its validation and the templates `study new` writes.

A study tunes the parameters of one agent spec, whose placeholders (`sp:c={C},eps={eps}`) name the
parameters of its space, by playing seat-balanced games against a list of opponents. Everything a
run produces lives beside the file (DESIGN section 7). Every mistake is one `StudyError` line that
says what is wrong and how to fix it.

>>> import tomllib
>>> spec = StudySpec.from_dict(tomllib.loads(render(TEMPLATES["sp-offline"], "my-study")))
>>> spec.space.names
['C', 'eps']
"""

from __future__ import annotations

import difflib
import hashlib
import json
import math
import tomllib
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

import games
from tuner.agents import AGENTS, AgentSpec, check_spec, nets_of, parse_spec
from tuner.strategies import REGISTRY, Param, Space
from tuner.study.objective import OBJECTIVES

OUR_STRATEGIES = tuple(REGISTRY)  # tuner.strategies: the same code as on-line
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
    "game": "the game: breakthrough, connect4, connect5, knightthrough, othello, othello6, pentago, sheepandwolf, "
    "tictactoe3d, another package's, or openspiel:NAME (slower)",
    "agent": "the agent under tuning, a spec with a {placeholder} for each tuned parameter",
    "opponents": "list of opponent specs",
    "objective": ", ".join(list(OBJECTIVES)[:-1]) + " or " + list(OBJECTIVES)[-1],
    "games": "games per trial against each opponent in each seat",
    "trials": "finished trials to reach (the budget; `study run --trials` overrides it)",
    "total_games": "the budget as games in all, instead of trials (trials = total_games / games of a trial)",
    "seed": "seeds the strategy and every game: same study and seed, same results",
    "workers": "trials run at once (processes); `study run --workers` overrides it",
    "game_workers": "games of one trial run at once (threads)",
    "batch_trials": "trials a worker plays at once in lock-step, so that az agents share forwards across them",
    "strategy": "table: name = the allocation strategy, then its settings",
    "space": "one table per tuned parameter: values = [...] and/or low, high; default",
    "validate": "table: after the budget, replay the recommendation and the top observed points with fresh games",
}
VALIDATE_KEYS = {
    "top": "observed best points replayed beside the recommendation (0: the recommendation only)",
    "games": "fresh games per opponent and seat for each replayed point, a multiple of games "
    "(default: five trials' worth)",
    "points": "table: named points replayed beside them, e.g. a paper's setting",
    "baseline": 'what tuning must beat: "default" (the space\'s defaults) or the name of one of the points',
}
PARAM_KEYS = {
    "values": "discrete values",
    "low": "range start",
    "high": "range end",
    "default": "default value",
    "integer": "true: whole numbers only (a range is searched in its integers)",
}


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
    integer: list[bool] = field(default_factory=list)  # per parameter: whole numbers only
    batch_trials: int = 1
    validate_top: int = 0  # [validate] top: observed best points replayed beside the recommendation
    validate_games: int = 0  # [validate] games per opponent and seat of each replay; 0: no validation
    validate_points: dict = field(default_factory=dict)  # [validate.points]: name -> values, replayed too
    validate_baseline: str = "default"  # [validate] baseline: the point the recommendation is judged against
    _template: AgentSpec | None = field(default=None, repr=False, compare=False)
    cluster: str | None = field(default=None, repr=False, compare=False)  # a Dask scheduler for the games (--cluster)

    @classmethod
    def from_dict(cls, raw: dict) -> StudySpec:
        _check_keys(raw, KEYS, "study.toml")
        missing = [k for k in ("game", "agent", "opponents", "space", "strategy") if k not in raw]
        if missing:
            fix = "`sparring study new` writes a complete example"
            raise StudyError(f"study.toml: missing {', '.join(missing)}; {fix}")
        game = _string(raw, "game")
        if game not in games.names() and not game.startswith(games.OPENSPIEL):
            known = games.names()
            raise StudyError(f"game {game!r} is unknown{_suggest(game, known)}; known: {', '.join(known)}")
        try:
            games.load(game)  # a game from OpenSpiel may still not be one sparring plays
        except ValueError as error:
            raise StudyError(f"study.toml: {error}") from None
        space, continuous, integer = _space(raw["space"])
        strategy, settings = _strategy(raw["strategy"])
        per_seat = _positive(raw, "games", 10)
        spec = cls(
            game=game,
            agent=_string(raw, "agent"),
            opponents=_opponents(raw["opponents"]),
            objective=_choice(raw.get("objective", "winrate"), OBJECTIVES, "objective"),
            games=per_seat,
            trials=_trials(raw),
            seed=_integer(raw, "seed", 0),
            workers=_positive(raw, "workers", 1),
            game_workers=_positive(raw, "game_workers", 1),
            strategy=strategy,
            settings=settings,
            space=space,
            continuous=continuous,
            integer=integer,
            batch_trials=_positive(raw, "batch_trials", 1),
            **_validate(raw.get("validate"), per_seat),
        )
        spec._check_agents()
        _check_validate(spec)
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

    @property
    def template(self) -> AgentSpec:
        """The agent spec, parsed once, with a placeholder for each tuned parameter."""
        if self._template is None:
            self._template = parse_spec(self.agent, placeholders=True)
        return self._template

    def placeholders(self) -> list[str]:
        return list(self.template.placeholders.values())

    def agent_spec(self, values: dict) -> AgentSpec:
        """The agent spec with the tuned parameters' values filled in (typed values, never text)."""
        return self.template.with_values(values, AGENTS[self.template.name].keys)

    def default_values(self) -> dict:
        return {p.name: p.default for p in self.space.params}

    def problem(self) -> str:
        """What a truth table and every study scored by it must share, as a short hash: the game, agent,
        opponents, objective and space, ranges and defaults included (not the strategy, seed nor budget)."""
        params = [(p.name, p.values, p.low, p.high, p.default) for p in self.space.params]
        key = [self.game, self.agent, self.opponents, self.objective, params, self.continuous]
        if any(self.integer):  # only then, so that the problems of earlier studies keep their hashes
            key.append(self.integer)
        return hashlib.sha256(json.dumps(key, default=str).encode()).hexdigest()[:16]

    def nets(self) -> dict[str, str]:
        """Each network the agent and opponents play with, by the name that picks it, with its file's digest
        (`tuner.agents.nets_of`): a better net shipped under the same name would otherwise mix two nets' trials in
        one study."""
        return nets_of(self.game, (self.agent, *self.opponents))

    @property
    def label(self) -> str:
        """The strategy with its settings, as comparisons name it: `ntbea`, or `ea (elite=5, population=10)`,
        so that one strategy under two settings is two rows."""
        settings = ", ".join(f"{k}={v}" for k, v in sorted(self.settings.items()))
        return f"{self.strategy} ({settings})" if settings else self.strategy

    def _check_agents(self) -> None:
        try:
            names = self.placeholders()
        except ValueError as e:
            raise StudyError(f"agent {self.agent!r}: {e}") from None
        unknown = sorted(set(names) - set(self.space.names))
        if unknown:
            name = unknown[0]
            raise StudyError(f"agent: placeholder {{{name}}} is not a parameter of [space]; add [space.{name}]")
        unused = [n for n in self.space.names if n not in names]
        if unused:
            raise StudyError(f"[space.{unused[0]}] is not used by the agent; put {{{unused[0]}}} in its spec")
        game = games.load(self.game)
        for label, text in [("agent", self.agent)] + [("opponent", o) for o in self.opponents]:
            try:
                check_spec(game, self.agent_spec(self.default_values()) if label == "agent" else text)
            except ValueError as e:
                raise StudyError(f"{label} {text!r}: {e}") from None


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


def _validate(value, games: int) -> dict:
    """The [validate] table's settings ({} without one), given the study's games per trial."""
    if value is None:
        return {}
    if not isinstance(value, dict):
        raise StudyError("[validate] must be a table: top = K, games = M")
    _check_keys(value, VALIDATE_KEYS, "[validate]")
    top, games = _integer(value, "top", 3), _positive(value, "games", 5 * games)
    if top < 0:
        raise StudyError(f"[validate] top must be at least 0, got {top}")
    points = value.get("points", {})
    if not isinstance(points, dict) or not all(isinstance(p, dict) for p in points.values()):
        raise StudyError('[validate.points] must name tables of values: "paper" = {C = 0.5, eps = 0.2}')
    points = {
        name: {k: _number(v, f"[validate.points] {name}: {k}") for k, v in p.items()} for name, p in points.items()
    }
    baseline = value.get("baseline", "default")
    if baseline != "default" and baseline not in points:
        names = ", ".join(f'"{n}"' for n in ["default", *points])
        raise StudyError(f"[validate] baseline must be one of {names}, got {baseline!r}")
    return {"validate_top": top, "validate_games": games, "validate_points": points, "validate_baseline": baseline}


def _check_validate(spec) -> None:
    """A point is replayed as whole trials of the study's size (`tuner.study.validate`), so that its value
    compares with the trials' for every objective (D sums |W - L|, which grows with the games); a named
    point gives every parameter, inside its range."""
    for name, values in spec.validate_points.items():
        if set(values) != set(spec.space.names):
            raise StudyError(
                f"[validate.points] {name} must give exactly {', '.join(spec.space.names)}; "
                f"it gives {', '.join(values) or 'nothing'}"
            )
        for p in spec.space.params:
            if not p.low <= values[p.name] <= p.high:
                raise StudyError(
                    f"[validate.points] {name}: {p.name} = {values[p.name]:g} lies outside [{p.low:g}, {p.high:g}]"
                )
    if spec.validate_games % spec.games:
        fewer = spec.validate_games // spec.games * spec.games
        fix = f"{fewer} or {fewer + spec.games}" if fewer else f"{spec.games}"
        raise StudyError(
            f"[validate] games ({spec.validate_games}) must be a multiple of games ({spec.games}): "
            f"a point is replayed as whole trials of the study's size; try {fix}"
        )


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


def _space(tables) -> tuple[Space, list[bool], list[bool]]:
    if not isinstance(tables, dict) or not tables:
        raise StudyError("[space] needs at least one parameter table, e.g. [space.C] values = [0.1, 0.2]")
    params, continuous, integer = [], [], []
    for name, t in tables.items():
        where = f"[space.{name}]"
        if not isinstance(t, dict):
            raise StudyError(f"{where} must be a table with values = [...] and/or low = ..., high = ...")
        _check_keys(t, PARAM_KEYS, where)
        whole = t.get("integer", False)
        if not isinstance(whole, bool):
            raise StudyError(f"{where}: integer must be true or false, got {whole!r}")
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
            values = sorted({round(v) for v in values}) if whole else values
        else:
            raise StudyError(f"{where}: give values = [...] or low and high")
        if not has_range:
            finite = [v for v in values if math.isfinite(v)]
            low, high = (min(finite), max(finite)) if finite else (0.0, 0.0)
        elif any(v < low or v > high for v in values if math.isfinite(v)):
            raise StudyError(f"{where}: values lie outside [low, high]")
        default = _number(t.get("default", values[0]), f"{where} default")
        if whole and not all(float(v).is_integer() for v in (*values, low, high, default)):
            raise StudyError(f"{where}: integer = true needs whole-number values, low, high and default")
        params.append(Param(name, tuple(values), low, high, default))
        continuous.append(has_range)
        integer.append(whole)
    return Space(params), continuous, integer


TEMPLATE_DIR = Path(__file__).with_name("templates")


@dataclass(frozen=True)
class Template:
    """A commented study.toml shipped with the package (tuner/study/templates/NAME.toml)."""

    path: Path

    @property
    def doc(self) -> str:
        """What the template tunes: its first line, after the study's name."""
        return self.path.read_text().splitlines()[0].split(": ", 1)[1].rstrip(".")


TEMPLATES = {path.stem: Template(path) for path in sorted(TEMPLATE_DIR.glob("*.toml"))}


def render(template: Template, name: str) -> str:
    """The template's text for a study called `name`."""
    return template.path.read_text().replace("{study}", name)
