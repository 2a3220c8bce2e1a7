"""Regret: strategies scored by the true value of what they recommend, in real studies or on a tabular benchmark.

A strategy's simple regret after a budget is the truth table's best value minus the true value of its
recommendation then (`tuner.study.truth`, `tuner.study.recommend`): zero when it recommends the true
best point, in the objective's units. `regret_curves` reads it off real study folders (the recommendation
after the trials that fit in each budget); `bench` runs the same strategies on the tabular benchmark,
where a trial's games are drawn from the truth table's frequencies instead of played (the idea of
tabular benchmarks such as HPOBench and NAS-Bench), through the same sampler, runner and recommendation
code as a real study, in memory, so that a hundred seeds take minutes rather than days.
"""

from __future__ import annotations

import math
from dataclasses import replace
from pathlib import Path

import numpy as np
import optuna
from joblib import Parallel, delayed

from tuner.study import objective as objectives
from tuner.study.recommend import recommendation
from tuner.study.runner import load, run_trials
from tuner.study.samplers import distributions, make_sampler
from tuner.study.spec import StudyError, StudySpec
from tuner.study.truth import Truth


def problem(spec: StudySpec) -> tuple:
    """What must agree between a truth table and a study scored by it: the game, agent, opponents,
    objective and space, ranges and defaults included (the strategy, seed and budget may differ)."""
    params = tuple((p.name, p.values, p.low, p.high, p.default) for p in spec.space.params)
    return spec.game, spec.agent, tuple(spec.opponents), spec.objective, params, tuple(spec.continuous)


def label(spec: StudySpec) -> str:
    """A strategy with its settings, as the comparisons name it: `ntbea`, or `ea (population=10, elite=5)`
    where settings are given, so that one strategy under two settings is two rows."""
    settings = ", ".join(f"{k}={v}" for k, v in sorted(spec.settings.items()))
    return f"{spec.strategy} ({settings})" if settings else spec.strategy


def check_problem(truth: Truth, spec: StudySpec, where) -> None:
    if problem(truth.spec) != problem(spec):
        raise StudyError(f"{where} tunes another problem than the truth table (game, agent, opponents, objective "
                         "and the parameters' values, ranges and defaults must be the same)")  # fmt: skip


