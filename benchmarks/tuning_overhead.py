"""What on-line tuning costs: tuned SP/AP against the same agent with fixed parameters.

Two figures per strategy, game and number of tuned parameters (2: SP C+eps, 4: AP C+eps+K+Ref,
6: AP all), on one core:
- `ratio`: simulations/s tuned / fixed, medians over interleaved rounds. The tuned parameter values
  themselves change what a simulation costs (a high epsilon makes cheaper playouts), so this mixes
  the tuner's cost with the effect of the values it picks;
- `overhead`: the tuner's own cost, isolated: ns for one choose+update per player (two per
  simulation) in a compiled loop, as a percentage of a fixed-parameter simulation. For CMA-ES
  (pycma, in Python) it is the cost of one generation's ask+tell divided by the population.

    .venv/bin/python -m benchmarks.tuning_overhead [--simulations 3000] [--rounds 5] [--seed 0] [--json out.json]
"""

import argparse
import statistics
import time

import numpy as np
from numba import njit

import games
import search
from benchmarks.common import environment
from games.rng import make_rng
from tuner.strategies import choose, update

STRATEGIES = ["nmc", "lsi", "ea", "ntbea", "cmaes", "grid", "random"]
SETUPS = [("sp", "C+eps"), ("ap", "C+eps+K+Ref"), ("ap", "all")]


@njit(nogil=True, error_model="numpy")  # as every kernel (games.jit)
def tuner_steps(state, rng, n, rewards):
    """n choose+update steps with rewards from a fixed sequence (what the search adds per player)."""
    x = np.zeros(state.sizes.shape[0], dtype=np.int64)
    for i in range(n):
        choose(state, rng, x)
        update(state, x, rewards[i % rewards.shape[0]], rng)


def tuner_cost(tuner, rounds, rewards, steps=20000):
    """Median ns per choose+update (per point for CMA-ES) of a fresh tuner, over `rounds` runs."""
    per_step = []
    if tuner.kind == "cmaes":
        steps = 2000
    else:
        tuner_steps(tuner.compiled, make_rng(1), 10, rewards)  # compile
    for _ in range(rounds):
        tuner.reset()
        t0 = time.perf_counter()
        if tuner.kind == "cmaes":
            done = 0
            while done < steps:
                points = tuner.ask_generation()
                tuner.tell_generation(rewards[done % 4000 : done % 4000 + len(points)])
                done += len(points)
        else:
            tuner_steps(tuner.compiled, make_rng(1), steps, rewards)
        per_step.append((time.perf_counter() - t0) / steps * 1e9)
    return statistics.median(per_step)


def rate(agent, state):
    agent.new_game(0)
    agent.select_action(state)
    return agent.last_search.simulations / agent.last_search.seconds


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--simulations", type=int, default=3000, help="simulations per timed search")
    parser.add_argument("--rounds", type=int, default=5, help="interleaved rounds; medians are reported")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--json")
    args = parser.parse_args()
    rows = []
    print(f"{'game':<10}{'agent':<6}{'tuned':<13}{'strategy':<9}{'fixed sims/s':>13}{'tuned sims/s':>13}"
          f"{'ratio':>7}{'tuner ns':>10}{'overhead':>10}")  # fmt: skip
    rewards = (np.random.default_rng(args.seed).random(4096) < 0.5).astype(np.float64)
    for name in ("connect4", "othello"):
        game = games.load(name)
        state = game.new_initial_state()
        for agent_name, tune in SETUPS:
            fixed_spec = f"{agent_name}:simulations={args.simulations}"
            fixed = search.make_agent(game, fixed_spec, seed=args.seed)
            rate(fixed, state)
            for strategy in STRATEGIES:
                spec = f"{fixed_spec},tuner={strategy},tune={tune}"
                tuned = search.make_agent(game, spec, seed=args.seed)
                rate(tuned, state)  # compile
                pairs = [(rate(fixed, state), rate(tuned, state)) for _ in range(args.rounds)]
                f = statistics.median(p[0] for p in pairs)
                t = statistics.median(p[1] for p in pairs)
                ratio = statistics.median(p[1] / p[0] for p in pairs)
                ns = tuner_cost(tuned.search.tuners[0], args.rounds, rewards)
                overhead = 2 * ns * 1e-9 * f  # two players' steps per simulation, against a fixed simulation
                row = {"game": name, "agent": agent_name, "tuned": tune, "strategy": strategy, "fixed": f}
                rows.append({**row, "tuned_rate": t, "ratio": ratio, "tuner_ns": ns, "overhead": overhead})
                print(f"{name:<10}{agent_name:<6}{tune:<13}{strategy:<9}{f:>13,.0f}{t:>13,.0f}{ratio:>7.2f}"
                      f"{ns:>10.0f}{overhead:>9.1%}")  # fmt: skip
    env = environment(args.seed)
    print(f"seed {args.seed}, commit {env['commit']}, numba {env['versions']['numba']}")
    if args.json:
        import json

        with open(args.json, "w") as f:
            json.dump({"environment": env, "rows": rows}, f, indent=1)


if __name__ == "__main__":
    main()
