"""Strength adjustment (Wu et al., 001_24476e8f3bd5f1df.txt): the z curve and DSA, on Connect4 or another game.

Reproduces, with our MCTS at a fixed simulation count:
- Table 1 / Fig. 1: Elo (relative to z = +inf) against z for R_th = 0.1, every point a seat-balanced
  match against z = 0; the linear fit over z in [-2, 2] and the Elo range covered;
- Fig. 2: the same curve for R_th in {0, 0.02, 0.05, 0.1, 0.25, 0.5};
- Table 3: inter-game DSA against fixed opponents z = 2, 1, 0, -1, -2 (several repetitions);
- Table 4: intra-game DSA, dZ = 0.2 and 0.1;
- beyond the paper: both adjusters against Random and Minimax2, with z alone (the paper) and with
  the simulation budget as a second knob below z = -2.

    .venv/bin/python -m experiments.strength [--quick] [--game connect4] [--parts table1,fig2,table3,table4,weak]
        [--simulations 300] [--seed 0] [--out DIR]

Writes results.json (with seed, versions, commit) after each part, and PNG plots, to --out (for a game other than
Connect4, by default experiments/results/strength-GAME).
"""

import argparse
import json
import math
import os
from dataclasses import dataclass

import numpy as np
from joblib import Parallel, delayed

import games
from tuner.agents import make_agent
from tuner.match import Record, play_game, play_match
from tuner.provenance import environment


@dataclass
class Args:
    game: str = "connect4"
    parts: str = "table1,fig2,table3,table4,weak"  # which of the experiments below to run, in this order
    simulations: int = 300  # per move; where z matters most on Connect4 (see the closing note of issue 5)
    games: int = 200  # per point of the z curve (Table 1)
    sweep_games: int = 100  # per point of the R_th sweep (Fig. 2)
    dsa_games: int = 100  # per opponent for the adjusters (Tables 3 and 4)
    repetitions: int = 3  # of the inter-game experiment
    seed: int = 0
    out: str = "experiments/results/strength"
    workers: int = 2


Z_GRID = [math.inf, 2, 1.5, 1, 0.5, 0, -0.5, -1, -1.5, -2, -math.inf]
RTH_GRID = [0, 0.02, 0.05, 0.1, 0.25, 0.5]
OPPONENT_Z = [2, 1, 0, -1, -2]


def fmt(z: float) -> str:
    return "inf" if z == math.inf else "-inf" if z == -math.inf else f"{z:g}"


def elo_of(score: float, n_games: int) -> float:
    """Elo difference for a score (clipped half a game from 0 and 1 so that it stays finite)."""
    s = min(max(score, 0.5 / n_games), 1 - 0.5 / n_games)
    return -400 * math.log10(1 / s - 1)


def z_point(args, z, rth, n_games, seed):
    spec = f"mcts:simulations={args.simulations},z={fmt(z)},rth={rth:g}"
    base = f"mcts:simulations={args.simulations},z=0,rth={rth:g}"
    return play_match(args.game, spec, base, games=n_games, seed=seed).total


def z_curve(args, rth, n_games, seed):
    records = Parallel(n_jobs=args.workers)(
        delayed(z_point)(args, z, rth, n_games, seed + i) for i, z in enumerate(Z_GRID)
    )
    elos = [elo_of(r.score, r.games) for r in records]
    relative = [e - elos[0] for e in elos]  # Elo relative to z = +inf
    return records, relative


def linear_fit(relative):
    zs = np.array([z for z in Z_GRID if abs(z) <= 2])
    es = np.array([e for z, e in zip(Z_GRID, relative) if abs(z) <= 2])
    slope, intercept = np.polyfit(zs, es, 1)
    rmse = float(np.sqrt(np.mean((slope * zs + intercept - es) ** 2)))
    return float(slope), float(intercept), rmse


def dsa_match(args, kind, dz, opponent, n_games, seed, floor="-inf"):
    """One match of an adjusting agent (A) against `opponent`, sequential so the adjuster sees every game.

    floor=-inf is the paper's rule (z alone); returns A's record, z at the end of each game, and the
    record of the second half of the match."""
    game = games.load(args.game)
    spec = f"mcts:simulations={args.simulations},dsa={kind},floor={floor}" + (f",dz={dz}" if dz else "")
    agent = make_agent(game, spec, seed=seed)
    other = make_agent(game, opponent, seed=seed + 1)
    record, late, zs = Record(), Record(), []
    for i in range(n_games):
        outcome = play_game(game, agent, other, seed, i).outcome
        record.add(outcome)
        if i >= n_games // 2:
            late.add(outcome)
        zs.append(agent.adjuster.z)
    return record, zs, late


def opponent_spec(args, z):
    return f"mcts:simulations={args.simulations},z={fmt(z)}"


