"""Wins, draws and losses with 95% intervals: the statistics every match and study report shares."""

from __future__ import annotations

import math
from dataclasses import dataclass

Z95 = 1.959963984540054


@dataclass
class Record:
    """Wins, draws and losses of one agent over some games, with 95% intervals."""

    wins: int = 0
    draws: int = 0
    losses: int = 0

    @property
    def games(self) -> int:
        return self.wins + self.draws + self.losses

    @property
    def score(self) -> float:
        """(wins + draws / 2) / games."""
        return (self.wins + 0.5 * self.draws) / self.games if self.games else math.nan

    def rate_interval(self, count: int) -> tuple[float, float]:
        """Wilson 95% interval for the rate count / games."""
        return wilson(count, self.games)

    def score_interval(self) -> tuple[float, float]:
        """Normal 95% interval for the score, from the sample variance of the per-game scores (clipped to [0, 1])."""
        n = self.games
        if n == 0:
            return (math.nan, math.nan)
        s = self.score
        var = (self.wins * (1 - s) ** 2 + self.draws * (0.5 - s) ** 2 + self.losses * s**2) / n
        half = Z95 * math.sqrt(var / n)
        return (max(0.0, s - half), min(1.0, s + half))

    def add(self, outcome: float) -> None:
        if outcome > 0:
            self.wins += 1
        elif outcome < 0:
            self.losses += 1
        else:
            self.draws += 1

    def to_dict(self) -> dict:
        return {
            "wins": self.wins,
            "draws": self.draws,
            "losses": self.losses,
            "games": self.games,
            "score": self.score,
            "score_ci95": list(self.score_interval()),
            "win_rate_ci95": list(self.rate_interval(self.wins)),
            "loss_rate_ci95": list(self.rate_interval(self.losses)),
        }


def wilson(count: int, n: int) -> tuple[float, float]:
    """Wilson score 95% interval for a binomial proportion count / n."""
    if n == 0:
        return (math.nan, math.nan)
    p = count / n
    denom = 1 + Z95**2 / n
    centre = (p + Z95**2 / (2 * n)) / denom
    half = Z95 * math.sqrt(p * (1 - p) / n + Z95**2 / (4 * n * n)) / denom
    return (max(0.0, centre - half), min(1.0, centre + half))


def format_interval(pair) -> str:
    """An interval as people read it in tables: [0.41, 0.66]."""
    return f"[{pair[0]:.2f}, {pair[1]:.2f}]"
