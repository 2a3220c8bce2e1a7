"""How far AlphaDDA1 and AlphaDDA2 weakened themselves in the games of a Tables 5-13 run, move by move.

`python -m experiments.alphadda tables` keeps every game's moves in its partial file while it runs (and in the
commits of that file after it). This replays those games through each AlphaDDA's own adjuster, which reads the
clean net's value history exactly as in play, and gives per match the knob each of its moves set (AlphaDDA1:
simulations by eqs. 2-3; AlphaDDA2: P_drop by eqs. 4-5): the share of its moves at full strength (N_max
simulations; P_drop 0) and at the weakest the equation allows (its simulations at v̄ c = 1; P_max), the knob's
quartiles, and the median ply of its first move below full strength, beside the match's score. Figs. 3-4's
ratings of AlphaZero at those settings then say how strong that play was.

    .venv/bin/python -m experiments.alphadda_knobs --game othello tables-othello.partial.json
        [--out experiments/results/alphadda]

A finished run's partial file is gone from the tree; take it from the last commit that held it, for instance
`git show 50bd4f0:experiments/results/alphadda/tables-othello.partial.json > tables-othello.partial.json`. The
file must hold games played by the nets shipped now (its digests are checked). AlphaDDA2 reading its history
through its damaged net (the authors' flavour) depends on draws the file does not keep: those matches are left out.
Writes knobs-GAME.json (every match, the source file, versions, commit) and .md; `--out` elsewhere for another file.
"""

import argparse
import json
import os
import sys

import numpy as np
from tqdm import tqdm

import games
from nets.shipped import make_evaluator
from search.alphadda import AlphaDDA2, n_sim
from tuner.agents import changed_net, check_spec, nets_of
from tuner.agents.adjusters import build, selected
from tuner.provenance import environment, file_digest

OUT = os.path.join("experiments", "results", "alphadda")


def replayable(game, spec: str) -> dict | None:
    """The options of `spec` if it is an AlphaDDA1 or AlphaDDA2 whose knobs a replay can read, else None."""
    options = check_spec(game, spec).options
    kind = selected(options)
    if kind is None or kind.name not in ("alphadda1", "alphadda2") or options.get("history") == "damaged":
        return None
    return options


def knobs(game, options: dict, records: list, evaluator):
    """The adjuster of `options`, and per game of `records` ({a_seat, moves}; the AlphaDDA played seat a_seat)
    (ply, v̄ c, knob) at each of its moves, read by that adjuster from the clean net as in play."""
    adjuster = build(selected(options), game, options, evaluator, seed=0)
    adjuster.reset()
    out = []
    for record in records:
        state, moves = game.new_initial_state(), []
        for action in record["moves"]:
            if state.current_player() == record["a_seat"]:
                knob = adjuster.before_search(state)  # a new game's first move starts its history afresh
                value = knob.dropout if isinstance(adjuster, AlphaDDA2) else knob.simulations
                moves.append((len(state.history()), adjuster.mean, float(value)))
            state.apply_action(action)
        out.append(moves)
    return adjuster, out


def full_and_weakest(adjuster) -> tuple[float, float]:
    """The knob at full strength and at the weakest the adjuster's equation allows (v̄ c = 1)."""
    if isinstance(adjuster, AlphaDDA2):
        return 0.0, adjuster.p_max
    return float(adjuster.n_max), float(n_sim(1.0, adjuster.a_sim, adjuster.b_sim0, adjuster.n_max))


def summary(records: list, moves: list, full: float, weakest: float) -> dict:
    """A match's knobs: shares of the AlphaDDA's moves at full strength and at the weakest, quartiles, the median
    ply of each game's first move below full strength, the mean v̄ c, and the AlphaDDA's score."""
    values = np.array([k for game in moves for _, _, k in game])
    first = [next((ply for ply, _, k in game if k != full), None) for game in moves]
    below = [p for p in first if p is not None]
    return {
        "games": len(records),
        "score": float(np.mean([(r["outcome"] + 1) / 2 for r in records])),
        "moves": int(values.size),
        "full_strength": [full, float(np.mean(values == full))],
        "weakest": [weakest, float(np.mean(values == weakest))],
        "quartiles": [float(q) for q in np.percentile(values, [25, 50, 75])],
        "games_below_full": len(below),
        "first_below_full_median_ply": float(np.median(below)) if below else None,
        "mean_value": float(np.mean([v for game in moves for _, v, _ in game])),
    }


