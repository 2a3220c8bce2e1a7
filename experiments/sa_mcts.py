"""On-line parameter tuning (Sironi, Liu, Winands, 002_e8212c0f21d8b4d0.txt): Tables II, III and V over the game set.

- Table II: SP tuning C and epsilon on-line with each allocation strategy, against SP with the
  defaults (off-line tuned: C = 0.2, epsilon = 0.4).
- Table III: AP tuning K and Ref, then K, Ref, C and epsilon, against AP with the defaults.
- Table V: SP and AP tuning with NTBEA against the same agent whose tuned parameters are drawn
  uniformly from Table I's discrete domains before each game.
Every match is seat-balanced (with three players, every assignment of the two agents to the roles as often: the games
rounded up to a multiple of 6), with 95% intervals. Each match is saved as it finishes and a run resumes where it
stopped: run the same command again (a finished match is never replayed; its seed comes from its name). `--report`
writes tables.md from what is saved: each cell beside the paper's, and the "overall" rows.

    .venv/bin/python -m experiments.sa_mcts [--quick] [--simulations 1000] [--games 200] [--seed 0]
        [--set tictactoe3d,breakthrough,...] [--tables 2,3,5] [--workers 1] [--out DIR] [--report]
"""

import argparse
import json
import os
import sys
import time
import zlib
from dataclasses import asdict, dataclass

import numpy as np
from joblib import Parallel, delayed
from tqdm import tqdm

import games
from search.mcts import COLUMNS
from tuner.agents import make_agent
from tuner.match import Record, assignments, play_game, play_match
from tuner.provenance import commit, environment
from tuner.strategies import SA_MCTS_TABLE_I

