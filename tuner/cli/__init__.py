"""The `sparring` command line: one module per group of commands, each listed once in `COMMANDS`.

A command module gives `add_commands(sub)`, which adds its subparsers (each with a description, an
example and `run`); a user's mistake is a `tuner.cli.common.CommandError` (or a StudyError, or a ClusterError:
a worker that cannot play what the run asks), printed as one line with exit status 2.
"""

import argparse
import sys

from tuner.cli import match, net, play, study, train
from tuner.cli.common import CommandError

COMMANDS = (match, play, study, net, train)  # in the order `sparring --help` lists them

EXAMPLES = """examples:
  sparring play connect4 --profile ada                  play an opponent that adapts to you
  sparring serve                                        the same on a local web page
  sparring demo                                         MCTS1 against random, drawn in the terminal
  sparring arena connect4 mcts1 mcts4 --games 40        a seat-balanced match with 95% intervals
  sparring tournament connect4 mcts1 mcts2 minimax1 random --games 20
  sparring study run studies/sp-offline-connect4         off-line tuning in a study folder (see study --help)
  sparring train connect4 --out runs/c4 --hours 2       AlphaZero self-play training that resumes
"""


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="sparring",
        description="Opponents that adapt: compiled game-tree search, tuning and strength adjustment.",
        epilog=EXAMPLES,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    for module in COMMANDS:
        module.add_commands(sub)
    return parser


def main(argv=None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    if args.command is None:
        parser.print_help()
        return 2
    from tuner.match.cluster import ClusterError
    from tuner.study.spec import StudyError

    try:
        return args.run(args)
    except (CommandError, StudyError, ClusterError) as error:
        sub = next((v for k, v in vars(args).items() if k.endswith("_command") and v), None)  # e.g. study_command
        command = args.command + (f" {sub}" if sub else "")
        print(f"sparring {command}: error: {error}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        resume = " (a study resumes where it stopped: run the same command again)" if args.command == "study" else ""
        print(f"\nsparring {args.command}: interrupted{resume}", file=sys.stderr)
        return 130


if __name__ == "__main__":
    sys.exit(main())
