"""When to pick which sampler: our strategies against Optuna's on small black-box problems, by true regret.

Each sampler runs each problem for `--trials` trials per seed; after 50, 100 and 200 trials (those up to `--trials`)
the regret is the true value of the best trial so far minus the problem's optimum (for the noisy problem the true,
noise-free value of the trial whose observed value is best: the winner's curse counts against the sampler). LSI
plans its phases by its budget, so it runs once per budget. Reported: median and quartiles of the regret over the
seeds, how many seeds each sampler ended better, equal and worse than TPE (the same seed draws the same problem
noise stream), and the sampler's own time per trial (objectives here cost nothing). Every run is kept in
`--out`/runs.jsonl as it finishes, so a killed run resumes where it stopped; `--out`/samplers.md and samplers.png are
written at the end. Timings from a long run drift with whatever else the machine does: `--retime K` times K seeds
per problem and sampler again (run it on an otherwise idle machine), kept in times.jsonl, and the report quotes those.

Problems (each minimised, optimum known):
- mixed: a float, a log float, a stepped int and a categorical (optimum 0 on every sampler's grid);
- discrete: four categorical parameters of 5 values, additive with one pairwise interaction (optimum 0);
- branin: Branin's function on x1 in [-5, 10], x2 in [0, 15] (optimum 0.397887, off the discrete grids);
- mcts: shaped like tuning MCTS on-line: 4 parameters of 3-11 values, a trial's value minus the win rate of 20
  Bernoulli games at a true rate with one interaction (optimum minus 0.75).

    .venv/bin/python -m benchmarks.samplers [--seeds 20] [--trials 200] [--problems mixed,discrete,branin,mcts]
        [--samplers nmc,lsi,ea,ntbea,cmaes,tpe,optuna-cmaes,gp,random] [--out benchmarks/results/samplers] [--retime 3]
"""

from __future__ import annotations

import argparse
import json
import math
import statistics
import time
from pathlib import Path

import numpy as np
import optuna

from benchmarks.common import environment
from tuner.samplers import AllocationSampler

optuna.logging.set_verbosity(optuna.logging.WARNING)
BUDGETS = (50, 100, 200)
MCTS_VALUES = {"C": 9, "eps": 11, "K": 10, "T": 3}  # values per parameter, as SA-MCTS Table I's C, eps, K and a short T


def mixed(trial, rng):
    x = trial.suggest_float("x", -2.0, 2.0)
    lr = trial.suggest_float("lr", 1e-4, 1.0, log=True)
    n = trial.suggest_int("n", 0, 10, step=2)
    kind = trial.suggest_categorical("kind", ["a", "b", "c"])
    value = (x - 1.0) ** 2 + abs(math.log10(lr) + 2.0) + abs(n - 6) / 2 + (kind != "b")
    return value, value


def discrete(trial, rng):
    v = [trial.suggest_categorical(f"p{i}", [0, 1, 2, 3, 4]) for i in range(4)]
    value = abs(v[0] - 3) + abs(v[1] - 1) + 0.5 * abs(v[2] - 4) + 0.5 * abs(v[3] - 2) + 2.0 * (v[0] == 3 and v[1] != 1)
    return value, value


def branin(trial, rng):
    x1, x2 = trial.suggest_float("x1", -5.0, 10.0), trial.suggest_float("x2", 0.0, 15.0)
    b, c = 5.1 / (4 * math.pi**2), 5 / math.pi
    value = (x2 - b * x1**2 + c * x1 - 6) ** 2 + 10 * (1 - 1 / (8 * math.pi)) * math.cos(x1) + 10
    return value, value


def mcts(trial, rng):
    x = {name: trial.suggest_int(name, 0, size - 1) for name, size in MCTS_VALUES.items()}
    rate = 0.75 - 0.02 * abs(x["C"] - 2) - 0.015 * abs(x["eps"] - 4) - 0.01 * abs(x["K"] - 6) - 0.05 * (x["T"] != 0)
    rate -= 0.08 * (x["C"] >= 6 and x["eps"] <= 2)  # one interaction
    return -float(rng.binomial(20, rate)) / 20, -rate  # observed, true


PROBLEMS = {"mixed": (mixed, 0.0), "discrete": (discrete, 0.0), "branin": (branin, 0.397887), "mcts": (mcts, -0.75)}
OURS = ("nmc", "lsi", "ea", "ntbea", "cmaes")
COMMIT = environment(0)["commit"]  # recorded with every run: a resumed benchmark may span commits


