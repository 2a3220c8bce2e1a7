"""What AlphaDDA's value history costs per move, learnt for all games in one forward or by each game alone.

Before each search an AlphaDDA agent needs the clean net's value of the last N_h positions (eq. 1). An `az`
group of G games now learns the missing ones of all its games in one forward (`search.az.learn_values`);
before, each game evaluated its own (`ValueAdjuster.mean_value`, still the path of a lone adjuster). This
times both over the same positions, fresh histories each round (N_h values a game: Table 1's N_h = 3 for
Connect4), beside one move's search of the same G games at N_sim simulations for scale; medians over rounds.

    .venv/bin/python -m benchmarks.value_history [--games 1,16,64,256] [--simulations 200] [--rounds 5]
        [--seed 0] [--json out.json]
"""

import argparse
import json
import statistics
import time

import games
from benchmarks.common import environment
from benchmarks.evaluator import random_positions
from nets.shipped import make_evaluator
from search.alphadda import TABLE_1, AlphaDDA1
from search.az import AZAgent, learn_values
from search.puct import PUCT, Request


def figures(game, evaluator, g: int, simulations: int, rounds: int, seed: int) -> dict:
    puct = PUCT(game, evaluator, games=g, seed=seed)
    agents = [
        AZAgent(
            game, seed + k, puct, k, simulations=simulations, adjuster=AlphaDDA1(game, evaluator, **TABLE_1[game.name])
        )
        for k in range(g)
    ]
    states = random_positions(game, g, seed, plies=(6, 15))  # N_h positions of history each
    one, each, search = [], [], []
    for _ in range(rounds + 1):  # the first round warms up
        for a in agents:
            a.adjuster.new_game()
        t = time.perf_counter()
        learn_values(agents, states)
        one.append(time.perf_counter() - t)
        for a in agents:
            a.adjuster.new_game()
        t = time.perf_counter()
        for a, state in zip(agents, states):
            a.adjuster.mean_value(state)
        each.append(time.perf_counter() - t)
        t = time.perf_counter()
        puct.search([Request(k, state, simulations) for k, state in enumerate(states)])
        search.append(time.perf_counter() - t)
    med = {name: statistics.median(v[1:]) * 1000 for name, v in (("one", one), ("each", each), ("search", search))}
    return {
        "games": g,
        "values_per_game": TABLE_1[game.name]["nh"],
        "one_forward_ms": med["one"],
        "each_game_ms": med["each"],
        "search_ms": med["search"],
        "saved_share_of_move": (med["each"] - med["one"]) / (med["each"] + med["search"]),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--games", default="1,16,64,256", help="concurrent games, comma-separated")
    parser.add_argument("--simulations", type=int, default=200, help="N_sim of the search shown for scale (200)")
    parser.add_argument("--rounds", type=int, default=5, help="rounds per figure; medians are reported (5)")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--json", help="write the figures, with the environment, to this file")
    args = parser.parse_args()
    game = games.load("connect4")
    evaluator = make_evaluator(None, game, device="cpu")  # the shipped Connect4 net
    rows = [figures(game, evaluator, int(g), args.simulations, args.rounds, args.seed) for g in args.games.split(",")]
    print(f"AlphaDDA1's value history on connect4 (shipped net, CPU), {rows[0]['values_per_game']} values a game")
    print(f"{'games':>6}{'one forward ms':>16}{'each game ms':>14}{'ratio':>7}{'search ms':>11}{'saved of a move':>17}")
    for r in rows:
        ratio = r["each_game_ms"] / r["one_forward_ms"]
        print(
            f"{r['games']:>6}{r['one_forward_ms']:>16.2f}{r['each_game_ms']:>14.2f}{ratio:>7.1f}"
            f"{r['search_ms']:>11.1f}{r['saved_share_of_move']:>16.1%}"
        )
    env = environment(args.seed)
    print(f"seed {args.seed}, commit {env['commit']}, torch {env['versions'].get('torch')}")
    if args.json:
        with open(args.json, "w") as f:
            json.dump({"environment": env, "args": vars(args), "rows": rows}, f, indent=1)


if __name__ == "__main__":
    main()
