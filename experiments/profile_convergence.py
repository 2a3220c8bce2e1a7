"""How a person's profile converges: scripted "people" of fixed strength play the adaptive opponent.

Each person is an MCTS of a fixed budget (weak: 20 simulations a move, medium: 100, strong: 1000)
playing through the same API a person's game uses (`tuner.play.Opponent` with a profile in an SQLite
file), alternating seats, against `sparring play`'s default opponent (MCTS, 1000 simulations, Wu et
al.'s inter- and intra-game adjustment of z) or --opponent (e.g. an on-line DDA tuner's,
`mcts:dsa=fixed,dda_tuner=nmc`, with --out elsewhere). The profile is re-opened for every game, as a
person coming back would. We record the opponent's level after each game (the inter-game z where it has
one, else the median z of its moves in the game) and the person's results, and ask: does the level
settle, at one that depends on the person, and does each person's score come near 1/2?

    .venv/bin/python -m experiments.profile_convergence [--games 60] [--repetitions 4] [--seed 0]

Writes results.json (seed, versions, commit) and fig_profile_z.png to --out.
"""

import argparse
import json
import os
from dataclasses import dataclass

import numpy as np
from joblib import Parallel, delayed

from games.rng import derive_seeds
from tuner.agents import check_spec, make_agent
from tuner.play import DEFAULT_SPEC, Opponent, Profiles
from tuner.provenance import environment


@dataclass
class Args:
    games: int = 60  # per person and repetition
    repetitions: int = 4  # independent people of each strength (fresh profiles, other seeds)
    game: str = "connect4"
    opponent: str = DEFAULT_SPEC
    seed: int = 0
    out: str = "experiments/results/profile_convergence"
    workers: int = 1


PEOPLE = {"weak": "mcts:simulations=20", "medium": "mcts:simulations=100", "strong": "mcts:simulations=1000"}


def person_games(args, person: str, repetition: int, path: str) -> dict:
    """One scripted person's games, each through a freshly opened profile; z and the result after each."""
    seed_person, seed_opponent = derive_seeds(args.seed, list(PEOPLE).index(person), repetition, count=2, bits=64)
    name = f"{person}-{repetition}"
    me = make_agent(args.game, PEOPLE[person], seed=seed_person)
    levels, results = [], []
    for k in range(args.games):
        bot = Opponent(args.game, args.opponent, profile=name, profiles=path, seed=seed_opponent + k)
        bot.new_game(human_first=k % 2 == 0)
        me.new_game(seed_person + k, seat=bot.human)
        while not bot.over:
            if bot.human_to_move:  # the person's search finds its place in the game from the history
                bot.move(me.select_action(bot.state))
            else:
                bot.reply()
        levels.append(level(bot))
        results.append({"win": 1.0, "draw": 0.5, "loss": 0.0}[bot.result])
    return {"person": person, "repetition": repetition, "z": levels, "score": results}


def level(bot: Opponent) -> float:
    """The opponent's level after a game: its inter-game z where it has one (inside an on-line DDA tuner's too),
    else the median z of its moves (which stops at the budget's floor, below which the budget halves instead)."""
    adjuster = getattr(bot.adjuster, "inner", bot.adjuster)  # a TunedAdjuster's own adjuster
    inter = getattr(adjuster, "inter", None)
    return inter.z if inter is not None else float(np.median([turn.strength["z"] for turn in bot.turns]))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    for field, default in Args().__dict__.items():
        parser.add_argument(f"--{field}", type=type(default), default=default)
    args = Args(**vars(parser.parse_args()))
    os.makedirs(args.out, exist_ok=True)
    path = os.path.join(args.out, "profiles.sqlite.tmp")
    if os.path.exists(path):
        os.remove(path)
    Profiles(path)  # one file for every person, as one machine's players share it
    runs = Parallel(n_jobs=args.workers, backend="threading")(
        delayed(person_games)(args, person, r, path) for person in PEOPLE for r in range(args.repetitions)
    )
    os.remove(path)
    summary = {}
    target = check_spec(args.game, args.opponent).options.get("dda_target", 0.5)  # the person's score aimed at
    for person in PEOPLE:
        z = np.array([run["z"] for run in runs if run["person"] == person])
        score = np.array([run["score"] for run in runs if run["person"] == person])
        half = args.games // 2
        summary[person] = {
            "spec": PEOPLE[person],
            "z_after_game": z.mean(axis=0).round(4).tolist(),
            "z_final_mean": round(float(z[:, -1].mean()), 3),
            "z_final_each": z[:, -1].round(3).tolist(),
            "score_first_half": round(float(score[:, :half].mean()), 3),
            "score_second_half": round(float(score[:, half:].mean()), 3),
            # each person's own: a pooled score hides misses of opposite signs
            "score_second_half_each": score[:, half:].mean(axis=1).round(3).tolist(),
            "miss_second_half": round(float(np.abs(score[:, half:].mean(axis=1) - target).mean()), 3),
        }
        s = summary[person]
        print(
            f"{person:<7} ({PEOPLE[person]}): z after {args.games} games {s['z_final_each']}, "
            f"person's score {s['score_first_half']:.2f} in the first half, {s['score_second_half']:.2f} in the "
            f"second (each {s['score_second_half_each']}, mean |score - {target:g}| {s['miss_second_half']:.3f})"
        )
    with open(os.path.join(args.out, "results.json"), "w") as f:
        json.dump(
            {
                "args": vars(args),
                "people": PEOPLE,
                "summary": summary,
                "runs": runs,
                "environment": environment(args.seed),
            },
            f,
            indent=1,
        )
    plot(args, runs)


def plot(args, runs) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(7, 4))
    for person, colour in zip(PEOPLE, ("tab:green", "tab:blue", "tab:red")):
        for i, run in enumerate(r for r in runs if r["person"] == person):
            ax.plot(
                range(1, args.games + 1),
                run["z"],
                color=colour,
                alpha=0.7,
                label=f"{person} ({PEOPLE[person]})" if i == 0 else None,
            )
    ax.axhline(0, color="grey", lw=0.5)
    ax.set_xlabel("games played with the profile")
    ax.set_ylabel("the opponent's level z (inter-game, or its moves' median)")
    ax.set_title(f"{args.game}: {args.opponent} learning scripted people (seed {args.seed})")
    ax.legend(fontsize=8)
    fig.tight_layout()
    fig.savefig(os.path.join(args.out, "fig_profile_z.png"), dpi=120)


if __name__ == "__main__":
    main()