def trials_in(budget: int, spec: StudySpec) -> int:
    """Trials that fit in a budget of `budget` games (at least one)."""
    return max(1, budget // spec.games_per_trial)


def regrets(truth: Truth, spec: StudySpec, trials: list, budgets: list[int]) -> list[float]:
    """The simple regret of the study's recommendation after the trials of each budget (`trials`: the study's
    trials by number; a budget beyond them is scored at the last)."""
    ordered = sorted(trials, key=lambda t: t.number)
    return [truth.regret(recommendation(spec, ordered[: trials_in(b, spec)])) for b in budgets]


def regret_curves(truth: Truth, folders, budgets: list[int], storage: str | None = None) -> dict:
    """Per strategy, per seed, the regret at each budget, read off real study folders (recommendation after
    the first trials of each budget). Studies short of a budget are scored at their last trial and flagged."""
    out: dict[str, dict] = {}
    for folder in folders:
        spec, study = load(folder, storage)
        check_problem(truth, spec, folder)
        trials = study.get_trials(deepcopy=False)
        finished = sum(t.state.name == "COMPLETE" for t in trials)
        entry = out.setdefault(label(spec), {"seeds": [], "regret": [], "short": []})
        entry["seeds"].append(spec.seed)
        entry["regret"].append(regrets(truth, spec, trials, budgets))
        entry["short"].append(finished * spec.games_per_trial < max(budgets))
    return out


def _bench_one(truth: Truth, spec: StudySpec, budgets: list[int]) -> list[float]:
    """One strategy and seed on the tabular benchmark: the regret at each budget."""
    optuna.logging.set_verbosity(optuna.logging.WARNING)
    target = trials_in(max(budgets), spec)
    direction = "maximize" if objectives.MAXIMISED[spec.objective] else "minimize"
    study = optuna.create_study(sampler=make_sampler(spec), direction=direction)
    dists = distributions(spec)
    for _ in range(target):
        run_trials(study, spec, dists, target, 1, play=truth.play)
    return regrets(truth, spec, study.get_trials(deepcopy=False), budgets)


def bench(truth: Truth, folders, seeds: int, budgets: list[int], workers: int = 1, progress=None) -> dict:
    """Each compared study's strategy (with its settings) on the tabular benchmark over `seeds` seeds (0, 1,
    ...): per strategy, the regret at each budget per seed. Seeded and reproducible: the same arguments give
    the same numbers."""
    strategies: dict[str, StudySpec] = {}
    for folder in folders:
        spec = StudySpec.load(folder)
        check_problem(truth, spec, folder)
        strategies.setdefault(label(spec), spec)
    jobs = [(name, seed) for name in strategies for seed in range(seeds)]

    def job(name, seed):
        return _bench_one(truth, replace(strategies[name], seed=seed), budgets)  # the study's own spec

    results = Parallel(n_jobs=workers, return_as="generator")(delayed(job)(name, seed) for name, seed in jobs)
    out: dict[str, dict] = {name: {"seeds": [], "regret": [], "short": []} for name in strategies}
    for (name, seed), regret in zip(jobs, results):
        out[name]["seeds"].append(seed)
        out[name]["regret"].append(regret)
        out[name]["short"].append(False)
        if progress is not None:
            progress.update(1)
    return out


def t_quantile(n: int) -> float:
    """Student's t 97.5% quantile for a mean of n values (4.30 for 3 seeds, 1.98 for 100)."""
    from scipy.stats import t

    return float(t.ppf(0.975, n - 1))


def summarise(curves: dict, budgets: list[int]) -> list[dict]:
    """Per strategy and budget: mean regret over seeds with a 95% interval (Student's t, from the seeds' spread)."""
    rows = []
    for name, entry in sorted(curves.items()):
        table = np.array(entry["regret"], dtype=float)
        n = table.shape[0]
        for j, budget in enumerate(budgets):
            mean = float(table[:, j].mean())
            half = t_quantile(n) * float(table[:, j].std(ddof=1)) / math.sqrt(n) if n > 1 else math.nan
            rows.append({"strategy": name, "budget": budget, "seeds": n, "regret": mean,
                         "ci95": [mean - half, mean + half], "zero": float((table[:, j] == 0).mean())})  # fmt: skip
    return rows


def plot(rows: list[dict], budgets: list[int], path: Path, title: str) -> None:
    from matplotlib.figure import Figure

    fig = Figure(figsize=(9, 4))
    ax = fig.subplots()
    names = sorted({r["strategy"] for r in rows})
    for i, name in enumerate(names):
        mine = [r for r in rows if r["strategy"] == name]
        mean = [r["regret"] for r in mine]
        low, high = [r["ci95"][0] for r in mine], [r["ci95"][1] for r in mine]
        color, style = f"C{i % 10}", ("-", "--", ":")[i // 10 % 3]
        ax.plot(budgets, mean, marker="o", color=color, linestyle=style, label=f"{name} ({mine[0]['seeds']} seeds)")
        ax.fill_between(budgets, low, high, color=color, alpha=0.1)
    ax.set_xscale("log")
    ax.set_xticks(budgets, [str(b) for b in budgets])
    ax.set_xlabel("games spent")
    ax.set_ylabel("simple regret of the recommendation")
    ax.set_title(title, fontsize=9)
    ax.legend(fontsize=8, loc="upper left", bbox_to_anchor=(1.01, 1))
    fig.tight_layout()
    fig.savefig(path, dpi=110)


def significance(curves: dict, budget_index: int) -> dict[str, float]:
    """Per strategy, Welch's t-test p-value of its regret at one budget against the strategy with the lowest
    mean there (nan for that strategy itself): which differences the seeds can tell apart."""
    from scipy.stats import ttest_ind

    means = {name: np.mean([r[budget_index] for r in e["regret"]]) for name, e in curves.items()}
    best = min(means, key=means.get)
    ref = [r[budget_index] for r in curves[best]["regret"]]
    out = {}
    for name, entry in curves.items():
        mine = [r[budget_index] for r in entry["regret"]]
        same = name == best or (np.ptp(mine) == 0 and np.ptp(ref) == 0 and mine[0] == ref[0])
        out[name] = math.nan if same else float(ttest_ind(mine, ref, equal_var=False).pvalue)
    return out


def write(curves: dict, budgets: list[int], out: Path, name: str, title: str, truth: Truth) -> Path:
    """Write OUT/NAME.md (a table of regret per strategy and budget, with 95% intervals and Welch p-values
    at the largest budget against the best), NAME.png and NAME.json; returns the Markdown file's path."""
    import json

    out.mkdir(parents=True, exist_ok=True)
    rows = summarise(curves, budgets)
    plot(rows, budgets, out / f"{name}.png", title)
    p_values = significance(curves, len(budgets) - 1)
    best = truth.best()
    point = ", ".join(f"{k} = {v:g}" for k, v in best["values"].items())
    lines = [f"# {title}", "", f"Simple regret: the truth table's best {truth.spec.objective} ({best['value']:.4g} at "
             f"{point}, {truth.games} games per opponent and seat at each of {len(truth.rows)} points) minus the "
             "true value of the strategy's recommendation after each budget; 0 is the best point. Mean over seeds "
             "with a 95% interval; p: Welch's t-test against the strategy with the lowest mean regret at "
             f"{budgets[-1]} games.", "", f"![regret against games]({name}.png)", ""]  # fmt: skip
    lines += ["| strategy | seeds | " + " | ".join(f"regret at {b} games [95% CI]" for b in budgets)
              + f" | best point found at {budgets[-1]} | p at {budgets[-1]} |",
              "|---|---|" + "---|" * len(budgets) + "---|---|"]  # fmt: skip
    by_name = {}
    for r in rows:
        by_name.setdefault(r["strategy"], []).append(r)
    order = sorted(by_name, key=lambda n: by_name[n][-1]["regret"])
    for n in order:
        cells = " | ".join(f"{r['regret']:.3f} [{r['ci95'][0]:.3f}, {r['ci95'][1]:.3f}]" for r in by_name[n])
        short = " (short of the budget: scored at its last trial)" if any(curves[n]["short"]) else ""
        p = p_values[n]
        lines.append(f"| {n}{short} | {by_name[n][0]['seeds']} | {cells} | {by_name[n][-1]['zero']:.0%} | "
                     f"{'-' if math.isnan(p) else f'{p:.2g}'} |")  # fmt: skip
    (out / f"{name}.json").write_text(json.dumps({"budgets": budgets, "curves": curves, "summary": rows}, indent=1))
    path = out / f"{name}.md"
    path.write_text("\n".join(lines) + "\n")
    return path
