"""What on-line tuning costs: each allocation strategy's own cost, isolated, then tuned searches.

First, the isolated figure (the one SA-MCTS's target is about): ns per choose+update of one player's
tuner in a compiled loop, over a game's worth of steps from a fresh state (the reset that starts a
game included), as a share of one fixed-parameter simulation on Othello and on Connect4 (two steps,
one per player, per simulation), for 2 (SP: C, eps), 4 (AP: C, eps, K, Ref) and 6 (AP: all)
tuned parameters. For CMA-ES (pycma, in Python) a step is a generation's ask+tell over its population.

Second, simulations/s of tuned against fixed searches (medians over interleaved rounds): this mixes
the tuner's cost with the effect of the values it picks (a high epsilon makes cheaper playouts).

    .venv/bin/python -m benchmarks.tuning_overhead [--simulations 3000] [--rounds 5] [--steps 20000]
        [--seed 0] [--json out.json] [--isolated-only] [--strategies nmc,ntbea]
"""

import argparse
import json
import statistics
import time

import numpy as np
from tqdm import tqdm

import games
from benchmarks.common import environment
from games.jit import kernel
from games.rng import make_rng
from tuner.agents import make_agent

STRATEGIES = ["nmc", "lsi", "ea", "ntbea", "cmaes", "grid", "random"]
SETUPS = [("sp", "C+eps"), ("ap", "C+eps+K+Ref"), ("ap", "all")]
GAMES = ("othello", "connect4")


@kernel  # cached: a strategy's variant compiles once, not in every run
def tuner_steps(steps, state, rng, n, rewards):
    """n choose+update steps with rewards from a fixed sequence (what the search adds per player)."""
    x = np.zeros(state.sizes.shape[0], dtype=np.int64)
    for i in range(n):
        steps.choose(state, rng, x)
        steps.update(state, x, rewards[i % rewards.shape[0]], rng)


def tuner_game(tuner, r, rewards, steps):
    """ns per choose+update (per point for CMA-ES) over a game of `steps` steps from a reset to seed r, the reset
    included."""
    t0 = time.perf_counter()
    tuner.reset(seed=r)
    if tuner.kind == "cmaes":
        done = 0
        while done < steps:
            points = tuner.ask_generation()
            tuner.tell_generation(rewards[done % 4000 : done % 4000 + len(points)])
            done += len(points)
    else:
        tuner_steps(tuner.steps, tuner.compiled, make_rng(r), steps, rewards)
    return (time.perf_counter() - t0) / steps * 1e9


