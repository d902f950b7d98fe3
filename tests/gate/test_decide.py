"""The gate's decision rules on synthetic samples: instruction-count verdicts at the
tolerance, the order-statistics interval of the median (its coverage checked by
simulation), wall-time verdicts on A/A-like and slowed-down samples, and tolerances."""

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from harness.gate import decide


@pytest.mark.parametrize("base, head, tol, verdict", [
    (1000, 1000, 0.01, "same"),
    (1000, 1010, 0.01, "same"),       # exactly at the tolerance: not a regression
    (1000, 1011, 0.01, "slower"),
    (1000, 1050, 0.01, "slower"),     # the 5% the gate must catch
    (1000, 991, 0.01, "same"),
    (1000, 989, 0.01, "faster"),
])
def test_count_verdict(base, head, tol, verdict):
    got, ratio = decide.count_verdict(base, head, tol)
    assert got == verdict and ratio == pytest.approx(head / base)


def test_median_interval_order_statistics():
    low, median, high, coverage = decide.median_interval(list(range(1, 17)))
    assert (low, median, high) == (4, 8.5, 13)  # n = 16: [x_(4), x_(13)]
    assert coverage == pytest.approx(1 - 2 * sum(math.comb(16, i) for i in range(4)) / 2 ** 16)
    assert coverage >= 0.95
    low, median, high, _ = decide.median_interval([3.0, 1.0, 2.0])
    assert (low, median, high) == (1.0, 2.0, 3.0)  # too few for 95%: the whole range
    with pytest.raises(ValueError):
        decide.median_interval([])


@given(st.lists(st.floats(0.1, 10.0), min_size=1, max_size=40))
def test_median_interval_brackets_the_median(values):
    low, median, high, coverage = decide.median_interval(values)
    assert low <= median <= high
    assert min(values) <= low and high <= max(values)
    assert 0 <= coverage <= 1


def test_median_interval_covers_the_true_median_as_claimed():
    rng = np.random.default_rng(1)
    n, trials, hits = 16, 4000, 0
    for _ in range(trials):
        sample = rng.lognormal(0.0, 0.3, n)  # true median exactly 1
        low, _, high, coverage = decide.median_interval(sample)
        hits += low <= 1.0 <= high
    assert hits / trials >= coverage - 0.02


@settings(deadline=None)
@given(st.integers(0, 2 ** 31 - 1))
def test_wall_verdict_aa_samples_do_not_alarm(seed):
    # noisy A/A ratios: lognormal around 1 with 20% spread and a few 3x outliers
    rng = np.random.default_rng(seed)
    ratios = rng.lognormal(0.0, 0.2, 16)
    ratios[rng.integers(0, 16, 2)] *= 3.0
    verdict, (low, _, _, _) = decide.wall_verdict(list(ratios), tol=0.10)
    # the rule alarms only when x_(4) > 1.1: at least 13 of 16 ratios above it
    assert verdict != "slower" or low > 1.1


def test_wall_verdict_catches_a_clear_slowdown_and_speedup():
    rng = np.random.default_rng(7)
    slow = list(1.5 * rng.lognormal(0.0, 0.05, 16))
    assert decide.wall_verdict(slow, tol=0.10)[0] == "slower"
    fast = list(0.6 * rng.lognormal(0.0, 0.05, 16))
    assert decide.wall_verdict(fast, tol=0.10)[0] == "faster"
    noisy = [0.7, 1.6] * 8  # a median near 1.15 but an interval reaching below 1.1
    assert decide.wall_verdict(noisy, tol=0.10)[0] == "same"
    # five rounds cannot give a 95% interval of the median: no verdict either way
    assert decide.wall_verdict([2.0] * 5, tol=0.10)[0] == "inconclusive"
    assert decide.wall_verdict([2.0] * 6, tol=0.10)[0] == "slower"


def test_tolerance_from_spread_is_clamped():
    assert decide.tolerance_from_spread(0.0) == decide.FLOOR
    assert decide.tolerance_from_spread(0.005) == pytest.approx(0.015)
    assert decide.tolerance_from_spread(0.5) == decide.CEILING
    assert decide.CEILING < 0.05  # a 5% slowdown is always caught


def test_tolerance_and_blocking_from_stored_calibration():
    stored = {"tier1": {"a": {"runs": 30, "spread": 0.002, "tolerance": 0.01}},
              "tier2": {"w": {"runs": 20, "false_alarms": 0, "highest_low": 1.01},
                        "v": {"runs": 20, "false_alarms": 1, "highest_low": 1.2},
                        "u": {"runs": 5, "false_alarms": 0, "highest_low": 1.0},
                        "t": {"runs": 30, "false_alarms": 0, "highest_low": 1.08}}}
    assert decide.tolerance("a", 1, stored)[0] == 0.01
    assert "A/A spread" in decide.tolerance("a", 1, stored)[1]
    assert decide.tolerance("new", 1, stored) == (decide.UNCALIBRATED, "default: no A/A data")
    assert decide.may_block("w", stored)
    assert not decide.may_block("v", stored)  # a false alarm in its A/A runs
    assert not decide.may_block("u", stored)  # too few A/A runs
    assert not decide.may_block("t", stored)  # an A/A interval came close to alarming
    assert not decide.may_block("x", stored)


def test_stored_tolerances_cover_every_tier1_case_and_catch_five_percent():
    from harness.gate.cases import CASES
    stored = decide.load()
    for cid, case in CASES.items():
        if case.tier == 1 and cid in stored.get("tier1", {}):
            entry = stored["tier1"][cid]
            assert entry["tolerance"] == decide.tolerance_from_spread(entry["spread"])
            assert decide.count_verdict(1.0, 1.05, entry["tolerance"])[0] == "slower"
