"""What this machine's memory can do, for reports that express kernels as a fraction of
it. Both yardsticks move 2**24 complex128 (256 MiB, far past any cache) on one thread
and count bytes read plus bytes written, the same accounting as a gate kernel, which
reads and writes every amplitude once."""

from harness import threads
from harness.timing import best_seconds

threads.pin_env(1)

import numpy as np  # noqa: E402

from harness.statevector import levels  # noqa: E402

AMPLITUDES = 1 << 24


def _best(fn):
    """The fastest of ten single passes (one pass takes ~0.1 s)."""
    return best_seconds(fn, repeat=10, max_seconds=float("inf"), min_sample=0.0)


class MemoryBandwidth:
    unit = "GB/s"
    timeout = 120

    def setup(self):
        self.src = np.ones(AMPLITUDES, dtype=np.complex128)
        self.dst = np.zeros_like(self.src)
        np.copyto(self.dst, self.src)  # fault the pages in before measuring

    def track_copy_bandwidth(self):
        """np.copyto into a second array. Writing to lines not in cache also reads them
        first (write-allocate), traffic this figure does not count."""
        t = _best(lambda: np.copyto(self.dst, self.src))
        return 2 * self.src.nbytes / t / 1e9

    def track_inplace_bandwidth(self):
        """Every amplitude read, scaled and written back in place: a gate kernel's access
        pattern without its arithmetic, so the ceiling an in-place kernel can reach."""
        return levels.update_gbs(self.src, _best)


class LevelBandwidth:
    """The in-place update per memory level (harness.statevector.levels): a buffer that
    sits in L2, one in L3, one in DRAM (at least 4x the L3), sizes from what the OS
    reports. A state is judged against the level it fits in."""

    unit = "GB/s"
    timeout = 120
    params = ["L2", "L3", "DRAM"]
    param_names = ["level"]

    def track_inplace_bandwidth(self, level):
        return levels.inplace_gbs(level, max_seconds=2.0)
