"""How often a Connect4 agent plays a game-theoretically optimal move, judged by the bitbully solver (issue 34's
target: the self-play net at 200 simulations >= 0.90 over games against MCTS1 and Minimax1).

Each agent plays a seat-balanced match against each opponent; at every one of its moves the solver scores all
legal moves, and the move counts as optimal when it keeps the position's value: a win stays a win, a draw a draw
(in a lost position every move is optimal by this measure); and as best when its score is the best score (the
fastest win, the slowest loss: the stricter reading). Reported per agent and opponent: the match score, the share
of optimal moves over all its moves and over its non-trivial ones (positions whose moves do not all keep the value),
and the share of best moves, with 95% Wilson intervals. Needs the solver extra (`pip install 'sparring[solver]'`).

    .venv/bin/python -m experiments.optimal_moves --agents az:net=connect4 az:net=runs/c4/net.pt \
        [--opponents mcts1 minimax1] [--games 50] [--seed 1] [--out experiments/results/alphazero/optimal.json]
"""

import argparse
import json
import math

import games
from search import perfect
from tuner.match import play_match
from tuner.provenance import environment


def wilson(k: int, n: int) -> list[float]:
    """95% Wilson interval of k successes in n."""
    if n == 0:
        return [0.0, 1.0]
    p, z = k / n, 1.96
    centre, half = p + z * z / (2 * n), z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n))
    return [(centre - half) / (1 + z * z / n), (centre + half) / (1 + z * z / n)]


def judge(moves: list[int], seat: int) -> tuple[int, int, int, int, int]:
    """(optimal, moves, optimal non-trivial, non-trivial, best) of the moves made from `seat` in one game."""
    state = games.load("connect4").new_initial_state()
    counts = [0, 0, 0, 0, 0]
    for ply, move in enumerate(moves):
        if ply % 2 == seat:
            scores = perfect.move_scores(state)
            kept = perfect.keeping(scores)
            keeps = move in kept
            trivial = len(kept) == len(scores)
            counts[0] += keeps
            counts[1] += 1
            counts[2] += keeps and not trivial
            counts[3] += not trivial
            counts[4] += scores[move] == max(scores.values())
        state.apply_action(move)
    return tuple(counts)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--agents", nargs="+", required=True, help="agent specs to judge, e.g. az:net=connect4")
    parser.add_argument("--opponents", nargs="+", default=["mcts1", "minimax1"])
    parser.add_argument("--games", type=int, default=50, help="games per agent and opponent, half in each seat")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--out", help="also write the figures, with the environment, to this JSON file")
    args = parser.parse_args()
    if not perfect.available():
        parser.error(perfect.INSTALL)
    rows = []
    for agent in args.agents:
        totals = [0, 0, 0, 0, 0]
        for opponent in args.opponents:
            result = play_match("connect4", agent, opponent, games=args.games, seed=args.seed)
            counts = [0, 0, 0, 0, 0]
            for game in result.to_dict(with_games=True)["games"]:
                for j, c in enumerate(judge(game["moves"], game["a_seat"])):
                    counts[j] += c
            totals = [t + c for t, c in zip(totals, counts)]
            rows.append(_row(agent, opponent, counts, result.total.score))
            print(_line(rows[-1]), flush=True)
        rows.append(_row(agent, "all", totals, None))
        print(_line(rows[-1]), flush=True)
    env = environment(args.seed)
    print(f"seed {args.seed}, {args.games} games per pairing, commit {env['commit']}")
    if args.out:
        with open(args.out, "w") as f:
            json.dump({"environment": env, "args": vars(args), "rows": rows}, f, indent=1)


def _row(agent, opponent, counts, score) -> dict:
    optimal, moves, hard_optimal, hard, best = counts
    return {
        "agent": agent,
        "opponent": opponent,
        "score": score,
        "moves": moves,
        "optimal": optimal / max(moves, 1),
        "optimal_ci": wilson(optimal, moves),
        "nontrivial": hard,
        "optimal_nontrivial": hard_optimal / max(hard, 1),
        "optimal_nontrivial_ci": wilson(hard_optimal, hard),
        "best": best / max(moves, 1),
        "best_ci": wilson(best, moves),
    }


def _line(row) -> str:
    score = "" if row["score"] is None else f"score {row['score']:.3f}, "
    lo, hi = row["optimal_ci"]
    return (
        f"{row['agent']} vs {row['opponent']}: {score}optimal {row['optimal']:.3f} [{lo:.3f}, {hi:.3f}] of "
        f"{row['moves']} moves, {row['optimal_nontrivial']:.3f} of {row['nontrivial']} non-trivial; best "
        f"{row['best']:.3f}"
    )


if __name__ == "__main__":
    main()
