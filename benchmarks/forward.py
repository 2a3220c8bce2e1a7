"""Forward throughput of the policy-value network: positions/s per game and size, clean and damaged.

Batch 256 of random 0/1 planes (dense convolutions cost the same whatever the values), torch
inference_mode, eval mode, a fixed number of threads; the damaged forward gives every row
dropout 0.5 [AlphaDDA Fig. 2]. The median of `--rounds` timed rounds of `--batches` forwards each.

    .venv/bin/python -m benchmarks.forward [--games connect4 othello] [--sizes small paper] [--threads 2]
        [--batch 256] [--batches 4] [--rounds 5] [--seed 0] [--json out.json]
"""

import argparse
import json

import torch

import nets
from benchmarks.common import environment, median_rate


def rates(game: str, size: str, *, batch: int, batches: int, rounds: int) -> dict:
    """Positions/s of one net, clean and with per-row dropout 0.5, and its parameter count."""
    net = nets.build(game, size)
    x = torch.randint(0, 2, (batch, net.arch.planes, *net.arch.board_shape)).float()
    p, keys = torch.full((batch,), 0.5), torch.arange(batch)

    def clean():
        for _ in range(batches):
            net(x)

    def damaged():
        for _ in range(batches):
            net(x, p, keys)

    with torch.inference_mode():
        clean(), damaged()  # warm-up
        out = {
            "clean": median_rate(clean, batch * batches, rounds),
            "dropout": median_rate(damaged, batch * batches, rounds),
        }
    return {
        "game": game,
        "size": size,
        "filters": net.arch.filters,
        "blocks": net.arch.blocks,
        "parameters": sum(t.numel() for t in net.parameters()),
        **out,
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", nargs="+", default=["connect4", "othello"])
    parser.add_argument("--sizes", nargs="+", default=["small", "paper"])
    parser.add_argument("--threads", type=int, default=2, help="torch.set_num_threads")
    parser.add_argument("--batch", type=int, default=256)
    parser.add_argument("--batches", type=int, default=4, help="forwards per timed round")
    parser.add_argument("--rounds", type=int, default=5, help="timed rounds; the median is reported")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--json", help="also write the results here")
    args = parser.parse_args()

    torch.set_num_threads(args.threads)
    torch.manual_seed(args.seed)
    print(f"positions/s, batch {args.batch}, {args.threads} threads, torch {torch.__version__}")
    print(f"{'game':<12} {'size':<6} {'filters':>7} {'blocks':>6} {'params':>8} {'clean':>9} {'dropout':>9}")
    results = []
    for game in args.games:
        for size in args.sizes:
            r = rates(game, size, batch=args.batch, batches=args.batches, rounds=args.rounds)
            results.append(r)
            print(
                f"{game:<12} {size:<6} {r['filters']:>7} {r['blocks']:>6} {r['parameters'] / 1e6:>7.2f}M"
                f" {r['clean']:>9.0f} {r['dropout']:>9.0f}"
            )
    env = environment(args.seed)
    print(f"seed {env['seed']}, commit {env['commit']}, python {env['python']}, device {env['device']}")
    if args.json:
        with open(args.json, "w") as f:
            json.dump({"args": vars(args), "results": results, "environment": env}, f, indent=2)


if __name__ == "__main__":
    main()
