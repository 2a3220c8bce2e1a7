"""Running a study: workers, crash recovery, and the status of what is stored.

The Optuna study is named after the folder, so the stock `optuna` CLI and optuna-dashboard read
it (`optuna-dashboard journal.log`). Crash safety: a trial's games are stored with its result, in
one tell, so a finished trial is never lost nor counted twice; a dead worker's trial is run again
with its seed (`tuner.study.storage`). The budget counts finished trials only.
"""

from __future__ import annotations

import json
import multiprocessing
import os
import sys
import time
from dataclasses import replace
from pathlib import Path

import optuna
from optuna.trial import TrialState

from games.rng import derive_seeds
from tuner.match.cluster import ClusterError
from tuner.provenance import environment
from tuner.strategies import REGISTRY
from tuner.study import objective as objectives
from tuner.study import validate
from tuner.study.recommend import recommendation
from tuner.study.sampling import distributions, make_sampler, suggest
from tuner.study.spec import StudyError, StudySpec, trial_games
from tuner.study.storage import (
    IDENTITY_KEYS,
    JOURNAL,
    check_nets,
    identity,
    open_storage,
    recover,
    redact,
    worker_id,
)

RUNS = "runs.jsonl"


def load(folder, storage: str | None = None, create: bool = False):
    """(spec, Optuna study) of a study folder; `create` makes the stored study if it is missing."""
    folder = Path(folder)
    spec = StudySpec.load(folder)
    if not create and storage is None and not (folder / JOURNAL).exists():
        raise StudyError(f"{folder} has not run yet; start it with `sparring study run {folder}`")
    store = open_storage(folder, storage)
    name = folder.resolve().name
    direction = "maximize" if objectives.OBJECTIVES[spec.objective].maximised else "minimize"
    sampler = make_sampler(spec)
    try:
        study = optuna.load_study(study_name=name, storage=store, sampler=sampler)
    except KeyError:
        if not create:
            fix = f"start it with `sparring study run {folder}`"
            raise StudyError(f"no study {name!r} in that storage; {fix}") from None
        try:
            study = optuna.create_study(study_name=name, storage=store, sampler=sampler, direction=direction)
        except optuna.exceptions.DuplicatedStudyError:  # another `study run` created it a moment ago
            study = optuna.load_study(study_name=name, storage=store, sampler=sampler)
    if create and "identity" not in study.user_attrs:  # created just now, here or by a run started beside this one
        study.set_user_attr("identity", identity(folder))
        study.set_user_attr("objective", spec.objective)
    if study.user_attrs.get("identity") != identity(folder):
        raise StudyError(
            f"{folder}/study.toml changed since the study started ({', '.join(IDENTITY_KEYS)} decide its trials); "
            "undo the change or copy the folder without journal.log to start a new study"
        )
    return spec, study


def trial_seed(study_seed: int, number: int) -> int:
    """The seed of every game of trial `number` (a re-run keeps its original trial's number)."""
    return derive_seeds(study_seed, number)[0]


def _counts(study) -> dict:
    states = [t.state for t in study.get_trials(deepcopy=False)]
    return {
        "complete": states.count(TrialState.COMPLETE),
        "running": states.count(TrialState.RUNNING),
        "waiting": states.count(TrialState.WAITING),
        "failed": states.count(TrialState.FAIL),
    }


def _surplus(study, number: int, target: int) -> bool:
    """Whether trial `number` has `target` trials before it that finished, run or wait: workers that
    start trials at the same moment (on one machine or several) would otherwise overshoot the budget."""
    states = (TrialState.COMPLETE, TrialState.RUNNING, TrialState.WAITING)
    return sum(t.number < number for t in study.get_trials(deepcopy=False, states=states)) >= target