def rate(agent, state):
    agent.new_game(0)
    agent.select_action(state)
    return agent.last_search.simulations / agent.last_search.seconds


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--simulations", type=int, default=3000, help="simulations per timed search")
    parser.add_argument(
        "--rounds",
        type=int,
        default=5,
        help="rounds, each timing every fixed search and a game of every tuner; medians",
    )
    parser.add_argument("--steps", type=int, default=20000, help="tuner steps per game (isolated figure)")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--json", help="write every figure, with the environment, to this file")
    parser.add_argument("--isolated-only", action="store_true", help="skip the tuned-search figures")
    parser.add_argument("--strategies", default=",".join(STRATEGIES), help="comma-separated strategies to measure")
    args = parser.parse_args()
    strategies = args.strategies.split(",")
    if unknown := set(strategies) - set(STRATEGIES):
        parser.error(f"unknown strategies {sorted(unknown)}; known: {', '.join(STRATEGIES)}")
    rewards = (np.random.default_rng(args.seed).random(4096) < 0.5).astype(np.float64)
    # Each round times every fixed search and then a game of every tuner, and a tuner's share is the median of its
    # rounds' shares: this machine's slow spells (a tuner's game of one run took 2.4 times the median) then fall on
    # both sides of a share instead of on one of them.
    fixed_agents = {}  # (game, agent) -> a fixed-parameter agent and its start position
    for name in GAMES:
        game = games.load(name)
        for agent_name in dict(SETUPS):
            agent = make_agent(game, f"{agent_name}:simulations={args.simulations}", seed=args.seed)
            fixed_agents[name, agent_name] = agent, game.new_initial_state()
            rate(agent, game.new_initial_state())  # compile
    tuners = {}  # (agent, tune, strategy) -> a tuner of one player
    game = games.load("connect4")
    for agent_name, tune in SETUPS:
        for strategy in strategies:
            tuner = make_agent(game, f"{agent_name}:tuner={strategy},tune={tune}", seed=args.seed).search.tuners[0]
            if tuner.kind != "cmaes":
                tuner_steps(tuner.steps, tuner.compiled, make_rng(1), 10, rewards)  # compile
            tuners[agent_name, tune, strategy] = tuner
    rates = {key: [] for key in fixed_agents}
    costs = {key: [] for key in tuners}  # per round: (ns, {game: share})
    for r in tqdm(range(args.rounds), desc="rounds", unit="round"):
        now = {key: rate(*held) for key, held in fixed_agents.items()}
        for key, r_now in now.items():
            rates[key].append(r_now)
        for (agent_name, tune, strategy), tuner in tuners.items():
            ns = tuner_game(tuner, r, rewards, args.steps)
            shares = {g: 2 * ns * 1e-9 * now[g, agent_name] for g in GAMES}  # two players' steps a simulation
            costs[agent_name, tune, strategy].append((ns, shares))
    fixed = {key: statistics.median(values) for key, values in rates.items()}

    print(f"Isolated cost of a tuner step ({args.steps} steps a game, reset included), against a fixed simulation")
    print(f"{'params':<8}{'strategy':<9}{'tuner ns':>10}" + "".join(f"{g:>10}" for g in GAMES))
    isolated = []
    for (agent_name, tune, strategy), rounds in costs.items():
        ns = statistics.median(c[0] for c in rounds)
        shares = {g: statistics.median(c[1][g] for c in rounds) for g in GAMES}
        d = len(tuners[agent_name, tune, strategy].space)
        isolated.append(
            {
                "params": d,
                "agent": agent_name,
                "strategy": strategy,
                "tuner_ns": ns,
                **{f"overhead_{g}": s for g, s in shares.items()},
            }
        )
        print(f"{d:<8}{strategy:<9}{ns:>10.0f}" + "".join(f"{shares[g]:>10.1%}" for g in GAMES), flush=True)

    tuned_rows = []
    if not args.isolated_only:
        print(f"\nTuned searches against fixed ones, {args.simulations} simulations from the start position")
        print(
            f"{'game':<10}{'agent':<6}{'tuned':<13}{'strategy':<9}{'fixed sims/s':>13}{'tuned sims/s':>13}{'ratio':>7}"
        )
        for name in GAMES:
            game = games.load(name)
            state = game.new_initial_state()
            for agent_name, tune in SETUPS:
                fixed_spec = f"{agent_name}:simulations={args.simulations}"
                plain = make_agent(game, fixed_spec, seed=args.seed)
                for strategy in strategies:
                    tuned = make_agent(game, f"{fixed_spec},tuner={strategy},tune={tune}", seed=args.seed)
                    rate(tuned, state)  # compile
                    pairs = [(rate(plain, state), rate(tuned, state)) for _ in range(args.rounds)]
                    f, t = statistics.median(p[0] for p in pairs), statistics.median(p[1] for p in pairs)
                    ratio = statistics.median(p[1] / p[0] for p in pairs)
                    tuned_rows.append(
                        {
                            "game": name,
                            "agent": agent_name,
                            "tuned": tune,
                            "strategy": strategy,
                            "fixed": f,
                            "tuned_rate": t,
                            "ratio": ratio,
                        }
                    )
                    print(f"{name:<10}{agent_name:<6}{tune:<13}{strategy:<9}{f:>13,.0f}{t:>13,.0f}{ratio:>7.2f}")
    env = environment(args.seed)
    print(f"seed {args.seed}, commit {env['commit']}, numba {env['versions']['numba']}")
    if args.json:
        fixed_rows = [{"game": g, "agent": a, "simulations_per_s": r} for (g, a), r in fixed.items()]
        with open(args.json, "w") as f:
            json.dump(
                {
                    "environment": env,
                    "args": vars(args),
                    "fixed": fixed_rows,
                    "isolated": isolated,
                    "tuned": tuned_rows,
                },
                f,
                indent=1,
            )


if __name__ == "__main__":
    main()
