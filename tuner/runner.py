"""Running a study: Optuna storage, workers, crash recovery, and the status of what is stored.

Storage: a journal file `journal.log` in the study folder by default (local processes share it
safely), or `--storage postgresql://...` for workers on several machines, each started with the
same `study run`. The Optuna study is named after the folder, so the stock `optuna` CLI and
optuna-dashboard read it (`optuna-dashboard journal.log`).

Crash safety: a trial's games are stored with its result, in one tell, so a finished trial is
never lost nor counted twice. A trial left RUNNING by a dead worker (a process of this machine
that no longer exists, or, with PostgreSQL, one whose heartbeat stopped) is marked FAIL and
queued again with the same parameters and the same seed: it is run again, at most `MAX_RETRIES`
times. The budget counts finished trials only.
"""

from __future__ import annotations

import fcntl
import hashlib
import json
import multiprocessing
import os
import socket
import time
import tomllib
import warnings
from contextlib import contextmanager
from pathlib import Path

import numpy as np
import optuna
from optuna.trial import TrialState

from tuner import objective as objectives
from tuner.provenance import environment
from tuner.samplers import distributions, make_sampler, suggest
from tuner.study import StudyError, StudySpec

MAX_RETRIES = 3
JOURNAL = "journal.log"
RUNS = "runs.jsonl"
# the keys that decide what a trial measures: changing one of them makes a different study
IDENTITY_KEYS = ("game", "agent", "opponents", "objective", "games", "seed", "strategy", "space")
HEARTBEAT_S, GRACE_S = 10, 30

optuna.logging.set_verbosity(optuna.logging.WARNING)


def open_storage(folder: Path, url: str | None):
    """The study's Optuna storage: the folder's journal file, or a PostgreSQL URL."""
    if url is None:
        from optuna.storages.journal import JournalFileBackend

        return optuna.storages.JournalStorage(JournalFileBackend(str(folder / JOURNAL)))
    if not url.startswith(("postgresql://", "postgresql+psycopg://", "postgresql+psycopg2://")):
        raise StudyError(f"unsupported storage {url!r}: give postgresql://USER@HOST/DB, or leave --storage out")
    if url.startswith("postgresql://"):
        url = "postgresql+psycopg://" + url[len("postgresql://") :]
    try:
        warnings.filterwarnings("ignore", category=optuna.exceptions.ExperimentalWarning)  # heartbeats
        return optuna.storages.RDBStorage(
            url, engine_kwargs={"pool_pre_ping": True, "connect_args": {"connect_timeout": 10}},
            heartbeat_interval=HEARTBEAT_S, grace_period=GRACE_S,
        )  # fmt: skip
    except Exception as e:  # sqlalchemy's errors carry the server's reason on their first line
        reason = str(e).strip().splitlines()[0] if str(e).strip() else type(e).__name__
        raise StudyError(f"cannot reach storage {_redact(url)}: {reason}") from None


def _redact(url: str) -> str:
    """A storage URL without its password, for logs and records."""
    if "@" in url and ":" in url.split("@")[0].split("//")[-1]:
        scheme, rest = url.split("//", 1)
        user = rest.split("@")[0].split(":")[0]
        return f"{scheme}//{user}:***@{rest.split('@', 1)[1]}"
    return url


def identity(folder: Path) -> str:
    """A hash of what decides a trial's result in study.toml (not the budget nor the workers)."""
    raw = tomllib.loads((folder / "study.toml").read_text())
    key = {k: raw.get(k) for k in IDENTITY_KEYS}
    return hashlib.sha256(json.dumps(key, sort_keys=True, default=str).encode()).hexdigest()[:16]


def load(folder, storage: str | None = None, create: bool = False):
    """(spec, Optuna study) of a study folder; `create` makes the stored study if it is missing."""
    folder = Path(folder)
    spec = StudySpec.load(folder)
    if not create and storage is None and not (folder / JOURNAL).exists():
        raise StudyError(f"{folder} has not run yet; start it with `sparring study run {folder}`")
    store = open_storage(folder, storage)
    name, direction = folder.resolve().name, "maximize" if objectives.MAXIMISED[spec.objective] else "minimize"
    sampler = make_sampler(spec)
    try:
        study = optuna.load_study(study_name=name, storage=store, sampler=sampler)
    except KeyError:
        if not create:
            fix = f"start it with `sparring study run {folder}`"
            raise StudyError(f"no study {name!r} in that storage; {fix}") from None
        study = optuna.create_study(study_name=name, storage=store, sampler=sampler, direction=direction)
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
    return int(np.random.SeedSequence([study_seed, number]).generate_state(1, dtype=np.uint32)[0])


def _worker_id() -> str:
    return f"{socket.gethostname()}:{os.getpid()}"


def _alive(worker: str) -> bool:
    """Whether the process named `host:pid` may still run (always true for another machine's)."""
    host, _, pid = worker.rpartition(":")
    if host != socket.gethostname():
        return True
    try:
        os.kill(int(pid), 0)
    except ProcessLookupError:
        return False
    except (PermissionError, ValueError):
        return True
    return True


