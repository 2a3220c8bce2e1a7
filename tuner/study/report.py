"""Study reports: a Markdown page with PNG plots for one study, and a comparison of several.

`write_report(folder)`: the objective per trial with the best so far, one slice per parameter,
and the best setting's per-opponent, per-seat wins, draws and losses with 95% intervals.
`write_comparison(folders, out)`: studies with one objective, grouped by strategy (several seeds
each): best so far against games played, mean and spread over seeds, as one plot and one table.
"""

from __future__ import annotations

import json
import math
from pathlib import Path

import numpy as np
from matplotlib.figure import Figure  # the Figure API draws to files without choosing a backend
from optuna.trial import TrialState

from tuner.match import Record, format_interval
from tuner.study import validate
from tuner.study.objective import OBJECTIVES
from tuner.study.recommend import mean_interval, recommendation
from tuner.study.runner import RUNS, load
from tuner.study.spec import StudyError


def _finished(study) -> list:
    trials = study.get_trials(deepcopy=False, states=(TrialState.COMPLETE,))
    return sorted(trials, key=lambda t: t.number)


def busy_seconds(trials) -> float:
    """Seconds during which at least one of the trials was running: the union of their spans, so that the
    time between two runs of a resumed study and trials played side by side count once."""
    total, end = 0.0, None
    for t in sorted(trials, key=lambda t: t.datetime_start):
        a, b = t.datetime_start, t.datetime_complete
        if end is None or a > end:
            total += (b - a).total_seconds()
            end = b
        elif b > end:
            total += (b - end).total_seconds()
            end = b
    return total


def duration(seconds: float) -> str:
    """A span as read: 42 s, 12 min, 3.5 h."""
    if seconds < 60:
        return f"{seconds:.0f} s"
    return f"{seconds / 60:.0f} min" if seconds < 5400 else f"{seconds / 3600:.1f} h"


def best_so_far(values, maximise: bool) -> np.ndarray:
    values = np.asarray(values, dtype=float)
    return np.maximum.accumulate(values) if maximise else np.minimum.accumulate(values)


