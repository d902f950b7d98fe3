"""Memory levels from the cache sizes the OS reports, and their in-place yardsticks."""

import pytest

from harness.statevector import levels


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
    assert levels.effective_gbs(2, 1e9, 1.0) == 4.0
