"""Search speed and strength beside OpenSpiel's C++ MCTSBot (random-rollout evaluator, one rollout).

Measures, in one run, on one core:
1. simulations/s of our `mcts` (1,000 and 10,000 simulations; from the start and from a mid-game
   position) and of `sp` and `ap`, beside MCTSBot at the same simulation count, the two timed in turn in each
   round (the ratio is the median of the rounds' ratios: a shared machine's slow spells fall on both sides);
2. games/s of an MCTS1-vs-MCTS2 match, ours and OpenSpiel's (MCTSBot with 300 and 100 simulations);
3. start-up before the first move, cold (empty numba cache) and warm (cached), in a fresh process;
4. strength at equal simulations: our `mcts` against MCTSBot, seat-balanced.

    .venv/bin/python -m benchmarks.search [--quick] [--games connect4,othello] [--seed 0] [--strength-games 40]
        [--json out.json]
"""

import argparse
import json
import os
import random
import statistics
import time

from benchmarks.common import environment, finish, startup_times

OPENSPIEL_NAMES = {"connect4": "connect_four", "othello": "othello", "go9": "go(board_size=9)"}
MID_GAME = {"connect4": 10, "othello": 20, "go9": 20}  # the plies to the mid-game position
UCT_C = 2.0  # OpenSpiel's usual exploration constant for MCTSBot with +1/-1 returns


def openspiel_state(name: str, history):
    """OpenSpiel's state after the moves `history` (our action ids are OpenSpiel's)."""
    import pyspiel

    reference = pyspiel.load_game(OPENSPIEL_NAMES[name]).new_initial_state()
    for a in history:
        reference.apply_action(a)
    return reference


def our_position(name: str, plies: int, seed: int):
    """Our state after `plies` seeded random moves (the benchmarks' start and mid-game positions)."""
    import games

    state = games.load(name).new_initial_state()
    rnd = random.Random(seed)
    for _ in range(plies):
        state.apply_action(rnd.choice(state.legal_actions()))
    return state


def position(name: str, plies: int, seed: int):
    """Our state after `plies` seeded random moves, and the same OpenSpiel state."""
    state = our_position(name, plies, seed)
    return state, openspiel_state(name, state.history())


def openspiel_bot(name: str, simulations: int, seed: int):
    import pyspiel

    game = pyspiel.load_game(OPENSPIEL_NAMES[name])
    evaluator = pyspiel.RandomRolloutEvaluator(1, seed)
    return pyspiel.MCTSBot(game, evaluator, UCT_C, simulations, 10**9, False, seed, False)


def paired_rates(name, sims, specs, state, reference, rounds, seed) -> list[dict]:
    """Per spec, the median simulations/s of ours and of MCTSBot and the median of their ratio, the two timed in
    turn within each round, so that a slow spell of a shared machine weighs on both sides of a ratio."""
    from tuner.agents import make_agent

    bot = openspiel_bot(name, sims, seed)
    agents = [make_agent(name, spec, seed=seed) for spec in specs]
    for agent in agents:
        agent.select_action(state)  # compile, warm caches
    theirs, ours = [], [[] for _ in specs]
    for _ in range(rounds):
        bot.restart()
        t = time.perf_counter()
        bot.step(reference)
        theirs.append(sims / (time.perf_counter() - t))
        for agent, rates in zip(agents, ours):
            agent.new_game()  # a fresh tree: no reuse between timed searches
            agent.select_action(state)
            rates.append(agent.last_search.simulations / agent.last_search.seconds)
    return [
        {
            "ours": statistics.median(rates),
            "openspiel": statistics.median(theirs),
            "ratio": statistics.median(r / t for r, t in zip(rates, theirs)),
        }
        for rates in ours
    ]


def match_rates(name, games, seed):
    """games/s of MCTS1 vs MCTS2, ours (one thread) and OpenSpiel's (evaluate_bots in C++)."""
    import pyspiel

    from tuner.match import play_match

    play_match(name, "mcts1", "mcts2", games=2, seed=seed)  # warm
    t = time.perf_counter()
    play_match(name, "mcts1", "mcts2", games=games, seed=seed)
    ours = games / (time.perf_counter() - t)
    game = pyspiel.load_game(OPENSPIEL_NAMES[name])
    t = time.perf_counter()
    for i in range(games):
        bots = [openspiel_bot(name, 300, seed + i), openspiel_bot(name, 100, seed + i + 1)]
        if i % 2:
            bots.reverse()
        pyspiel.evaluate_bots(game.new_initial_state(), bots, seed + i)
    return ours, games / (time.perf_counter() - t)


