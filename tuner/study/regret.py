"""Regret: strategies scored by the true value of what they recommend, in real studies or on a tabular benchmark.

A strategy's simple regret after a budget is the truth table's best value minus the true value of its
recommendation then (`tuner.study.truth`, `tuner.study.recommend`): zero when it recommends the true
best point, in the objective's units. `regret_curves` reads it off real study folders (the recommendation
after the trials that fit in each budget); `bench` runs the same strategies on the tabular benchmark,
where a trial's games are drawn from the truth table's frequencies instead of played (the idea of
tabular benchmarks such as HPOBench and NAS-Bench), through the same sampler, runner and recommendation
code as a real study, in memory, so that a hundred seeds take minutes rather than days. LSI plans its
`budget` up front: a real study is read mid-plan at smaller budgets, whereas the benchmark runs it once
per budget, planned for that budget.
"""

from __future__ import annotations

import math
from dataclasses import replace
from pathlib import Path

import numpy as np
import optuna
from joblib import Parallel, delayed
from optuna.trial import TrialState

from tuner.study import objective as objectives
from tuner.study.recommend import mean_interval, recommendation
from tuner.study.runner import load, run_trials
from tuner.study.sampling import distributions, make_sampler
from tuner.study.spec import StudyError, StudySpec
from tuner.study.truth import Truth


def check_problem(truth: Truth, spec: StudySpec, where) -> None:
    if truth.spec.problem() != spec.problem():
        raise StudyError(
            f"{where} tunes another problem than the truth table (game, agent, opponents, objective "
            "and the parameters' values, ranges and defaults must be the same)"
        )


