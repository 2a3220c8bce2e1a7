"""`sparring net ...`: write a freshly initialised network checkpoint, and describe one."""

from __future__ import annotations

import argparse
import json
import sys

import games

RAW = argparse.RawDescriptionHelpFormatter


def _init(args) -> int:
    import torch

    import nets
    from tuner.cli import CommandError
    from tuner.study.provenance import environment

    torch.manual_seed(args.seed)
    try:
        model = nets.build(args.game, args.size)
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
    from tuner.cli import CommandError

    try:
        model = nets.load(args.path)
    except nets.CheckpointError as e:
        raise CommandError(str(e)) from None
    if args.json:
        print(json.dumps(model.meta))
        return 0
    print(f"{args.path}: {model.describe()}")
    for key, value in model.meta.get("provenance", {}).items():
        print(f"  {key}: {value if not isinstance(value, dict) else json.dumps(value)}")
    return 0


def add_commands(sub) -> None:
    """The `net` command and its subcommands, on the main parser's subparsers."""
    net = sub.add_parser(
        "net",
        help="policy-value network checkpoints: init, info",
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
    init.add_argument("game", choices=games.names(), metavar="GAME", help=f"one of {', '.join(games.names())}")
    init.add_argument("--out", required=True, metavar="PATH", help="the checkpoint to write (replaced atomically)")
    init.add_argument("--size", default="small", help="small (64 filters, for CPUs; default) or paper (256)")
    init.add_argument("--seed", type=int, default=0, help="seeds the initial weights (0)")
    init.set_defaults(run=_init)
    info = commands.add_parser(
        "info",
        help="describe a checkpoint: game, architecture, provenance",
        description="Describe the checkpoint at PATH: its game, architecture and provenance.",
        epilog="example:\n  sparring net info c4.pt --json",
        formatter_class=RAW,
    )
    info.add_argument("path", metavar="PATH")
    info.add_argument("--json", action="store_true", help="print the metadata as one JSON object")
    info.set_defaults(run=_info)