def strength(name, simulations, games, seed):
    """Our `mcts` (AlphaDDA's C = 0.5, N_open = 5) against MCTSBot, both at `simulations`; our score."""
    import games as registry
    from search.agents import Agent
    from tuner.agents import make_agent
    from tuner.match import Record, play_game

    class OpenSpielMCTS(Agent):
        def __init__(self, game):
            super().__init__(game, 0)
            self.bot = None

        def new_game(self, seed=None, *, seat=None):
            self.bot = openspiel_bot(name, simulations, int(seed or 0) % (2**31))

        def select_action(self, state):
            return self.bot.step(openspiel_state(name, state.history()))

    game = registry.load(name)
    ours = make_agent(game, f"mcts:simulations={simulations}", seed=seed)
    theirs = OpenSpielMCTS(game)
    record = Record()
    for i in range(games):
        record.add(play_game(game, ours, theirs, seed, i).outcome)
    return record


def startup_child(cache_dir: str) -> None:
    os.environ["NUMBA_CACHE_DIR"] = cache_dir
    t = time.perf_counter()
    import games
    from tuner.agents import make_agent

    out = {"import": time.perf_counter() - t}
    for spec in ("mcts", "sp", "ap", "minimax1"):
        t = time.perf_counter()
        game = games.load("connect4")
        agent = make_agent(game, spec, seed=0)
        agent.select_action(game.new_initial_state())
        out[spec] = time.perf_counter() - t
    print(json.dumps(out))


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument(
        "--rounds", type=int, default=5, help="timed searches per figure, ours and OpenSpiel's in turn; medians"
    )
    parser.add_argument("--match-games", type=int, default=10, help="games in each MCTS1-vs-MCTS2 match (0: none)")
    parser.add_argument(
        "--strength-games", type=int, default=40, help="games of ours against MCTSBot per game (0: none)"
    )
    parser.add_argument(
        "--games",
        default="connect4,othello",
        help=f"comma-separated, of {', '.join(OPENSPIEL_NAMES)} (connect4,othello)",
    )
    parser.add_argument("--quick", action="store_true", help="small budgets, to check the script runs")
    parser.add_argument("--json", help="also write the results to this file")
    parser.add_argument("--startup-child", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.startup_child:
        return startup_child(args.startup_child)
    chosen = args.games.split(",")
    if not set(chosen) <= set(OPENSPIEL_NAMES):
        parser.error(f"--games takes {', '.join(OPENSPIEL_NAMES)}, comma-separated; got {args.games!r}")
    if args.rounds < 1 or args.match_games < 0 or args.strength_games < 0:
        parser.error("--rounds takes at least 1, --match-games and --strength-games at least 0")
    if args.quick:
        args.rounds, args.match_games, args.strength_games = 3, 2, 2
    results = {"environment": environment(args.seed), "simulations_per_s": [], "matches": {}, "strength": {}}

    print(f"{'game':<10}{'position':<10}{'agent':<22}{'sims':>7}{'ours/s':>11}{'OpenSpiel/s':>13}{'ratio':>8}")
    for name in chosen:
        for label, plies in (("start", 0), ("mid-game", MID_GAME[name])):
            state, reference = position(name, plies, args.seed)
            counts = (1000,) if args.quick else (1000, 10000)
            for sims in counts:
                specs = [f"mcts:simulations={sims}"]
                if sims == 1000:
                    specs += [f"sp:simulations={sims}", f"ap:simulations={sims}"]
                for spec, rates in zip(
                    specs, paired_rates(name, sims, specs, state, reference, args.rounds, args.seed)
                ):
                    row = {"game": name, "position": label, "agent": spec, "simulations": sims, **rates}
                    results["simulations_per_s"].append(row)
                    print(
                        f"{name:<10}{label:<10}{spec:<22}{sims:>7}{rates['ours']:>11,.0f}{rates['openspiel']:>13,.0f}"
                        f"{rates['ratio']:>7.1f}x"
                    )

    if args.match_games:
        print("\nMCTS1 vs MCTS2 match, games/s (one core):")
        for name in chosen:
            ours, theirs = match_rates(name, args.match_games, args.seed)
            results["matches"][name] = {"ours": ours, "openspiel": theirs, "ratio": ours / theirs}
            print(f"  {name:<10} ours {ours:8.2f}   OpenSpiel {theirs:8.2f}   {ours / theirs:6.1f}x")

    if args.strength_games:
        print("\nstrength at equal simulations: our mcts (C=0.5, N_open=5) vs MCTSBot (C=2, one rollout), our score:")
        sims = 300
        for name in chosen:
            record = strength(name, sims, args.strength_games, args.seed)
            results["strength"][name] = {"simulations": sims, **record.to_dict()}
            low, high = record.score_interval()
            print(
                f"  {name:<10} {sims} simulations: {record.wins}-{record.draws}-{record.losses} (W-D-L), "
                f"score {record.score:.3f} [{low:.2f}, {high:.2f}]"
            )

    results["startup_s"] = startup_times("benchmarks.search")
    finish(results, "a first move (Connect4)", args.json)


if __name__ == "__main__":
    main()
