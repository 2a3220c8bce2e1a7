"""Write nets/data/connect4_solved.csv: random reachable Connect4 positions with their exact values.

    .venv/bin/python scripts/make_connect4_solved.py --positions 1000 --seed 0

Each position is a uniformly random legal game from the start, stopped at a ply drawn uniformly from
[8, 30] (a game that ends earlier is drawn again); duplicates and finished games are skipped. Random
games often end before the later plies, so those are rarer in the set (seed 0: 146 positions at
plies 8-9, 9 at ply 30). The bitbully solver (extra [solver]) scores every legal move exactly. Columns:

    moves   the columns played from the empty board, one digit each (bitbully's and our actions)
    ply     len(moves)
    value   the position's exact score for the player to move: > 0 win, 0 draw, < 0 loss
            (larger magnitude: a quicker win or a slower loss)
    best    the moves of the best score (the fastest win, or the slowest loss)
    keeps   the moves that keep the position's game-theoretic value (win, draw or loss)
"""

import argparse
import csv
from pathlib import Path

import numpy as np

import games
from nets.solved import random_position
from search.perfect import move_scores

OUT = Path(__file__).resolve().parent.parent / "nets" / "data" / "connect4_solved.csv"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--positions", type=int, default=1000)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--out", type=Path, default=OUT)
    args = parser.parse_args()
    game, rng = games.load("connect4"), np.random.default_rng(args.seed)
    rows, seen = [], set()
    while len(rows) < args.positions:
        state = random_position(game, rng)
        if state is None or (moves := "".join(map(str, state.history()))) in seen:
            continue
        seen.add(moves)
        scores = move_scores(state)
        value = max(scores.values())
        best = "".join(str(a) for a in sorted(scores) if scores[a] == value)
        keeps = "".join(str(a) for a in sorted(scores) if np.sign(scores[a]) == np.sign(value))
        rows.append({"moves": moves, "ply": len(moves), "value": value, "best": best, "keeps": keeps})
    with open(args.out, "w", newline="") as f:
        writer = csv.DictWriter(f, fieldnames=["moves", "ply", "value", "best", "keeps"])
        writer.writeheader()
        writer.writerows(rows)
    signs = np.sign([r["value"] for r in rows])
    print(
        f"wrote {args.out}: {len(rows)} positions, seed {args.seed}; for the player to move "
        f"{(signs > 0).sum()} won, {(signs == 0).sum()} drawn, {(signs < 0).sum()} lost"
    )


if __name__ == "__main__":
    main()
