"""`kernel`: the one way this project compiles a function (numba, cached, GIL released, numpy errors).

Error model: numpy's (a division by zero gives inf or nan instead of raising). Python's model gives
every division an exception exit, and arrays bound across such an exit cannot have their reference counting
pruned: measured, a tuner's `record` cost 95 ns per call under Python's model and 10-19 ns under numpy's (when
tuner states were namedtuples of arrays). Even so, numba counts every array handed to an inlined helper in and
out around it, so state that hot loops hand around is one StructRef (a tuner's state, the search's walk), one
count per step, never a namedtuple of arrays.

Cache folder: numba checks a cached function only against its own source file, so a kernel that
inlines code from another file (every search inlines game and tuner kernels) would keep running the
old code after that file changed. The cache therefore lives in a folder named by a hash of every
sparring source that holds compiled code: `$NUMBA_CACHE_DIR` (or ~/.cache/sparring) / numba-<hash>.
Any change to such a source starts a fresh cache.

numba keys its on-disk cache on argument types, and the type of a compiled function passed as an
argument (our game kernels, handed to generic playout and search kernels) pickles the function by
a random per-process id, so by default such callers are compiled again in every process (measured
with numba 0.68.1: a warm Breakthrough start took 3.3 s instead of 0.1 s). Giving every kernel a
stable id, its qualified name, makes those cache entries load in later processes.

A namedtuple of compiled functions handed to a kernel from Python (a game's `GameKernels`, a PUCT `Rule`, a
strategy's `AllocationSteps`) was typed anew by numba on every call: functions have no fast fingerprint, so the
whole tuple went through numba's Python `typeof`. `kernel_tuple` makes numba remember each such value's type:
a Python call of `random_playouts` with no playout cost 115-120 us, and 6.4 us since (numba 0.68.1, this
2-core machine); a namedtuple of arrays (a search's tree) is fingerprinted fast by numba and needs nothing.
"""

import hashlib
import os
from pathlib import Path

import numba
from numba import njit
from numba.core.typing.typeof import typeof_impl

_ROOT = Path(__file__).resolve().parent.parent
PACKAGES = ("games", "search", "nets", "tuner")


def _cache_dir() -> str:
    digest = hashlib.sha256()
    for package in PACKAGES:
        for source in sorted((_ROOT / package).rglob("*.py")):
            text = source.read_bytes()
            if b"@kernel" in text or b"numba" in text:  # only compiled code can end up inlined in a kernel
                digest.update(str(source.relative_to(_ROOT)).encode() + text)
    base = os.environ.get("NUMBA_CACHE_DIR") or os.path.join(Path.home(), ".cache", "sparring")
    return os.path.join(base, f"numba-{digest.hexdigest()[:16]}")


numba.config.CACHE_DIR = _cache_dir()


def kernel(fn=None, **options):
    """Decorator: `numba.njit(cache=True, nogil=True, error_model="numpy", **options)` with a
    process-independent identity."""

    def wrap(f):
        dispatcher = njit(cache=True, nogil=True, error_model="numpy", **options)(f)
        set_uuid = getattr(dispatcher, "_set_uuid", None)  # numba internals; without it we only start slower
        if set_uuid is not None:
            set_uuid(f"sparring:{f.__module__}.{f.__qualname__}")
        return dispatcher

    return wrap(fn) if fn is not None else wrap


def kernel_tuple(cls):
    """Class decorator for a namedtuple of compiled functions passed to kernels: numba types each value once per
    purpose, not on every call (module docstring). The type is the one numba gives a tuple, so nothing compiles
    otherwise."""
    of_tuple = typeof_impl.dispatch(tuple)
    known: dict = {}

    @typeof_impl.register(cls)
    def _typeof(value, context):
        # by its functions: equal tuples made anew (a strategy's steps) share one entry, and the first is kept with
        # the type, so the functions' ids are never reused
        key = (*map(id, value), context.purpose)
        found = known.get(key)
        if found is None:
            found = known[key] = (value, of_tuple(value, context))
        return found[1]

    return cls
