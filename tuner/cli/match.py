"""`sparring demo`, `arena` and `tournament`: games and matches between agents, and their ratings."""

import argparse
import json
import sys

import games
from tuner.cli.common import (
    CLUSTER_HELP,
    CommandError,
    check_cluster,
    check_games,
    check_specs,
    count,
    game_help,
    game_name,
    positive,
    progress,
)
from tuner.provenance import environment


def _demo(args) -> int:
    from tuner.agents import make_agent
    from tuner.match import play_game
    from tuner.match.arena import seat_agents

    game = games.load(args.game)
    check_specs(game, [args.agent])
    n = game.players
    index = args.seed % (2**n - 2)  # the seed also decides who moves first (with more players, who plays which role)
    agents = [[make_agent(game, spec) for spec in [first, *["random"] * (n - 2)]] for first in (args.agent, "random")]
    names = {role: args.agent if where == (0, 0) else "random" for role, where in enumerate(seat_agents(n, index))}

    class Drawn:
        """Prints each move and the board as the game goes."""

        def __init__(self, inner):
            self.inner = inner

        def __getattr__(self, name):
            return getattr(self.inner, name)

        def select_action(self, state):
            action = self.inner.select_action(state)
            player = state.current_player()
            print(f"player {player} ({names[player]}) plays {state.action_to_string(action)}")
            after = state.clone()
            after.apply_action(action)
            print(after)
            return action

    print(f"{game.name}: " + ", ".join(f"player {p} = {names[p]}" for p in range(n)) + f", seed {args.seed}\n")
    print(game.new_initial_state())
    result = play_game(game, *([Drawn(a) for a in side] for side in agents), args.seed, index=index)
    end = game.new_initial_state()
    for action in result.moves:
        end.apply_action(action)
    winner = end.outcome().winner
    scores = "" if n == 2 else f" (scores {', '.join(f'{x:g}' for x in end.scores())})"
    print(("result: draw" if winner is None else f"result: player {winner} ({names[winner]}) wins") + scores)
    return 0


def _arena(args) -> int:
    from tuner.agents import adapts_between_games
    from tuner.match import format_interval, play_match

    check_specs(games.load(args.game), [args.spec_a, args.spec_b])
    check_games(games.load(args.game), args.games)
    check_cluster(args.cluster)
    if args.workers > 1 and any(adapts_between_games(spec) for spec in (args.spec_a, args.spec_b)):
        print(
            "note: with several workers each one has its own inter-game adjuster, which sees only that "
            "worker's games; use --workers 1 to adjust over the whole match",
            file=sys.stderr,
        )
    with progress(args.games, f"{args.spec_a} vs {args.spec_b}") as bar:
        result = play_match(
            args.game,
            args.spec_a,
            args.spec_b,
            games=args.games,
            seed=args.seed,
            workers=args.workers,
            backend=_backend(args),
            cluster=args.cluster,
            progress=bar,
        )
    env = {"environment": environment(args.seed)}  # seed, commit and versions: what reproduces the figures
    if args.record:
        with open(args.record, "w") as f:
            json.dump({**result.to_dict(with_games=True), **env}, f, indent=1)
    if args.json:
        print(json.dumps({**result.to_dict(), **env}))
        return 0
    print(f"{args.game}: A = {args.spec_a}, B = {args.spec_b}, {count(args.games, 'game')}, seed {args.seed}")
    print(f"{'A':<12}{'wins':>6}{'draws':>7}{'losses':>8}{'score':>8}  {'score 95% CI':<14}{'win rate 95% CI'}")
    for label, rec in (("as first", result.first), ("as second", result.second), ("total", result.total)):
        if rec.games:
            intervals = f"{format_interval(rec.score_interval()):<14}{format_interval(rec.rate_interval(rec.wins))}"
            score = f"{rec.score:8.3f}  {intervals}"
            print(f"{label:<12}{rec.wins:>6}{rec.draws:>7}{rec.losses:>8}{score}")
    return 0


def _parse_anchors(items, specs):
    anchors = {}
    for item in items or []:
        spec, eq, value = item.rpartition("=")
        if not eq or spec not in specs:
            raise CommandError(f"bad --anchor {item!r}: write SPEC=RATING with SPEC one of the tournament's agents")
        try:
            anchors[spec] = float(value)
        except ValueError:
            raise CommandError(f"bad --anchor {item!r}: the rating must be a number") from None
    return anchors


