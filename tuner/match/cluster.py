"""Match work on other machines: a Dask cluster as joblib's backend (issue 36).

Dask distributed, not Ray: joblib ships a backend for it, so the code that spreads games over local processes
spreads them over a cluster unchanged; it is pure Python from PyPI (`pip install 'sparring[cluster]'`), its
scheduler and workers start with one command each (`dask scheduler`, `dask worker tcp://HOST:8786`), and it
runs again the tasks of a worker that is lost, so a lost worker's games are played elsewhere, counted once.
Every game is seeded by its index, so a cluster plays the same games as one machine, whatever the split.
Self-play (`spread`) submits its shares to the client directly instead: its network must go to the workers in
a form the cluster can compute again when a worker holding it is lost.
"""

from __future__ import annotations

import pickle
import threading
from contextlib import contextmanager

CONNECT_TIMEOUT = 10  # seconds to reach the scheduler before giving up


class ClusterError(ValueError):
    """A cluster's worker cannot play what the run asks (its files differ from the run's): one line to the user."""


def connect(address: str, timeout: float = CONNECT_TIMEOUT):
    """A Dask client of the scheduler at `address`, which has workers; ValueError in one line if Dask is missing,
    nothing answers within `timeout` seconds (something that is not a scheduler may never answer: the client
    is made in a thread that is left behind), or the cluster has no worker."""
    try:
        from distributed import Client
    except ImportError:
        raise ValueError("a cluster needs Dask distributed: pip install 'sparring[cluster]'") from None
    if not isinstance(address, str) or not address.strip():
        raise ValueError(f"a cluster's address is its scheduler's, tcp://HOST:PORT, not {address!r}")
    made: dict = {}

    def make():
        try:
            made["client"] = Client(address, timeout=timeout)
        except Exception as error:  # whatever the comm layer raises for this address
            made["error"] = error

    maker = threading.Thread(target=make, daemon=True)
    maker.start()
    maker.join(timeout + 5)
    if "client" not in made:
        error = made.get("error")
        reason = (
            (str(error).strip().splitlines() or [type(error).__name__])[0] if error else f"no answer in {timeout} s"
        )
        raise ValueError(
            f"cannot reach a Dask scheduler at {address!r} ({reason}): start one (`dask scheduler`, then "
            "`dask worker ADDRESS` on each machine) or leave the cluster out"
        )
    client = made["client"]
    if not client.nthreads():
        client.close()
        raise ValueError(f"the Dask cluster at {address!r} has no worker: start some (`dask worker {address}`)")
    return client


def threads(client) -> int:
    """The worker threads of the cluster `client` is connected to: how many games it plays at once."""
    return max(1, sum(client.nthreads().values()))


def spread(client, function, calls: list[tuple], shared: tuple = ()) -> list:
    """[function(*call) for call in calls], each call a task on `client`'s cluster, the results in order.

    An argument in `shared` (a large one several calls take, such as a network) is sent once, as the result of a
    task of its own, which the cluster computes again if every worker holding it is lost (data scattered by
    joblib's backend could not come back), so a lost worker's calls run again on another. ValueError in one line
    if the cluster loses the calls for good (its workers gone, or a call that kills every worker it meets)."""
    from concurrent.futures import CancelledError

    from distributed import KilledWorker

    sent = {id(x): client.submit(pickle.loads, pickle.dumps(x), pure=False) for x in shared}
    futures = [client.submit(function, *(sent.get(id(a), a) for a in call), pure=False) for call in calls]
    try:
        return client.gather(futures)
    except (KilledWorker, CancelledError, OSError) as error:
        reason = (str(error).strip().splitlines() or [""])[0][:200]
        raise ValueError(
            f"the Dask cluster lost the work ({type(error).__name__}: {reason}): check its workers and run again"
        ) from None
    finally:
        client.cancel([*futures, *sent.values()])


@contextmanager
def on_cluster(client):
    """joblib's Parallel runs its tasks on `client`'s cluster within this block (and the client closes after)."""
    from joblib import parallel_config

    with client, parallel_config(backend="dask"):
        yield
