"""The Python face of every allocation strategy: ask, tell, recommend (DESIGN section 4).

>>> from tuner.strategies import make_strategy, sa_mcts_space
>>> s = make_strategy(sa_mcts_space(["C", "eps"]), "ntbea", seed=0)
>>> x = s.ask(); s.tell(x, 1.0); len(s.recommend())
2
"""

from __future__ import annotations

import json
import math
from typing import Protocol, runtime_checkable

import numpy as np
from numba import typeof, types
from numba.core.extending import intrinsic
from numba.core.typing import signature

from games.jit import kernel
from games.rng import make_rng
from tuner.strategies._common import LAYOUT, N, S, by_code, dense, fill, sparse, stat_columns
from tuner.strategies._packing import pack, unpack
from tuner.strategies._registry import COMPILED, NAMES, REGISTRY
from tuner.strategies._settings import check_reward
from tuner.strategies._space import Space


@runtime_checkable
class AllocationStrategy(Protocol):
    """What every allocation strategy answers (pycma's ask/tell): one instance per tuned player."""

    space: Space

    def ask(self) -> np.ndarray:
        """The next point to evaluate."""

    def tell(self, x, reward: float) -> None:
        """The reward in [0, 1] (higher is better) of point x, as returned by ask."""

    def recommend(self) -> np.ndarray:
        """The best point so far."""

    def values(self, x) -> list[float]:
        """The parameter values of point x."""

    def reset(self, seed: int | None = None) -> None:
        """Forget everything learnt (a new game, for on-line tuning); `seed`, if given, reseeds."""

    def forget(self, factor: float) -> None:
        """Forget some of what was learnt, to follow a target that moves: rewards so far weigh `factor` in
        (0, 1] (1: nothing forgotten); a strategy that has settled for good starts a new round if factor < 1."""

    def report(self) -> dict:
        """What the strategy did so far, for people."""

    def state_dict(self) -> dict:
        """Everything learnt, as JSON, of a size set by the space (not by how long it ran)."""

    def load_state_dict(self, state: dict) -> None:
        """Put back a `state_dict()`; ValueError in one line, nothing changed, if it does not fit."""


@kernel
def _ask(steps, st, rng, x):
    steps.choose(st, rng, x)


@kernel
def _tell(steps, st, x, reward, rng):
    steps.update(st, x, reward, rng)


@kernel
def _recommend(recommend, st, x):
    return recommend(st, x)


@kernel
def _total(st):
    return st.total


def _array_fields(state_type) -> list[str]:
    """The array fields of a strategy's StructRef type (each held in `Strategy.arrays` by its name)."""
    return [name for name, t in state_type.field_dict.items() if isinstance(t, types.Array)]


def _scalar_fields(state_type) -> list[tuple[str, types.Type]]:
    """The fields of a strategy's StructRef type that are not arrays (counters, phases, settings), in order."""
    return [(name, t) for name, t in state_type.field_dict.items() if not isinstance(t, types.Array)]


def _fields_getter(which):
    """An intrinsic returning the state's fields that `which` lists, as a tuple (a StructRef's fields are read in
    compiled code only)."""

    @intrinsic
    def get(typingctx, st):
        fields = which(st)
        tuple_type = types.Tuple([t for _, t in fields])

        def codegen(context, builder, sig, args):
            values = [context.get_getattr(st, name)(context, builder, st, args[0], name) for name, _ in fields]
            return context.make_tuple(builder, tuple_type, values)

        return tuple_type(st), codegen

    return get


_get_scalars = _fields_getter(_scalar_fields)
_get_arrays = _fields_getter(lambda st: [(name, st.field_dict[name]) for name in _array_fields(st)])


@intrinsic
def _set_scalars(typingctx, st, values):
    """Write a tuple of `_get_scalars`'s types into the state's scalar fields."""
    fields = _scalar_fields(st)
    if not isinstance(values, types.BaseTuple) or len(values) != len(fields):
        return None

    def codegen(context, builder, sig, args):
        for i, (name, t) in enumerate(fields):
            value = context.cast(builder, builder.extract_value(args[1], i), values[i], t)
            context.get_setattr(name, signature(types.void, st, t))(builder, (args[0], value))
        return context.get_dummy_value()

    return types.void(st, values), codegen


@kernel
def _scalars(st):
    return _get_scalars(st)


@kernel
def _put_scalars(st, values):
    _set_scalars(st, values)


@kernel
def _arrays(st):
    return _get_arrays(st)