def trials_in(budget: int, spec: StudySpec) -> int:
    """Trials that fit in a budget of `budget` games (at least one)."""
    return max(1, budget // spec.games_per_trial)


def scores(truth: Truth, spec: StudySpec, trials: list, budgets: list[int]) -> list[float]:
    """The true value of the study's recommendation after each budget: once the finished trials that fit in it
    have played, with every trial numbered before the last of them (failed or pruned ones too, as the
    strategy saw them). A budget beyond the finished trials is scored at the last."""
    finished = sorted(t.number for t in trials if t.state == TrialState.COMPLETE)

    def upto(budget):
        last = finished[min(trials_in(budget, spec), len(finished)) - 1] if finished else -1
        return [t for t in trials if t.number <= last]

    return [truth.value(recommendation(spec, upto(b))) for b in budgets]


def _add(out: dict, truth: Truth, name: str, seed: int, values: list[float], short: bool) -> None:
    """Record one seed's curves: the recommendation's true value and its simple regret at each budget."""
    mine = out.setdefault(name, {"seeds": [], "value": [], "regret": [], "short": []})
    mine["seeds"].append(seed)
    mine["value"].append(values)
    mine["regret"].append([truth.regret_of(v) for v in values])
    mine["short"].append(short)


def regret_curves(truth: Truth, folders, budgets: list[int], storage: str | None = None) -> dict:
    """Per strategy, per seed, the recommendation's true value and regret at each budget, read off real study
    folders (recommendation after the first trials of each budget). Studies short of a budget are scored at
    their last trial and flagged."""
    out: dict[str, dict] = {}
    for folder in folders:
        spec, study = load(folder, storage)
        check_problem(truth, spec, folder)
        trials = study.get_trials(deepcopy=False)
        finished = sum(t.state.name == "COMPLETE" for t in trials)
        short = finished * spec.games_per_trial < max(budgets)
        _add(out, truth, spec.label, spec.seed, scores(truth, spec, trials, budgets), short)
    return out


PLANNED = ("lsi",)  # strategies that plan their whole budget (setting `budget`, in trials) up front


def _bench_one(truth: Truth, spec: StudySpec, budgets: list[int]) -> list[float]:
    """One strategy and seed on the tabular benchmark: the recommendation's true value at each budget. A
    strategy that plans its budget up front runs once per budget, planned for it, so that it is never read
    mid-plan."""
    if spec.strategy in PLANNED:
        planned = [replace(spec, settings={**spec.settings, "budget": trials_in(b, spec)}) for b in budgets]
        return [_tabular_study(truth, s, [b])[0] for s, b in zip(planned, budgets)]
    return _tabular_study(truth, spec, budgets)


def _tabular_study(truth: Truth, spec: StudySpec, budgets: list[int]) -> list[float]:
    """A study in memory whose trials' games are drawn from the truth table; the recommendation's true value
    after the trials of each budget."""
    optuna.logging.set_verbosity(optuna.logging.ERROR)  # a hundred seeds of the GP's fitting notices say nothing
    target = trials_in(max(budgets), spec)
    direction = "maximize" if objectives.OBJECTIVES[spec.objective].maximised else "minimize"
    study = optuna.create_study(sampler=make_sampler(spec), direction=direction)
    dists = distributions(spec)
    for _ in range(target):
        run_trials(study, spec, dists, target, 1, play=truth.play)
    return scores(truth, spec, study.get_trials(deepcopy=False), budgets)


def bench(truth: Truth, folders, seeds: int, budgets: list[int], workers: int = 1, progress=None) -> dict:
    """Each compared study's strategy (with its settings) on the tabular benchmark over `seeds` seeds (0, 1,
    ...): per strategy, the recommendation's true value and regret at each budget per seed. Seeded and
    reproducible: the same arguments give the same numbers."""
    strategies: dict[str, StudySpec] = {}
    for folder in folders:
        spec = StudySpec.load(folder)
        check_problem(truth, spec, folder)
        planned = spec.strategy in PLANNED  # named for what it runs: planned for each budget
        name = replace(spec, settings={**spec.settings, "budget": "each budget"}).label if planned else spec.label
        strategies.setdefault(name, spec)
    jobs = [(name, seed) for name in strategies for seed in range(seeds)]

    def job(name, seed):
        return _bench_one(truth, replace(strategies[name], seed=seed), budgets)  # the study's own spec

    results = Parallel(n_jobs=workers, return_as="generator")(delayed(job)(name, seed) for name, seed in jobs)
    out: dict[str, dict] = {}
    for (name, seed), values in zip(jobs, results):
        _add(out, truth, name, seed, values, short=False)
        if progress is not None:
            progress.update(1)
    return out


def summarise(curves: dict, budgets: list[int]) -> list[dict]:
    """Per strategy and budget: the mean regret and the mean true value of the recommendation over seeds, each
    with a 95% interval (Student's t, from the seeds' spread), and the share of seeds at the best point."""
    rows = []
    for name, entry in sorted(curves.items()):
        regret, value = np.array(entry["regret"], dtype=float), np.array(entry["value"], dtype=float)
        for j, budget in enumerate(budgets):
            rows.append(
                {
                    "strategy": name,
                    "budget": budget,
                    "seeds": len(regret),
                    **_mean("regret", regret[:, j]),
                    **_mean("value", value[:, j]),
                    "zero": float((regret[:, j] == 0).mean()),
                }
            )
    return rows


def _mean(key: str, column) -> dict:
    mean, low, high = mean_interval(column)
    return {key: mean, f"{key}_ci95": [low, high]}


def plot(rows: list[dict], budgets: list[int], path: Path, title: str) -> None:
    from matplotlib.figure import Figure

    fig = Figure(figsize=(9, 4))
    ax = fig.subplots()
    names = sorted({r["strategy"] for r in rows})
    for i, name in enumerate(names):
        mine = [r for r in rows if r["strategy"] == name]
        mean = [r["regret"] for r in mine]
        low, high = [r["regret_ci95"][0] for r in mine], [r["regret_ci95"][1] for r in mine]
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
    """Per strategy, a t-test p-value of its regret at one budget against the strategy with the lowest mean
    there (nan for that strategy itself): which differences the seeds can tell apart. Paired where both ran
    the same seeds (they share trial seeds, so their regrets are correlated), else Welch's. The reference
    is chosen after the fact and the p-values are not corrected for the number of strategies."""
    from scipy.stats import ttest_ind, ttest_rel

    means = {name: np.mean([r[budget_index] for r in e["regret"]]) for name, e in curves.items()}
    best = min(means, key=means.get)
    ref = curves[best]
    out = {}
    for name, entry in curves.items():
        mine, theirs = np.array([r[budget_index] for r in entry["regret"]]), [r[budget_index] for r in ref["regret"]]
        paired = entry["seeds"] == ref["seeds"]
        diffs = mine - theirs if paired else None
        if name == best or (paired and not diffs.any()):
            out[name] = math.nan  # the reference itself, or the same regret on every seed
        elif paired and np.ptp(diffs) < 1e-12:
            out[name] = 0.0  # worse by the same amount on every seed: no spread, no doubt
        elif not paired and np.ptp(mine) < 1e-12 and np.ptp(theirs) < 1e-12:
            out[name] = math.nan if np.isclose(mine[0], theirs[0]) else 0.0
        else:
            out[name] = float((ttest_rel(mine, theirs) if paired else ttest_ind(mine, theirs, equal_var=False)).pvalue)
    return out


def _cell(row: dict, key: str) -> str:
    low, high = row[f"{key}_ci95"]
    return f"{row[key]:.3f} [{low:.3f}, {high:.3f}]"


def table(curves: dict, budgets: list[int], rows: list[dict]) -> list[str]:
    """Markdown rows per strategy, lowest regret at the largest budget first: the regret at each budget and
    the recommendation's true value at the largest, with 95% intervals, the share of seeds that recommend
    the best point, and the p-value against the best (`significance`); `rows` is `summarise(curves, budgets)`."""
    by_name: dict[str, list[dict]] = {}
    for r in rows:
        by_name.setdefault(r["strategy"], []).append(r)
    p_values = significance(curves, len(budgets) - 1)
    last = budgets[-1]
    lines = [
        "| strategy | seeds | "
        + " | ".join(f"regret at {b} games [95% CI]" for b in budgets)
        + f" | true value at {last} [95% CI] | at the best point at {last} | p at {last} |",
        "|---|---|" + "---|" * len(budgets) + "---|---|---|",
    ]
    for n in sorted(by_name, key=lambda n: by_name[n][-1]["regret"]):
        mine, p = by_name[n], p_values[n]
        short = " (short of the budget: scored at its last trial)" if any(curves[n]["short"]) else ""
        regrets = " | ".join(_cell(r, "regret") for r in mine)
        lines.append(
            f"| {n}{short} | {mine[0]['seeds']} | {regrets} | {_cell(mine[-1], 'value')} | "
            f"{mine[-1]['zero']:.0%} | {'-' if math.isnan(p) else f'{p:.2g}'} |"
        )
    return lines


def write(curves: dict, budgets: list[int], out: Path, name: str, title: str, truth: Truth) -> Path:
    """Write OUT/NAME.md (`table` with what it means), NAME.png and NAME.json; returns the Markdown file's path."""
    import json

    out.mkdir(parents=True, exist_ok=True)
    summary = summarise(curves, budgets)
    plot(summary, budgets, out / f"{name}.png", title)
    best = truth.best()
    point = ", ".join(f"{k} = {v:g}" for k, v in best["values"].items())
    lines = [
        f"# {title}",
        "",
        f"Simple regret: the truth table's best {truth.spec.objective} ({best['value']:.4g} at "
        f"{point}, {truth.games} games per opponent and seat at each of {len(truth.rows)} points) minus the "
        "true value of the strategy's recommendation after each budget; 0 is the best point. Mean over seeds "
        "with a 95% interval; p: a t-test (paired by seed where the seeds are the same) against the strategy "
        f"with the lowest mean regret at {budgets[-1]} games, chosen after the fact and not corrected for the "
        "number of strategies.",
        "",
        f"![regret against games]({name}.png)",
        "",
    ]
    lines += table(curves, budgets, summary)
    (out / f"{name}.json").write_text(json.dumps({"budgets": budgets, "curves": curves, "summary": summary}, indent=1))
    path = out / f"{name}.md"
    path.write_text("\n".join(lines) + "\n")
    return path
