"""Search on games from outside sparring, beside OpenSpiel's C++ MCTSBot on the same pyspiel games.

Our `mcts` runs a pyspiel game (`openspiel:NAME`) or a plain-Python one (examples/nim) through its compiled
search, asking the game's own rules through numba's object mode (games.outside). Measured in one run, on one
core, from the start position: simulations/s of our `mcts` and of MCTSBot (random-rollout evaluator, one
rollout) at the same count, the median of `--rounds` searches each; and, for Connect4, our compiled rules
beside the same search through OpenSpiel's (`openspiel:connect_four`), which prices the path itself.

    .venv/bin/python -m benchmarks.outside [--simulations 1000] [--rounds 3] [--seed 0] [--json out.json]
"""

import argparse
import json
import statistics
import sys
from pathlib import Path

from benchmarks.common import environment, median_rate
from benchmarks.search import UCT_C

PYSPIEL_GAMES = ("tic_tac_toe", "connect_four", "hex(board_size=7)", "breakthrough(rows=6,columns=6)")
NIM = Path(__file__).resolve().parent.parent / "examples" / "nim"


def ours(game, simulations: int, rounds: int, seed: int) -> float:
    """Median simulations/s of our mcts from `game`'s start (a fresh tree each search)."""
    from tuner.agents import make_agent

    agent, state = make_agent(game, f"mcts:simulations={simulations}", seed=seed), game.new_initial_state()
    agent.select_action(state)  # compile, warm caches
    rates = []
    for _ in range(rounds):
        agent.new_game()
        agent.select_action(state)
        rates.append(agent.last_search.simulations / agent.last_search.seconds)
    return statistics.median(rates)


def theirs(name: str, simulations: int, rounds: int, seed: int) -> float:
    """Median simulations/s of OpenSpiel's C++ MCTSBot from the pyspiel game's start."""
    import pyspiel

    game = pyspiel.load_game(name)
    bot = pyspiel.MCTSBot(game, pyspiel.RandomRolloutEvaluator(1, seed), UCT_C, simulations, 10**9, False, seed, False)
    state = game.new_initial_state()
    return median_rate(lambda: (bot.restart(), bot.step(state)), simulations, rounds)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--simulations", type=int, default=1000, help="simulations per search (1000)")
    parser.add_argument("--rounds", type=int, default=3, help="timed searches per figure; the median is reported")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--json", help="also write the results to this file")
    args = parser.parse_args()
    import games
    from games.outside import OutsideGame

    sys.path.insert(0, str(NIM))
    from sparring_nim import Nim

    results = {"environment": environment(args.seed), "simulations": args.simulations, "rows": []}
    print(f"{'game':<34}{'ours/s':>11}{'OpenSpiel/s':>13}{'ratio':>8}")
    for name in PYSPIEL_GAMES:
        mine = ours(games.load(f"openspiel:{name}"), args.simulations, args.rounds, args.seed)
        peer = theirs(name, args.simulations, args.rounds, args.seed)
        results["rows"].append({"game": f"openspiel:{name}", "ours": mine, "openspiel": peer, "ratio": mine / peer})
        print(f"{'openspiel:' + name:<34}{mine:>11,.0f}{peer:>13,.0f}{mine / peer:>7.2f}x")
    nim = ours(OutsideGame("nim", Nim()), args.simulations, args.rounds, args.seed)
    results["rows"].append({"game": "nim (plain Python)", "ours": nim, "openspiel": None, "ratio": None})
    print(f"{'nim (plain Python, examples/nim)':<34}{nim:>11,.0f}{'-':>13}{'-':>8}")
    compiled = ours(games.load("connect4"), args.simulations, args.rounds, args.seed)
    through = next(r["ours"] for r in results["rows"] if r["game"] == "openspiel:connect_four")
    results["connect4_compiled_over_outside"] = compiled / through
    print(
        f"\nConnect4, our compiled rules {compiled:,.0f}/s against the same search through OpenSpiel's rules: "
        f"{compiled / through:.0f}x"
    )
    env = results["environment"]
    versions = ", ".join(f"{k} {v}" for k, v in env["versions"].items() if v)
    print(f"seed {env['seed']}, commit {env['commit']}, python {env['python']}, {versions}")
    if args.json:
        Path(args.json).write_text(json.dumps(results, indent=2))


if __name__ == "__main__":
    main()
