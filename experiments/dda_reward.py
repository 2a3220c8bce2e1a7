"""The on-line DDA tuner's reward judged on synthetic matches (issue 31): does each strategy find a fair setting,
and hold the score at the aim, under search.tuned's reward?

    .venv/bin/python -m experiments.dda_reward [--seeds 5] [--games 100] [--pulls 0.1 0.2 0.3] [--steps 0.03 0.05 0.1]
        [--sweep-noise 0.1] [--noises 0 0.05 0.1 0.2]

per move: a match of --games games of 17 moves from an expected score of 0.5; each reply of the opponent hands the
agent `gain` (plus noise, sd 0.03), the agent's move at softmax level z gives up 0.2 / (1 + exp(z + 2)), and the result
is drawn from the final value. Over games 51-100: |score - aim| (averaged over the gains and targets, and the worst),
and the share of moves at a level within 0.02 of the gain (a fair level: it gives back what the reply handed over).
The tuner reads the value with N(0, noise) added (a judge errs). Run for each PULL and STEP of search.tuned (set
for the run) at --sweep-noise, every strategy, --seeds seeds; then at the shipped PULL and STEP for each of --noises,
under search.tuned's rule (a round of two moves told the product of its misses) and the one it replaced (each move
told 1 - tanh(|miss| / STEP)): which holds the score nearer the aim as the judge grows noisier.
per game: three settings winning 0.1, 0.5 and 0.9 of games, aim 0.5, 300 games: the share of games 101-300 played at
the fair one, and the score.
Writes experiments/results/dda_reward/dda_reward.md with the seeds, versions and commit.
"""

import argparse
import math
import time
from pathlib import Path

import numpy as np

import games
import search.tuned as tuned
from search.mcts import SearchResult
from search.strength import Level
from tuner.agents import check_spec
from tuner.agents.adjusters import ADJUSTERS, DDA_SETTINGS, tuner_space
from tuner.provenance import environment
from tuner.strategies import NAMES, Param, Space, make_strategy

OUT = Path("experiments/results/dda_reward")
CASES = ((0.1, 0.5), (0.05, 0.5), (0.02, 0.5), (0.1, 0.3), (0.05, 0.7), (0.08, 0.6))  # (gain, target)
MOVES = 17  # one player's moves in a Connect4 game (games.load("connect4").own_moves)
STRATEGIES = [s for s in NAMES if s not in ("grid", "random")]


class Position:
    """What the tuner reads of a state: whose turn (seat 0), and how many plies were played."""

    def __init__(self, plies: int):
        self.plies = plies

    def current_player(self):
        return 0

    def history(self):
        return [0] * self.plies


def given_up(z: float) -> float:
    return 0.2 / (1 + math.exp(min(z, 50) + 2))


class Judged(Level):
    """A softmax level with a judge of its own (`balance`: what `read()` gives), as AlphaDDA has its clean value."""

    def __init__(self, read):
        super().__init__()
        self.read = read

    def balance(self, state):
        return self.read()


class PerMove(tuned.TunedAdjuster):
    """The rule search.tuned replaced (until commit 97f3a8a), kept to compare: each move's setting told at once,
    1 - tanh(|miss| / STEP)."""

    def _judge(self, seat, score):
        if self.per == "move" and self.asked[seat] is not None and self.judged[seat] is not None:
            self._tell(seat, 1.0 - math.tanh(abs(tuned.miss(self.judged[seat], score, self.aim)) / tuned.STEP))
        self.judged[seat] = score


def make_tuned(kind, space, seed, target, per, budget=200, inner=None, rule="round", extra=None):
    """search.tuned's TunedAdjuster (rule "round"; "move": PerMove) over a softmax level (`inner`, else one
    judged by its search), `kind` per seat (LSI with `budget`), with the strategy's settings `extra` on top of the
    agents' own."""
    settings = {"budget": budget} if kind == "lsi" else {}
    settings.update(DDA_SETTINGS.get(kind, {}))  # as the agents' tuners are built (tuner.agents.adjusters)
    settings.update(extra or {})
    make = lambda s: make_strategy(space, kind, seed=s, **settings)  # noqa: E731
    cls = tuned.TunedAdjuster if rule == "round" else PerMove
    return cls(inner or Level(), make, space.names, (seed, seed + 1), target=target, per=per)