def replay(game, saved: dict) -> list[dict]:
    """One summary per match of `saved` (a partial file's contents) whose AlphaDDA a replay can read."""
    todo = [(m, a, b, replayable(game, a)) for m, (a, b, _, _) in enumerate(saved["matches"])]
    todo = [row for row in todo if row[3] is not None and saved["games"][row[0]]]
    evaluators, rows = {}, []
    for m, a, b, options in tqdm(todo, desc="matches", unit="match", file=sys.stderr):
        net = options["net"]
        if net not in evaluators:
            evaluators[net] = make_evaluator(net, game, device="cpu")
        records = sorted(saved["games"][m], key=lambda r: r["index"])
        adjuster, moves = knobs(game, options, records, evaluators[net])
        rows.append({"spec_a": a, "spec_b": b, **summary(records, moves, *full_and_weakest(adjuster))})
    return rows


def report(out: dict) -> str:
    lines = [
        f"# How far AlphaDDA1-2 weakened themselves on {out['game']}, move by move (a Tables 5-13 run replayed)",
        "",
        f"The games of {out['source']}, replayed through each AlphaDDA's adjuster (the clean value history, "
        "as in play). Knob: AlphaDDA1's simulations (eqs. 2-3), AlphaDDA2's P_drop (eqs. 4-5). Full: N_max "
        "simulations or P_drop 0; weakest: the equation's value at v̄ c = 1 (simulations) or P_max.",
        "",
        "| AlphaDDA | opponent | score | its moves | at full | at weakest | knob quartiles | first below full "
        "(median ply; games) | mean v̄ c |",
        "|---|---|---|---|---|---|---|---|---|",
    ]
    for r in out["rows"]:
        name = selected(check_spec(out["game"], r["spec_a"]).options).name
        quartiles = " / ".join(f"{q:.3g}" for q in r["quartiles"])
        first = r["first_below_full_median_ply"]
        first = "never" if first is None else f"{first:g}; {r['games_below_full']} of {r['games']}"
        lines.append(
            f"| {name} | {r['spec_b'].split(':')[0]} | {r['score']:.3f} | "
            f"{r['moves']} | {r['full_strength'][1]:.2f} ({r['full_strength'][0]:g}) | "
            f"{r['weakest'][1]:.2f} ({r['weakest'][0]:g}) | {quartiles} | {first} | {r['mean_value']:+.2f} |"
        )
    env = out["environment"]
    command = f"python -m experiments.alphadda_knobs --game {out['game']} {out['source'].split()[0]}"
    return "\n".join(lines) + f"\n\n`{command}`, commit {env['commit']}, {env['date']}.\n"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("games_file", help="a partial file of `experiments.alphadda tables` (the games' moves)")
    parser.add_argument("--game", choices=["connect4", "othello6", "othello"], required=True)
    parser.add_argument("--out", default=OUT)
    args = parser.parse_args()
    try:
        with open(args.games_file) as f:
            saved = json.load(f)
        matches = saved["matches"]
        if not isinstance(saved["games"], list):
            raise TypeError("its games are not a list")
    except (OSError, ValueError, KeyError, TypeError) as e:
        sys.exit(f"{args.games_file} is not a partial file of `experiments.alphadda tables`: {e}")
    game = games.load(args.game)
    specs = {spec for a, b, _, _ in matches for spec in (a, b)}
    try:
        if changed_net(saved.get("nets", {}), nets_of(game, specs)):
            sys.exit(
                f"{args.games_file} was played by other nets than those shipped now: replaying it would read "
                "other values"
            )
        rows = replay(game, saved)
    except ValueError as e:  # a spec of another game
        sys.exit(f"{args.games_file} does not hold {args.game} games: {e}")
    if not rows:
        sys.exit(f"{args.games_file} holds no games of AlphaDDA1 or AlphaDDA2 reading a clean history")
    source = f"{os.path.basename(args.games_file)} (SHA-256 {file_digest(args.games_file)})"
    out = {"game": args.game, "source": source, "rows": rows, "environment": environment(0)}
    os.makedirs(args.out, exist_ok=True)
    stem = os.path.join(args.out, f"knobs-{args.game}")
    with open(f"{stem}.json", "w") as f:
        json.dump(out, f, indent=1)
    text = report(out)
    with open(f"{stem}.md", "w") as f:
        f.write(text)
    print(text)


if __name__ == "__main__":
    main()
