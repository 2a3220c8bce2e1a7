"""Self-play throughput: training positions per second of `nets.selfplay.self_play`, and SGD's rate.

For each game, with Table A1's N_self, N_sim, T_opening, tau and epsilon and a fresh net of the given
size, one iteration's self-play is timed:
- `lock-step`: the N_self games at once through one PUCT forest (what `sparring train` does), with
  `leaves` descents per tree and step (1: the paper's sequential search; 4: virtual loss), and with
  `--pools` at other pool sizes (`sparring train --games`), to see what a larger pool buys;
- `one game`: a single game at a time, one position per forward (the reference design; 3 games);
- `chunks`: lock-step with the net forwarding exactly C rows at a time (`sparring train --chunk`, what a run
  on a cluster takes) against whole forwards, for N_self games and for 8 (a worker's share), the setups
  taking turns within each round so that they share the machine's load alike;
and `learn`: positions/s of one SGD epoch over a full Table A1 queue in mini-batches of N_batch.
Positions are counted before augmentation. An untrained net plays other games than a trained one
(lengths differ), so compare the rows with each other, not with a run's log. Medians over rounds
with different seeds; the machine is shared, so quote ratios taken in the same run.

    .venv/bin/python -m benchmarks.selfplay [--games connect4 othello6] [--rounds 3] [--threads 1] [--json out.json]
"""

import argparse
import json
import statistics
import time

import numpy as np
import torch

import games
import nets
from nets.selfplay import Examples, self_play
from nets.train import TABLE_A1, learn
from tuner.provenance import environment


def selfplay_rate(
    game, evaluator, settings: dict, *, total: int, concurrent: int, leaves: int, rounds: int, seed: int
) -> dict:
    """Median positions/s and simulations/s over `rounds` runs of `total` games, `concurrent` at a time."""
    rates, sims = [], []
    for r in range(rounds):
        positions, simulations, seconds = 0, 0, 0.0
        for start in range(0, total, concurrent):
            t = time.perf_counter()
            ex, stats = self_play(
                game,
                evaluator,
                games=min(concurrent, total - start),
                simulations=settings["simulations"],
                seed=seed + 1000 * r + start,
                c_puct=settings["c_puct"],
                t_opening=settings["t_opening"],
                tau=settings["tau"],
                eps=settings["eps"],
                leaves=leaves,
            )
            seconds += time.perf_counter() - t
            positions, simulations = positions + len(ex), simulations + stats.simulations
        rates.append(positions / seconds)
        sims.append(simulations / seconds)
    return {"positions_per_s": statistics.median(rates), "simulations_per_s": statistics.median(sims)}


def chunk_rates(game, model, settings: dict, *, rounds: int, seed: int) -> list[dict]:
    """Median positions/s of lock-step self-play with whole forwards and in chunks of 8, 16 and 32 rows, for
    N_self games and for 8, every setup once per round in turn."""
    evaluators = {chunk: nets.NetEvaluator(model, device="cpu", chunk=chunk) for chunk in (None, 8, 16, 32)}
    rates: dict = {}
    for r in range(rounds):
        for chunk, evaluator in evaluators.items():
            for n in (settings["games"], 8):
                rate = selfplay_rate(
                    game, evaluator, settings, total=n, concurrent=n, leaves=1, rounds=1, seed=seed + r
                )
                rates.setdefault((chunk, n), []).append(rate["positions_per_s"])
    return [
        {"setup": "chunks", "chunk": chunk, "concurrent": concurrent, "positions_per_s": statistics.median(v)}
        for (chunk, concurrent), v in rates.items()
    ]


def learn_rate(model, game, settings: dict, rounds: int, seed: int) -> float:
    """Median positions/s of one SGD epoch over a full queue of random positions."""
    rng = np.random.default_rng(seed)
    n, a = settings["queue"], game.num_distinct_actions()
    planes = (rng.random((n, 3, *game.board_shape)) < 0.3).astype(np.uint8)
    policy = rng.dirichlet(np.ones(a), size=n).astype(np.float32)
    value = rng.choice([-1.0, 0.0, 1.0], size=n).astype(np.float32)
    opt = torch.optim.SGD(model.parameters(), lr=settings["lr"], momentum=0.9, weight_decay=1e-4)
    rates = []
    for r in range(rounds):
        t = time.perf_counter()
        learn(
            model,
            opt,
            Examples(planes, policy, value),
            batch=settings["batch"],
            epochs=1,
            generator=torch.Generator().manual_seed(seed + r),
            device=torch.device("cpu"),
        )
        rates.append(n / (time.perf_counter() - t))
    return statistics.median(rates)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--games", nargs="+", default=["connect4", "othello6"])
    parser.add_argument("--size", default="small")
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--threads", type=int, default=None, help="torch threads (default: torch's)")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument(
        "--pools", nargs="+", type=int, metavar="N", help="lock-step pool sizes to time (default: N_self)"
    )
    parser.add_argument("--json", metavar="PATH")
    args = parser.parse_args()
    if args.pools and min(args.pools) < 1:
        parser.error(f"--pools takes pool sizes of at least 1 game, got {min(args.pools)}")
    if args.threads:
        torch.set_num_threads(args.threads)
    rows = []
    print(f"torch threads {torch.get_num_threads()}; positions/s (simulations/s), median of {args.rounds}")
    for name in args.games:
        game, settings = games.load(name), TABLE_A1[name]
        torch.manual_seed(args.seed)
        model = nets.build(name, args.size)
        evaluator = nets.NetEvaluator(model, device="cpu")
        self_play(game, evaluator, games=2, simulations=4, seed=0)  # compile and warm up
        n_self = settings["games"]
        pools = [("lock-step", n, n, 1) for n in args.pools or [n_self]]
        setups = [*pools, ("lock-step", n_self, n_self, 4), ("one game", 3, 1, 1)]
        for label, total, concurrent, leaves in setups:
            rate = selfplay_rate(
                game,
                evaluator,
                settings,
                total=total,
                concurrent=concurrent,
                leaves=leaves,
                rounds=args.rounds,
                seed=args.seed,
            )
            rows.append({"game": name, "setup": label, "concurrent": concurrent, "leaves": leaves, **rate})
            print(
                f"{name:<9} {label:<9} games {concurrent:>3} leaves {leaves}: {rate['positions_per_s']:8.1f} "
                f"({rate['simulations_per_s']:,.0f})"
            )
        whole = {}
        for row in chunk_rates(game, model, settings, rounds=args.rounds, seed=args.seed):
            rows.append({"game": name, **row})
            key = row["concurrent"]
            whole.setdefault(key, row["positions_per_s"])  # whole forwards come first
            print(
                f"{name:<9} chunks {str(row['chunk']):<4} games {key:>2}: {row['positions_per_s']:8.1f} "
                f"({row['positions_per_s'] / whole[key]:.0%} of whole forwards)"
            )
        sgd = learn_rate(model, game, settings, args.rounds, args.seed)
        rows.append({"game": name, "setup": "learn", "positions_per_s": sgd})
        print(f"{name:<9} learn, batch {settings['batch']}: {sgd:,.0f} positions/s")
        evaluator.model.eval()
    env = environment(args.seed)
    print(f"seed {args.seed}, commit {env['commit']}, torch {env['versions']['torch']}, {env['device']}")
    if args.json:
        with open(args.json, "w") as f:
            json.dump({"rows": rows, "environment": env, "threads": torch.get_num_threads()}, f, indent=2)


if __name__ == "__main__":
    main()
