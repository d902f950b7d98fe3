"""What this machine can do, for reports that express kernels as a fraction of it."""

import time

from harness import threads

threads.pin_env(1)

import numpy as np  # noqa: E402

#: 2**24 complex128 = 256 MiB per array: far past any cache, like the large states.
COPY_AMPLITUDES = 1 << 24


class MemoryBandwidth:
    unit = "GB/s"
    timeout = 120

    def setup(self):
        self.src = np.ones(COPY_AMPLITUDES, dtype=np.complex128)
        self.dst = np.zeros_like(self.src)
        np.copyto(self.dst, self.src)  # fault the pages in before measuring

    def track_copy_bandwidth(self):
        """Best of 10 one-thread copies, counting bytes read plus bytes written (the same
        accounting as a gate kernel, which reads and writes every amplitude once)."""
        best = float("inf")
        for _ in range(10):
            t0 = time.perf_counter()
            np.copyto(self.dst, self.src)
            best = min(best, time.perf_counter() - t0)
        return 2 * self.src.nbytes / best / 1e9
