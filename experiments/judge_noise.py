"""How noisy each judge of the on-line DDA tuner is (issue 31, search.tuned): the az search's own expected score
against AlphaDDA's clean value, both read at every move of the tables' softmax-z agent.

    .venv/bin/python -m experiments.judge_noise [--game connect4] [--games 10] [--seed 0] [--out DIR]

The agent is the fixed-* configs' az (experiments.online_dda: the shipped net, Table A1's simulations, eps 0.2,
softmax-z at z 0, untuned) against mcts1, minimax1 and random, --games games each, seats alternating. Before each of
its moves the clean net's value of the position is read (AlphaDDA's, N_h 1) and after its search the search's
expected score (`SearchResult.score`); the step of each from one of the agent's moves to its next is what a tuner
judges a setting by. Reported: the median |step| (what a typical move shows) and its sd (which the rare real
swings of a game dominate), per judge. A judge whose typical step is large reads noise, not the game.
Writes judge_noise-GAME.{json,md} to --out (experiments/results/judge_noise) with the seed, versions and commit.
"""

import argparse
import json
import os

import numpy as np

import games
from experiments.alphadda import TEST_EPS, az
from games.rng import derive_seeds
from search.alphadda import ValueAdjuster
from tuner.agents import make_agent
from tuner.provenance import environment

OUT = "experiments/results/judge_noise"
OPPONENTS = ["mcts1", "minimax1", "random"]


def game_steps(game, spec: str, opponent: str, seed: int, seat: int) -> tuple[list[float], list[float]]:
    """One game: the clean values and the search scores before each of the agent's moves (its own view)."""
    agent, other = make_agent(game, spec, seed=seed), make_agent(game, opponent, seed=seed + 1)
    judge = ValueAdjuster(game, agent.puct.evaluator, nh=1)
    agent.new_game(seed=seed, seat=seat)
    other.new_game(seed=seed + 1, seat=1 - seat)
    state, clean, searched = game.new_initial_state(), [], []
    while not state.is_terminal():
        mover = agent if state.current_player() == seat else other
        if mover is agent:
            clean.append(judge.balance(state))
        action = mover.select_action(state)
        if mover is agent:
            searched.append(agent.estimate())
        agent.observe(state, action)
        other.observe(state, action)
        state.apply_action(action)
    return clean, searched


def summary(series: list[list[float]]) -> dict:
    """The steps between consecutive reads within each game (none across a move without a read): median |step|,
    sd, and how many."""
    steps = np.array([b - a for s in series for a, b in zip(s, s[1:]) if a is not None and b is not None])
    return {"median_abs_step": float(np.median(np.abs(steps))), "sd": float(np.std(steps)), "steps": len(steps)}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--game", choices=["connect4", "othello6"], default="connect4")
    parser.add_argument("--games", type=int, default=10, help="games against each opponent (10)")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--out", default=OUT)
    args = parser.parse_args()
    if args.games < 1:
        parser.error("--games is at least 1")
    game, spec = games.load(args.game), az(args.game, eps=TEST_EPS, dsa="fixed")
    clean, searched = [], []
    for o, opponent in enumerate(OPPONENTS):
        for i in range(args.games):
            seed = derive_seeds(args.seed, o, i)[0] // 2  # room for the opponent's seed + 1
            c, s = game_steps(game, spec, opponent, seed, seat=i % 2)
            clean.append(c)
            searched.append(s)
        print(f"{opponent}: {args.games} games", flush=True)
    out = {
        "args": vars(args),
        "spec": spec,
        "opponents": OPPONENTS,
        "clean": summary(clean),
        "search": summary(searched),
        "environment": environment(args.seed),
    }
    os.makedirs(args.out, exist_ok=True)
    stem = os.path.join(args.out, f"judge_noise-{args.game}")
    with open(stem + ".json", "w") as f:
        json.dump({**out, "series": {"clean": clean, "search": searched}}, f)
    env = out["environment"]
    lines = [
        f"# The on-line DDA tuner's judges on {args.game}: how far each moves between the agent's moves",
        "",
        f"`python -m experiments.judge_noise --game {args.game} --games {args.games} --seed {args.seed}`: `{spec}` "
        f"against {', '.join(OPPONENTS)}, {args.games} games each, seats alternating.",
        "",
        "| judge | median abs(step) | sd of steps | steps |",
        "|---|---|---|---|",
    ]
    for name, label in (("clean", "AlphaDDA's clean value (N_h 1)"), ("search", "the az search's expected score")):
        s = out[name]
        lines.append(f"| {label} | {s['median_abs_step']:.3f} | {s['sd']:.3f} | {s['steps']} |")
    lines += ["", f"seed {args.seed}, commit {env['commit']}, {env['date']}"]
    with open(stem + ".md", "w") as f:
        f.write("\n".join(lines) + "\n")
    print("\n".join(lines))


if __name__ == "__main__":
    main()
