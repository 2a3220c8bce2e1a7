"""What the on-line DDA tuner costs per move, as a share of the move's search at default budgets (issue 31).

A tuned agent (`dda_tuner=`, search.tuned) asks its strategy for the adjuster's settings, sets them (`retune`) and,
once they have played a round of two moves, tells the strategy its reward. This times that cycle
(ask, retune, reward, tell; a move costs half of one, and this counts it whole), `--cycles` of them per round,
for every strategy over each agent's default space,
beside the median time of the same agent's move from positions of random games; medians over rounds.

    .venv/bin/python -m benchmarks.dda_tuning [--game connect4] [--cycles 200] [--rounds 5] [--moves 10]
        [--agents az:dsa=fixed az:dda=alphadda1 mcts:dsa=both] [--seed 0] [--json out.json]
"""

import argparse
import json
import statistics
import time

import games
from benchmarks.common import environment
from benchmarks.evaluator import random_positions
from search.tuned import STEP, miss, round_reward
from tuner.agents import make_agent
from tuner.strategies import NAMES


def tuner_cost(game, spec: str, strategy: str, cycles: int, rounds: int, seed: int) -> tuple[float, float]:
    """Median seconds of one ask-retune-tell cycle of `spec` tuned by `strategy`, and of one copy of the adjuster's
    state (`state_dict`), which a `sparring play` profile takes at every move."""
    adjuster = make_agent(game, f"{spec},dda_tuner={strategy}", seed=seed).adjuster
    adjuster.new_game()
    times, copies = [], []
    for r in range(rounds + 1):  # the first round warms up
        t = time.perf_counter()
        for k in range(cycles):
            adjuster._ask(0)
            first, second = (miss(0.5, ((r + k + i) % 10) / 10, 0.5) for i in (0, 1))
            adjuster._tell(0, round_reward(first, second, STEP**2))
        times.append((time.perf_counter() - t) / cycles)
        t = time.perf_counter()
        adjuster.state_dict()
        copies.append(time.perf_counter() - t)
    return statistics.median(times[1:]), statistics.median(copies[1:])


def move_time(game, spec: str, moves: int, seed: int) -> float:
    """Median seconds of one move of `spec` (untuned) from positions of random games."""
    agent = make_agent(game, spec, seed=seed)
    positions = random_positions(game, moves + 1, seed, plies=(4, 12))
    times = []
    for state in positions:
        agent.new_game()
        t = time.perf_counter()
        agent.select_action(state)
        times.append(time.perf_counter() - t)
    return statistics.median(times[1:])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--game", default="connect4")
    parser.add_argument(
        "--agents", nargs="+", default=["az:dsa=fixed", "az:dda=alphadda1", "mcts:dsa=both"], help="agents to tune"
    )
    parser.add_argument("--cycles", type=int, default=200, help="ask-tell cycles per round (200)")
    parser.add_argument("--rounds", type=int, default=5, help="rounds; medians are reported (5)")
    parser.add_argument("--moves", type=int, default=10, help="moves timed per agent (10)")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--json", help="write the figures, with the environment, to this file")
    args = parser.parse_args()
    game = games.load(args.game)
    rows = []
    for spec in args.agents:
        move = move_time(game, spec, args.moves, args.seed)
        for strategy in NAMES:
            cost, copy = tuner_cost(game, spec, strategy, args.cycles, args.rounds, args.seed)
            rows.append(
                {
                    "agent": spec,
                    "strategy": strategy,
                    "tuner_us": cost * 1e6,
                    "state_us": copy * 1e6,
                    "move_ms": move * 1e3,
                }
            )
    print(f"the on-line DDA tuner's cost per move on {args.game}, beside the move's search (medians)")
    print("share: the tuner's cycle; in play: with a copy of the state, as a profile takes at every move")
    width = max(len(spec) for spec in args.agents) + 2
    print(f"{'agent':<{width}}{'strategy':<9}{'tuner us':>10}{'state us':>10}{'move ms':>10}{'share':>9}{'in play':>9}")
    for r in rows:
        share, play = (x / 1e3 / r["move_ms"] for x in (r["tuner_us"], r["tuner_us"] + r["state_us"]))
        print(
            f"{r['agent']:<{width}}{r['strategy']:<9}{r['tuner_us']:>10.1f}{r['state_us']:>10.1f}{r['move_ms']:>10.1f}"
            f"{share:>9.3%}{play:>9.3%}"
        )
    env = environment(args.seed)
    print(f"seed {args.seed}, commit {env['commit']}")
    if args.json:
        with open(args.json, "w") as f:
            json.dump({"environment": env, "args": vars(args), "rows": rows}, f, indent=1)


if __name__ == "__main__":
    main()
