"""Matches and measures: seat-balanced matches, win/draw/loss records with 95% intervals, Elo ratings.

>>> from tuner.match import play_match
>>> result = play_match("connect4", "mcts1", "random", games=4, seed=0)
>>> result.total.games
4
"""

from tuner.match.arena import (
    GameResult,
    MatchResult,
    Resume,
    assignments,
    game_seeds,
    pair_scores,
    play_game,
    play_match,
    play_matches,
    round_robin,
)
from tuner.match.ratings import Rating, alphadda_elo, bradley_terry, expected, tournament_ratings
from tuner.match.stats import Z95, Record, format_interval, wilson

__all__ = [
    "GameResult",
    "MatchResult",
    "Rating",
    "Record",
    "Resume",
    "Z95",
    "alphadda_elo",
    "assignments",
    "bradley_terry",
    "expected",
    "format_interval",
    "game_seeds",
    "pair_scores",
    "play_game",
    "play_match",
    "play_matches",
    "round_robin",
    "tournament_ratings",
    "wilson",
]
