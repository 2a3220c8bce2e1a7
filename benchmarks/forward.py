"""Forward throughput of the policy-value network: positions/s per game and size, clean and damaged.

Batch 256 of random 0/1 planes (dense convolutions cost the same whatever the values), torch
inference_mode, eval mode, a fixed number of threads; the damaged forward gives every row
dropout 0.5 [AlphaDDA Fig. 2]. The median of `--rounds` timed rounds of `--batches` forwards each.

    .venv/bin/python -m benchmarks.forward [--games connect4 othello] [--sizes small paper] [--threads 2]
        [--batch 256] [--batches 4] [--rounds 5] [--seed 0] [--json out.json]

--layouts instead times each net as built (channels-last) against the same weights in the contiguous layout,
in turn within one process (this machine's speed moves by 20% between processes and minutes): forwards at
batches 1, 30 and --batch, and an SGD step at --batch, each the median of the rounds' time ratios.
"""

import argparse
import json
import statistics
import time

import torch
import torch.nn.functional as F

import nets
from benchmarks.common import environment, median_rate
from nets.model import PolicyValueNet


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


def layout_ratios(game: str, size: str, *, batch: int, batches: int, rounds: int) -> dict:
    """Time of the contiguous layout over channels-last's, paired round by round: forwards at batches 1, 30 and
    `batch`, and a training step (forward, loss, backward, SGD) at `batch`; medians of the rounds' ratios."""
    fast = nets.build(game, size)
    slow = PolicyValueNet(fast.arch, channels_last=False)
    slow.load_state_dict(fast.state_dict())
    ratios = {}
    slow.eval(), fast.eval()
    for b in (1, 30, batch):
        x = torch.randint(0, 2, (b, fast.arch.planes, *fast.arch.board_shape)).float()
        with torch.inference_mode():
            ratios[f"forward {b}"] = _paired(lambda net, x=x: net(x), slow, fast, batches, rounds)
    x = torch.randint(0, 2, (batch, fast.arch.planes, *fast.arch.board_shape)).float()
    target_pi = torch.softmax(torch.randn(batch, fast.arch.num_actions), 1)
    target_z = torch.rand(batch) * 2 - 1
    optimizers = {id(net): torch.optim.SGD(net.parameters(), lr=0.001, momentum=0.9) for net in (slow, fast)}
    slow.train(), fast.train()

    def step(net):
        optimizers[id(net)].zero_grad()
        logits, value = net(x)
        loss = F.mse_loss(value, target_z) - (target_pi * F.log_softmax(logits, 1)).sum(1).mean()
        loss.backward()
        optimizers[id(net)].step()

    ratios[f"train {batch}"] = _paired(step, slow, fast, batches, rounds)
    return {"game": game, "size": size, **ratios}


def _paired(run, slow, fast, repeats: int, rounds: int) -> float:
    """Median over rounds of (time of `repeats` runs on slow) / (on fast), the two timed in turn."""
    run(slow), run(fast)  # warm-up
    ratios = []
    for _ in range(rounds):
        times = []
        for net in (slow, fast):
            t = time.perf_counter()
            for _ in range(repeats):
                run(net)
            times.append(time.perf_counter() - t)
        ratios.append(times[0] / times[1])
    return statistics.median(ratios)


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
    parser.add_argument("--layouts", action="store_true", help="channels-last against contiguous, paired (above)")
    args = parser.parse_args()

    torch.set_num_threads(args.threads)
    torch.manual_seed(args.seed)
    if args.layouts:
        measure = layout_ratios
        print(f"time in the contiguous layout / channels-last's, {args.threads} threads, torch {torch.__version__}")
    else:
        measure = rates
        print(f"positions/s, batch {args.batch}, {args.threads} threads, torch {torch.__version__}")
        print(f"{'game':<12} {'size':<6} {'filters':>7} {'blocks':>6} {'params':>8} {'clean':>9} {'dropout':>9}")
    results = []
    for game in args.games:
        for size in args.sizes:
            r = measure(game, size, batch=args.batch, batches=args.batches, rounds=args.rounds)
            results.append(r)
            print(f"{game:<12} {size:<6} " + (_ratios_line(r) if args.layouts else _rates_line(r)))
    env = environment(args.seed)
    print(f"seed {env['seed']}, commit {env['commit']}, python {env['python']}, device {env['device']}")
    if args.json:
        with open(args.json, "w") as f:
            json.dump({"args": vars(args), "results": results, "environment": env}, f, indent=2)


def _rates_line(r: dict) -> str:
    return f"{r['filters']:>7} {r['blocks']:>6} {r['parameters'] / 1e6:>7.2f}M {r['clean']:>9.0f} {r['dropout']:>9.0f}"


def _ratios_line(r: dict) -> str:
    return "  ".join(f"{k} {v:.2f}x" for k, v in r.items() if k not in ("game", "size"))


if __name__ == "__main__":
    main()