# the paper's 14 games in its order, with ours
PAPER_GAMES = {
    "3DTicTacToe": "tictactoe3d",
    "Breakthrough": "breakthrough",
    "Knightthrough": "knightthrough",
    "Chinook": "chinook",
    "ChineseCheckers3": "chinesecheckers3",
    "Checkers": "checkers",
    "Connect5": "connect5",
    "Quad": "quad",
    "SheepAndWolf": "sheepandwolf",
    "TTCC4-2P": "ttcc4_2p",
    "TTCC4-3P": "ttcc4_3p",
    "Connect4": "connect4",
    "Pentago": "pentago_ggp",
    "Reversi": "othello",
}
# ours that play one of them under other rules, compared with its values all the same where a run plays them (not by
# default): OpenSpiel's Pentago, where a marble and its turn are one move, judged after the turn
OTHER_RULES = {"pentago": "Pentago"}
STRATEGIES = ["nmc", "lsi", "ea", "ntbea", "cmaes", "grid", "random"]  # the paper's five, then two baselines
# The paper's win % of the tuned agent / half its 95% interval: Table II (SP, C+eps) and Table III (AP, K+Ref;
# AP, K+Ref+C+eps) per strategy NMC LSI EA NTBEA CMA-ES; Table V per agent SP-2 AP-2 AP-4 (its AP-6 not played here).
# '-': not printed in the paper (Table III's four-parameter LSI on Knightthrough).
PAPER = """
II 3DTicTacToe 42.9/4.18 48.9/4.12 43.6/4.16 48.0/4.13 42.9/4.11
II Breakthrough 61.0/4.28 51.2/4.39 51.0/4.39 61.0/4.28 35.6/4.20
II Knightthrough 48.0/4.38 35.2/4.19 40.0/4.30 48.8/4.39 20.8/3.56
II Chinook 39.4/3.41 40.6/3.50 56.1/3.58 65.7/3.37 58.9/3.51
II ChineseCheckers3 45.0/4.35 40.7/4.29 44.6/4.34 46.8/4.36 42.5/4.32
II Checkers 69.4/3.83 47.6/4.17 70.9/3.79 74.6/3.63 48.7/4.17
II Connect5 39.6/3.24 45.9/3.37 45.6/3.42 46.0/3.28 42.0/3.51
II Quad 37.5/4.04 81.2/3.22 50.9/4.10 43.8/4.12 58.0/4.11
II SheepAndWolf 44.0/4.36 52.2/4.38 47.0/4.38 44.4/4.36 49.2/4.39
II TTCC4-2P 69.0/3.97 60.9/4.24 70.9/3.88 73.3/3.80 57.1/4.28
II TTCC4-3P 48.2/4.28 45.7/4.23 45.8/4.26 44.4/4.20 46.1/4.26
II Connect4 51.1/4.21 79.7/3.36 62.8/4.06 58.3/4.11 71.9/3.77
II Pentago 63.0/4.16 63.2/4.10 66.2/4.04 69.8/3.90 63.5/4.13
II Reversi 49.3/4.32 41.6/4.23 55.5/4.31 48.8/4.32 44.1/4.29
III2 3DTicTacToe 47.2/4.1 42.0/4.0 52.0/4.13 46.0/4.11 41.5/4.0
III2 Breakthrough 51.4/4.39 40.8/4.31 47.8/4.38 48.6/4.39 35.2/4.19
III2 Knightthrough 58.0/4.33 49.6/4.39 46.2/4.37 46.8/4.38 47.2/4.38
III2 Chinook 56.6/4.04 55.0/4.11 60.2/3.98 63.5/3.95 65.0/3.88
III2 ChineseCheckers3 52.8/4.36 49.4/4.37 52.6/4.36 51.0/4.37 44.2/4.34
III2 Checkers 44.2/4.06 48.2/4.11 47.8/4.1 47.6/4.13 41.8/4.04
III2 Connect5 44.6/3.12 49.2/3.16 46.2/3.08 45.7/3.05 42.9/3.17
III2 Quad 57.0/4.14 64.3/3.91 60.4/3.99 60.1/4.05 52.2/4.14
III2 SheepAndWolf 50.4/4.39 49.4/4.39 53.2/4.38 52.2/4.38 50.8/4.39
III2 TTCC4-2P 49.2/4.23 52.0/4.25 52.9/4.22 51.5/4.19 44.4/4.22
III2 TTCC4-3P 48.4/4.21 53.0/4.21 49.5/4.26 48.4/4.26 43.0/4.22
III2 Connect4 54.1/4.12 53.3/4.14 55.3/4.15 55.6/4.18 50.8/4.12
III2 Pentago 54.1/4.25 48.5/4.26 56.2/4.17 55.3/4.21 51.9/4.18
III2 Reversi 48.0/4.32 45.2/4.28 47.1/4.28 46.9/4.33 39.4/4.23
III4 3DTicTacToe 39.8/4.05 42.3/4.11 48.7/4.15 39.5/4.08 37.1/4.00
III4 Breakthrough 60.6/4.29 37.2/4.24 59.8/4.30 55.2/4.36 18.2/3.39
III4 Knightthrough 74.2/3.84 - 68.4/4.08 68.2/4.09 28.6/3.96
III4 Chinook 36.7/3.75 24.8/3.55 52.3/4.05 51.0/4.05 48.9/4.17
III4 ChineseCheckers3 36.9/4.22 36.1/4.20 39.5/4.27 42.7/4.32 40.3/4.29
III4 Checkers 37.8/3.91 19.7/3.28 42.4/4.00 40.4/4.06 30.2/3.84
III4 Connect5 30.7/3.11 40.3/3.27 29.1/2.95 28.6/3.07 20.3/2.68
III4 Quad 37.9/4.04 75.6/3.56 35.3/3.98 51.9/4.21 45.9/4.09
III4 SheepAndWolf 45.2/4.37 49.0/4.39 47.6/4.38 44.8/4.36 47.4/4.38
III4 TTCC4-2P 44.6/4.25 22.6/3.60 45.4/4.25 49.7/4.20 34.4/4.08
III4 TTCC4-3P 40.4/4.17 47.3/4.24 43.2/4.21 43.1/4.18 45.4/4.26
III4 Connect4 42.9/4.17 59.1/4.18 50.1/4.19 46.8/4.20 49.4/4.24
III4 Pentago 38.8/4.07 48.8/4.22 41.7/4.16 43.5/4.15 41.2/4.16
III4 Reversi 39.8/4.24 27.1/3.83 42.9/4.28 45.1/4.33 34.9/4.12
V 3DTicTacToe 58.4/4.11 59.3/4.06 65.4/3.94
V Breakthrough 80.6/3.47 65.2/4.18 88.4/2.81
V Knightthrough 80.6/3.47 55.0/4.37 87.2/2.93
V Chinook 77.8/2.83 62.8/3.91 77.1/3.43
V ChineseCheckers3 54.5/4.35 56.0/4.34 58.1/4.31
V Checkers 78.9/3.34 59.1/4.10 74.7/3.57
V Connect5 62.4/3.30 58.5/3.19 46.5/3.73
V Quad 41.4/4.12 60.6/4.02 54.6/4.21
V SheepAndWolf 53.6/4.38 51.8/4.38 47.6/4.38
V TTCC4-2P 77.1/3.63 62.8/4.10 78.8/3.47
V TTCC4-3P 52.4/4.24 56.6/4.24 50.8/4.29
V Connect4 44.6/4.20 65.6/4.02 52.6/4.23
V Pentago 60.3/4.01 61.1/4.15 55.4/4.13
V Reversi 63.1/4.15 56.2/4.27 58.1/4.28
"""
# The parts of the tables: (paper part, agent, tuned parameters, strategies); Table V's agent tunes with NTBEA
PARTS = {
    "2": [("II", "sp", "C+eps", STRATEGIES)],
    "3": [("III2", "ap", "K+Ref", STRATEGIES), ("III4", "ap", "K+Ref+C+eps", STRATEGIES)],
    "5": [("V", "sp", "C+eps", ["ntbea"]), ("V", "ap", "K+Ref", ["ntbea"]), ("V", "ap", "K+Ref+C+eps", ["ntbea"])],
}
TITLES = {
    "II": "Table II: SP tuning C and eps on-line against SP with the defaults",
    "III2": "Table III, first part: AP tuning K and Ref on-line against AP with the defaults",
    "III4": "Table III, second part: AP tuning K, Ref, C and eps on-line against AP with the defaults",
    "V": "Table V: tuning with NTBEA against the same agent with the tuned parameters drawn at random each game",
}
QUICK_SET = "connect4,chinesecheckers3"


