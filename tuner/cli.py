"""The `sparring` command line."""

import argparse
import sys

import games

EXAMPLES = """examples:
  sparring demo                          a flat Monte-Carlo player against random on Connect4
  sparring demo --game othello --seed 7  the same on Othello, another seed
"""


def _demo(args) -> int:
    from games.rng import make_rng, randint
    from search.flat_mc import flat_mc_action

    game = games.load(args.game)
    state = game.new_initial_state()
    rng = make_rng(args.seed)
    mc_player = args.seed % 2  # the seed also decides who moves first
    names = {mc_player: f"Monte-Carlo ({args.playouts} playouts/move)", 1 - mc_player: "random"}
    print(f"{game.name}: player 0 = {names[0]}, player 1 = {names[1]}, seed {args.seed}\n")
    print(state)
    while not state.is_terminal():
        player = state.current_player()
        if player == mc_player:
            action = int(flat_mc_action(game.kernels, state.array, args.playouts, game.max_legal, rng))
        else:
            legal = state.legal_actions()
            action = legal[randint(rng, len(legal))]
        print(f"player {player} ({names[player]}) plays {state.action_to_string(action)}")
        state.apply_action(action)
        print(state)
    returns = state.returns()
    winner = None if returns[0] == 0 else 0 if returns[0] > 0 else 1
    print("result: draw" if winner is None else f"result: player {winner} ({names[winner]}) wins")
    return 0


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="sparring",
        description="Opponents that adapt: compiled game-tree search, tuning and strength adjustment.",
        epilog=EXAMPLES,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    demo = sub.add_parser(
        "demo",
        help="play one game, Monte-Carlo against random, drawn in the terminal",
        description="Play one game between a flat Monte-Carlo player and a random player,\n"
        "drawing the board after every move.",
        epilog="example:\n  sparring demo --game connect4 --playouts 200 --seed 0",
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    demo.add_argument("--game", default="connect4", choices=games.names(), help="which game (default: connect4)")
    demo.add_argument("--playouts", type=_positive, default=200, help="random playouts per legal move (default: 200)")
    demo.add_argument(
        "--seed", type=int, default=0, help="random seed; the same seed replays the same game (default: 0)"
    )
    demo.set_defaults(run=_demo)
    return parser


def _positive(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        value = 0
    if value <= 0:
        raise argparse.ArgumentTypeError(f"expected a positive whole number, got {text!r}")
    return value


def main(argv=None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    if args.command is None:
        parser.print_help()
        return 2
    return args.run(args)


if __name__ == "__main__":
    sys.exit(main())