def check_settings(kind: str, settings: dict) -> dict:
    """A strategy's settings with its defaults filled in; ValueError in one line for an unknown or bad one."""
    entry = REGISTRY[kind]
    unknown = set(settings) - set(entry.defaults)
    if unknown:
        valid = ", ".join(entry.defaults) or "none"
        raise ValueError(f"unknown settings {sorted(unknown)} for {kind}; valid: {valid}")
    checked = dict(entry.defaults)
    for s in entry.settings:
        if settings.get(s.name) is not None:
            checked[s.name] = s.check(settings[s.name])
    return checked


class Strategy:
    """A compiled allocation strategy over the discrete combinations of a `Space`: ask, tell, recommend.

    kind: random, grid, nmc, ea, ntbea or lsi; settings default to Sironi et al.'s (VI-A). Points are
    vectors of value indices. `compiled` is the state the search's compiled loop is given; `arrays`
    holds the same arrays by field name (statistics per value and per combination, and the strategy's
    own), shared, not copied; `steps` are the compiled choose and update that run on it.
    """

    def __init__(self, space: Space, kind: str, seed: int, **settings):
        if kind not in COMPILED:
            raise ValueError(f"unknown strategy {kind!r}; known: {', '.join(COMPILED)}")
        self.space, self.kind, self.entry = space, kind, REGISTRY[kind]
        self.steps, self.any_point = self.entry.steps, self.entry.any_point
        self.settings = check_settings(kind, settings)
        self.reset(seed)
        self._x = np.zeros(len(space), dtype=np.int64)
        self._entries: tuple | None = None  # the compiled ask and tell for this state's types, once looked up

    def reset(self, seed: int | None = None) -> None:
        """Forget everything learnt (a new game, for on-line tuning); `seed`, if given, reseeds `rng`
        (ask and tell's stream: inside a search, the search's own stream is used)."""
        if seed is not None:
            self.rng = make_rng(seed)
        self.compiled, _ = self.entry.make_state(self.space, self.settings)
        self.settled_asks = 0  # asks a settled strategy (LSI) has answered with its winner

    def forget(self, factor: float) -> None:
        """Weigh every reward told so far by `factor` (means kept: discounted UCB); LSI, once settled, starts a
        new round instead (its stream goes on), but only once it has played its winner as many times as its
        budget: forgetting after every game, it had restarted the moment it settled and never played its winner."""
        if factor == 1.0:
            return
        if self.finished:
            if self.settled_asks >= self.settings["budget"]:
                self.reset()
        else:
            self.entry.forget(self.arrays, factor)
            if self.entry.derive is not None:
                self.entry.derive(self.compiled)

    @property
    def arrays(self) -> dict[str, np.ndarray]:
        """The state's arrays by field name, shared with the compiled state, not copied (read anew: a hash table of
        combinations is replaced when it doubles); `combo_n` and `combo_s` view the samples and reward sums in
        `combos`, a row per slot (`_common.by_code` gives them by combination)."""
        arrays = dict(zip(_array_fields(typeof(self.compiled)), _arrays(self.compiled)))
        return {**arrays, "combo_n": arrays["combos"][:, N], "combo_s": arrays["combos"][:, S]}

    @property
    def total(self) -> int:
        """Rewards told so far."""
        return int(_total(self.compiled))

    @property
    def finished(self) -> bool:
        """Whether the strategy has settled on one combination for good (LSI after its budget)."""
        return self.entry.finished is not None and bool(self.entry.finished(self.compiled))

    def ask(self) -> np.ndarray:
        """The next combination to evaluate (value indices)."""
        self.settled_asks += self.finished
        self._compiled_steps()[0](self.steps, self.compiled, self.rng, self._x)
        return self._x.copy()

    def tell(self, x, reward: float) -> None:
        """The reward in [0, 1] of combination x (as returned by ask)."""
        x = np.array(x, dtype=np.int64)  # a copy: update may use it as scratch
        self._compiled_steps()[1](self.steps, self.compiled, x, float(check_reward(reward)), self.rng)

    def _compiled_steps(self) -> tuple:
        """The compiled ask and tell for this strategy's argument types, looked up once: called through their
        dispatcher, numba types the tuple-of-arrays state anew every time (68 us an ask and a tell, against 2.6
        us for the compiled code: most of an on-line DDA tuner's cost per move)."""
        if self._entries is None:
            asking = (self.steps, self.compiled, self.rng, self._x)
            telling = (self.steps, self.compiled, self._x, 0.5, self.rng)
            self._entries = tuple(
                step.compile(tuple(map(step.typeof_pyval, args))) for step, args in ((_ask, asking), (_tell, telling))
            )
        return self._entries

    def __getstate__(self):
        return {**self.__dict__, "_entries": None}  # compiled entry points do not pickle: looked up again

    def values(self, x) -> list[float]:
        """The parameter values of combination x (as returned by ask or recommend)."""
        return self.space.values_of(x)

    def recommend(self) -> np.ndarray:
        """The best combination so far: the winner for LSI, else the best lower confidence bound
        (the defaults before any reward)."""
        x = np.zeros(len(self.space), dtype=np.int64)
        return x if _recommend(self.entry.recommend, self.compiled, x) else self.space.default_indices()

    def report(self) -> dict:
        """What the strategy did so far, for people: samples per value and per combination, the recommendation."""
        codes, rows = by_code(self.arrays)
        n, total = rows[:, N], rows[:, S]
        top = np.argsort(-n, kind="stable")[: min(10, int((n > 0).sum()))]
        return {
            "samples_per_value": self.samples_per_value(),
            "combinations_sampled": int((n > 0).sum()),
            "most_sampled": [  # the ten combinations sampled most: values, samples, mean reward
                {
                    "values": dict(zip(self.space.names, self.values(np.unravel_index(c, tuple(self.space.sizes))))),
                    "samples": int(n[i]),
                    "mean": float(total[i] / n[i]),
                }
                for i, c in zip(top, codes[top])
            ],
            "recommended": dict(zip(self.space.names, self.values(self.recommend()))),
        }

    def state_dict(self) -> dict:
        """Everything learnt, as JSON: the state's arrays (packed; the combinations' rows by code, not by slot) and
        scalar fields, the random stream and the asks answered settled. Its size is the space's, whatever the
        history; a strategy loaded from it answers every later ask and tell as this one would."""
        arrays, kind = self.arrays, typeof(self.compiled)
        left_out = (*LAYOUT, *self.entry.unsaved, "combos")
        saved = {name: arrays[name] for name in _array_fields(kind) if name not in left_out}
        saved.update(dense(arrays, self.entry.columns))
        for name in self.entry.growable:  # at the rows they can grow to, zeros beyond those in use
            full = np.zeros((self.entry.capacity(self.space), *saved[name].shape[1:]), dtype=saved[name].dtype)
            full[: saved[name].shape[0]] = saved[name]
            saved[name] = full
        scalars = dict(zip((name for name, _ in _scalar_fields(kind)), _scalars(self.compiled)))
        return {
            "kind": self.kind,
            "settings": self.settings,
            "sizes": self.space.sizes.tolist(),
            "rng": int(self.rng[0]),
            "settled_asks": self.settled_asks,
            "scalars": {name: value for name, value in scalars.items() if name not in LAYOUT + self.entry.unsaved},
            "arrays": {name: pack(array) for name, array in saved.items()},
        }

    def load_state_dict(self, state: dict) -> None:
        """Put back a `state_dict()` of this kind, settings and space; ValueError in one line, the strategy
        unchanged, if it is another's or damaged."""
        if not isinstance(state, dict):
            raise ValueError(f"a saved strategy is a dict, got {type(state).__name__}")
        mine = {
            "kind": self.kind,
            "settings": json.loads(json.dumps(self.settings)),
            "sizes": self.space.sizes.tolist(),
        }
        for key, value in mine.items():
            if state.get(key) != value:
                raise ValueError(f"the saved strategy's {key} is {state.get(key)!r}, not {value!r}")
        full = {"rows": self.entry.capacity(self.space)} if self.entry.growable else {}
        compiled, arrays = self.entry.make_state(self.space, self.settings, **full)
        kind, columns, total = typeof(compiled), self.entry.columns, self.space.combinations()
        fields = [(name, t) for name, t in _scalar_fields(kind) if name not in LAYOUT + self.entry.unsaved]
        left_out = (*LAYOUT, *self.entry.unsaved, "combos")
        own = [name for name in _array_fields(kind) if name not in left_out]
        like = {  # what each saved array must be: the dense ones only give their dtype and shape (not written)
            **{name: arrays[name] for name in own},
            "combos": np.empty((total, stat_columns(arrays))),
            **{name: np.empty(total, dtype=np.int32) for name in columns},
        }
        saved_arrays, saved_scalars = state.get("arrays"), state.get("scalars")
        if not isinstance(saved_arrays, dict) or sorted(saved_arrays) != sorted(like):
            raise ValueError(f"a saved {self.kind} strategy holds the arrays {sorted(like)}")
        if not isinstance(saved_scalars, dict) or sorted(saved_scalars) != sorted(name for name, _ in fields):
            raise ValueError(f"a saved {self.kind} strategy holds the fields {sorted(name for name, _ in fields)}")
        decoded = {name: unpack(saved_arrays[name], like[name], name) for name in like}
        scalars = {name: _scalar(saved_scalars[name], t, name) for name, t in fields}
        fresh_scalars = dict(zip((name for name, _ in _scalar_fields(kind)), _scalars(compiled)))
        self._check(decoded, scalars, arrays, fresh_scalars)
        rng, settled = state.get("rng"), state.get("settled_asks")
        if not (_whole(rng) and rng < 1 << 64 and _whole(settled)):
            raise ValueError(f"a saved strategy's rng and settled_asks are whole numbers, got {rng!r}, {settled!r}")
        for name in own:
            arrays[name][...] = decoded[name]  # in place: the compiled state holds these very arrays
        fill(compiled, *sparse(decoded, columns))
        _put_scalars(compiled, tuple({**dict(zip(fresh_scalars, _scalars(compiled))), **scalars}.values()))
        if self.entry.derive is not None and not self.entry.derive(compiled):
            raise ValueError(f"a saved {self.kind} strategy's fields do not fit together")
        self.compiled = compiled
        self.rng, self.settled_asks = np.array([rng], dtype=np.uint64), settled

    def _check(self, arrays: dict, scalars: dict, fresh: dict, fresh_scalars: dict) -> None:
        """ValueError in one line unless a saved state's contents are what this strategy could hold: the space's
        sizes and rules, the settings' fields, and every index within what it indexes (the compiled steps read
        them unchecked: a wild index would crash the process, not raise)."""
        for name in ("sizes", "rules"):
            if not np.array_equal(arrays[name], fresh[name]):
                raise ValueError(f"a saved strategy's {name} are not its space's")
        for name in self.entry.fixed:
            if scalars[name] != fresh_scalars[name]:
                raise ValueError(
                    f"a saved strategy's {name} is {scalars[name]!r}, not its setting {fresh_scalars[name]!r}"
                )
        bounds, points = self.entry.limits(arrays, scalars, self.space.combinations())
        for name, (low, high) in bounds.items():
            values = np.asarray(arrays[name] if name in arrays else scalars[name])
            if values.size and (values.min() < low or (high is not None and values.max() > high)):
                raise ValueError(f"a saved strategy's {name} lies outside [{low}, {high}]")
        for name in points:
            rows = arrays[name].reshape(-1, len(self.space))
            if rows.size and ((rows < 0).any() or (rows >= self.space.sizes).any()):
                raise ValueError(f"a saved strategy's {name} holds points outside its space")
        for name, value in scalars.items():
            if isinstance(value, float) and not math.isfinite(value):
                raise ValueError(f"a saved strategy's {name} is not a finite number: {value!r}")

    def samples_per_value(self) -> dict[str, list[int]]:
        """How often each value of each parameter was evaluated."""
        counts = self.arrays["value_n"]
        return {p.name: counts[i, : len(p.values)].astype(int).tolist() for i, p in enumerate(self.space.params)}


