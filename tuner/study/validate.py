"""Validation: after a study's budget, its recommendation and its best observed points replayed with fresh games.

A study's trials are noisy estimates, and the best of many noisy estimates is biased (the winner's
curse): the trial with the best observed value is usually luckier than it is good. So a study with a
`[validate]` table (`top = K`, `games = M`) replays, once its budget is spent, the strategy's
recommendation (`tuner.study.recommend`), the K distinct points with the best observed trials and any
named points of `[validate.points]` (a paper's setting, say), each with M fresh games per opponent and
seat, and its report leads with those results.

A point's M games are played as M / games replicate trials of the study's own size, and its value is
the mean of their objectives: the same quantity a trial estimates, so a replay and a trial compare
directly even where the objective depends on the number of games (AlphaDDA's D sums |W - L|).
The k-th point replayed seeds its replicates from (study seed, VALIDATION_STREAM, k), apart from every
trial's, records them with the point, and is not counted in the budget. Each point's line is appended
to FOLDER/validation.jsonl once its games are done, so a killed run resumes at the first point missing;
a point already replayed with M games is not replayed again (raising the budget later replays only
what is new).
"""

from __future__ import annotations

from pathlib import Path

from filelock import FileLock
from optuna.trial import TrialState

from games.rng import derive_seeds
from tuner.study import objective as objectives
from tuner.study.recommend import interval, recommendation
from tuner.study.spec import StudyError
from tuner.study.storage import append_lines, read_lines

VALIDATION = "validation.jsonl"
VALIDATION_STREAM = 2_000_003  # the seed stream of validation games, apart from trials' and the truth's


def _key(values: dict) -> tuple:
    return tuple(sorted((k, float(v)) for k, v in values.items()))


def candidates(spec, study) -> list[tuple[str, dict]]:
    """(role, values) of the points to replay: the recommendation, the `validate_top` distinct points with
    the best observed trials, then the named points (a point in several roles keeps them all, in one entry)."""
    trials = study.get_trials(deepcopy=False)
    sign = -1.0 if objectives.OBJECTIVES[spec.objective].maximised else 1.0
    ranked = sorted((t for t in trials if t.state == TrialState.COMPLETE), key=lambda t: (sign * t.value, t.number))
    rec = recommendation(spec, trials)
    entries: dict[tuple, tuple[list[str], dict]] = {_key(rec): (["recommended"], rec)}
    seen: set[tuple] = set()
    for t in ranked:
        if len(seen) >= spec.validate_top:
            break
        if _key(t.params) in seen:
            continue  # a point tried more than once counts once
        seen.add(_key(t.params))
        role = f"top {len(seen)} (trial {t.number}, observed {t.value:.4g})"
        entries.setdefault(_key(t.params), ([], dict(t.params)))[0].append(role)
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
            seeds = derive_seeds(spec.seed, VALIDATION_STREAM, len(rows), count=replicates)
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


def summary(spec, study, rows: list[dict]) -> str:
    """One paragraph for the report: the validated recommendation beside the raw maximum, and why they differ."""
    rec = next(r for r in rows if "recommended" in r["role"])
    best = study.best_trial
    raw = next((r for r in rows if _key(r["values"]) == _key(best.params)), None)
    text = (
        f"The strategy recommends {point_text(rec['values'])}: replayed with {rec['games']} fresh games per "
        f"opponent and seat ({rec['replicates']} trials of the study's size) it scores {spec.objective} = "
        f"{rec['value']:.4g} {interval_text(rec['interval'])}. "
    )
    text += (
        f"The best observed trial (trial {best.number}, at {point_text(best.params)}) measured "
        f"{best.value:.4g} over {spec.games_per_trial} games"
    )
    if raw is not None:
        text += f"; replayed, it scores {raw['value']:.4g} {interval_text(raw['interval'])}"
    maximised = objectives.OBJECTIVES[spec.objective].maximised
    way = "upward" if maximised else "downward"
    text += (
        f". The best of many noisy trials is biased {way} (the winner's curse): the more points a "
        "study tries, the luckier its best, whatever their quality; the replayed values are "
        "unbiased estimates of what each point is worth."
    )
    return text + _contender(rec, rows, maximised)


def _contender(rec: dict, rows: list[dict], maximised: bool) -> str:
    """A sentence on the replayed point that beat the recommendation, if one did: whether the replays tell them
    apart (disjoint intervals) or not, so that "recommended" is not read as "best"."""
    better = [r for r in rows if (r["value"] > rec["value"] if maximised else r["value"] < rec["value"])]
    if not better:
        return ""
    best = (max if maximised else min)(better, key=lambda r: r["value"])
    role = best["role"].split(" (")[0]  # "top 2", not its trial's details, which the table gives
    head = (
        f" Replayed, {point_text(best['values'])} ({role}) scores better than the recommendation: "
        f"{best['value']:.4g} {interval_text(best['interval'])}"
    )
    if best["interval"] is None or rec["interval"] is None:
        return head + "; without intervals the replays cannot tell whether the difference is real."
    (low, high), (rec_low, rec_high) = best["interval"], rec["interval"]
    if low <= rec_high and rec_low <= high:
        return head + "; the intervals overlap, so the replays do not tell the two apart."
    return head + ", outside the recommendation's interval: prefer it."


def interval_text(interval) -> str:
    """A replay's 95% interval as printed: `[low, high]`, or why there is none."""
    return "[no interval from one replicate]" if interval is None else f"[{interval[0]:.4g}, {interval[1]:.4g}]"


def point_text(values: dict) -> str:
    return ", ".join(f"{k} = {v:.4g}" for k, v in values.items())
