"""Validation: after a study's budget, its recommendation, the baseline and its best observed points replayed.

A study's trials are noisy estimates, and the best of many noisy estimates is biased (the winner's
curse): the trial with the best observed value is usually luckier than it is good. So a study with a
`[validate]` table (`top = K`, `games = M`) replays, once its budget is spent, the strategy's
recommendation (`tuner.study.recommend`), the baseline (the space's defaults, or a named point), the K
distinct points with the best observed trials and any named points of `[validate.points]` (a paper's
setting, say), each with M fresh games per opponent and seat, and its report leads with the answer to
the question a user came with: did tuning beat the baseline (`verdict`)?

A point's M games are played as M / games replicate trials of the study's own size, and its value is
the mean of their objectives: the same quantity a trial estimates, so a replay and a trial compare
directly even where the objective depends on the number of games (AlphaDDA's D sums |W - L|).
Every point replays the same seeds, (study seed, VALIDATION_STREAM) apart from every trial's, so that
two points meet the same opponents' play where they play alike (rows written before kept their own,
recorded seeds). Replays are not counted in the budget. Each point's line is appended to
FOLDER/validation.jsonl once its games are done, so a killed run resumes at the first point missing; a
point already replayed with M games is not replayed again (raising the budget later replays only what
is new).
"""

from __future__ import annotations

import math
from pathlib import Path

import numpy as np
from filelock import FileLock
from optuna.trial import TrialState

from games.rng import derive_seeds
from tuner.match import Z95
from tuner.study import objective as objectives
from tuner.study.recommend import bootstrap, interval, recommendation
from tuner.study.spec import StudyError
from tuner.study.storage import append_lines, check_nets, read_lines

VALIDATION = "validation.jsonl"
VALIDATION_STREAM = 2_000_003  # the seed stream of validation games, apart from trials' and the truth's
ALPHA = 0.05  # the p-value below which the replays tell two points apart


def _key(values: dict) -> tuple:
    """A point's identity: its values to 12 significant digits, so that a strategy's recommendation recomputed
    (CMA-ES's mean) is the point replayed before, whatever its last bits."""
    return tuple(sorted((k, float(f"{float(v):.12g}")) for k, v in values.items()))


def candidates(spec, study) -> list[tuple[str, dict]]:
    """(role, values) of the points to replay: the recommendation, the baseline ("default": the space's
    defaults), the `validate_top` distinct points with the best observed trials, then the named points (a
    point in several roles keeps them all, in one entry)."""
    trials = study.get_trials(deepcopy=False)
    sign = -1.0 if objectives.OBJECTIVES[spec.objective].maximised else 1.0
    ranked = sorted((t for t in trials if t.state == TrialState.COMPLETE), key=lambda t: (sign * t.value, t.number))
    rec = recommendation(spec, trials)
    entries: dict[tuple, tuple[list[str], dict]] = {_key(rec): (["recommended"], rec)}
    if spec.validate_baseline == "default":
        entries.setdefault(_key(spec.default_values()), ([], spec.default_values()))[0].append("default")
    seen: set[tuple] = set()
    for t in ranked:
        if len(seen) >= spec.validate_top:
            break
        if _key(t.params) in seen:
            continue  # a point tried more than once counts once
        seen.add(_key(t.params))
        entries.setdefault(_key(t.params), ([], dict(t.params)))[0].append(f"top {len(seen)} (trial {t.number})")
    for name, values in spec.validate_points.items():
        values = {n: values[n] for n in spec.space.names}
        entries.setdefault(_key(values), ([], values))[0].append(name)
    return [(", ".join(roles), values) for roles, values in entries.values()]


def load(folder) -> list[dict]:
    """The points replayed so far (a torn last line, from a kill, is ignored)."""
    path = Path(folder) / VALIDATION
    rows = read_lines(path)
    if any("replicates" not in r for r in rows):
        raise StudyError(
            f"{path} was written before replays were replicate trials: move it away and run "
            "`sparring study run` on the folder again to replay"
        )
    return rows


def run(folder, spec, study, *, play: bool = True, progress=None) -> list[dict]:
    """This study's rows, one per candidate in the order of `candidates`, each with its `role`; with `play`,
    a candidate not yet replayed with the study's validation games is replayed first (else left out)."""
    folder = Path(folder)
    if play:  # one process at a time: several `study run` on one study replay each point once
        with FileLock(folder / ".validate.lock"):
            return _run(folder, spec, study, play, progress)
    return _run(folder, spec, study, play, progress)