def write_report(folder, storage: str | None = None) -> Path:
    """Write FOLDER/report/report.md and its plots; returns the Markdown file's path."""
    folder = Path(folder)
    spec, study = load(folder, storage)
    trials = _finished(study)
    out = folder / "report"
    out.mkdir(exist_ok=True)
    maximise = study.direction.name == "MAXIMIZE"
    lines = [
        f"# Study {study.study_name}",
        "",
        f"- game: {spec.game}; agent under tuning: `{spec.agent}`",
        f"- opponents: {', '.join(f'`{o}`' for o in spec.opponents)}; {spec.games} games per opponent and seat",
        f"- strategy: {spec.strategy} {json.dumps(spec.settings) if spec.settings else ''}".rstrip(),
        f"- objective: {spec.objective} ({OBJECTIVES[spec.objective].doc})",
        f"- seed {spec.seed}; {len(trials)} finished trials, {len(trials) * spec.games_per_trial} games",
    ]
    runs = [json.loads(x) for x in (folder / RUNS).read_text().splitlines()] if (folder / RUNS).exists() else []
    for r in runs[-1:]:
        env = r["environment"]
        versions = ", ".join(f"{k} {v}" for k, v in env["versions"].items() if v)
        commits = ", ".join(dict.fromkeys(x["environment"]["commit"] for x in runs))
        lines.append(
            f"- {len(runs)} run{'s' * (len(runs) != 1)} (commits {commits}); the last: {env['device']}, "
            f"python {env['python']}, {versions}"
        )
    if not trials:
        lines += ["", "No finished trial yet."]
        path = out / "report.md"
        path.write_text("\n".join(lines) + "\n")
        return path
    start, end = min(t.datetime_start for t in trials), max(t.datetime_complete for t in trials)
    lines.append(
        f"- trials played from {start:%Y-%m-%d %H:%M:%S} to {end:%Y-%m-%d %H:%M:%S}: "
        f"{duration(busy_seconds(trials))} with a trial running (validation not counted)"
    )
    values = [t.value for t in trials]
    best = study.best_trial
    lines += ["", "## Recommendation", ""] + _recommendation(folder, spec, study)
    params = ", ".join(f"{k} = {v:g}" for k, v in best.params.items())
    games = spec.games_per_trial
    headline = f"Trial {best.number}: {spec.objective} = {best.value:.4g} at {params}, over {games} games"
    way = "upward" if maximise else "downward"
    lines += ["", "## Best observed trial", "", headline + f" (the best of noisy trials: biased {way}).", ""]
    lines += [
        "| opponent | seat | wins | draws | losses | score [95% CI] | win rate [95% CI] | loss rate [95% CI] |",
        "|---|---|---|---|---|---|---|---|",
    ]
    for opponent, seats in best.user_attrs["records"].items():
        for seat, wdl in seats.items():
            r = Record(*wdl)
            lines.append(
                f"| `{opponent}` | {seat} | {r.wins} | {r.draws} | {r.losses} | {r.score:.3f} "
                f"{format_interval(r.score_interval())} | "
                f"{r.wins / r.games:.3f} {format_interval(r.rate_interval(r.wins))} | "
                f"{r.losses / r.games:.3f} {format_interval(r.rate_interval(r.losses))} |"
            )
    rows = validate.run(folder, spec, study, play=False) if spec.validate_games else []
    _plot_trials(trials, values, maximise, spec.objective, rows, spec, out / "objective.png")
    _plot_slices(trials, spec, out / "slices.png")
    lines += [
        "",
        "## Trials",
        "",
        "![the replayed points, and the objective per trial](objective.png)",
        "",
        "![parameter slices](slices.png)",
        "",
    ]
    ranked = sorted(trials, key=lambda t: -t.value if maximise else t.value)[:10]
    lines += ["Best ten trials:", "", "| trial | " + " | ".join(spec.space.names) + f" | {spec.objective} |"]
    lines.append("|---" * (len(spec.space.names) + 2) + "|")
    for t in ranked:
        cells = " | ".join(f"{t.params[n]:g}" for n in spec.space.names)
        lines.append(f"| {t.number} | {cells} | {t.value:.4g} |")
    path = out / "report.md"
    path.write_text("\n".join(lines) + "\n")
    return path


def _recommendation(folder, spec, study) -> list[str]:
    """The report's headline: the validated recommendation and best points, or the recommendation alone."""
    if not spec.validate_games:
        rec = recommendation(spec, study.get_trials(deepcopy=False))
        mean, n = validate.observed(study, rec)
        seen = f"; observed {spec.objective} {mean:.4g} over {n} trial{'s' * (n != 1)}" if n else ""
        return [
            f"The strategy recommends {validate.point_text(rec)}{seen}. Add a `[validate]` table (top = 3, "
            f"games = {5 * spec.games}) to replay it and the best observed points with fresh games: their "
            "observed values are biased by the winner's curse."
        ]
    rows = validate.run(folder, spec, study, play=False)
    if not any("recommended" in r["role"] for r in rows):
        return [
            f"Not validated yet: `sparring study run` replays the recommendation once study.toml's budget "
            f"({spec.trials} trials) is spent."
        ]
    base = validate.baseline_row(spec, rows)
    lines = [validate.summary(spec, study, rows), ""]
    lines += [
        f"| point | role | replayed {spec.objective} [95% CI] | minus the {spec.validate_baseline} [95% CI], p | "
        "games per opponent and seat (replicate trials) | mean observed over its trials (trials) |",
        "|---|---|---|---|---|---|",
    ]
    for r in rows:
        mean, n = validate.observed(study, r["values"])
        seen = f"{mean:.4g} ({n})" if n else "not a trial"  # a strategy's mean (CMA-ES) or a named point
        test = None if base is None or r is base else validate.difference(spec.objective, r, base)
        gap = "-" if test is None else validate.difference_text(test)
        lines.append(
            f"| {validate.point_text(r['values'])} | {r['role']} | {r['value']:.4g} "
            f"{validate.interval_text(r['interval'])} | {gap} | {r['games']} ({r['replicates']}) | {seen} |"
        )
    return lines