def _whole(value) -> bool:
    return isinstance(value, int) and not isinstance(value, bool) and value >= 0


def _scalar(value, numba_type, name: str):
    """A saved scalar field as the Python type of its numba type (so the compiled setter sees one signature)."""
    if isinstance(numba_type, types.Boolean) and isinstance(value, bool):
        return value
    if isinstance(numba_type, types.Integer) and isinstance(value, int) and not isinstance(value, bool):
        if -(1 << 63) <= value < 1 << 63:
            return value
    if isinstance(numba_type, types.Float) and isinstance(value, (int, float)) and not isinstance(value, bool):
        try:
            return float(value)
        except OverflowError:
            pass
    raise ValueError(f"a saved strategy's {name} is a {numba_type}, got {value!r}")


def make_strategy(space: Space, kind: str, seed: int, **settings) -> AllocationStrategy:
    """Any allocation strategy by name: a compiled discrete `Strategy`, or CMA-ES.

    All share ask / tell / recommend / values / reset / report; ask's points are value indices for
    the discrete strategies and points of [0, 1]^d for CMA-ES, and `values` turns either into
    parameter values.
    """
    if kind not in REGISTRY:
        raise ValueError(f"unknown strategy {kind!r}; known: {', '.join(NAMES)}")
    entry = REGISTRY[kind]
    if entry.compiled:
        return Strategy(space, kind, seed, **settings)
    return entry.load()(space, seed, **check_settings(kind, settings))