def _tournament(args) -> int:
    from tuner.match import round_robin, tournament_ratings

    specs = args.specs
    if len(specs) < 2 or len(set(specs)) != len(specs):
        raise CommandError("a tournament needs at least two different agent specs")
    check_specs(games.load(args.game), specs)
    check_games(games.load(args.game), args.games)
    check_cluster(args.cluster)
    anchors = _parse_anchors(args.anchor, specs)
    rounds = args.rounds or max(1, args.games // 2)
    total = args.games * len(specs) * (len(specs) - 1) // 2
    with progress(total, f"tournament on {args.game}") as bar:
        matches = round_robin(
            args.game,
            specs,
            games=args.games,
            seed=args.seed,
            workers=args.workers,
            backend=_backend(args),
            cluster=args.cluster,
            progress=bar,
        )
    ratings = tournament_ratings(specs, matches, rounds=rounds, anchors=anchors)
    if args.json:
        env = {"environment": environment(args.seed)}
        print(json.dumps({"game": args.game, "games_per_pair": args.games, "seed": args.seed, **ratings, **env}))
        return 0
    print(f"{args.game}: {count(args.games, 'game')} per pair, seed {args.seed}; score of the row against the column")
    width = max(len(s) for s in specs) + 2
    print(" " * width + "".join(f"{i + 1:>8}" for i in range(len(specs))))
    table = {(m.spec_a, m.spec_b): m.total.score for m in matches}
    for i, a in enumerate(specs):
        cells = []
        for b in specs:
            score = table.get((a, b), 1 - table[(b, a)] if (b, a) in table else None)
            cells.append(f"{score:8.3f}" if score is not None else f"{'-':>8}")
        print(f"{i + 1}. {a:<{width - 3}}" + "".join(cells))
    print(f"\n{'agent':<{width}}{'Elo (AlphaDDA, K=8)':>21}{'Elo (Bradley-Terry)':>21}  95% CI")
    elo, bt = ratings["elo_alphadda"], ratings["elo_bradley_terry"]
    for s in sorted(specs, key=lambda s: -bt[s]["elo"]):
        low, high = bt[s]["ci95"]
        print(f"{s:<{width}}{elo[s]:>21.0f}{bt[s]['elo']:>21.0f}  [{low:.0f}, {high:.0f}]")
    if anchors:
        print("anchored: " + ", ".join(f"{s} = {v:g}" for s, v in anchors.items()))
    return 0


def _backend(args) -> str:
    return "cluster" if args.cluster is not None else args.backend


def _add_match_options(p):
    p.add_argument(
        "--games",
        type=positive,
        default=20,
        help="games per pairing, half with each agent first (20); with 3 players a multiple of 6",
    )
    p.add_argument("--seed", type=int, default=0, help="match seed; game i is seeded from (seed, i) (0)")
    p.add_argument("--workers", type=positive, default=1, help="games played in parallel (1)")
    p.add_argument("--backend", choices=["threads", "processes"], default="threads", help="how workers run (threads)")
    p.add_argument("--cluster", metavar="ADDRESS", help=CLUSTER_HELP)
    p.add_argument("--json", action="store_true", help="print one JSON object on stdout and nothing else")


def add_commands(sub) -> None:
    from tuner.agents import describe_agents

    raw = argparse.RawDescriptionHelpFormatter
    demo = sub.add_parser(
        "demo",
        help="play one game, an agent against random, drawn in the terminal",
        description="Play one game between an agent (MCTS1 by default) and a random player,\n"
        "drawing the board after every move.",
        epilog="example:\n  sparring demo --game othello --agent 'ap:simulations=2000' --seed 1",
        formatter_class=raw,
    )
    demo.add_argument("--game", default="connect4", type=game_name, help=f"{game_help()} (default: connect4)")
    demo.add_argument("--agent", default="mcts1", metavar="SPEC", help="the agent facing random (default: mcts1)")
    demo.add_argument("--seed", type=int, default=0, help="random seed; the same seed replays the same game (0)")
    demo.set_defaults(run=_demo)

    agents_help = "agent specs: NAME or NAME:key=value,key=value; agents, keys and defaults:\n" + describe_agents()
    arena = sub.add_parser(
        "arena",
        help="a seat-balanced match between two agents",
        description="Play a seat-balanced match of SPEC_A against SPEC_B and report A's wins, draws and\n"
        "losses per seat with 95% intervals.",
        epilog="example:\n  sparring arena connect4 mcts1 'sp:simulations=500,c=0.3' --games 40 --workers 2\n\n"
        + agents_help,
        formatter_class=raw,
    )
    arena.add_argument("game", type=game_name, metavar="GAME", help=game_help())
    arena.add_argument("spec_a", metavar="SPEC_A", help="agent A")
    arena.add_argument("spec_b", metavar="SPEC_B", help="agent B")
    _add_match_options(arena)
    arena.add_argument("--record", metavar="FILE", help="also write the result with every game's moves to FILE (JSON)")
    arena.set_defaults(run=_arena)

    tournament = sub.add_parser(
        "tournament",
        help="a round robin with Elo ratings (AlphaDDA's and Bradley-Terry)",
        description="Every pair of agents plays a seat-balanced match; prints the score table and Elo\n"
        "ratings: AlphaDDA's (K = 8, start 1500, repeated round robins) and a Bradley-Terry fit with\n"
        "95% intervals.",
        epilog="example:\n  sparring tournament othello6 mcts1 mcts2 minimax1 random --games 20"
        " --anchor random=979.5\n\n" + agents_help,
        formatter_class=raw,
    )
    tournament.add_argument("game", type=game_name, metavar="GAME", help=game_help())
    tournament.add_argument("specs", nargs="+", metavar="SPEC", help="the agents (at least two)")
    _add_match_options(tournament)
    tournament.add_argument(
        "--rounds", type=positive, help="AlphaDDA Elo: round robins the games are cut into (games/2)"
    )
    tournament.add_argument("--anchor", action="append", metavar="SPEC=RATING", help="hold an agent's rating fixed")
    tournament.set_defaults(run=_tournament)
