"""One place that sets how many threads every library may use, so that a comparison is
like for like: numba's thread pool, OpenMP (qulacs), and the BLAS behind numpy."""

import os
from contextlib import contextmanager

#: Environment variables read by the native libraries when they load; set before they load.
# RAYON_NUM_THREADS: qiskit's Rust core (transpiler, sparse Pauli operators) runs on rayon
THREAD_VARS = ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS",
               "NUMEXPR_NUM_THREADS", "VECLIB_MAXIMUM_THREADS", "RAYON_NUM_THREADS")

_limits = None


def pin_env(threads=1):
    """Set the thread environment variables (only effective before the libraries load)."""
    for var in THREAD_VARS:
        os.environ[var] = str(threads)


def max_threads():
    return len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count()


def set_threads(threads):
    """Use ``threads`` threads in numba, OpenMP and BLAS from now on (in this process)."""
    global _limits
    import numba
    from threadpoolctl import threadpool_limits

    if threads < 1 or threads > max_threads():
        raise ValueError(f"threads must be between 1 and {max_threads()}, got {threads}")
    numba.set_num_threads(min(threads, numba.config.NUMBA_NUM_THREADS))
    # threadpool_limits acts at once on every OpenMP and BLAS runtime already loaded
    # (qulacs ships its own libgomp); keep the object so the limit is not garbage.
    _limits = threadpool_limits(limits=threads)
    return threads


@contextmanager
def numba_threads(threads):
    """numba on ``threads`` threads for the duration, then back to the count it had."""
    import numba
    previous = numba.get_num_threads()
    numba.set_num_threads(threads)
    try:
        yield
    finally:
        numba.set_num_threads(previous)


def all_cores():
    """numba on every core for the duration (the reference, which is not timed)."""
    import numba
    return numba_threads(min(max_threads(), numba.config.NUMBA_NUM_THREADS))
