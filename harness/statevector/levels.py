"""Memory levels and their yardsticks: where a state sits (L2, L3 or DRAM, from the cache
sizes the OS reports) and what an in-place update of a buffer of that level moves per
second on one thread, measured in the calling process.

A kernel or a fused circuit is judged against the level its state fits in: a 16 MiB state
on a machine with a 32 MiB L3 is read from L3, and judging it against a DRAM update would
put it above 100%.
"""

from functools import partial

import numba
import numpy as np

from harness.timing import best_seconds
from kernels.statevector.machine import cache_sizes, level_of  # noqa: F401 - re-exported: where a buffer sits

LEVELS = ("L2", "L3", "DRAM")
#: The DRAM yardstick's buffer is at least this many times the last-level cache.
DRAM_FACTOR = 4
#: ... and at least this size (256 MiB, the former single yardstick).
DRAM_MIN_BYTES = 1 << 28


def capacities():
    """{level: bytes} of L2 and L3 for one core as the OS reports them (L3 = L2 where
    the machine has none)."""
    sizes = cache_sizes()
    return {"L2": sizes[2], "L3": sizes.get(3, sizes[2])}


def yardstick_bytes(level, threads=1):
    """The buffer an in-place update of ``level`` runs on: half of L2 for each thread
    (every core has its own), half of L3 (so it stays there next to the rest of the
    process), DRAM at least 4x the L3."""
    caps = capacities()
    if level == "L2":
        return threads * (caps["L2"] // 2)
    if level == "L3":
        return max(caps["L3"] // 2, caps["L2"] * 2)
    if level == "DRAM":
        return max(DRAM_FACTOR * caps["L3"], DRAM_MIN_BYTES)
    raise ValueError(f"unknown memory level {level!r}; known: {LEVELS}")


def inplace_gbs(level, max_seconds=0.5, threads=1):
    """GB/s (bytes read + bytes written) of ``np.multiply(a, 1.0, out=a)`` on a complex128
    buffer of the level's yardstick size (:func:`size_gbs`)."""
    return size_gbs(yardstick_bytes(level, threads), max_seconds, threads)


def size_gbs(nbytes, max_seconds=0.5, threads=1):
    """GB/s (bytes read + bytes written) of ``np.multiply(a, 1.0, out=a)`` on a complex128
    buffer of ``nbytes``: a gate's access pattern without its arithmetic. The fastest of
    repeated passes, after one that brings the buffer in.

    With ``threads`` > 1, the sum over that many of numba's threads (numba must have that
    many now), each updating its own contiguous part of the buffer (:func:`_update_parts`)."""
    if not 1 <= threads <= numba.get_num_threads():
        raise ValueError(f"size_gbs: threads must be between 1 and numba's "
                         f"{numba.get_num_threads()}, got {threads}")
    a = np.ones(max(1, nbytes // 16), dtype=np.complex128)
    np.multiply(a, 1.0, out=a)
    best = partial(best_seconds, repeat=7, max_seconds=max_seconds, min_sample=0.002)
    if threads == 1:
        return update_gbs(a, best)
    floats = a.view(np.float64)
    # enough passes a call that the threads' start is not what is timed
    passes = max(1, (16 << 20) // a.nbytes)
    one = np.float64(1.0)  # an argument: the compiler cannot fold x * 1.0 away
    _update_parts(floats, threads, passes, one)
    return passes * 2 * a.nbytes / best(lambda: _update_parts(floats, threads, passes, one)) / 1e9


@numba.njit(parallel=True)
def _update_parts(floats, parts, passes, factor):
    # one part a thread, the same one every call (numba's static schedule), so that a
    # part that fits a core's own L2 stays in it between calls
    size = floats.size // parts
    for p in numba.prange(parts):
        part = floats[p * size:floats.size if p == parts - 1 else (p + 1) * size]
        for _ in range(passes):
            for i in range(part.size):
                part[i] *= factor


def loop_gbs(nbytes, max_seconds=0.5):
    """GB/s (bytes read + bytes written) of an in-place update of a complex128 buffer of
    ``nbytes`` on one thread, as numba's loop of enough passes a call that the call's own
    cost does not count: the yardstick of a buffer in L1, where one numpy call's overhead
    is as long as its pass."""
    a = np.ones(max(1, nbytes // 16), dtype=np.complex128)
    floats = a.view(np.float64)
    passes = max(1, (16 << 20) // a.nbytes)
    one = np.float64(1.0)
    _update(floats, passes, one)
    seconds = best_seconds(lambda: _update(floats, passes, one), repeat=7,
                           max_seconds=max_seconds, min_sample=0.002)
    return effective_gbs(passes, a.nbytes, seconds)


@numba.njit
def _update(floats, passes, factor):
    for _ in range(passes):
        for i in range(floats.size):
            floats[i] *= factor


def update_gbs(a, best):
    """GB/s (bytes read + bytes written) of the in-place update of ``a``, timed by
    ``best`` (a function of the call that returns its best seconds)."""
    return 2 * a.nbytes / best(lambda: np.multiply(a, 1.0, out=a)) / 1e9


def effective_gbs(passes, nbytes, seconds):
    """GB/s of ``passes`` passes that each read and write ``nbytes``."""
    return 2 * passes * nbytes / seconds / 1e9
