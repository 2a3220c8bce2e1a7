"""Write golden_matches.json: seeded matches whose every move a refactoring must leave unchanged.

    .venv/bin/python -m tests.data.make_golden

Run it only when a change of behaviour is intended (a fixed defect), and say so in the commit:
tests/test_golden.py replays every match below and compares each game's moves and outcome.
"""

import json
from pathlib import Path

from tuner.match import play_match

# (game, agent A, agent B, games, seed): every engine, adjuster and on-line strategy at a small budget
MATCHES = [
    ("connect4", "mcts:simulations=60", "random", 4, 1),
    ("connect4", "mcts:simulations=60,dsa=inter", "mcts:simulations=40,dsa=intra", 4, 2),
    ("connect4", "mcts:simulations=60,z=0.5,rth=0.2", "minimax1", 4, 3),
    ("othello6", "sp:simulations=80", "ap:simulations=80", 4, 4),
    ("othello6", "minimax2", "minimax:depth=2", 2, 5),
    ("breakthrough", "ap:simulations=60,k=100,ref=10", "sp:simulations=60,t=10,vo=0.02", 2, 6),
    ("othello", "mcts:simulations=40", "sp:simulations=40,decay=0.5", 2, 7),
    *[
        ("connect4", f"sp:simulations=80,tuner={kind}", "ap:simulations=80,tuner=" + kind + ",tune=K+Ref", 2, 8 + i)
        for i, kind in enumerate(["nmc", "lsi", "ea", "ntbea", "grid", "random", "cmaes"])
    ],
    ("othello6", "ap:simulations=60,tuner=ntbea,tune=all", "ap:simulations=60,tuner=nmc,tune=C+eps+K+Ref", 2, 20),
    # AlphaZero's batched search and AlphaDDA, over net-free evaluators (exact on any machine); playout values
    # vary with the position, so every adjuster moves its knobs
    (
        "connect4",
        "az:net=playout,simulations=24,dda=alphadda1,nh=2,a_sim=1.5,b_sim0=-1.2,n_max=24",
        "az:net=playout,simulations=24,dda=alphadda3",
        2,
        21,
    ),
    ("othello6", "az:net=playout,simulations=16,dda=alphadda2", "az:net=playout,simulations=16,dda=alphadda1z", 2, 22),
    (
        "connect4",
        "az:net=playout,simulations=24,leaves=4,noise=0.25,reuse=yes,t_opening=4,eps=0.2",
        "az:net=uniform,simulations=16,dsa=both",
        2,
        23,
    ),
]


def play(entry) -> list[dict]:
    game, a, b, games, seed = entry
    result = play_match(game, a, b, games=games, seed=seed)
    return [{"moves": g.moves, "outcome": g.outcome} for g in result.games]


def main() -> None:
    out = [{"match": list(entry), "games": play(entry)} for entry in MATCHES]
    path = Path(__file__).with_name("golden_matches.json")
    path.write_text(json.dumps(out, separators=(",", ":")) + "\n")
    print(f"wrote {path}: {len(out)} matches")


if __name__ == "__main__":
    main()
