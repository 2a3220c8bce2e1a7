"""A strategy setting: its name, default, bounds and meaning, declared once and read everywhere; and the check
of a reward, which every strategy applies to what it is told.

The agent spec keys (`sp:tuner=ea,population=20`), study.toml's `[strategy]` table, the Optuna
samplers and `--help` all take a strategy's settings from its `Setting`s.
"""

from __future__ import annotations

import math
from dataclasses import dataclass


@dataclass(frozen=True)
class Setting:
    name: str
    default: float | None  # None: worked out from the other settings or the game (the doc says how)
    doc: str
    low: float = 0.0
    high: float = math.inf
    integer: bool = False
    key: str = ""  # the agent spec key, where the name alone would clash with another key

    @property
    def spec_key(self) -> str:
        return self.key or self.name

    def expected(self) -> str:
        """What a valid value is, in words."""
        kind = "a whole number" if self.integer else "a number"
        return kind + f" from {self.low:g}" + (f" to {self.high:g}" if self.high < math.inf else "")

    def check(self, value):
        """`value` if valid (an int for integer settings), else ValueError saying what is expected."""
        ok = isinstance(value, (int, float)) and not isinstance(value, bool) and math.isfinite(value)
        ok = ok and self.low <= value <= self.high
        if ok and self.integer:
            ok = value == int(value)
            value = int(value) if ok else value
        if not ok:
            raise ValueError(f"{self.name} must be {self.expected()}, got {value!r}")
        return value


def check_reward(reward) -> float:
    """reward as a float; ValueError in one line if it is not a finite number (NaN would corrupt the statistics)."""
    value = float(reward)
    if not math.isfinite(value):
        raise ValueError(f"a reward must be a finite number (in [0, 1]), got {reward!r}")
    return value
