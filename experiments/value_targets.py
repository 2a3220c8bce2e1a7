"""How right a Connect4 self-play run's value targets are, and how well nets sign its positions (issue 34, item 1).

The solved test set (`sparring net solved`) asks a net about random positions, which self-play rarely visits. This
asks about the positions self-play trains on: fresh games of a run's latest net against itself with the run's
settings (as one of its iterations plays them, another seed), each recorded position solved by bitbully, and for the
decided ones
- how often the value target self-play records (the game's result z, or its mix with the search's value) has the
  true sign;
- how often each net's value head has it: the run's own latest net, and any others given;
- the baseline "the player to move wins" on the same positions;
and, beside it, each net's sign on the test set. A head that signs self-play's positions well but random ones badly
has learnt self-play's distribution, not the game. Where the run keeps its replay queue (checkpoint.pt), a sample of
it is judged the same way: the positions its net learnt on, so that the gap to fresh games shows how much the value
head fits its queue rather than the game.

    .venv/bin/python -m experiments.value_targets RUN [--games 300] [--nets connect4,PATH] [--queue 2000] [--seed 0]
        [--out experiments/results/value_ceiling/targets-RUN.json]
"""

import argparse
import json
import sys
from pathlib import Path

import numpy as np
import torch
from tqdm import tqdm

import games
from benchmarks.common import environment
from nets.checkpoint import load
from nets.evaluator import NetEvaluator
from nets.selfplay import self_play
from nets.shipped import resolve_net
from nets.solved import score_on_solved, value_signs_right
from nets.train import ADDED_LATER, TrainConfig
from search.perfect import planes_value


def judged(planes: np.ndarray, targets: np.ndarray, what: str) -> tuple[np.ndarray, dict]:
    """Each position's true sign for the player to move (+1 won, 0 drawn, -1 lost), and how many were decided and how
    often `targets` had the true sign there."""
    truth = np.array([np.sign(planes_value(p)) for p in tqdm(planes, desc=what, unit="position", file=sys.stderr)])
    decided = truth != 0
    right = float((np.sign(targets[decided]) == truth[decided]).mean())
    return truth, {"positions": len(truth), "decided": int(decided.sum()), "target_sign_right": right}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("run", type=Path, help="a Connect4 training run's folder (its config.json and net.pt)")
    parser.add_argument("--games", type=int, default=300, help="self-play games, played at once")
    parser.add_argument("--nets", default="", help="other nets to measure: shipped names or checkpoint paths")
    parser.add_argument(
        "--queue", type=int, default=2000, help="positions of the run's replay queue to judge as well, 0 for none"
    )
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--out", type=Path, help="the JSON (experiments/results/value_ceiling/targets-RUN.json)")
    args = parser.parse_args()
    if not (args.run / "config.json").is_file() or not (args.run / "net.pt").is_file():
        parser.error(f"{args.run} holds no config.json and net.pt: give a run folder of `sparring train connect4`")
    config = TrainConfig(**{**ADDED_LATER, **json.loads((args.run / "config.json").read_text())})
    if config.game != "connect4":
        parser.error(f"{args.run} trains {config.game}: the solver judges connect4 only")
    torch.set_num_threads(1)
    game = games.load("connect4")
    model = load(args.run / "net.pt", game="connect4")
    settings = {**config.play_settings(), "games": args.games, "seed": args.seed}
    examples, stats = self_play(game, NetEvaluator(model, device="cpu"), **settings)
    planes = examples.planes
    truth, counts = judged(planes, examples.value, "solving self-play")
    nets = {"run": str(args.run / "net.pt")} | {n: resolve_net(n, game) for n in args.nets.split(",") if n}
    result = {
        "environment": environment(args.seed),
        "run": str(args.run),
        "settings": settings,
        "games": stats.games,
        **counts,
        "mover_wins": float((truth[truth != 0] > 0).mean()),
        "nets": {},
    }
    for name, path in nets.items():
        model = load(path, game="connect4").eval()
        result["nets"][name] = {
            "path": path,
            "self_play_sign_right": value_signs_right(model, planes, truth),
            "test_sign_right": score_on_solved(model)["sign_accuracy"],
        }
    if args.queue and (args.run / "checkpoint.pt").is_file():  # what the run's net learnt on: it has seen these
        queue = torch.load(args.run / "checkpoint.pt", map_location="cpu", weights_only=False)["queue"]
        size = int(queue["size"])
        rows = np.sort(np.random.default_rng(args.seed).choice(size, min(args.queue, size), replace=False))
        planes = queue["planes"][rows].numpy()
        truth, result["queue"] = judged(planes, queue["value"][rows].numpy(), "solving the queue")
        result["queue"]["run_sign_right"] = value_signs_right(load(nets["run"], game="connect4").eval(), planes, truth)
    out = args.out or Path("experiments/results/value_ceiling") / f"targets-{args.run.name}.json"
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(json.dumps(result, indent=1))
    print(
        f"{result['decided']} of {result['positions']} self-play positions decided; the mover wins "
        f"{result['mover_wins']:.3f}; targets signed right {result['target_sign_right']:.3f}"
    )
    for name, r in result["nets"].items():
        print(f"{name}: self-play {r['self_play_sign_right']:.3f}, test set {r['test_sign_right']:.3f}")
    if "queue" in result:
        q = result["queue"]
        print(f"its queue: targets signed right {q['target_sign_right']:.3f}, the run's net {q['run_sign_right']:.3f}")


if __name__ == "__main__":
    main()
