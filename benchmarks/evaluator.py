"""Network throughput: raw forwards against searches in lock-step, and the reference design's batch of 1.

For each game and network size:
- `raw`: positions/s of `model(planes)` alone, in inference mode, at each batch size;
- `search`: simulations/s of the lock-step PUCT search (search/puct.py) through `NetEvaluator`:
  one game with virtual loss (`leaves` descents per step), and G concurrent games (one descent each),
  every game searching `simulations` from its own random opening; `efficiency` divides it by the
  raw forward at the batch size the search actually formed, timed in alternate rounds (median ratio);
- `reference`: one game, one position per forward (what the AlphaDDA reference code does).
Medians over rounds; the machine is shared, so compare ratios taken in the same run. On CUDA the raw
forward runs as the evaluator's does (its autocast dtype, inputs copied to the GPU, outputs awaited).

    .venv/bin/python -m benchmarks.evaluator [--quick] [--device cuda] [--games connect4] [--sizes small paper]
        [--json out.json]
"""

import argparse
import contextlib
import json
import statistics
import time

import numpy as np
import torch

import games
import nets
from search.puct import PUCT, Request
from tuner.provenance import environment


def random_positions(game, n: int, seed: int, plies: tuple[int, int] = (0, 8)) -> list:
    """n positions a few random moves into the game, from plies[0] to plies[1] - 1 of them (never terminal)."""
    rng = np.random.default_rng(seed)
    out = []
    while len(out) < n:
        state = game.new_initial_state()
        for _ in range(int(rng.integers(*plies))):
            state.apply_action(int(rng.choice(state.legal_actions())))
            if state.is_terminal():
                break
        if not state.is_terminal():
            out.append(state)
    return out