def run_trials(
    study, spec: StudySpec, dists: dict, target: int, count: int, bar=None, play=objectives.play_trials
) -> None:
    """Ask up to `count` trials and play their games together (`play`: `objectives.play_trials`, or the
    tabular benchmark's draw), then tell each its result; a trial beyond the budget is pruned. If the games
    fail, every asked trial fails with them."""
    trials = []
    try:
        for _ in range(count):
            trial = study.ask()
            if _surplus(study, trial.number, target):
                study.tell(trial, state=TrialState.PRUNED)  # stored as PRUNED, never replayed
                continue
            trial.set_user_attr("worker", worker_id())
            seed = trial_seed(spec.seed, trial.user_attrs.get("retry_of", trial.number))
            trials.append((trial, suggest(trial, dists), seed))
        if not trials:
            return
        _refresh(bar, study, spec)
        records = play(spec, [(values, seed) for _, values, seed in trials], progress=bar)
    except BaseException:
        for trial, _, _ in trials:
            study.tell(trial, state=TrialState.FAIL)
        raise
    for (trial, _, seed), record in zip(trials, records):
        value = objectives.OBJECTIVES[spec.objective].value(record)
        trial.set_user_attr("records", record)
        trial.set_user_attr("seed", seed)
        trial.set_user_attr("reward", objectives.OBJECTIVES[spec.objective].reward(value, record))
        study.tell(trial, value)


def work(
    folder,
    storage: str | None,
    target: int,
    bar=None,
    threads: int | None = None,
    verbosity=optuna.logging.WARNING,
    cluster: str | None = None,
) -> None:
    """One worker: run trials, `batch_trials` at a time, until the study has `target` finished ones
    (counting those running). `threads`: the OpenMP threads of a worker process (torch reads it when it
    loads), unless OMP_NUM_THREADS is set: workers that each take every core stall one another. `cluster`:
    a Dask scheduler's address where each trial's games are played."""
    if threads is not None:
        os.environ.setdefault("OMP_NUM_THREADS", str(threads))
    optuna.logging.set_verbosity(verbosity)  # a worker process's own: as its run's
    folder = Path(folder)
    spec, study = load(folder, storage)
    spec = replace(spec, cluster=cluster)
    dists = distributions(spec)
    while True:
        recover(folder, study)
        c = _counts(study)
        missing = target - c["complete"] - c["running"]
        if missing <= 0:
            return
        check_nets(study, spec, folder)  # again before each batch: a net replaced mid-run (a pull) must not mix in
        run_trials(study, spec, dists, target, min(spec.batch_trials, missing), bar)
        _refresh(bar, study, spec)


def _work_or_refuse(refusals, *args) -> None:
    """`work` in a worker process: a refusal (a StudyError or ClusterError, one line) goes to the parent, which says
    it once, rather than a traceback from every worker."""
    try:
        work(*args)
    except (StudyError, ClusterError) as error:
        refusals.put(str(error))
        sys.exit(2)