def per_move(
    kind: str, gain: float, target: float, games_: int, seed: int, rule: str = "round", noise: float = 0.0, extra=None
) -> tuple[float, float]:
    """(score - aim over the second half of the match, share of its moves at a fair level); the tuner reads the
    value, plus N(0, noise), as its clean value and tells it by `rule`."""
    game = games.load("connect4")
    space = tuner_space(ADJUSTERS["fixed"], game, check_spec(game, "mcts:dsa=fixed,dda_tuner=nmc").options)
    rng = np.random.default_rng(seed)
    value = 0.5

    def read() -> float:
        return min(1.0, max(0.0, value + rng.normal(0, noise))) if noise else value

    adjuster = make_tuned(kind, space, seed, target, "move", inner=Judged(read), rule=rule, extra=extra)
    results, fair = [], []
    for g in range(games_):
        adjuster.new_game()
        value = 0.5
        for m in range(MOVES):
            position = Position(2 * m)
            adjuster.before_search(position)
            adjuster.after_search(position, SearchResult(np.array([0]), np.array([1.0]), np.array([0.0]), 1, 0.0))
            z = adjuster.inner.z
            if g >= games_ // 2:
                fair.append(abs(given_up(z) - gain) <= 0.02)
            value = min(1.0, max(0.0, value - given_up(z) + gain + rng.normal(0, 0.03)))
        won = rng.random() < value
        adjuster.game_over([1.0, -1.0] if won else [-1.0, 1.0], 0)
        results.append(float(won))
    return float(np.mean(results[games_ // 2 :])) - (1 - target), float(np.mean(fair))


def per_game(kind: str, seed: int) -> tuple[float, float]:
    """(share of games 101-300 at the setting winning half its games, score over them)."""
    space = Space([Param("z", (0.1, 0.5, 0.9), 0.1, 0.9, 0.5)])  # z here is the setting's win rate
    adjuster = make_tuned(kind, space, seed, 0.5, "game", budget=40)
    rng = np.random.default_rng(seed)
    played, results = [], []
    for _ in range(300):
        adjuster.new_game()
        adjuster.before_search(Position(0))
        rate = adjuster.inner.z
        won = rng.random() < rate
        adjuster.game_over([1.0, -1.0] if won else [-1.0, 1.0], 0)
        played.append(abs(rate - 0.5) < 0.2)  # nearest to 0.5 (CMA-ES plays between the values)
        results.append(float(won))
    return float(np.mean(played[100:])), float(np.mean(results[100:]))


def summary(kind: str, args, rule: str, noise: float, extra=None) -> str:
    """One cell: mean |score - aim| over the cases / the worst / share of moves at a fair level."""
    seeds = range(1, args.seeds + 1)
    runs = [[per_move(kind, g, t, args.games, s, rule, noise, extra) for s in seeds] for g, t in CASES]
    offs = [abs(np.mean([o for o, _ in r])) for r in runs]
    fair = np.mean([f for r in runs for _, f in r])
    return f"{np.mean(offs):.3f} / {max(offs):.2f} / {fair:.0%}"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--seeds", type=int, default=5, help="seeds per case (5)")
    parser.add_argument("--games", type=int, default=100, help="games per per-move match (100)")
    parser.add_argument("--pulls", type=float, nargs="+", default=[0.1, 0.2, 0.3], help="PULL values tried")
    parser.add_argument("--steps", type=float, nargs="+", default=[0.03, 0.05, 0.1], help="STEP values tried")
    parser.add_argument("--sweep-noise", type=float, default=0.1, help="the judge's noise in the PULL, STEP sweep")
    parser.add_argument("--noises", type=float, nargs="+", default=[0, 0.05, 0.1, 0.2], help="judge noises tried")
    parser.add_argument("--out", type=Path, default=OUT, help=f"folder of dda_reward.md ({OUT})")
    args = parser.parse_args()
    start = time.time()
    chosen = (tuned.PULL, tuned.STEP)
    lines = [
        "# The on-line DDA tuner's reward on synthetic matches",
        "",
        f"`{' '.join(['python -m experiments.dda_reward', '--seeds', str(args.seeds), '--games', str(args.games)])}`"
        f" (pulls {args.pulls}, steps {args.steps}, sweep noise {args.sweep_noise}, noises {args.noises});"
        f" search.tuned ships PULL {chosen[0]}, STEP {chosen[1]}.",
        "",
        f"Per move, search.tuned's rule, judge noise {args.sweep_noise}: mean |score - aim| over 6 gains and targets"
        " / the worst / share of moves at a fair level.",
        "",
        "| PULL | STEP | " + " | ".join(STRATEGIES) + " |",
        "|---|---|" + "---|" * len(STRATEGIES),
    ]
    for pull in args.pulls:
        for step in args.steps:
            tuned.PULL, tuned.STEP = pull, step
            cells = [summary(kind, args, "round", args.sweep_noise) for kind in STRATEGIES]
            lines.append(f"| {pull} | {step} | " + " | ".join(cells) + " |")
            print(lines[-1], flush=True)
    tuned.PULL, tuned.STEP = chosen
    lines += ["", "Per move at the shipped PULL and STEP, by the judge's noise: a round of two moves (search.tuned)"]
    lines += ["against each move told 1 - tanh(|miss| / STEP) (the rule it replaced):", ""]
    lines += ["| rule | noise | " + " | ".join(STRATEGIES) + " |", "|---|---|" + "---|" * len(STRATEGIES)]
    for noise in args.noises:
        for rule in ("round", "move"):
            cells = [summary(kind, args, rule, noise) for kind in STRATEGIES]
            lines.append(f"| {rule} | {noise} | " + " | ".join(cells) + " |")
            print(lines[-1], flush=True)
    lines += ["", "NMC's UCB constant (c_local and c_global) by the judge's noise, search.tuned's rule: the on-line"]
    lines += [
        f"tuner's {DDA_SETTINGS['nmc']['c_local']} (tuner.agents.adjusters.DDA_SETTINGS) against SA-MCTS's 1:",
        "",
    ]
    lines += ["| C | " + " | ".join(f"noise {n}" for n in args.noises) + " |", "|---|" + "---|" * len(args.noises)]
    for c in (DDA_SETTINGS["nmc"]["c_local"], 1.0):
        cells = [summary("nmc", args, "round", noise, {"c_local": c, "c_global": c}) for noise in args.noises]
        lines.append(f"| {c} | " + " | ".join(cells) + " |")
        print(lines[-1], flush=True)
    lines += ["", "Per game: three settings winning 0.1, 0.5, 0.9; share of games 101-300 at 0.5 / score.", ""]
    lines += ["| strategy | fair setting | score |", "|---|---|---|"]
    for kind in STRATEGIES + ["random"]:
        runs = [per_game(kind, s) for s in range(1, args.seeds + 1)]
        lines.append(f"| {kind} | {np.mean([a for a, _ in runs]):.0%} | {np.mean([b for _, b in runs]):.2f} |")
    env = environment(1)
    lines += ["", f"seeds 1-{args.seeds}, commit {env['commit']}, {env['date']}, {time.time() - start:.0f} s"]
    args.out.mkdir(parents=True, exist_ok=True)
    (args.out / "dda_reward.md").write_text("\n".join(lines) + "\n")
    print("\n".join(lines[-12:]))


if __name__ == "__main__":
    main()
