"""Match work on other machines: a Dask cluster as joblib's backend (issue 36).

Dask distributed, not Ray: joblib ships a backend for it, so the code that spreads games over local processes
spreads them over a cluster unchanged; it is pure Python from PyPI (`pip install 'sparring[cluster]'`), its
scheduler and workers start with one command each (`dask scheduler`, `dask worker tcp://HOST:8786`), and it
runs again the tasks of a worker that is lost, so a lost worker's games are played elsewhere, counted once.
Every game is seeded by its index, so a cluster plays the same games as one machine, whatever the split.
"""

from __future__ import annotations

from contextlib import contextmanager

CONNECT_TIMEOUT = 10  # seconds to reach the scheduler before giving up


def connect(address: str, timeout: float = CONNECT_TIMEOUT):
    """A Dask client of the scheduler at `address`; ValueError in one line if Dask is missing or nothing answers."""
    try:
        from distributed import Client
    except ImportError:
        raise ValueError("a cluster needs Dask distributed: pip install 'sparring[cluster]'") from None
    try:
        return Client(address, timeout=timeout)
    except (OSError, TimeoutError, ValueError) as error:
        reason = str(error).strip().splitlines()[0] if str(error).strip() else type(error).__name__
        raise ValueError(
            f"cannot reach a Dask scheduler at {address!r} ({reason}): start one (`dask scheduler`, then "
            "`dask worker ADDRESS` on each machine) or leave the cluster out"
        ) from None


def threads(client) -> int:
    """The worker threads of the cluster `client` is connected to: how many games it plays at once."""
    return max(1, sum(client.nthreads().values()))


@contextmanager
def on_cluster(client):
    """joblib's Parallel runs its tasks on `client`'s cluster within this block (and the client closes after)."""
    from joblib import parallel_config

    with client, parallel_config(backend="dask"):
        yield
