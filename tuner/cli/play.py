"""`sparring play`, `sparring serve` and `sparring profiles`: a person against the adaptive opponent."""

from __future__ import annotations

import argparse
from pathlib import Path

from tuner.cli.common import count, game_help, game_name

RAW = argparse.RawDescriptionHelpFormatter


def _opponent(args):
    from tuner.cli.common import CommandError
    from tuner.play import Opponent, ProfileError

    try:
        return Opponent(
            args.game, args.opponent, profile=args.profile, profiles=args.profiles, seed=args.seed, hint=args.hint
        )
    except (ValueError, ProfileError) as error:
        raise CommandError(str(error)) from None


def _play(args) -> int:
    from tuner.cli.common import CommandError
    from tuner.play import ProfileError
    from tuner.play.terminal import play_terminal

    opponent = _opponent(args)
    try:
        play_terminal(opponent, human_first=args.first)
    except ProfileError as error:  # the profile could not be read or written after a game
        raise CommandError(str(error)) from None
    return 0


def _serve(args) -> int:
    import uvicorn

    from tuner.play.web import LOOPBACK, make_app

    loopback = args.host in LOOPBACK or args.host.startswith("127.")
    where = (
        "loopback only: other machines cannot reach it"
        if loopback
        else (f"on {args.host}: anyone who can reach this machine can play it")
    )
    name = f"[{args.host}]" if ":" in args.host else args.host
    print(f"sparring: the play page is at http://{name}:{args.port}/ ({where}); Ctrl-C stops it", flush=True)
    hosts = (*LOOPBACK, args.host) if loopback else None  # another address: any name may reach it
    app = make_app(profiles=args.profiles, seed=args.seed, hint=args.hint, allowed_hosts=hosts)
    uvicorn.run(app, host=args.host, port=args.port, log_level="warning")
    return 0


def _profiles(args) -> int:
    from tuner.cli.common import CommandError
    from tuner.play import ProfileError, Profiles
    from tuner.play.profiles import default_path

    path = Path(args.profiles) if args.profiles else default_path()
    if not path.exists():  # nothing to list or delete: and nothing created by looking
        print(f"{path}: 0 profiles")
        return 0 if args.profiles_command == "list" else _no_profile(args, path)
    try:
        store = Profiles(path)
        if args.profiles_command == "delete":
            return _delete(store, args)
        rows = store.list()
    except ProfileError as error:
        raise CommandError(str(error)) from None
    print(f"{store.path}: {count(len(rows), 'profile')}")
    for p in rows:
        print(
            f"  {p.name:<16}{p.game:<14}{p.spec:<32} {count(p.games, 'game'):>9}: "
            f"won {p.wins}, drew {p.draws}, lost {p.losses}  ({p.updated})"
        )
        print(f"  {'':<16}its next game starts {_level(store, p)}")
    return 0


def _level(store, profile) -> str:
    """The level a profile's opponent starts its next game at, in words and numbers (or why it cannot say)."""
    from tuner.play import Opponent, ProfileError

    try:
        return Opponent(profile.game, profile.spec, profile=profile.name, profiles=store, seed=0).level()
    except (ValueError, ProfileError) as error:
        return f"at a level that cannot be read: {error}"


def _no_profile(args, path) -> int:
    from tuner.cli.common import CommandError

    raise CommandError(f"no profile {args.name!r}{f' for {args.game}' if args.game else ''} in {path}")


def _delete(store, args) -> int:
    """Delete a person's profiles once they say so (or --yes); stdin without a person needs --yes."""
    import sys

    from tuner.cli.common import CommandError
    from tuner.play.profiles import canonical_spec

    if args.spec is not None and args.game is None:
        raise CommandError("--spec names a profile within a game: add --game")
    try:
        spec = None if args.spec is None else canonical_spec(args.spec)
    except ValueError as error:
        raise CommandError(f"--spec {args.spec!r}: {error}") from None
    mine = [p for p in store.list() if p.name == args.name and args.game in (None, p.game) and spec in (None, p.spec)]
    if not mine:
        return _no_profile(args, store.path)
    if not args.yes:
        if not sys.stdin.isatty():
            raise CommandError("deleting needs a yes: run it in a terminal, or add --yes")
        games_ = ", ".join(f"{p.game} ({count(p.games, 'game')})" for p in mine)
        try:
            answer = input(f"delete {count(len(mine), 'profile')} of {args.name!r}: {games_}? [y/N] ").strip().lower()
        except (EOFError, KeyboardInterrupt):  # Ctrl-D or Ctrl-C at the prompt: a no
            answer = ""
        if answer not in ("y", "yes"):
            print("nothing deleted")
            return 0
    deleted = store.delete(args.name, args.game, spec)
    print(f"deleted {count(deleted, 'profile')} of {args.name!r} from {store.path}")
    return 0


