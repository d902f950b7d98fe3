"""Memory levels and their yardsticks: where a state sits (L2, L3 or DRAM, from the cache
sizes the OS reports) and what an in-place update of a buffer of that level moves per
second on one thread, measured in the calling process.

A kernel or a fused circuit is judged against the level its state fits in: a 16 MiB state
on a machine with a 32 MiB L3 is read from L3, and judging it against a DRAM update would
put it above 100%.
"""

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


def yardstick_bytes(level):
    """The buffer an in-place update of ``level`` runs on: half of L2, half of L3 (so it
    stays there next to the rest of the process), DRAM at least 4x the L3."""
    caps = capacities()
    if level == "L2":
        return caps["L2"] // 2
    if level == "L3":
        return max(caps["L3"] // 2, caps["L2"] * 2)
    if level == "DRAM":
        return max(DRAM_FACTOR * caps["L3"], DRAM_MIN_BYTES)
    raise ValueError(f"unknown memory level {level!r}; known: {LEVELS}")


def inplace_gbs(level, max_seconds=0.5):
    """GB/s (bytes read + bytes written) of ``np.multiply(a, 1.0, out=a)`` on a complex128
    buffer of the level's yardstick size: a gate's access pattern without its arithmetic.
    The fastest of repeated passes, after one that brings the buffer in."""
    a = np.ones(yardstick_bytes(level) // 16, dtype=np.complex128)
    np.multiply(a, 1.0, out=a)
    return update_gbs(a, lambda fn: best_seconds(fn, repeat=7, max_seconds=max_seconds,
                                                 min_sample=0.002))


def update_gbs(a, best):
    """GB/s (bytes read + bytes written) of the in-place update of ``a``, timed by
    ``best`` (a function of the call that returns its best seconds)."""
    return 2 * a.nbytes / best(lambda: np.multiply(a, 1.0, out=a)) / 1e9


def effective_gbs(passes, nbytes, seconds):
    """GB/s of ``passes`` passes that each read and write ``nbytes``."""
    return 2 * passes * nbytes / seconds / 1e9
