"""Random playouts per second per game on one core, beside OpenSpiel's random games in the same run.

Measures, for every game: our compiled playout loop; OpenSpiel's random games driven from Python
(legal_actions / apply_action per move) and from C++ (uniform random bots in pyspiel.evaluate_bots);
and the start-up cost of our kernels, cold (empty numba cache, first compile) and warm (cached),
each in a fresh process.

    .venv/bin/python -m benchmarks.playouts [--seconds 0.5] [--rounds 5] [--seed 0] [--json out.json]
"""

import argparse
import json
import os
import random
import time

from benchmarks.common import environment, finish, median_rate, startup_times

OPENSPIEL_NAMES = {
    "connect4": "connect_four",
    "othello": "othello",
    "breakthrough": "breakthrough",
    "pentago": "pentago",
    "connect5": "mnk(m=8,n=8,k=5)",
    "go9": "go(board_size=9)",
    "checkers": "checkers",  # other rules (forced capture; no move loses): its random games last 65 plies, ours 100
}


def _startup_child(cache_dir: str) -> None:
    """Runs in a fresh process: seconds to import the games and to finish a first playout of each."""
    os.environ["NUMBA_CACHE_DIR"] = cache_dir
    t = time.perf_counter()
    import games
    from games.kernels import random_playouts
    from games.rng import make_rng

    out = {"import": time.perf_counter() - t}
    for name in games.names():
        t = time.perf_counter()
        game = games.load(name)
        random_playouts(game.kernels, game.new_initial_state().array, 1, game.max_legal, make_rng(0), game.players)
        out[name] = time.perf_counter() - t
    print(json.dumps(out))


def ours(name: str, seconds: float, rounds: int, seed: int) -> float:
    import games
    from games.kernels import random_playouts
    from games.rng import make_rng

    game = games.load(name)
    root = game.new_initial_state().array
    rng = make_rng(seed)
    random_playouts(game.kernels, root, 10, game.max_legal, rng, game.players)
    t = time.perf_counter()
    random_playouts(game.kernels, root, 200, game.max_legal, rng, game.players)
    batch = max(1, int(seconds * 200 / (time.perf_counter() - t)))
    return median_rate(
        lambda: random_playouts(game.kernels, root, batch, game.max_legal, rng, game.players), batch, rounds
    )


def openspiel_python(name: str, seconds: float, rounds: int, seed: int) -> float:
    import pyspiel

    game = pyspiel.load_game(OPENSPIEL_NAMES[name])
    rnd = random.Random(seed)

    def play(n):
        for _ in range(n):
            state = game.new_initial_state()
            while not state.is_terminal():
                state.apply_action(rnd.choice(state.legal_actions()))

    t = time.perf_counter()
    play(20)
    batch = max(1, int(seconds * 20 / (time.perf_counter() - t)))
    return median_rate(lambda: play(batch), batch, rounds)


def openspiel_cpp(name: str, seconds: float, rounds: int, seed: int) -> float:
    import pyspiel

    game = pyspiel.load_game(OPENSPIEL_NAMES[name])
    bots = [pyspiel.make_uniform_random_bot(0, seed), pyspiel.make_uniform_random_bot(1, seed + 1)]

    def play(n):
        for i in range(n):
            pyspiel.evaluate_bots(game.new_initial_state(), bots, seed + i)

    t = time.perf_counter()
    play(50)
    batch = max(1, int(seconds * 50 / (time.perf_counter() - t)))
    return median_rate(lambda: play(batch), batch, rounds)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--seconds", type=float, default=0.5, help="length of one timed round")
    parser.add_argument("--rounds", type=int, default=5, help="timed rounds per figure; the median is reported")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--json", help="also write the results to this file")
    parser.add_argument("--startup-child", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.startup_child:
        return _startup_child(args.startup_child)

    import games

    try:
        import pyspiel  # noqa: F401

        have_openspiel = True
    except ImportError:
        have_openspiel = False
    startup = startup_times("benchmarks.playouts")
    results = {"environment": environment(args.seed), "playouts_per_s": {}, "startup_s": startup}
    print(f"{'game':<14}{'ours/s':>12}{'OpenSpiel py/s':>16}{'OpenSpiel C++/s':>17}{'vs C++':>9}")
    for name in games.names():
        row = {"ours": ours(name, args.seconds, args.rounds, args.seed)}
        if have_openspiel and name in OPENSPIEL_NAMES:
            row["openspiel_python"] = openspiel_python(name, args.seconds, args.rounds, args.seed)
            row["openspiel_cpp"] = openspiel_cpp(name, args.seconds, args.rounds, args.seed)
        results["playouts_per_s"][name] = row
        py, cpp = row.get("openspiel_python"), row.get("openspiel_cpp")
        ratio = f"{row['ours'] / cpp:8.1f}x" if cpp else f"{'-':>9}"
        cells = "".join(f"{v:>{w},.0f}" if v else f"{'-':>{w}}" for v, w in ((py, 16), (cpp, 17)))
        print(f"{name:<14}{row['ours']:>12,.0f}{cells}{ratio}")
    finish(results, "a first playout per game", args.json)


if __name__ == "__main__":
    main()
