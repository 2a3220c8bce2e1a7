"""Copy a training run's network into the package as a shipped net, and print its provenance row.

    .venv/bin/python scripts/ship_net.py RUN_DIR NAME [--which net|best]

Writes nets/shipped/NAME.pt (refused above 10 MB) from RUN_DIR/net.pt (or best.pt), then prints the
row for nets/shipped/README.md: the training command, seed, commit, iterations, self-play games,
hours, machine and the run's last yardstick scores, all read from the checkpoint and the run's log.
"""

import argparse
import json
import shutil
from pathlib import Path

import nets

SHIPPED = Path(__file__).resolve().parent.parent / "nets" / "shipped"
LIMIT = 10 * 2**20


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("run", type=Path)
    parser.add_argument("name")
    parser.add_argument("--which", choices=["net", "best"], default="net")
    args = parser.parse_args()
    source = args.run / f"{args.which}.pt"
    model = nets.load(source)  # refuses anything that is not a sound checkpoint
    if source.stat().st_size > LIMIT:
        raise SystemExit(f"{source} is {source.stat().st_size / 2**20:.1f} MB; shipped nets must be at most 10 MB")
    SHIPPED.mkdir(exist_ok=True)
    shutil.copyfile(source, SHIPPED / f"{args.name}.pt")
    p = model.meta["provenance"]
    history = [json.loads(line) for line in (args.run / "log.jsonl").read_text().splitlines()]
    evals = [r for r in history[: p["iteration"]] if "eval" in r]
    scores = ", ".join(f"{k} {m['score']:.2f}" for k, m in evals[-1]["eval"]["matches"].items()) if evals else "-"
    print(
        f"| {args.name} | {model.describe()} | `{p['command']}` | {p['seed']} | {p['commit']} | {p['iteration']} | "
        f"{p['self_play_games']} | {p['training_seconds'] / 3600:.1f} h on {p['device']} | {scores} |"
    )


if __name__ == "__main__":
    main()
