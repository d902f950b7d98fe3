"""Memory levels from the cache sizes the OS reports, and their in-place yardsticks."""

import numba
import numpy as np
import pytest

from harness.statevector import levels
from harness.threads import numba_threads


def test_levels_follow_the_reported_caches():
    caps = levels.capacities()
    assert 0 < caps["L2"] <= caps["L3"]
    assert levels.level_of(caps["L2"]) == "L2"
    assert levels.level_of(caps["L2"] + 1) == ("L3" if caps["L3"] > caps["L2"] else "DRAM")
    assert levels.level_of(caps["L3"] + 1) == "DRAM"
    assert levels.level_of(levels.yardstick_bytes("L2")) == "L2"
    assert levels.level_of(levels.yardstick_bytes("DRAM")) == "DRAM"
    assert levels.yardstick_bytes("DRAM") >= 4 * caps["L3"]
    with pytest.raises(ValueError, match="memory level"):
        levels.yardstick_bytes("L4")


def test_a_yardstick_is_measured():
    gbs = levels.inplace_gbs("L2", max_seconds=0.05)
    assert 0.1 < gbs < 10_000  # GB/s: a measurement, not a constant
    assert 0.1 < levels.size_gbs(1 << 20, max_seconds=0.05) < 10_000
    assert levels.effective_gbs(2, 1e9, 1.0) == 4.0


def test_a_yardstick_on_several_threads_updates_every_part_once_a_pass():
    floats = np.arange(1.0, 12.0)  # 11 floats in 3 parts: the last one takes the rest
    levels._update_parts(floats, 3, 2, 2.0)
    np.testing.assert_array_equal(floats, 4 * np.arange(1.0, 12.0))
    threads = min(2, numba.config.NUMBA_NUM_THREADS)
    # each thread its own half L2: the buffer grows with the threads, it is not shared
    assert levels.yardstick_bytes("L2", threads) == threads * levels.yardstick_bytes("L2")
    assert levels.yardstick_bytes("L3", threads) == levels.yardstick_bytes("L3")
    with numba_threads(threads):
        assert 0.1 < levels.inplace_gbs("L2", max_seconds=0.05, threads=threads) < 10_000
    with pytest.raises(ValueError, match="threads must be between"):
        levels.inplace_gbs("L2", threads=numba.config.NUMBA_NUM_THREADS + 1)