def make_sampler(name: str, seed: int, budget: int):
    if name in OURS:
        settings = {"budget": budget} if name == "lsi" else {"population": 10, "elite": 5} if name == "ea" else {}
        return AllocationSampler(name, seed=seed, **settings)
    factories = {
        "tpe": optuna.samplers.TPESampler,
        # its categoricals drawn at random, as its docs say: said once here, not warned of per trial
        "optuna-cmaes": lambda seed: optuna.samplers.CmaEsSampler(seed=seed, warn_independent_sampling=False),
        "gp": optuna.samplers.GPSampler,
        "random": optuna.samplers.RandomSampler,
    }
    return factories[name](seed=seed)


def run(problem: str, sampler: str, seed: int, trials: int) -> dict:
    """One seeded run: the regret at each budget (the true value of the best observed trial so far, less the
    optimum) and the sampler's seconds per trial."""
    objective, optimum = PROBLEMS[problem]
    rng = np.random.default_rng([seed, list(PROBLEMS).index(problem)])
    truth: dict[int, float] = {}

    def observed(trial):
        value, true = objective(trial, rng)
        truth[trial.number] = true
        return value

    study = optuna.create_study(sampler=make_sampler(sampler, seed, trials))
    start = time.perf_counter()
    study.optimize(observed, n_trials=trials)
    seconds = time.perf_counter() - start
    regret, best = {}, (math.inf, 0)
    for t in study.trials:
        best = min(best, (t.value, t.number))
        if t.number + 1 in BUDGETS:
            regret[str(t.number + 1)] = truth[best[1]] - optimum  # str: as the keys read back from JSON
    return {
        "problem": problem,
        "sampler": sampler,
        "seed": seed,
        "trials": trials,
        "regret": regret,
        "seconds_per_trial": seconds / trials,
        "commit": COMMIT,
    }


def runs_wanted(problems, samplers, seeds, trials):
    """(problem, sampler, seed, trials) of every run: LSI once per budget (it plans its phases by it)."""
    for problem in problems:
        for sampler in samplers:
            for seed in range(seeds):
                for budget in [b for b in BUDGETS if b <= trials] if sampler == "lsi" else [trials]:
                    yield problem, sampler, seed, budget


def summary(rows: list[dict], problems, samplers, trials, times: list[dict]) -> list[dict]:
    """Per problem, sampler and budget: the regret's median and quartiles over the seeds, the seeds better, equal
    and worse than TPE's, and the median ms per trial (of `times` where they hold the pair, else of the runs)."""
    out = []
    for problem in problems:
        for sampler in samplers:
            mine = [r for r in rows if r["problem"] == problem and r["sampler"] == sampler]
            for budget in [b for b in BUDGETS if b <= trials]:
                values = [r["regret"][str(budget)] for r in mine if str(budget) in r["regret"]]
                if sampler == "lsi":  # its run planned for this budget
                    values = [r["regret"][str(budget)] for r in mine if r["trials"] == budget]
                if values:
                    q1, med, q3 = np.percentile(values, [25, 50, 75])
                    timed = [r for r in times if r["problem"] == problem and r["sampler"] == sampler] or mine
                    cost = statistics.median(r["seconds_per_trial"] for r in timed) * 1000
                    out.append(
                        {
                            "problem": problem,
                            "sampler": sampler,
                            "trials": budget,
                            "median": med,
                            "q1": q1,
                            "q3": q3,
                            "seeds": len(values),
                            "ms_per_trial": cost,
                            "vs_tpe": against(rows, problem, sampler, budget),
                        }
                    )
    return out


def against(rows: list[dict], problem: str, sampler: str, budget: int, other: str = "tpe") -> tuple | None:
    """(better, equal, worse): the seeds where `sampler`'s regret at `budget` is below, at, above `other`'s."""
    regret = {}
    for r in rows:
        if r["problem"] == problem and r["sampler"] in (sampler, other) and str(budget) in r["regret"]:
            if r["sampler"] != "lsi" or r["trials"] == budget:
                regret[r["sampler"], r["seed"]] = r["regret"][str(budget)]
    seeds = sorted(seed for s, seed in regret if s == sampler and (other, seed) in regret)
    if sampler == other or not seeds:
        return None
    signs = [np.sign(regret[other, seed] - regret[sampler, seed]) for seed in seeds]
    return signs.count(1), signs.count(0), signs.count(-1)


def plot(table: list[dict], problems, samplers, path: Path) -> None:
    from matplotlib.figure import Figure

    fig = Figure(figsize=(4 * len(problems), 3.6))
    for k, problem in enumerate(problems):
        ax = fig.add_subplot(1, len(problems), k + 1)
        for sampler in samplers:
            rows = [r for r in table if r["problem"] == problem and r["sampler"] == sampler]
            if rows:
                ax.plot([r["trials"] for r in rows], [r["median"] for r in rows], marker="o", label=sampler)
        ax.set_title(problem)
        ax.set_xlabel("trials")
        ax.set_ylabel("median regret")
        ax.set_yscale("symlog", linthresh=1e-2)
    fig.axes[0].legend(fontsize=7)
    fig.tight_layout()
    fig.savefig(path, dpi=100)