def _run(folder: Path, spec, study, play: bool, progress) -> list[dict]:
    games, replicates = spec.validate_games, spec.validate_games // spec.games
    rows = load(folder)
    done = {(_key(r["values"]), r["games"], r["replicates"]): r for r in rows}
    out = []
    for role, values in candidates(spec, study):
        row = done.get((_key(values), games, replicates))
        if row is None and play:
            check_nets(study, spec, folder)  # a replay is as long as a batch: a net replaced meanwhile must not mix in
            seeds = derive_seeds(spec.seed, VALIDATION_STREAM, count=replicates)
            records = objectives.play_trials(spec, [(values, seed) for seed in seeds], progress=progress)
            row = {
                "values": values,
                "games": games,
                "replicates": replicates,
                "seeds": seeds,
                "records": records,
                "value": replicate_value(spec.objective, records),
                "interval": interval(spec.objective, records, seeds[0]),
            }
            append_lines(folder / VALIDATION, [row])
            rows.append(row)
            done[(_key(values), games, replicates)] = row
        if row is not None:
            out.append({**row, "role": role})
    return out


def replicate_value(objective: str, records: list[dict]) -> float:
    """A replayed point's value: the mean of its replicate trials' objectives (a trial's expected value)."""
    return sum(objectives.OBJECTIVES[objective].value(r) for r in records) / len(records)


def observed(study, values: dict) -> tuple[float, int]:
    """The mean observed value of the finished trials at `values`, and how many there were (0: none)."""
    key = _key(values)
    hits = [t.value for t in study.get_trials(deepcopy=False, states=(TrialState.COMPLETE,)) if _key(t.params) == key]
    return (sum(hits) / len(hits), len(hits)) if hits else (float("nan"), 0)


def difference(objective: str, a: dict, b: dict) -> dict | None:
    """Replayed point a's value minus b's, with a 95% interval and a two-sided p-value (None: a point with one
    replicate and an objective that does not pool, nothing to test by). The win rate pools its games: each
    point's are redrawn (`bootstrap`) and the difference is read as normal with the two spreads added, games
    taken as independent (where the shared seeds make the points' results move together, that overstates
    the spread: the test errs toward "cannot tell"). D and balance: Student's t over the replicate trials,
    paired where both points played the same seeds, else Welch's."""
    from scipy import stats

    o = objectives.OBJECTIVES[objective]
    diff = a["value"] - b["value"]
    if o.pools:
        se = math.hypot(
            float(np.std(bootstrap(objective, a["records"], a["seeds"][0]))),
            float(np.std(bootstrap(objective, b["records"], b["seeds"][0]))),
        )
        p = float(2 * stats.norm.sf(abs(diff) / se)) if se > 0 else float(diff == 0)
        return {"difference": diff, "interval": [diff - Z95 * se, diff + Z95 * se], "p": p, "test": "bootstrap"}
    va, vb = ([o.value(r) for r in row["records"]] for row in (a, b))
    if min(len(va), len(vb)) < 2:
        return None
    paired = a["seeds"] == b["seeds"]
    test = f"paired t over {len(va)} replicates" if paired else "Welch's t"
    if paired and np.ptp(np.subtract(va, vb)) == 0:  # every replicate moved alike: no spread to test by
        return {"difference": diff, "interval": [diff, diff], "p": float(diff == 0), "test": test}
    res = stats.ttest_rel(va, vb) if paired else stats.ttest_ind(va, vb, equal_var=False)
    if math.isnan(res.pvalue):  # Welch's with no spread in either point
        return {"difference": diff, "interval": [diff, diff], "p": float(diff == 0), "test": test}
    ci = res.confidence_interval()
    return {"difference": diff, "interval": [float(ci.low), float(ci.high)], "p": float(res.pvalue), "test": test}


def baseline_row(spec, rows: list[dict]) -> dict | None:
    """The baseline's replayed row (by its values: a role may hold several names), None if not replayed."""
    name = spec.validate_baseline
    values = spec.default_values() if name == "default" else spec.validate_points[name]
    return next((r for r in rows if _key(r["values"]) == _key(values)), None)


def baseline_name(spec) -> str:
    """The baseline as a sentence names it: "the default", or "the 'paper (Table 1)' point"."""
    return "the default" if spec.validate_baseline == "default" else f"the {spec.validate_baseline!r} point"


def _better(objective: str, diff: float) -> bool:
    return diff > 0 if objectives.OBJECTIVES[objective].maximised else diff < 0