def table1(args, results):
    """Table 1 / Fig. 1: Elo against z at R_th 0.1, each point a match against z = 0."""
    print(f"Table 1 analogue: R_th = 0.1, {args.games} games per z against z = 0, {args.simulations} simulations")
    records, relative = z_curve(args, 0.1, args.games, args.seed)
    slope, intercept, rmse = linear_fit(relative)
    results["table1"] = [{"z": fmt(z), **r.to_dict(), "elo_vs_inf": e} for z, r, e in zip(Z_GRID, records, relative)]
    results["table1_fit"] = {
        "slope": slope,
        "intercept": intercept,
        "rmse": rmse,
        "range_inf_to_minus_inf": relative[0] - relative[-1],
        "range_2_to_minus_2": relative[1] - relative[-2],
    }
    print(f"{'z':>6}{'score vs z=0':>14}{'95% CI':>16}{'Elo vs z=inf':>14}")
    for z, r, e in zip(Z_GRID, records, relative):
        low, high = r.score_interval()
        print(f"{fmt(z):>6}{r.score:>14.3f}   [{low:.2f}, {high:.2f}]{e:>14.0f}")
    fit = results["table1_fit"]
    print(
        f"linear fit over [-2, 2]: {slope:.0f} Elo per unit z, RMSE {rmse:.0f} Elo; range z=inf..-inf "
        f"{fit['range_inf_to_minus_inf']:.0f} Elo, z=2..-2 {fit['range_2_to_minus_2']:.0f} Elo"
    )


def fig2(args, results):
    """Fig. 2: the z curve for each R_th."""
    print(f"\nFig. 2 analogue: R_th sweep, {args.sweep_games} games per point")
    results["fig2"] = {}
    for i, rth in enumerate(RTH_GRID):
        _, rel = z_curve(args, rth, args.sweep_games, args.seed + 1000 * (i + 1))
        results["fig2"][f"{rth:g}"] = rel
        print(f"  R_th {rth:<5g}" + " ".join(f"{e:6.0f}" for e in rel))


def table3(args, results):
    """Table 3: inter-game DSA against fixed opponents."""
    print(f"\nTable 3 analogue: inter-game DSA, {args.dsa_games} games per opponent, {args.repetitions} repetitions")
    jobs = [(z, rep) for z in OPPONENT_Z for rep in range(args.repetitions)]
    runs = Parallel(n_jobs=args.workers)(
        delayed(dsa_match)(args, "inter", None, opponent_spec(args, z), args.dsa_games, args.seed + 7919 * rep + 31 * j)
        for j, (z, rep) in enumerate(jobs)
    )
    results["table3"] = []
    for z in OPPONENT_Z:
        mine = [run[:2] for (oz, _), run in zip(jobs, runs) if oz == z]
        wins = [r.wins + 0.5 * r.draws for r, _ in mine]
        total = sum(r.games for r, _ in mine)
        mean_z = float(np.mean([np.mean(zs) for _, zs in mine]))
        end_z = float(np.mean([zs[-1] for _, zs in mine]))
        results["table3"].append(
            {
                "opponent_z": z,
                "score": sum(wins) / total,
                "avg_z": mean_z,
                "final_z": end_z,
                "z_paths": [zs for _, zs in mine],
            }
        )
        score = sum(wins) / total
        print(f"  vs z={z:>2}: score {score:.3f} over {total} games, avg z {mean_z:+.2f}, final z {end_z:+.2f}")


def table4(args, results):
    """Table 4: intra-game DSA, dZ 0.2 and 0.1."""
    print(f"\nTable 4 analogue: intra-game DSA, {args.dsa_games} games per opponent")
    results["table4"] = {}
    for dz in (0.2, 0.1):
        runs = Parallel(n_jobs=args.workers)(
            delayed(dsa_match)(args, "intra", dz, opponent_spec(args, z), args.dsa_games, args.seed + 17 * j)
            for j, z in enumerate(OPPONENT_Z)
        )
        rows = []
        for z, (record, zs, _) in zip(OPPONENT_Z, runs):
            rows.append({"opponent_z": z, **record.to_dict(), "avg_z": float(np.mean(zs)), "std_z": float(np.std(zs))})
            z_end = f"avg end-of-game z {np.mean(zs):+.2f} (sd {np.std(zs):.2f})"
            print(f"  dZ {dz}: vs z={z:>2}: score {record.score:.3f}, {z_end}")
        results["table4"][str(dz)] = rows


