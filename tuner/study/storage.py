"""A study's storage: the Optuna storage, what identifies a study, and the recovery of crashed trials.

Storage: a journal file `journal.log` in the study folder by default (local processes share it
safely), or `--storage postgresql://...` for workers on several machines, each started with the
same `study run`. A trial left RUNNING by a dead worker (a process of this machine that no longer
exists, or, with PostgreSQL, one whose heartbeat stopped) is marked FAIL and queued again with the
same parameters and the same seed: it is run again, at most `MAX_RETRIES` times.
"""

from __future__ import annotations

import hashlib
import json
import os
import socket
import tomllib
import warnings
from pathlib import Path

import optuna
from filelock import FileLock
from optuna.trial import TrialState
from sqlalchemy.engine import make_url

from tuner.agents import changed_net
from tuner.match.arena import check_cluster_nets
from tuner.provenance import net_digests
from tuner.study.spec import StudyError

MAX_RETRIES = 3
JOURNAL = "journal.log"
# the keys that decide what a trial measures: changing one of them makes a different study
IDENTITY_KEYS = ("game", "agent", "opponents", "objective", "games", "seed", "strategy", "space")
HEARTBEAT_S, GRACE_S = 10, 30


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
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", optuna.exceptions.ExperimentalWarning)  # heartbeats are "experimental"
            return optuna.storages.RDBStorage(
                url,
                engine_kwargs={"pool_pre_ping": True, "connect_args": {"connect_timeout": 10}},
                heartbeat_interval=HEARTBEAT_S,
                grace_period=GRACE_S,
            )
    except Exception as e:  # sqlalchemy's errors carry the server's reason on their first line
        reason = str(e).strip().splitlines()[0] if str(e).strip() else type(e).__name__
        raise StudyError(f"cannot reach storage {redact(url)}: {reason}") from None


def redact(url: str) -> str:
    """A storage URL without its password, for logs and records (SQLAlchemy renders it)."""
    try:
        return make_url(url).render_as_string(hide_password=True)
    except Exception:  # not a URL SQLAlchemy reads: say nothing of it that could hold a secret
        return "(unreadable storage URL)"


def identity(folder: Path) -> str:
    """A hash of what decides a trial's result in study.toml (not the budget nor the workers)."""
    raw = tomllib.loads((folder / "study.toml").read_text())
    key = {k: raw.get(k) for k in IDENTITY_KEYS}
    return hashlib.sha256(json.dumps(key, sort_keys=True, default=str).encode()).hexdigest()[:16]


def check_nets(study, spec, folder: Path) -> None:
    """Record the networks a study plays with when it has none recorded (a new study, or one from before they were
    kept); refuse, in one line, to add trials when one of them is no longer the file it started with, here or, where
    the games are played on a cluster, on one of its workers."""
    try:
        now = spec.nets()
    except ValueError as error:  # a net deleted or moved away since the study started
        raise StudyError(f"{folder}: {error}") from None
    then = study.user_attrs.get("nets")
    if then is None:
        study.set_user_attr("nets", now)
        then = now
    name = changed_net(then, now)
    if name is not None:
        moved = [shipped for shipped, digest in net_digests().items() if digest == then.get(name)]
        where = f" (that file ships now as {moved[0]!r})" if moved else ""
        raise StudyError(
            f"{folder} started with the net {name!r} at digest {then.get(name)}{where}, now {now.get(name)}: "
            "trials of two nets would mix; put that file back under its name, or copy the folder without "
            "journal.log to start a new study"
        )
    if spec.cluster is not None:  # before any trial is asked: a worker refusing its share would fail the trials
        check_cluster_nets(spec.cluster, spec.game, (spec.agent, *spec.opponents))


def read_lines(path: Path) -> list[dict]:
    """The JSON lines of `path` (none if it is missing), up to a torn last line that a kill left half-written."""
    rows = []
    if path.exists():
        for line in path.read_text().splitlines():
            try:
                rows.append(json.loads(line))
            except json.JSONDecodeError:
                break
    return rows


def append_lines(path: Path, rows: list[dict]) -> None:
    """Append `rows` as JSON lines and sync them to disk; a torn last line is cut first, so that a kill at
    any moment loses at most the rows being written."""
    if path.exists():
        data = path.read_bytes()
        if data and not data.endswith(b"\n"):
            os.truncate(path, data.rfind(b"\n") + 1)  # in place: the whole rows before it are never rewritten
    with open(path, "a") as f:
        f.write("".join(json.dumps(r) + "\n" for r in rows))
        f.flush()
        os.fsync(f.fileno())


def worker_id() -> str:
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


def recover(folder: Path, study) -> int:
    """Fail the trials of dead local workers and queue again every failed trial not yet re-run.

    Returns how many trials were queued.
    """
    queued = 0
    with FileLock(folder / ".lock"):  # one process at a time, so no trial is queued twice
        trials = study.get_trials(deepcopy=False)
        for t in trials:
            worker = t.user_attrs.get("worker")
            if t.state == TrialState.RUNNING and worker and worker != worker_id() and not _alive(worker):
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
