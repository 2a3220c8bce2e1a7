"""A study on a real PostgreSQL server, shared by two workers (as on several machines).

The server is $SPARRING_TEST_POSTGRES if set, else one started here on loopback from the
PostgreSQL binaries (.ci/run installs them from Debian's packages); without them the test skips.
"""

import glob
import os
import shutil
import socket
import subprocess
import tempfile
from pathlib import Path

import pytest

from tuner.study.runner import load, run, status

pytestmark = [pytest.mark.postgres, pytest.mark.slow]


def _binaries() -> Path | None:
    found = shutil.which("pg_ctl")
    if found:
        return Path(os.path.realpath(found)).parent
    candidates = sorted(glob.glob("/usr/lib/postgresql/*/bin/pg_ctl"))
    return Path(candidates[-1]).parent if candidates else None


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@pytest.fixture(scope="module")
def postgres_url():
    if os.environ.get("SPARRING_TEST_POSTGRES"):
        yield os.environ["SPARRING_TEST_POSTGRES"]
        return
    pytest.importorskip("psycopg", reason="psycopg is missing: pip install 'psycopg[binary]'")
    bindir = _binaries()
    if bindir is None:
        pytest.skip("no PostgreSQL server binaries (pg_ctl, initdb) here: apt-get install postgresql")
    base = Path(tempfile.mkdtemp(prefix="sparring-pg-"))
    as_user = []
    if os.geteuid() == 0:  # initdb refuses root: run the server as the postgres account
        if shutil.which("runuser") is None or subprocess.run(["id", "postgres"], capture_output=True).returncode:
            pytest.skip("running as root without a postgres account to start PostgreSQL with")
        os.chmod(base, 0o755)
        shutil.chown(base, "postgres")
        as_user = ["runuser", "-u", "postgres", "--"]
    data, port = base / "data", _free_port()

    def pg(*args):
        return subprocess.run(as_user + [str(bindir / args[0]), *args[1:]], capture_output=True, text=True, timeout=120)

    started = pg("initdb", "-D", str(data), "-A", "trust", "-U", "sparring")
    if started.returncode == 0:
        options = f"-p {port} -k {base} -c listen_addresses=127.0.0.1"
        started = pg("pg_ctl", "-D", str(data), "-o", options, "-l", str(base / "log"), "-w", "start")
    if started.returncode != 0:
        shutil.rmtree(base, ignore_errors=True)
        pytest.skip(f"could not start PostgreSQL: {(started.stderr or started.stdout).strip().splitlines()[-1]}")
    try:
        created = pg("createdb", "-h", "127.0.0.1", "-p", str(port), "-U", "sparring", "sparring")
        assert created.returncode == 0, created.stderr
        yield f"postgresql://sparring@127.0.0.1:{port}/sparring"
    finally:
        pg("pg_ctl", "-D", str(data), "-m", "immediate", "stop")
        shutil.rmtree(base, ignore_errors=True)


def test_two_workers_run_one_study_on_postgresql(tmp_path, postgres_url, tiny_study, played):
    folder = tmp_path / "pg-study"
    folder.mkdir()
    # 0.05 s a move: trials last long enough that the worker started second still finds some to run
    (folder / "study.toml").write_text(tiny_study.replace("STRATEGY", "grid").replace("simulations=30", "time=0.05"))
    summary = run(folder, workers=2, storage=postgres_url, progress=False)
    assert summary["trials"]["complete"] == 4 and summary["trials"]["failed"] == 0
    _, study = load(folder, postgres_url)
    trials = played(study.get_trials(deepcopy=False))
    assert sorted(t.params["C"] for t in trials) == [0.25, 0.5, 1.0, 2.0]  # the grid, once
    assert len({t.user_attrs["worker"] for t in trials}) == 2  # both workers ran trials
    assert not (folder / "journal.log").exists()  # everything went to the server
    assert status(folder, postgres_url)["games"] == 8