def run(
    folder,
    workers: int | None = None,
    storage: str | None = None,
    trials: int | None = None,
    progress: bool = True,
    verbose: bool = False,
    cluster: str | None = None,
) -> dict:
    """Run (or resume) a study until it has `trials` finished trials, then replay its points (`[validate]`);
    returns its status, with `updated` False where there was nothing left to do (and nothing was written).
    Optuna's INFO notices (a study created, each trial's value) only if `verbose`: the bars say it. Each
    trial's games are played on the Dask cluster at address `cluster` if given (the same games)."""
    verbosity = optuna.logging.INFO if verbose else optuna.logging.WARNING
    optuna.logging.set_verbosity(verbosity)
    folder = Path(folder)
    spec = StudySpec.load(folder)  # checked before the storage is touched
    target = trials if trials is not None else spec.trials
    workers = workers if workers is not None else spec.workers
    if target < 1 or workers < 1:
        raise StudyError("--trials and --workers must be at least 1")
    if spec.strategy in REGISTRY and REGISTRY[spec.strategy].sequential and max(workers, spec.batch_trials) > 1:
        raise StudyError(
            f"strategy {spec.strategy} asks one point at a time (it asks again only once told the last "
            "one's reward), so parallel trials would replay one point: set batch_trials = 1 and run one "
            "worker, or use optuna-tpe or optuna-cmaes for parallel trials"
        )
    spec, study = load(folder, storage, create=True)
    if not _work_left(folder, spec, study, target):  # run again when finished: nothing on disk changes
        return {**status(folder, storage), "updated": False}
    check_nets(study, replace(spec, cluster=cluster), folder)  # only where games will be played
    record = {
        "environment": environment(spec.seed),
        "workers": workers,
        "target": target,
        "storage": "journal" if storage is None else redact(storage),
    }
    with open(folder / RUNS, "a") as f:
        f.write(json.dumps(record) + "\n")
    bar = _bar(spec, study, target, progress)
    if workers == 1:
        work(folder, storage, target, bar, verbosity=verbosity, cluster=cluster)
    else:
        ctx = multiprocessing.get_context("spawn")
        threads = max(1, (os.cpu_count() or 1) // workers)
        refusals = ctx.SimpleQueue()
        procs = [
            ctx.Process(
                target=_work_or_refuse,
                args=(refusals, str(folder), storage, target, None, threads, verbosity, cluster),
                daemon=True,
            )
            for _ in range(workers)
        ]
        for p in procs:
            p.start()
        while any(p.is_alive() for p in procs):
            time.sleep(0.5)
            _refresh(bar, study, spec)
        _refresh(bar, study, spec)
        if not refusals.empty():
            raise StudyError(refusals.get())
        if any(p.exitcode != 0 for p in procs):
            raise StudyError(f"a worker failed (exit codes {[p.exitcode for p in procs]}); run the study again")
    if bar is not None:
        bar.close()
    if spec.validate_games and _counts(study)["complete"] >= spec.trials:  # after the budget, not a partial run
        _validate(folder, storage, replace(spec, cluster=cluster), progress)
    return {**status(folder, storage), "updated": True}


def _work_left(folder, spec, study, target: int) -> bool:
    """Whether a run has trials to play toward `target` or, after the budget, points to replay."""
    if _counts(study)["complete"] < target:
        return True
    if not spec.validate_games or _counts(study)["complete"] < spec.trials:
        return False
    return len(validate.run(folder, spec, study, play=False)) < len(validate.candidates(spec, study))


def _validate(folder, storage, spec, progress: bool) -> None:
    """Replay the recommendation and the best observed points (`tuner.study.validate`), with a bar."""
    _, study = load(folder, storage)
    count = len(validate.candidates(spec, study))
    bar = None
    if progress:
        from tqdm import tqdm

        total = count * trial_games(spec.validate_games, len(spec.opponents))
        bar = tqdm(total=total, desc=f"validating {count} points", unit="game", dynamic_ncols=True)
    validate.run(folder, spec, study, progress=bar)
    if bar is not None:
        bar.close()


def _bar(spec, study, target, progress):
    """A bar over the games of the trials to finish (finished trials count whole), with its ETA."""
    if not progress:
        return None
    from tqdm import tqdm

    per_trial = spec.games_per_trial
    done = min(target, _counts(study)["complete"]) * per_trial
    return tqdm(total=target * per_trial, initial=done, desc=f"{target} trials", unit="game", dynamic_ncols=True)


def _refresh(bar, study, spec):
    if bar is not None:
        bar.n = min(bar.total, _counts(study)["complete"] * spec.games_per_trial)
        bar.refresh()


def status(folder, storage: str | None = None) -> dict:
    """Trials finished, running, waiting and failed; games played; the best trial so far."""
    folder = Path(folder)
    spec, study = load(folder, storage)
    finished = [t for t in study.get_trials(deepcopy=False) if t.state == TrialState.COMPLETE]
    runs = (folder / RUNS).read_text().splitlines() if (folder / RUNS).exists() else []
    out = {
        "study": study.study_name,
        "strategy": spec.strategy,
        "objective": spec.objective,
        "direction": study.direction.name.lower(),
        "target": json.loads(runs[-1])["target"] if runs else spec.trials,
        "trials": _counts(study),
        "games": len(finished) * spec.games_per_trial,
    }
    if finished:
        best = study.best_trial
        out["best"] = {
            "trial": best.number,
            "value": best.value,
            "params": best.params,
            "records": best.user_attrs["records"],
        }
        out["recommended"] = recommendation(spec, study.get_trials(deepcopy=False))
        if spec.validate_games:
            keys = ("role", "values", "games", "replicates", "seeds", "value", "interval")
            rows = validate.run(folder, spec, study, play=False)
            out["validated"] = [{k: r[k] for k in keys} for r in rows]
            v = validate.verdict(spec, rows)
            if v is not None:
                out["verdict"] = {
                    "answer": v["answer"],  # did tuning beat the baseline: yes, no, unclear, same
                    "text": validate.verdict_text(spec, v),
                    "pick": v["pick"]["values"],
                    "baseline": v["baseline"]["values"],
                    "test": v["test"],
                    "over_recommendation": v["over_recommendation"],  # the pick's test against it, if it differs
                }
    return out