def weak(args, results):
    """Beyond the paper: both adjusters against much weaker opponents, z alone and with a budget floor."""
    print(f"\nBeyond the paper: the adjusters against much weaker opponents, {2 * args.dsa_games} games each")
    print("  floor -inf is the paper's rule (z alone); floor -2 also halves the simulations per unit of z below -2")
    opponents = ("random", "minimax2") if "minimax2" in games.load(args.game).evaluations else ("random",)
    cases = [(k, o, f) for f in ("-inf", "-2") for k in ("inter", "intra") for o in opponents]
    runs = Parallel(n_jobs=args.workers)(
        delayed(dsa_match)(args, kind, None, opponent, 2 * args.dsa_games, args.seed + 101 * j, floor)
        for j, (kind, opponent, floor) in enumerate(cases)
    )
    results["weak"] = []
    for (kind, opponent, floor), (record, zs, late) in zip(cases, runs):
        row = {
            "dsa": kind,
            "opponent": opponent,
            "floor": floor,
            **record.to_dict(),
            "final_z": zs[-1],
            "second_half": late.to_dict(),
        }
        results["weak"].append(row)
        low, high = record.score_interval()
        late_low, late_high = late.score_interval()
        print(
            f"  {kind} floor {floor:>4} vs {opponent:<9} score {record.score:.3f} [{low:.2f}, {high:.2f}], "
            f"second half {late.score:.3f} [{late_low:.2f}, {late_high:.2f}], final z {zs[-1]:+.2f}"
        )


PARTS = {"table1": table1, "fig2": fig2, "table3": table3, "table4": table4, "weak": weak}


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    defaults = Args()
    for name, value in vars(defaults).items():
        parser.add_argument(f"--{name.replace('_', '-')}", type=type(value), default=value)
    parser.add_argument("--quick", action="store_true", help="tiny budgets, to check that the script runs")
    parsed = parser.parse_args()
    args = Args(**{k: v for k, v in vars(parsed).items() if k != "quick"})
    if parsed.quick:
        args.games, args.sweep_games, args.dsa_games, args.repetitions, args.simulations = 4, 2, 4, 1, 30
    if args.game != "connect4" and args.out == Args.out:
        args.out = f"{Args.out}-{args.game}"
    parts = args.parts.split(",")
    unknown = [p for p in parts if p not in Args.parts.split(",")]
    if unknown:
        parser.error(f"unknown part(s) {', '.join(unknown)}: choose from {Args.parts}")
    os.makedirs(args.out, exist_ok=True)
    results = {"environment": environment(args.seed), "args": vars(args)}
    for part in parts:
        PARTS[part](args, results)
        with open(os.path.join(args.out, "results.json.tmp"), "w") as f:
            json.dump(results, f, indent=1)
        os.replace(os.path.join(args.out, "results.json.tmp"), os.path.join(args.out, "results.json"))
    plot(results, args.out, args.game)
    print(f"\nresults and plots in {args.out}")


def plot(results, out, game):
    from matplotlib.figure import Figure

    finite = [z for z in Z_GRID if math.isfinite(z)]
    xs = {fmt(z): (z if math.isfinite(z) else (3.0 if z > 0 else -3.0)) for z in Z_GRID}

    if "table1" not in results:
        return
    fig = Figure(figsize=(6, 4))
    ax = fig.subplots()
    rows = results["table1"]
    ax.plot([xs[r["z"]] for r in rows], [r["elo_vs_inf"] for r in rows], "o-", label="R_th = 0.1")
    fit = results["table1_fit"]
    ax.plot(finite, [fit["slope"] * z + fit["intercept"] for z in finite], "--", label=f"fit, RMSE {fit['rmse']:.0f}")
    ax.set_xticks([xs[fmt(z)] for z in Z_GRID], [fmt(z) for z in Z_GRID])
    ax.set(xlabel="z", ylabel="Elo relative to z = +inf", title=f"{game}: strength against z (Fig. 1 analogue)")
    ax.grid(alpha=0.3)
    ax.legend()
    fig.tight_layout()
    fig.savefig(os.path.join(out, "fig1_z_elo.png"), dpi=120)

    if "fig2" not in results:
        return
    fig = Figure(figsize=(6, 4))
    ax = fig.subplots()
    for rth, rel in results["fig2"].items():
        ax.plot([xs[fmt(z)] for z in Z_GRID], rel, "o-", ms=3, label=f"R_th = {rth}")
    ax.set_xticks([xs[fmt(z)] for z in Z_GRID], [fmt(z) for z in Z_GRID])
    ax.set(xlabel="z", ylabel="Elo relative to z = +inf", title=f"{game}: z curves per R_th (Fig. 2 analogue)")
    ax.grid(alpha=0.3)
    ax.legend(fontsize=8)
    fig.tight_layout()
    fig.savefig(os.path.join(out, "fig2_rth.png"), dpi=120)

    if "table3" not in results:
        return
    fig = Figure(figsize=(6, 4))
    ax = fig.subplots()
    for row in results["table3"]:
        path = np.mean(row["z_paths"], axis=0)
        ax.plot(np.arange(1, len(path) + 1), path, label=f"opponent z = {row['opponent_z']}")
        ax.axhline(row["opponent_z"], color=ax.lines[-1].get_color(), ls=":", lw=0.8)
    ax.set(xlabel="game", ylabel="z (mean over repetitions)", title="Inter-game DSA: z finds the opponent")
    ax.grid(alpha=0.3)
    ax.legend(fontsize=8)
    fig.tight_layout()
    fig.savefig(os.path.join(out, "fig5_inter_z.png"), dpi=120)


if __name__ == "__main__":
    main()