@dataclass
class Args:
    simulations: int = 1000  # per move (the paper plays 1 s per move in GGP, with far slower simulations)
    games: int = 200  # per match
    seed: int = 0
    workers: int = 1
    out: str = "experiments/results/sa_mcts/game-set"
    set: str = ",".join(PAPER_GAMES.values())
    tables: str = "2,3,5"


@dataclass(frozen=True)
class Job:
    """One match: `agent` tuning `tune` on-line with `strategy` (A) against the same agent with its defaults (B); in
    Table V, against the same agent with the tuned parameters drawn before each game (B)."""

    part: str
    game: str
    agent: str
    tune: str
    strategy: str

    @property
    def name(self) -> str:
        return f"{self.part}/{self.game}/{self.agent}/{self.tune}/{self.strategy}"

    def seed(self, base: int) -> int:
        """The match's seed, from its name: a resumed run plays the same match whatever ran before it."""
        return base + zlib.crc32(self.name.encode()) % 1_000_000


def paper_values() -> dict:
    """PAPER as {(part, paper game): [(win %, half-width) or None]}."""
    values = {}
    for line in PAPER.strip().splitlines():
        part, game, *cells = line.split()
        values[part, game] = [None if c == "-" else tuple(map(float, c.split("/"))) for c in cells]
    return values


def paper_cell(values, part, paper_game, agent, tune, strategy):
    """The paper's (win %, half-width) for one of our cells, or None (grid and random are ours)."""
    row = values[part, paper_game]
    if part == "V":
        return row[[("sp", "C+eps"), ("ap", "K+Ref"), ("ap", "K+Ref+C+eps")].index((agent, tune))]
    return row[STRATEGIES.index(strategy)] if STRATEGIES.index(strategy) < 5 else None