def raw_rate(evaluator, game, batch: int, rounds: int, seed: int) -> float:
    """Median positions/s of the evaluator's bare forward at `batch`: host planes in, device outputs awaited."""
    model, device = evaluator.model, evaluator.device
    planes = torch.from_numpy(np.stack([s.encode() for s in random_positions(game, batch, seed)]))
    autocast = (
        torch.autocast(device.type, dtype=evaluator.dtype)
        if evaluator.dtype != torch.float32
        else contextlib.nullcontext()
    )

    def forward():
        with autocast:
            return model(planes.to(device))

    repeats = max(1, 2048 // batch)
    rates = []
    with torch.inference_mode():
        forward()
        for _ in range(rounds):
            t = time.perf_counter()
            for _ in range(repeats):
                out = forward()
            out[1].cpu()  # waits for the device
            rates.append(batch * repeats / (time.perf_counter() - t))
    return statistics.median(rates)


class Counting:
    """An evaluator wrapper that counts forwards and positions."""

    def __init__(self, inner):
        self.inner, self.game, self.calls, self.rows = inner, inner.game, 0, 0

    def new_batch(self, game, capacity):
        return self.inner.new_batch(game, capacity)

    def evaluate(self, batch, n):
        self.calls += 1
        self.rows += n
        self.inner.evaluate(batch, n)


def search_rate(
    model, game, *, device: str, concurrent: int, leaves: int, simulations: int, rounds: int, seed: int
) -> dict:
    """Simulations/s of `concurrent` searches of `simulations` each and, interleaved round by round, the raw
    forward at the batch the search formed; medians of both and of their ratio (the pipeline's efficiency)."""
    evaluator = Counting(nets.NetEvaluator(model, device=device))
    puct = PUCT(game, evaluator, games=concurrent, leaves=leaves, seed=seed)
    states = random_positions(game, concurrent, seed)
    rates, raws = [], []
    for r in range(rounds + 1):  # the first round compiles and finds the batch size
        for i in range(concurrent):
            puct.reset(i)
        evaluator.calls = evaluator.rows = 0
        t = time.perf_counter()
        results = puct.search([Request(i, state, simulations) for i, state in enumerate(states)])
        rate = sum(res.simulations for res in results) / (time.perf_counter() - t)
        batch = max(1, round(evaluator.rows / max(1, evaluator.calls)))
        if r:
            rates.append(rate)
            raws.append(raw_rate(evaluator.inner, game, batch, 1, seed))
    ratios = [a / b for a, b in zip(rates, raws)]
    return {
        "sims_per_s": statistics.median(rates),
        "raw_at_batch": statistics.median(raws),
        "batch": batch,
        "efficiency": statistics.median(ratios),
    }


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--games", nargs="+", default=["connect4", "othello6"])
    parser.add_argument("--sizes", nargs="+", default=["small", "paper"])
    parser.add_argument("--batches", nargs="+", type=int, default=[1, 16, 64, 256, 1024, 4096])
    parser.add_argument("--concurrent", nargs="+", type=int, default=[64, 256])
    parser.add_argument("--leaves", type=int, default=16, help="descents per step for the single game")
    parser.add_argument("--simulations", type=int, default=200, help="per game (small net)")
    parser.add_argument("--paper-simulations", type=int, default=20, help="per game with the paper-size net")
    parser.add_argument("--device", default="cpu", help="cpu (default), cuda, cuda:N or auto")
    parser.add_argument("--threads", type=int, default=2, help="torch.set_num_threads")
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--quick", action="store_true", help="tiny budgets, to check that the script runs")
    parser.add_argument("--json", help="also write the results to this file")
    args = parser.parse_args()
    if args.quick:
        args.games, args.sizes, args.batches, args.concurrent = ["connect4"], ["small"], [1, 64], [8]
        args.simulations, args.paper_simulations, args.rounds = 10, 4, 1
    torch.set_num_threads(args.threads)
    torch.manual_seed(args.seed)
    rows = []
    print(f"{'game':<10}{'size':<7}{'setup':<22}{'batch':>7}{'search/s':>11}{'raw/s':>10}{'efficiency':>12}")
    for name in args.games:
        game = games.load(name)
        for size in args.sizes:
            model = nets.build(name, size)
            sims = args.simulations if size == "small" else args.paper_simulations
            evaluator = nets.NetEvaluator(model, device=args.device)
            raw = {b: raw_rate(evaluator, game, b, args.rounds, args.seed) for b in args.batches}
            for b, rate in raw.items():
                rows.append({"game": name, "size": size, "setup": "raw", "batch": b, "positions_per_s": rate})
                print(f"{name:<10}{size:<7}{'raw forward':<22}{b:>7}{'':>11}{rate:>10,.0f}")
            setups = [("reference (batch 1)", 1, 1), (f"1 game, {args.leaves} leaves", 1, args.leaves)]
            setups += [(f"{g} games", g, 1) for g in args.concurrent]
            for label, concurrent, leaves in setups:
                s = search_rate(
                    model,
                    game,
                    device=args.device,
                    concurrent=concurrent,
                    leaves=leaves,
                    simulations=sims,
                    rounds=args.rounds,
                    seed=args.seed,
                )
                batch, same, efficiency = s["batch"], s["raw_at_batch"], s["efficiency"]
                rows.append(
                    {
                        "game": name,
                        "size": size,
                        "setup": label,
                        "concurrent": concurrent,
                        "leaves": leaves,
                        "simulations": sims,
                        "batch": batch,
                        "sims_per_s": s["sims_per_s"],
                        "raw_at_batch": same,
                        "efficiency": efficiency,
                    }
                )
                print(
                    f"{name:<10}{size:<7}{label:<22}{batch:>7}{s['sims_per_s']:>11,.0f}{same:>10,.0f}{efficiency:>12.0%}"
                )
    env = environment(args.seed)
    print(
        f"threads {args.threads}, seed {args.seed}, commit {env['commit']}, torch {env['versions']['torch']}, "
        f"device {env['device']}"
    )
    if args.json:
        with open(args.json, "w") as f:
            json.dump({"environment": env, "args": vars(args), "rows": rows}, f, indent=1)


if __name__ == "__main__":
    main()