def retime(path: Path, problems, samplers, seeds: int, trials: int) -> list[dict]:
    """The timings kept in `path`, after timing the first `seeds` seeds of each problem and sampler not yet there
    (LSI at its full budget); none asked and none kept: an empty list."""
    kept = [json.loads(line) for line in path.read_text().splitlines()] if path.exists() else []
    done = {(r["problem"], r["sampler"], r["seed"]) for r in kept}
    wanted = [(p, s, seed) for p in problems for s in samplers for seed in range(seeds) if (p, s, seed) not in done]
    for k, (problem, sampler, seed) in enumerate(wanted):
        row = run(problem, sampler, seed, trials)
        kept.append(row)
        with path.open("a") as f:
            f.write(json.dumps(row) + "\n")
        print(f"[time {k + 1}/{len(wanted)}] {problem} {sampler}: {row['seconds_per_trial'] * 1000:.2f} ms per trial")
    return kept


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--seeds", type=int, default=20, help="seeds per problem and sampler (20)")
    parser.add_argument("--trials", type=int, default=200, help="trials per run (200)")
    parser.add_argument("--problems", default=",".join(PROBLEMS), help="comma-separated problems")
    parser.add_argument(
        "--samplers",
        default=",".join((*OURS, "tpe", "optuna-cmaes", "gp", "random")),
        help="comma-separated samplers: ours and Optuna's (tpe, optuna-cmaes, gp, random)",
    )
    parser.add_argument("--out", default="benchmarks/results/samplers", help="folder for runs.jsonl, .md, .png")
    parser.add_argument("--retime", type=int, default=0, metavar="K", help="time K seeds again (times.jsonl)")
    args = parser.parse_args()
    problems, samplers = args.problems.split(","), args.samplers.split(",")
    known = (*OURS, "tpe", "optuna-cmaes", "gp", "random")
    bad = [p for p in problems if p not in PROBLEMS] + [s for s in samplers if s not in known]
    if bad:
        parser.error(f"unknown problem or sampler: {', '.join(bad)}")
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    log = out / "runs.jsonl"
    rows = [json.loads(line) for line in log.read_text().splitlines()] if log.exists() else []
    done = {(r["problem"], r["sampler"], r["seed"], r["trials"]) for r in rows}
    wanted = [w for w in runs_wanted(problems, samplers, args.seeds, args.trials) if w not in done]
    for k, (problem, sampler, seed, trials) in enumerate(wanted):
        row = run(problem, sampler, seed, trials)
        rows.append(row)
        with log.open("a") as f:  # a killed run resumes from here
            f.write(json.dumps(row) + "\n")
        print(f"[{k + 1}/{len(wanted)}] {problem} {sampler} seed {seed}: regret {row['regret']}", flush=True)
    times = retime(out / "times.jsonl", problems, samplers, args.retime, args.trials)
    table = summary(rows, problems, samplers, args.trials, times)
    env = environment(0)
    timed = f"{args.retime} seeds timed apart" if times else "the runs' own"
    commits = ", ".join(sorted({r.get("commit", "unrecorded") for r in rows}))
    lines = [
        f"# Samplers by true regret ({args.seeds} seeds, {args.trials} trials)",
        "",
        f"seeds 0-{args.seeds - 1}, commit {env['commit']}, optuna {env['versions'].get('optuna')}, {env['date']}; "
        f"ms per trial: the median of {timed}; vs TPE: seeds better / equal / worse than TPE's; runs at commits "
        f"{commits}",
        "",
        "| problem | sampler | trials | median regret | quartiles | vs TPE | ms per trial |",
        "|---|---|---|---|---|---|---|",
    ]
    for r in table:
        versus = "" if r["vs_tpe"] is None else "/".join(map(str, r["vs_tpe"]))
        lines.append(
            f"| {r['problem']} | {r['sampler']} | {r['trials']} | {r['median']:.4g} | "
            f"[{r['q1']:.4g}, {r['q3']:.4g}] | {versus} | {r['ms_per_trial']:.1f} |"
        )
    (out / "samplers.md").write_text("\n".join(lines) + "\n")
    plot(table, problems, samplers, out / "samplers.png")
    print(f"wrote {out / 'samplers.md'} and {out / 'samplers.png'}")


if __name__ == "__main__":
    main()