def match_games(args, game) -> int:
    """The games of a match: args.games, rounded up to whole rounds of the role assignments with three players."""
    per_round = len(assignments(games.load(game).players))
    return -(-args.games // per_round) * per_round if per_round > 2 else args.games


def tuned_match(args, job, seed) -> Record:
    fixed = f"{job.agent}:simulations={args.simulations}"
    tuned = f"{fixed},tuner={job.strategy},tune={job.tune}"
    return play_match(job.game, tuned, fixed, games=match_games(args, job.game), seed=seed).total


def randomized_match(args, job, seed) -> Record:
    """Table V: tuning `job.tune` with `job.strategy` (A) against the agent whose tuned parameters are drawn
    uniformly from Table I's discrete domains before each game, one draw for all its roles and rows (B)."""
    g = games.load(job.game)
    fixed = f"{job.agent}:simulations={args.simulations}"
    per_side = g.players - 1
    tuned = [make_agent(g, f"{fixed},tuner={job.strategy},tune={job.tune}", seed=seed + k) for k in range(per_side)]
    drawn = [make_agent(g, fixed, seed=seed + per_side + k) for k in range(per_side)]
    draws = np.random.default_rng(seed)
    record = Record()
    for i in range(match_games(args, job.game)):
        values = {name: draws.choice(SA_MCTS_TABLE_I[name].values) for name in job.tune.split("+")}
        for agent in drawn:
            for row in agent.search.params:  # the agent's own row and its rows for the other players
                for name, value in values.items():
                    row[COLUMNS[name]] = value
        record.add(play_game(g, tuned, drawn, seed, i).outcome)
    return record


def play(args, job) -> dict:
    """A match's saved line: the job, its seed, the commit that played it, its seconds and A's record."""
    seed = job.seed(args.seed)
    start = time.perf_counter()
    record = (randomized_match if job.part == "V" else tuned_match)(args, job, seed)
    seconds = round(time.perf_counter() - start, 1)
    return {**asdict(job), "seed": seed, "commit": commit(), "seconds": seconds, **record.to_dict()}


def jobs_of(args) -> list[Job]:
    """Every match the arguments ask for: Table II's (the paper's main table), then V's, then III's."""
    order = [t for t in ("2", "5", "3") if t in args.tables.split(",")]
    return [
        Job(part, game, agent, tune, strategy)
        for table in order
        for part, agent, tune, strategies in PARTS[table]
        for game in args.set.split(",")
        for strategy in strategies
    ]


def load(path, args) -> dict:
    """The saved run at `path`, or a new one; ValueError in one line if it was played with other settings."""
    settings = {"simulations": args.simulations, "games": args.games, "seed": args.seed}
    if not os.path.exists(path):
        return {"settings": settings, "runs": [], "matches": []}
    with open(path) as f:
        saved = json.load(f)
    if "settings" not in saved:
        raise ValueError(f"{path} was written by an older version of this script (no settings): give another --out")
    if saved["settings"] != settings:
        raise ValueError(f"{path} holds a run with {saved['settings']}: give those to resume it, or another --out")
    return saved


def save(results, path):
    """Write the results so far (a crash keeps every finished match), atomically."""
    with open(path + ".tmp", "w") as f:
        json.dump(results, f, indent=1)
    os.replace(path + ".tmp", path)


def line(match) -> str:
    """A finished match in one line, as the run prints it."""
    low, high = match["score_ci95"]
    job = f"{match['part']} {match['game']} {match['agent']}-{match['strategy']} {match['tune']}"
    wdl = f"{match['wins']:>4}-{match['draws']}-{match['losses']:<4}"
    return f"  {job:<44} {wdl} score {match['score']:.3f} [{low:.2f}, {high:.2f}]"


def verdict(value, half) -> str:
    """'+', '-' or '=': the tuned agent better than the default, worse, or not told apart at 95%."""
    return "+" if value - half > 50 else "-" if value + half < 50 else "="


def report(results) -> str:
    """tables.md: our score in % (± half its 95% interval) beside the paper's win % in brackets, per game; the
    overall row (mean over our games, the paper's over the same games); how often the two agree."""
    values = paper_values()
    ours = {(m["part"], m["game"], m["agent"], m["tune"], m["strategy"]): m for m in results["matches"]}
    lines = []
    for table in ("2", "3", "5"):
        for part, agent, tune, strategies in PARTS[table]:
            rows, cells = [], []  # cells: (column, our score, our half-width, paper's (win, half) or None)
            for paper_game, game in [*PAPER_GAMES.items(), *((p, g) for g, p in OTHER_RULES.items())]:
                played = [(s, ours.get((part, game, agent, tune, s))) for s in strategies]
                if not any(m for _, m in played):
                    continue
                texts = []
                for strategy, m in played:
                    theirs = paper_cell(values, part, paper_game, agent, tune, strategy)
                    if m is None:
                        texts.append("-")
                        continue
                    low, high = (100 * x for x in m["score_ci95"])
                    cells.append((strategy, 100 * m["score"], (high - low) / 2, theirs))
                    texts.append(
                        f"{100 * m['score']:.0f} ±{(high - low) / 2:.0f}" + (f" ({theirs[0]:.0f})" if theirs else "")
                    )
                rows.append(f"| {game} | {' | '.join(texts)} |")
            if not rows:
                continue
            overall = []
            for strategy in strategies:
                mine = [c for c in cells if c[0] == strategy]
                paired = [c[3][0] for c in mine if c[3]]
                text = f"{np.mean([c[1] for c in mine]):.1f}" if mine else "-"
                overall.append(text + (f" ({np.mean(paired):.1f})" if paired else ""))
            theirs = []  # the paper's mean over its 14 games
            for strategy in strategies:
                known = [c[0] for pg in PAPER_GAMES if (c := paper_cell(values, part, pg, agent, tune, strategy))]
                theirs.append(f"{np.mean(known):.1f}" if known else "-")
            compared = [c for c in cells if c[3]]
            inside = sum(abs(score - theirs[0]) <= half for _, score, half, theirs in compared)
            same = sum(verdict(score, half) == verdict(*theirs) for _, score, half, theirs in compared)
            label = {"V": f"{agent.upper()} tuning {tune} with NTBEA"}.get(part, f"{agent.upper()} tuning {tune}")
            lines += [f"### {TITLES[part]} ({label})", "", f"| game | {' | '.join(strategies)} |"]
            lines += ["|---|" + "---:|" * len(strategies), *rows, f"| overall | {' | '.join(overall)} |"]
            lines += [f"| paper, its 14 games | {' | '.join(theirs)} |", ""]
            if compared:
                lines += [
                    f"Paper's value inside our 95% interval in {inside} of {len(compared)} cells; the same verdict "
                    f"against its opponent (better, worse, not told apart at 95%) in {same} of {len(compared)}.",
                    "",
                ]
    return "\n".join(lines)


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    for name, value in vars(Args()).items():
        parser.add_argument(f"--{name}", type=type(value), default=value)
    parser.add_argument("--quick", action="store_true", help=f"tiny budgets on {QUICK_SET}, to check that it runs")
    parser.add_argument("--report", action="store_true", help="only write tables.md from the saved matches")
    parsed = parser.parse_args()
    args = Args(**{k: v for k, v in vars(parsed).items() if k not in ("quick", "report")})
    if parsed.quick:
        args.simulations, args.games, args.set = 20, 2, QUICK_SET
    unknown = sorted(set(args.set.split(",")) - set(games.names()))
    if unknown or not set(args.tables.split(",")) <= set(PARTS):
        parser.error(
            f"--set names unknown games {unknown}" if unknown else "--tables takes 2, 3 and 5, comma-separated"
        )
    path = os.path.join(args.out, "results.json")
    try:
        results = load(path, args)
    except ValueError as e:
        parser.error(str(e))
    os.makedirs(args.out, exist_ok=True)
    if not parsed.report:
        done = {Job(*(m[k] for k in ("part", "game", "agent", "tune", "strategy"))) for m in results["matches"]}
        todo = [job for job in jobs_of(args) if job not in done]
        results["runs"].append({**environment(args.seed), "args": vars(args), "matches": len(todo)})
        bar = tqdm(total=len(todo), desc="matches", unit="match", file=sys.stderr, disable=None)
        lines = Parallel(n_jobs=args.workers, return_as="generator_unordered")(delayed(play)(args, j) for j in todo)
        for match in lines:
            results["matches"].append(match)
            save(results, path)
            bar.write(line(match))
            bar.update(1)
        bar.close()
    with open(os.path.join(args.out, "tables.md"), "w") as f:
        f.write(report(results))
    print(f"results in {path}, tables in {os.path.join(args.out, 'tables.md')}")


if __name__ == "__main__":
    main()