@contextmanager
def _folder_lock(folder: Path):
    """One process at a time recovers failed trials (so none is queued twice)."""
    with open(folder / ".lock", "w") as handle:
        fcntl.flock(handle, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(handle, fcntl.LOCK_UN)


def recover(folder: Path, study) -> int:
    """Fail the trials of dead local workers and queue again every failed trial not yet re-run.

    Returns how many trials were queued.
    """
    queued = 0
    with _folder_lock(folder):
        trials = study.get_trials(deepcopy=False)
        for t in trials:
            worker = t.user_attrs.get("worker")
            if t.state == TrialState.RUNNING and worker and worker != _worker_id() and not _alive(worker):
                study.tell(t.number, state=TrialState.FAIL)
        trials = study.get_trials(deepcopy=False)
        origin = {t.number: t.user_attrs.get("retry_of", t.number) for t in trials}
        attempts: dict[int, list] = {}
        for t in trials:
            attempts.setdefault(origin[t.number], []).append(t.state)
        for number, states in sorted(attempts.items()):
            if all(s == TrialState.FAIL for s in states) and len(states) <= MAX_RETRIES:
                params = next(t.params for t in trials if t.number == number)
                study.enqueue_trial(params, user_attrs={"retry_of": number})
                queued += 1
    return queued


def _counts(study) -> dict:
    states = [t.state for t in study.get_trials(deepcopy=False)]
    return {
        "complete": states.count(TrialState.COMPLETE),
        "running": states.count(TrialState.RUNNING),
        "waiting": states.count(TrialState.WAITING),
        "failed": states.count(TrialState.FAIL),
    }


def games_per_trial(spec: StudySpec) -> int:
    return 2 * spec.games * len(spec.opponents)


def _surplus(study, number: int, target: int) -> bool:
    """Whether trial `number` has `target` trials before it that finished, run or wait: workers that
    start trials at the same moment (on one machine or several) would otherwise overshoot the budget."""
    states = (TrialState.COMPLETE, TrialState.RUNNING, TrialState.WAITING)
    return sum(t.number < number for t in study.get_trials(deepcopy=False, states=states)) >= target


def _objective(spec: StudySpec, dists: dict, target: int, bar=None):
    def run_trial(trial: optuna.Trial) -> float:
        if _surplus(trial.study, trial.number, target):
            raise optuna.TrialPruned("the study had its trials already")  # stored as PRUNED, never replayed
        trial.set_user_attr("worker", _worker_id())
        values = suggest(trial, dists)
        seed = trial_seed(spec.seed, trial.user_attrs.get("retry_of", trial.number))
        if bar is not None:
            _refresh(bar, trial.study, spec)
        records = objectives.play_trial(spec, values, seed, progress=bar)
        value = objectives.value(spec.objective, records)
        trial.set_user_attr("records", records)
        trial.set_user_attr("seed", seed)
        trial.set_user_attr("reward", objectives.reward(spec.objective, value, records))
        return value

    return run_trial


def work(folder, storage: str | None, target: int, bar=None) -> None:
    """One worker: run trials until the study has `target` finished ones (counting those running)."""
    folder = Path(folder)
    spec, study = load(folder, storage)
    run_trial = _objective(spec, distributions(spec), target, bar)
    while True:
        recover(folder, study)
        c = _counts(study)
        if c["complete"] + c["running"] >= target:
            return
        study.optimize(run_trial, n_trials=1, catch=())
        _refresh(bar, study, spec)


def run(folder, workers: int | None = None, storage: str | None = None, trials: int | None = None,
        progress: bool = True) -> dict:  # fmt: skip
    """Run (or resume) a study until it has `trials` finished trials; returns its status."""
    folder = Path(folder)
    spec, study = load(folder, storage, create=True)
    target = trials if trials is not None else spec.trials
    workers = workers if workers is not None else spec.workers
    if target < 1 or workers < 1:
        raise StudyError("--trials and --workers must be at least 1")
    record = {"environment": environment(spec.seed), "workers": workers, "target": target,
              "storage": "journal" if storage is None else _redact(storage)}  # fmt: skip
    with open(folder / RUNS, "a") as f:
        f.write(json.dumps(record) + "\n")
    bar = _bar(spec, study, target, progress)
    if workers == 1:
        work(folder, storage, target, bar)
    else:
        ctx = multiprocessing.get_context("spawn")
        procs = [ctx.Process(target=work, args=(str(folder), storage, target), daemon=True) for _ in range(workers)]
        for p in procs:
            p.start()
        while any(p.is_alive() for p in procs):
            time.sleep(0.5)
            _refresh(bar, study, spec)
        _refresh(bar, study, spec)
        if any(p.exitcode != 0 for p in procs):
            raise StudyError(f"a worker failed (exit codes {[p.exitcode for p in procs]}); run the study again")
    if bar is not None:
        bar.close()
    return status(folder, storage)


def _bar(spec, study, target, progress):
    """A bar over the games of the trials to finish (finished trials count whole), with its ETA."""
    if not progress:
        return None
    from tqdm import tqdm

    per_trial = games_per_trial(spec)
    done = min(target, _counts(study)["complete"]) * per_trial
    return tqdm(total=target * per_trial, initial=done, desc=f"{target} trials", unit="game", dynamic_ncols=True)


def _refresh(bar, study, spec):
    if bar is not None:
        bar.n = min(bar.total, _counts(study)["complete"] * games_per_trial(spec))
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
        "games": len(finished) * games_per_trial(spec),
    }
    if finished:
        best = study.best_trial
        out["best"] = {"trial": best.number, "value": best.value, "params": best.params,
                       "records": best.user_attrs["records"]}  # fmt: skip
    return out