def _add_common(p, *, seed_help: str) -> None:
    p.add_argument(
        "--profiles",
        metavar="PATH",
        help="the profile database (default: profiles.sqlite in the user's "
        "data directory, e.g. ~/.local/share/sparring)",
    )
    p.add_argument("--seed", type=int, help=seed_help)
    p.add_argument(
        "--hint",
        default="mcts:simulations=2000",
        metavar="SPEC",
        help="the agent that answers `hint` (mcts:simulations=2000)",
    )


def add_commands(sub) -> None:
    from tuner.play import DEFAULT_SPEC

    play = sub.add_parser(
        "play",
        help="play the adaptive opponent in the terminal",
        description="Play against an opponent that adapts to you, typing moves in the game's notation\n"
        "(Connect4: a column 0-6; Othello: a square such as d3, or pass; Breakthrough: a7a6).\n"
        "Also: hint, undo (your last move and its reply), resign, board, help, quit. Each of its\n"
        "moves shows its strength (z: Wu et al.'s strength index, lower plays weaker; its simulations)\n"
        "and its own estimate. With --profile it remembers your level from game to game and session\n"
        "to session; an unfinished game is not counted.",
        epilog="examples:\n  sparring play connect4\n  sparring play othello6 --profile ada --second\n"
        "  sparring play openspiel:tic_tac_toe   a pyspiel game, shown as OpenSpiel's text\n"
        "  sparring play connect4 --opponent 'az:dda=alphadda1'   AlphaDDA1 over the shipped net",
        formatter_class=RAW,
    )
    play.add_argument(
        "game",
        nargs="?",
        default="connect4",
        type=game_name,
        metavar="GAME",
        help=f"{game_help()} (connect4); a game from outside is shown as its own text",
    )
    play.add_argument(
        "--opponent",
        default=DEFAULT_SPEC,
        metavar="SPEC",
        help=f"the opponent's agent spec (default {DEFAULT_SPEC}: MCTS with Wu et al.'s inter- and "
        "intra-game adjustment, its step between games heated by a run of results; `sparring arena --help` "
        "lists every agent)",
    )
    seat = play.add_mutually_exclusive_group()
    seat.add_argument("--first", dest="first", action="store_const", const=True, help="you move first in every game")
    seat.add_argument("--second", dest="first", action="store_const", const=False, help="you move second")
    play.add_argument("--profile", metavar="NAME", help="your name: load and save what the opponent learns about you")
    _add_common(play, seed_help="seeds the opponent; the same seed and moves replay a game (default: random)")
    play.set_defaults(run=_play, first=None)

    serve = sub.add_parser(
        "serve",
        help="play the adaptive opponent on a local web page",
        description="Serve a web page where you pick a game and an opponent and play by clicking the\n"
        "board, with the opponent's strength and its estimate charted over the game. It offers our games\n"
        "and those installed packages register (shown as their own text, with a button per move). It\n"
        "listens on loopback (this machine only) unless --host says otherwise.",
        epilog="example:\n  sparring serve --port 8000   then open http://127.0.0.1:8000/",
        formatter_class=RAW,
    )
    serve.add_argument("--host", default="127.0.0.1", help="the address to listen on (127.0.0.1: this machine only)")
    serve.add_argument("--port", type=int, default=8000, help="the port (8000)")
    _add_common(serve, seed_help="games' seeds derive from it (default: random)")
    serve.set_defaults(run=_serve)

    profiles = sub.add_parser(
        "profiles",
        help="list or delete player profiles",
        description="List the player profiles, or delete a person's.",
        epilog="examples:\n  sparring profiles\n  sparring profiles delete ada --game connect4",
        formatter_class=RAW,
    )
    where = "the profile database (default: in the user's data directory)"
    profiles.add_argument("--profiles", metavar="PATH", help=where)
    psub = profiles.add_subparsers(dest="profiles_command", metavar="COMMAND")
    listing = psub.add_parser(
        "list",
        help="every profile with its record (the default)",
        description="List every player profile: its game, opponent spec and record, and the level its\n"
        "opponent starts the next game at (in words, for MCTS an estimate in Elo, and its knobs).",
        epilog="example:\n  sparring profiles list --profiles ~/ada.sqlite",
        formatter_class=RAW,
    )
    delete = psub.add_parser(
        "delete",
        help="delete a person's profiles",
        description="Delete a person's profiles (every game's, or one game's), once you say yes\n"
        "(--yes: without asking).",
        epilog="examples:\n  sparring profiles delete ada --game connect4 --yes\n"
        "  sparring profiles delete ada --game connect4 --spec mcts:dsa=inter --yes",
        formatter_class=RAW,
    )
    delete.add_argument("name", help="the person's profile name")
    delete.add_argument("--game", metavar="GAME", help="only this game's (its name as `sparring profiles` lists it)")
    delete.add_argument("--spec", help="only the profile of this opponent spec (with --game)")
    delete.add_argument("--yes", action="store_true", help="delete without asking")
    for command in (listing, delete):  # after the command too; SUPPRESS keeps a PATH given before it
        command.add_argument("--profiles", metavar="PATH", default=argparse.SUPPRESS, help=where)
        command.set_defaults(run=_profiles)
    profiles.set_defaults(run=_profiles, profiles_command="list")