def _plot_trials(trials, values, maximise, objective, rows, spec, path):
    """The replayed points with their 95% intervals (when validated), beside the objective per trial and the
    best observed so far, labelled as biased: the replays are what to act on."""
    fig = Figure(figsize=(11 if rows else 6, 3.8))
    axes = fig.subplots(1, 2 if rows else 1, squeeze=False, sharey=True)[0]  # one scale: the curse shows
    if rows:
        ax = axes[0]
        for i, r in enumerate(rows):
            low, high = r["interval"] or (r["value"], r["value"])
            spread = [[max(0.0, r["value"] - low)], [max(0.0, high - r["value"])]]
            ax.errorbar([i], [r["value"]], yerr=spread, fmt="o", capsize=4)
        base = validate.baseline_row(spec, rows)
        if base is not None:
            label = f"the {spec.validate_baseline}"
            ax.axhline(base["value"], color="grey", linestyle="--", linewidth=0.8, label=label)
            ax.legend(fontsize=8)
        ax.set_xticks(range(len(rows)), [_short(r) for r in rows], fontsize=7)
        ax.set_ylabel(f"replayed {objective} [95% CI]")
        ax.set_title("replayed with fresh games: act on these", fontsize=9)
    ax = axes[-1]
    numbers = [t.number for t in trials]
    way = "upward" if maximise else "downward"
    ax.plot(numbers, values, "o", ms=4, alpha=0.6, label="trial (observed)")
    ax.step(numbers, best_so_far(values, maximise), where="post", color="C3", label=f"best so far (biased {way})")
    ax.set_xlabel("trial")
    ax.set_ylabel(f"observed {objective}")
    ax.yaxis.set_tick_params(labelleft=True)
    ax.set_title("trials as they were observed", fontsize=9)
    ax.legend(fontsize=8)
    fig.tight_layout()
    fig.savefig(path, dpi=110)


def _short(row: dict) -> str:
    """A replayed point's tick label: its roles (without trial numbers) over its values."""
    roles = ", ".join(role.split(" (")[0] for role in row["role"].split(", "))
    return roles + "\n" + "\n".join(f"{k}={v:.3g}" for k, v in row["values"].items())


def _plot_slices(trials, spec, path):
    names = spec.space.names
    fig = Figure(figsize=(3.2 * len(names), 3))
    axes = fig.subplots(1, len(names), squeeze=False)
    for ax, name in zip(axes[0], names):
        ax.plot([t.params[name] for t in trials], [t.value for t in trials], "o", ms=4, alpha=0.6)
        ax.set_xlabel(name)
        ax.set_ylabel(spec.objective)
    fig.tight_layout()
    fig.savefig(path, dpi=110)


