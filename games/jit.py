"""`kernel`: the one way this project compiles a function (numba, cached, GIL released).

numba keys its on-disk cache on argument types, and the type of a compiled function passed as an
argument (our game kernels, handed to generic playout and search kernels) pickles the function by
a random per-process id, so by default such callers are compiled again in every process (measured
with numba 0.68.1: a warm Breakthrough start took 3.3 s instead of 0.1 s). Giving every kernel a
stable id, its qualified name, makes those cache entries load in later processes.
"""

from numba import njit


def kernel(fn=None, **options):
    """Decorator: `numba.njit(cache=True, nogil=True, **options)` with a process-independent identity."""

    def wrap(f):
        dispatcher = njit(cache=True, nogil=True, **options)(f)
        set_uuid = getattr(dispatcher, "_set_uuid", None)  # numba internals; without it we only start slower
        if set_uuid is not None:
            set_uuid(f"sparring:{f.__module__}.{f.__qualname__}")
        return dispatcher

    return wrap(fn) if fn is not None else wrap
