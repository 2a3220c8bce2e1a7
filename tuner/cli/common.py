"""What every command of the `sparring` command line shares: its error, its progress bar, its checks."""

import argparse
import sys


class CommandError(Exception):
    """A user mistake: printed as one line, exit status 2."""


def progress(total: int, desc: str):
    from tqdm import tqdm

    return tqdm(total=total, desc=desc, unit="game", file=sys.stderr, disable=None, dynamic_ncols=True)


def check_specs(game, specs):
    from tuner.agents import check_spec

    for spec in specs:
        try:
            check_spec(game, spec)
        except ValueError as error:
            raise CommandError(str(error)) from None


def check_games(game, games: int) -> None:
    """CommandError where a match of `games` games cannot be played (tuner.match.arena.check_games)."""
    from tuner.match.arena import check_games as check

    try:
        check(game, games)
    except ValueError as error:
        raise CommandError(str(error)) from None


def positive(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        value = 0
    if value <= 0:
        raise argparse.ArgumentTypeError(f"expected a positive whole number, got {text!r}")
    return value


def game_name(text: str) -> str:
    """argparse type: a game `games.load` accepts (ours, another package's, or `openspiel:NAME`), else one line."""
    import games

    try:
        games.load(text)
    except ValueError as error:
        raise argparse.ArgumentTypeError(str(error)) from None
    return text


def game_help() -> str:
    import games

    return f"one of {', '.join(games.names())}, or openspiel:NAME (a pyspiel game: its own rules, slower)"


GAME_HELP = "a game of ours, with its parameters if it takes any, e.g. connect4 or 'go9(komi=6.5)'"

CLUSTER_HELP = (
    "play the games on a Dask cluster instead (its scheduler, e.g. tcp://10.0.0.5:8786; needs sparring[cluster]), "
    "the same games as on one machine; --workers then counts shares (default: one per worker thread)"
)


def check_cluster(address: str | None) -> None:
    """A --cluster that cannot be reached (or Dask missing) is one line, before any game."""
    if address is not None:
        from tuner.match.cluster import connect

        try:
            connect(address).close()
        except ValueError as error:
            raise CommandError(str(error)) from None


def count(n: int, noun: str) -> str:
    """`n noun`, plural unless n is 1: "1 game", "3 games"."""
    return f"{n} {noun}{'' if n == 1 else 's'}"
