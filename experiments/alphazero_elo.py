"""AlphaDDA Table 4 with our nets: Elo of AlphaZero, MCTS1, MCTS2, Minimax1 and Random (and, on Connect4,
the perfect player), Random anchored at the paper's value.

The paper plays 50 round robins between the five agents, every rating starting at 1,500 (App. 5,
K = 8). Here every pair plays `--games` seat-balanced games (100: 50 rounds of one game per seat),
rated by AlphaDDA's sequential Elo and by a Bradley-Terry fit with 95% intervals, Random held at
Table 4's value (930.6, 979.5, 953.6). `az` plays the shipped net (or `--net`) at Table A1's N_sim
with plain eq. 8 at the root (eps 0; the authors' test games used 0.2, see docs/deviations.md).

    .venv/bin/python -m experiments.alphazero_elo --game connect4 [--games 100] [--net PATH] [--seed 0]

Writes experiments/results/alphazero_elo/GAME.json (matches, ratings, seed, versions, commit) and
prints the table beside the paper's.
"""

import argparse
import json
import os
import sys

from tqdm import tqdm

from nets.train import TABLE_A1
from tuner.match import round_robin, tournament_ratings
from tuner.provenance import environment

TABLE_4 = {  # [AlphaDDA Table 4]
    "connect4": {"az": 1978, "mcts1": 1731, "mcts2": 1506, "minimax1": 1355, "random": 930.6},
    "othello6": {"az": 1960, "mcts1": 1681, "mcts2": 1455, "minimax1": 1425, "random": 979.5},
    "othello": {"az": 1970, "mcts1": 1618, "mcts2": 1534, "minimax1": 1422, "random": 953.6},
}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--game", choices=sorted(TABLE_4), default="connect4")
    parser.add_argument("--games", type=int, default=100, help="games per pair (100)")
    parser.add_argument("--net", help="the az agent's net (default: the game's shipped net)")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--out", default="experiments/results/alphazero_elo")
    args = parser.parse_args()
    az = f"az:net={args.net or args.game},simulations={TABLE_A1[args.game]['simulations']}"
    specs = [az, "mcts1", "mcts2", "minimax1", "random"] + (["perfect"] if args.game == "connect4" else [])
    anchors = {"random": TABLE_4[args.game]["random"]}
    total = args.games * len(specs) * (len(specs) - 1) // 2
    with tqdm(total=total, desc=f"round robin on {args.game}", unit="game", file=sys.stderr) as bar:
        matches = round_robin(args.game, specs, games=args.games, seed=args.seed, progress=bar)
    ratings = tournament_ratings(specs, matches, rounds=args.games // 2, anchors=anchors)
    elo, bt = ratings["elo_alphadda"], ratings["elo_bradley_terry"]
    paper = {az: TABLE_4[args.game]["az"], **TABLE_4[args.game]}
    print(f"\n{args.game}: {args.games} games per pair, seed {args.seed}, Random anchored at {anchors['random']}")
    print("| agent | Elo (AlphaDDA, K = 8) | Elo (Bradley-Terry, 95% CI) | paper (Table 4) |")
    print("|---|---|---|---|")
    for s in sorted(specs, key=lambda s: -bt[s]["elo"]):
        ref, (low, high) = paper.get(s), bt[s]["ci95"]
        print(
            f"| {s} | {elo[s]:.0f} | {bt[s]['elo']:.0f} [{low:.0f}, {high:.0f}] | "
            f"{'-' if ref is None else f'{ref:g}'} |"
        )
    os.makedirs(args.out, exist_ok=True)
    out = {
        "game": args.game,
        "games_per_pair": args.games,
        "specs": specs,
        **ratings,
        "paper": TABLE_4[args.game],
        "environment": environment(args.seed),
    }
    with open(os.path.join(args.out, f"{args.game}.json"), "w") as f:
        json.dump(out, f, indent=1)


if __name__ == "__main__":
    main()