def verdict(spec, rows: list[dict]) -> dict | None:
    """Did tuning beat the baseline? The point to act on (`pick`) is the recommendation, unless one of the study's
    top points replays better against it at p < 0.05 / (top points tested) (then the best such, chosen after
    the replays, so its own value is optimistic); `answer` says how the pick compares with the baseline: "yes"
    or "no" at p < 0.05, "unclear" short of it or untestable, "same" if it is the baseline. None until the
    recommendation and the baseline are replayed."""
    rec = next((r for r in rows if "recommended" in r["role"]), None)
    base = baseline_row(spec, rows)
    if rec is None or base is None:
        return None
    # the study's own top points that the replays separate from the recommendation, as better: Bonferroni over
    # the ones tested (named points are not tuning's, and the baseline has its own test below)
    tops = [r for r in rows if r is not rec and r is not base and "top " in r["role"]]
    beats = []
    for r in tops:
        test = difference(spec.objective, r, rec)
        if test is not None and test["p"] < ALPHA / len(tops) and _better(spec.objective, test["difference"]):
            beats.append((r, test))
    pick, over_rec = rec, None
    if beats:
        sign = 1.0 if objectives.OBJECTIVES[spec.objective].maximised else -1.0
        pick, over_rec = max(beats, key=lambda b: sign * b[0]["value"])
    test = difference(spec.objective, pick, base)
    if _key(pick["values"]) == _key(base["values"]):
        answer = "same"
    elif test is None or test["p"] >= ALPHA:
        answer = "unclear"
    else:
        answer = "yes" if _better(spec.objective, test["difference"]) else "no"
    return {"answer": answer, "pick": pick, "baseline": base, "test": test, "over_recommendation": over_rec}


def verdict_text(spec, v: dict) -> str:
    """The verdict in words, every number labelled: the sentence a report and `study status` lead with."""
    name = baseline_name(spec)
    pick, base, test = v["pick"], v["baseline"], v["test"]
    what = "the recommendation" if v["over_recommendation"] is None else pick["role"].split(" (")[0]
    mine = (
        f"{what} ({point_text(pick['values'])}) replays at {spec.objective} {pick['value']:.4g} "
        f"{interval_text(pick['interval'])}"
    )
    theirs = f"{name} ({point_text(base['values'])}) at {base['value']:.4g} {interval_text(base['interval'])}"
    gap = "" if test is None else f": difference {difference_text(test)} ({test['test']})"
    games = f"{pick['games']} games per opponent and seat each"
    if v["answer"] == "same":
        text = f"Tuning did not move from {name}: the recommendation is {name} itself, {mine}."
    elif v["answer"] == "yes":
        text = f"Yes, tuning beat {name}: {mine}, {theirs}{gap}; {games}."
    elif v["answer"] == "no":
        text = f"No, tuning did not beat {name}, which replays better: {mine}, {theirs}{gap}; {games}."
    elif test is None:
        text = (
            f"The replays cannot tell {what} from {name}: {mine}, {theirs}; with one replicate trial each there is "
            "no test (give [validate] games at least two trials' worth)."
        )
    else:
        text = (
            f"The replays could not tell {what} from {name}: {mine}, {theirs}{gap}; {games} (more "
            "[validate] games would narrow the interval)."
        )
    if v["over_recommendation"] is not None:
        o, rec = v["over_recommendation"], "the strategy's recommendation"
        text += (
            f" Act on {point_text(pick['values'])}, not {rec}: the replays separate it from {rec} "
            f"(difference {difference_text(o)}, below 0.05 over the top points tested); chosen after the replays, "
            "its value is optimistic: replay it again (a [validate.points] entry) to confirm."
        )
    return text


def summary(spec, study, rows: list[dict]) -> str:
    """The report's lead: the verdict, then the best observed trial beside its replay, and why they differ."""
    v = verdict(spec, rows)
    if v is not None:
        text = verdict_text(spec, v) + " "
    else:  # replayed before baselines were (or its rows lost): `study run` replays what is missing
        name = baseline_name(spec)
        text = f"{name[0].upper()}{name[1:]} is not replayed yet: `sparring study run` replays it beside the rest. "
    best = study.best_trial
    raw = next((r for r in rows if _key(r["values"]) == _key(best.params)), None)
    text += (
        f"The best observed trial (trial {best.number}, at {point_text(best.params)}) measured "
        f"{spec.objective} {best.value:.4g} over {spec.games_per_trial} games"
    )
    if raw is not None:
        text += f"; replayed, it scores {raw['value']:.4g} {interval_text(raw['interval'])}"
    way = "upward" if objectives.OBJECTIVES[spec.objective].maximised else "downward"
    return text + (
        f". The best of many noisy trials is biased {way} (the winner's curse): the more points a "
        "study tries, the luckier its best, whatever their quality; the replayed values are "
        "unbiased estimates of what each point is worth."
    )


def difference_text(test: dict) -> str:
    """A `difference` as printed: +d [low, high] (its 95% interval), p = ..."""
    low, high = test["interval"]
    return f"{test['difference']:+.4g} [{low:+.4g}, {high:+.4g}], p = {test['p']:.2g}"


def interval_text(interval) -> str:
    """A replay's 95% interval as printed: `[low, high]`, or why there is none."""
    return "[no interval from one replicate]" if interval is None else f"[{interval[0]:.4g}, {interval[1]:.4g}]"


def point_text(values: dict) -> str:
    return ", ".join(f"{k} = {v:.4g}" for k, v in values.items())
