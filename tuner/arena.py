"""Matches between agents: seat-balanced, every game seeded from (match seed, game index), run in parallel.

>>> from tuner.arena import play_match
>>> result = play_match("connect4", "mcts1", "random", games=4, seed=0)
>>> result.total.games
4

Games alternate seats: game i has agent A first when i is even. Each game reseeds both agents
from (seed, i), so any game replays alone with `play_game(..., index=i)`. Workers each own a
pair of agents and play their share of games in index order; an agent that adapts between games
therefore sees only its own worker's games (use workers=1 to let it see the whole match).
"""

from __future__ import annotations

import math
import threading
from dataclasses import asdict, dataclass, field

import numpy as np
from joblib import Parallel, delayed

import search
from games import load as load_game

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


@dataclass
class GameResult:
    index: int
    a_seat: int  # 0 when agent A moved first
    outcome: float  # +1 / 0 / -1 for agent A
    moves: list[int]


@dataclass
class MatchResult:
    """Agent A's record against agent B: as first player, as second player and in total."""

    game: str
    spec_a: str
    spec_b: str
    seed: int
    first: Record = field(default_factory=Record)
    second: Record = field(default_factory=Record)
    games: list[GameResult] = field(default_factory=list)

    @property
    def total(self) -> Record:
        f, s = self.first, self.second
        return Record(f.wins + s.wins, f.draws + s.draws, f.losses + s.losses)

    def to_dict(self, with_games: bool = False) -> dict:
        out = {
            "game": self.game,
            "spec_a": self.spec_a,
            "spec_b": self.spec_b,
            "seed": self.seed,
            "a_first": self.first.to_dict(),
            "a_second": self.second.to_dict(),
            "total": self.total.to_dict(),
        }
        if with_games:
            out["games"] = [asdict(g) for g in self.games]
        return out


def game_seeds(seed: int, index: int) -> tuple[int, int]:
    """The seeds of agents A and B in game `index` of a match seeded `seed`."""
    a, b = np.random.SeedSequence([seed, index]).generate_state(2, dtype=np.uint64)
    return int(a), int(b)


def play_game(game, agent_a, agent_b, seed: int, index: int) -> GameResult:
    """Game `index` of a match: seats alternate with the index, both agents reseeded from (seed, index)."""
    seed_a, seed_b = game_seeds(seed, index)
    a_seat = index % 2
    seats = [agent_a, agent_b] if a_seat == 0 else [agent_b, agent_a]
    agent_a.new_game(seed_a)
    agent_b.new_game(seed_b)
    state = game.new_initial_state()
    while not state.is_terminal():
        action = seats[state.current_player()].select_action(state)
        for agent in seats:
            agent.observe(state, action)
        state.apply_action(action)
    returns = state.returns()
    for agent in seats:
        agent.game_over(returns)
    return GameResult(index, a_seat, returns[a_seat], state.history())


def _play_share(game_name, spec_a, spec_b, seed, indices, on_game):
    game = load_game(game_name)
    agent_a = search.make_agent(game, spec_a, seed=seed)
    agent_b = search.make_agent(game, spec_b, seed=seed + 1)
    results = []
    for i in indices:
        results.append(play_game(game, agent_a, agent_b, seed, int(i)))
        if on_game is not None:
            on_game()
    return results


def play_match(
    game,
    spec_a: str,
    spec_b: str,
    games: int,
    seed: int = 0,
    workers: int = 1,
    backend: str = "threads",
    progress=None,
) -> MatchResult:
    """Play `games` games of A against B (A first in even-numbered games); see the module docstring.

    backend: "threads" (the compiled searches release the GIL) or "processes" (joblib's loky).
    progress: an object with `update(n)` (e.g. a tqdm bar), told after every game (threads) or share.
    """
    name = game if isinstance(game, str) else game.name
    g = load_game(name)
    for spec in (spec_a, spec_b):
        search.make_agent(g, spec, seed=0)  # fail fast, before any worker starts, on a bad spec
    if games < 1 or workers < 1:
        raise ValueError("games and workers must be at least 1")
    if backend not in ("threads", "processes"):
        raise ValueError(f"unknown backend {backend!r}: use threads or processes")
    shares = [share for share in np.array_split(np.arange(games), min(workers, games)) if len(share)]
    lock = threading.Lock()

    def on_game():
        if progress is not None:
            with lock:
                progress.update(1)

    if backend == "threads":
        jobs = Parallel(n_jobs=len(shares), backend="threading")(
            delayed(_play_share)(name, spec_a, spec_b, seed, share, on_game) for share in shares
        )
    else:
        jobs = []
        for share_results in Parallel(n_jobs=len(shares), backend="loky", return_as="generator")(
            delayed(_play_share)(name, spec_a, spec_b, seed, share, None) for share in shares
        ):
            jobs.append(share_results)
            if progress is not None:
                progress.update(len(share_results))
    result = MatchResult(name, spec_a, spec_b, seed)
    for r in sorted((r for job in jobs for r in job), key=lambda r: r.index):
        (result.first if r.a_seat == 0 else result.second).add(r.outcome)
        result.games.append(r)
    return result


def round_robin(game, specs: list[str], games: int, seed: int = 0, workers: int = 1, backend="threads", progress=None):
    """Every pair of `specs` plays a seat-balanced match of `games` games; the pair's seed comes from (seed, i, j)."""
    if len(set(specs)) != len(specs):
        raise ValueError("each agent spec may appear only once in a tournament")
    matches = []
    for i, a in enumerate(specs):
        for j in range(i + 1, len(specs)):
            pair_seed = int(np.random.SeedSequence([seed, i, j]).generate_state(1, dtype=np.uint32)[0])
            matches.append(play_match(game, a, specs[j], games, pair_seed, workers, backend, progress))
    return matches


def pair_scores(matches: list[MatchResult]) -> dict[tuple[str, str], list[float]]:
    """{(spec_a, spec_b): A's score (1, 0.5, 0) in each game, in game order}."""
    return {(m.spec_a, m.spec_b): [(g.outcome + 1) / 2 for g in m.games] for m in matches}