def write_comparison(folders, out, storage: str | None = None) -> Path:
    """Compare studies that share one objective; returns the Markdown file's path."""
    curves: dict[str, list] = {}
    replayed: dict[str, list] = {}  # per strategy, each seed's validated recommendation (None: not replayed)
    objective = direction = None
    for folder in folders:
        spec, study = load(folder, storage)
        if objective not in (None, spec.objective):
            raise StudyError(f"{folder} optimises {spec.objective}, the others {objective}: compare one objective")
        objective, direction = spec.objective, study.direction.name
        trials = _finished(study)
        if trials:
            games = np.arange(1, len(trials) + 1) * spec.games_per_trial
            curves.setdefault(spec.label, []).append(
                (games, best_so_far([t.value for t in trials], direction == "MAXIMIZE"), spec.seed)
            )
            rows = validate.run(folder, spec, study, play=False) if spec.validate_games else []
            replayed.setdefault(spec.label, []).append(next((r for r in rows if "recommended" in r["role"]), None))
    if not curves:
        raise StudyError("no finished trials in these studies")
    out = Path(out)
    out.mkdir(parents=True, exist_ok=True)
    fig = Figure(figsize=(9, 4))
    ax = fig.subplots()
    rows = []
    for i, (strategy, runs) in enumerate(sorted(curves.items())):
        grid = np.unique(np.concatenate([g for g, _, _ in runs]))
        # each seed's best so far at every games count (held after its last trial)
        table = np.array([[b[max(0, np.searchsorted(g, x, side="right") - 1)] for x in grid] for g, b, _ in runs])
        mean, low, high = table.mean(axis=0), table.min(axis=0), table.max(axis=0)
        color, style = f"C{i % 10}", ("-", "--", ":")[i // 10 % 3]  # ten colours, then dashed lines
        ax.plot(grid, mean, color=color, linestyle=style, label=f"{strategy} ({len(runs)} seeds)")
        ax.fill_between(grid, low, high, color=color, alpha=0.1)
        finals = [b[-1] for _, b, _ in runs]
        spread = round(float(np.std(finals)), 9)  # equal finals print a spread of 0, not float noise
        rows.append(
            (
                strategy,
                len(runs),
                float(np.mean(finals)),
                spread,
                min(finals),
                max(finals),
                int(max(g[-1] for g, _, _ in runs)),
            )
        )
    ax.set_xlabel("games played")
    ax.set_ylabel(f"best {objective} so far")
    ax.legend(fontsize=8, loc="upper left", bbox_to_anchor=(1.01, 1))  # beside the plot, never over a curve
    fig.tight_layout()
    fig.savefig(out / "compare.png", dpi=110)
    better = max if direction == "MAXIMIZE" else min
    best_mean = better(r[2] for r in rows)
    lines = [
        f"# Strategies compared on {objective} ({'maximised' if direction == 'MAXIMIZE' else 'minimised'})",
        "",
        "Best so far against games played: the line is the mean over seeds, the band their range.",
        "",
        "![best so far against games](compare.png)",
        "",
        "| strategy | seeds | final best, mean | sd | min | max | games per seed |",
        "|---|---|---|---|---|---|---|",
    ]
    for strategy, n, mean, sd, low, high, games in rows:
        mark = " **(best)**" if math.isclose(mean, best_mean) else ""
        lines.append(f"| {strategy}{mark} | {n} | {mean:.4g} | {sd:.3g} | {low:.4g} | {high:.4g} | {games} |")
    lines += ["", *validated_table(replayed, curves, objective, direction)]
    path = out / "compare.md"
    path.write_text("\n".join(lines) + "\n")
    return path


def validated_table(replayed: dict, curves: dict, objective: str, direction: str) -> list[str]:
    """Markdown: per strategy, the mean over seeds of its recommendation's replayed value (`[validate]`) with a
    95% Student-t interval clipped to the objective's range, beside the mean best observed trial: the
    comparison to act on without a truth table."""

    extreme = "maxima" if direction == "MAXIMIZE" else "minima"
    lines = ["## Recommendations, replayed", ""]
    if not any(r for rows in replayed.values() for r in rows):
        return lines + [
            f"No study here replayed its recommendation: the best observed values are {extreme} of "
            "noisy trials, biased by the winner's curse. Add a `[validate]` table to each study.toml and "
            "run it again, or score the recommendations with `--truth`."
        ]
    lines += [
        f"Each seed's recommendation replayed with fresh games (`[validate]`); mean over the seeds replayed with "
        f"a 95% interval from their spread (clipped to what {objective} can take). The best observed "
        f"{objective} values are {extreme} of noisy trials, biased by the winner's curse.",
        "",
        f"| strategy | seeds replayed | replayed {objective} of the recommendation [95% CI] | best observed |",
        "|---|---|---|---|",
    ]
    for name in sorted(replayed):
        values = np.array([r["value"] for r in replayed[name] if r is not None], dtype=float)
        observed = float(np.mean([b[-1] for _, b, _ in curves[name]]))
        if not len(values):
            lines.append(f"| {name} | 0 of {len(replayed[name])} | not replayed | {observed:.4g} |")
            continue
        shape = next(r for r in replayed[name] if r is not None)["records"][0]
        mean, low, high = mean_interval(values, within=OBJECTIVES[objective].range(shape))
        spread = "(one seed: no interval)" if len(values) == 1 else f"[{low:.4g}, {high:.4g}]"
        lines.append(f"| {name} | {len(values)} of {len(replayed[name])} | {mean:.4g} {spread} | {observed:.4g} |")
    return lines
