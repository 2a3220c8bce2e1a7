"""`sparring net ...`: write a freshly initialised network checkpoint, and describe one."""

from __future__ import annotations

import argparse
import json
import sys

import games
from tuner.cli.common import GAME_HELP, game_name

RAW = argparse.RawDescriptionHelpFormatter


def _init(args) -> int:
    import torch

    import nets
    from tuner.cli.common import CommandError
    from tuner.provenance import environment

    torch.manual_seed(args.seed)
    try:
        model = nets.build(args.game, args.size, kind=args.kind)
    except ValueError as e:
        raise CommandError(str(e)) from None
    command = "sparring " + " ".join(sys.argv[1:]) if sys.argv[1:] else "sparring net init"
    provenance = {"command": command, "trained": False, **environment(args.seed)}
    try:
        nets.save(args.out, model, provenance)
    except (OSError, ValueError) as e:
        raise CommandError(f"cannot write {args.out}: {e}") from None
    print(f"wrote {args.out}: {model.describe()}; untrained (seed {args.seed})")
    return 0


def _info(args) -> int:
    import nets
    from nets.shipped import shipped_nets
    from tuner.cli.common import CommandError

    path = shipped_nets().get(args.path, args.path)  # a shipped name first, as az:net=NAME takes it
    try:
        model = nets.load(path)
    except nets.CheckpointError as e:
        raise CommandError(str(e)) from None
    if args.json:
        print(json.dumps(model.meta))
        return 0
    print(f"{args.path}: {model.describe()}")
    for key, value in model.meta.get("provenance", {}).items():
        print(f"  {key}: {value if not isinstance(value, dict) else json.dumps(value)}")
    return 0


def _solved(args) -> int:
    import nets
    from nets.shipped import resolve_net
    from nets.solved import score_on_solved, score_search_on_solved
    from tuner.cli.common import CommandError

    if args.search is not None and args.search < 2:
        raise CommandError(f"--search needs at least 2 simulations (the first expands the root), got {args.search}")
    try:
        model = nets.load(resolve_net(args.net, games.load("connect4")), game="connect4")
    except ValueError as e:
        raise CommandError(str(e)) from None
    r = score_on_solved(model)
    if args.search:
        r.update(score_search_on_solved(model, args.search))
    if args.json:
        print(json.dumps(r))
        return 0
    print(f"{args.net} on {r['positions']} solved Connect4 positions (plies 8-30):")
    print(f"  value sign right on won/lost positions   {r['sign_accuracy']:.3f}  ({r['decided']} positions)")
    print(f"    by plies {_bands(r['sign_by_plies'])}")
    print(f"  |value| < 0.5 on drawn positions          {r['draws_near_zero']:.3f}  ({r['draws']} positions)")
    print(
        f"  top policy move keeps the value           {r['top_move_keeps_value']:.3f}  ({r['nontrivial']} positions "
        "where some move would not)"
    )
    print(f"  top policy move is a best-scored move     {r['top_move_is_best']:.3f}")
    if args.search:
        print(f"  root value sign right, search of {args.search:<5}   {r['search_sign_accuracy']:.3f}")
        print(f"    by plies {_bands(r['search_sign_by_plies'])}")
    return 0


def _bands(shares: dict[str, float]) -> str:
    """'8-13 0.900, 14-19 0.850, ...'"""
    return ", ".join(f"{band} {share:.3f}" for band, share in shares.items())


def add_commands(sub) -> None:
    """The `net` command and its subcommands, on the main parser's subparsers."""
    net = sub.add_parser(
        "net",
        help="policy-value network checkpoints: init, info, solved",
        description="Network checkpoints: one file holding the weights, the architecture and what produced them.",
        epilog="example:\n  sparring net init connect4 --out c4.pt\n  sparring net info c4.pt\n"
        "  sparring arena connect4 'az:net=c4.pt,simulations=100' mcts4 --games 20",
        formatter_class=RAW,
    )
    commands = net.add_subparsers(dest="net_command", metavar="SUBCOMMAND", required=True)
    init = commands.add_parser(
        "init",
        help="write a freshly initialised (untrained) checkpoint",
        description="Write a checkpoint of a freshly initialised network for GAME: the AlphaDDA\n"
        "architecture (App. 1, Table A1) at the named size, seeded.",
        epilog="example:\n  sparring net init othello6 --out o6.pt --size paper --seed 1",
        formatter_class=RAW,
    )
    init.add_argument("game", type=game_name, metavar="GAME", help=GAME_HELP)
    init.add_argument("--out", required=True, metavar="PATH", help="the checkpoint to write (replaced atomically)")
    init.add_argument("--size", default="small", help="small (32 filters, for CPUs; default) or paper (256)")
    init.add_argument("--kind", default="resnet", help="the architecture, a key of nets.ARCHITECTURES (resnet)")
    init.add_argument("--seed", type=int, default=0, help="seeds the initial weights (0)")
    init.set_defaults(run=_init)
    info = commands.add_parser(
        "info",
        help="describe a checkpoint: game, architecture, provenance",
        description="Describe the checkpoint at PATH, or the shipped net of that name: its game,\n"
        "architecture and provenance.",
        epilog="example:\n  sparring net info c4.pt --json\n  sparring net info connect4-v1",
        formatter_class=RAW,
    )
    info.add_argument("path", metavar="PATH", help="a checkpoint's path or a shipped net's name")
    info.add_argument("--json", action="store_true", help="print the metadata as one JSON object")
    info.set_defaults(run=_info)
    solved = commands.add_parser(
        "solved",
        help="score a Connect4 net on 1,000 solved positions",
        description="Score a Connect4 net's value and policy heads on the shipped test set of 1,000 random\n"
        "positions at plies 8-30 with exact values from the bitbully solver (nets/solved.py).",
        epilog="example:\n  sparring net solved runs/c4/net.pt\n  sparring net solved connect4",
        formatter_class=RAW,
    )
    solved.add_argument("net", metavar="NET", help="a checkpoint's path or a shipped net's name")
    solved.add_argument("--json", action="store_true", help="print the scores as one JSON object")
    solved.add_argument(
        "--search",
        type=int,
        metavar="N",
        help="also how often the root value of a PUCT search of N simulations over the net (as self-play searches: "
        "C_puct 1.25, eps 0.2) has the true sign on the decided positions",
    )
    solved.set_defaults(run=_solved)
