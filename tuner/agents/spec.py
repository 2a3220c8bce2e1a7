"""Agent spec strings, `name:key=value,key=value`: parsed, checked and described without building an agent.

The same syntax serves Python, the command line and study files (DESIGN section 5). A parsed spec is
an `AgentSpec`: the agent's name and every key's value, defaults filled in. A study's agent spec may
hold placeholders (`sp:c={C},eps={eps}`) that `with_values` fills with typed values, so a trial
never formats numbers into text to be parsed again.

>>> from tuner.agents import parse_spec
>>> spec = parse_spec("mcts:simulations=300,c=0.5")
>>> spec.name, spec.options["simulations"], spec.options["c"], str(spec)
('mcts', 300, 0.5, 'mcts:simulations=300,c=0.5')
"""

from __future__ import annotations

import math
import string
from dataclasses import dataclass, field
from typing import Any, Callable


@dataclass(frozen=True)
class Key:
    """One key of an agent: how to read its value (from text or a number), its default, its meaning."""

    parse: Callable[[Any], Any]
    default: Any
    doc: str


INT64_MAX = 2**63 - 1  # what compiled code counts in: a whole number beyond it cannot reach a search


def number(low=0.0, high=math.inf, infinite=False, integer=False) -> Callable[[Any], Any]:
    """A parser of numbers in [low, high] (inf only if `infinite`; whole numbers if `integer`, and then at most
    INT64_MAX unless `infinite`)."""
    if integer and not infinite:
        high = min(high, INT64_MAX)
    kind = ("a whole number" if integer else "a number") + (f" from {low:g}" if low > -math.inf else " or -inf")
    kind += f" to {high:g}" if high < math.inf else (" or inf" if infinite else "")

    def parse(text):
        try:
            value = float(text)
        except (TypeError, ValueError):
            value = math.nan
        ok = low <= value <= high and (infinite or value != math.inf)
        if integer and ok and value != math.inf:
            ok = value == int(value)
            value = int(value)
        if not ok:
            raise ValueError(f"expected {kind}")
        return value

    return parse


def choice(*options) -> Callable[[Any], Any]:
    """A parser that accepts one of `options`."""

    def parse(text):
        if text not in options:
            raise ValueError(f"expected one of {', '.join(options)}")
        return text

    return parse


@dataclass(frozen=True)
class AgentSpec:
    """A parsed agent spec: `name`, `options` (every key, defaults filled in) and the keys given.

    `placeholders` maps keys whose value was `{NAME}` to NAME (study files); such a spec is complete
    only after `with_values`.
    """

    name: str
    options: dict
    given: tuple[str, ...]
    placeholders: dict = field(default_factory=dict)

    def __str__(self) -> str:
        def text(key):
            return f"{{{self.placeholders[key]}}}" if key in self.placeholders else value_text(self.options[key])

        items = ",".join(f"{key}={text(key)}" for key in self.given)
        return f"{self.name}:{items}" if items else self.name

    def with_values(self, values: dict, keys: dict) -> AgentSpec:
        """This spec with its placeholders filled from `values` (placeholder name -> value), each value
        checked by its key's parser (`keys`, the agent's table)."""
        options = dict(self.options)
        for key, name in self.placeholders.items():
            try:
                options[key] = keys[key].parse(values[name])
            except ValueError as error:
                raise ValueError(f"bad value {values[name]!r} for {key!r} in {self}: {error}") from None
        return AgentSpec(self.name, options, self.given)


def value_text(value) -> str:
    """A key's value as a spec writes it: yes, 0.2, 2 (not 2.0), inf."""
    if isinstance(value, float) and (math.isinf(value) or value == int(value)) and abs(value) < 1e15:
        return ("inf" if value > 0 else "-inf") if math.isinf(value) else str(int(value))
    return str(value)


def parse(spec: str, table: dict, placeholders: bool = False) -> AgentSpec:
    """Parse `spec` against `table` (agent name -> its kind, with `keys`); ValueError in one line if
    malformed. With `placeholders`, a value may be `{NAME}`."""
    name, _, rest = spec.strip().partition(":")
    if name not in table:
        raise ValueError(f"unknown agent {name!r} in {spec!r}; known agents: {', '.join(table)}")
    keys = table[name].keys
    given, holes = {}, {}
    for item in filter(None, (part.strip() for part in rest.split(","))):
        key, eq, text = item.partition("=")
        key, text = key.strip(), text.strip()
        if key not in keys:
            valid = ", ".join(keys) or "none"
            raise ValueError(f"unknown key {key!r} for agent {name!r} in {spec!r}; valid keys: {valid}")
        if not eq:
            raise ValueError(f"key {key!r} in {spec!r} has no value: write {key}=VALUE")
        fields = [f for _, f, _, _ in string.Formatter().parse(text) if f is not None] if placeholders else []
        if fields:
            if text != f"{{{fields[0]}}}":
                raise ValueError(f"{key}={text} in {spec!r}: a placeholder must be the whole value, as {key}={{NAME}}")
            holes[key] = fields[0]
            given[key] = None
            continue
        try:
            given[key] = keys[key].parse(text)
        except ValueError as error:
            raise ValueError(f"bad value {text!r} for {key!r} in {spec!r}: {error}") from None
    if "simulations" in given and "time" in given:
        raise ValueError(f"{spec!r} gives both simulations and time: give one budget")
    options = {key: k.default for key, k in keys.items()}
    options.update(given)
    if "time" in given:
        options["simulations"] = None
    return AgentSpec(name, options, tuple(given), holes)


def describe(table: dict) -> str:
    """Every agent with its keys and defaults, for --help."""
    lines = []
    for name, kind in table.items():
        lines.append(f"  {name:<10}{kind.doc}")
        for key, k in kind.keys.items():
            lines.append(f"      {key}={k.default!s:<10}{k.doc}")
    return "\n".join(lines)
