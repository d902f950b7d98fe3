"""The gate's decision rules, pure functions of the measurements (unit-tested on
synthetic samples in ``tests/gate/test_decide.py``).

Tier 1 (instruction counts): a case regressed when head / base > 1 + tolerance, where the
tolerance comes from the case's measured A/A spread (:func:`tolerance`). Tier 2 (wall
time): a case regressed only when the whole confidence interval of the median paired
ratio lies above 1 + tolerance, and it may block only where its own A/A runs showed no
false alarm.
"""

import json
import math
from pathlib import Path

TOLERANCES = Path(__file__).with_name("tolerances.json")

#: Tier 1: a tolerance is SPREAD_FACTOR times the largest relative deviation seen in the
#: case's A/A runs, and never below FLOOR (an instruction-count change under 1% is not a
#: difference in time anyone can measure) nor above CEILING (the gate exists to catch 5%).
FLOOR = 0.01
SPREAD_FACTOR = 3.0
CEILING = 0.04
#: A case with no A/A data yet (new) is judged with this tolerance, and says so.
UNCALIBRATED = 0.02

#: Tier 2: the slowdown tolerated, the confidence of the interval, how many A/A runs
#: without a false alarm a case needs before it may block, and how far below the
#: tolerance the lowest end of its A/A intervals must have stayed (0 false alarms in 20
#: runs alone still allows a false-alarm rate of up to 14% at 95% confidence).
WALL_TOLERANCE = 0.10
CONFIDENCE = 0.95
BLOCKING_RUNS = 20
BLOCKING_MARGIN = 0.5


def count_verdict(base, head, tol):
    """("slower" | "faster" | "same", head / base) for instruction counts per call."""
    ratio = head / base
    if ratio > 1 + tol:
        return "slower", ratio
    if ratio < 1 / (1 + tol):
        return "faster", ratio
    return "same", ratio


def _binom_cdf(k, n):
    return sum(math.comb(n, i) for i in range(k + 1)) / 2 ** n


def median_interval(values, confidence=CONFIDENCE):
    """(low, median, high, coverage): the distribution-free confidence interval of the
    median from order statistics, [x_(j), x_(n+1-j)] with the largest j whose coverage
    1 - 2 P(Binomial(n, 1/2) <= j - 1) is at least ``confidence``. With too few values
    for that, the whole range (and its smaller coverage)."""
    xs = sorted(values)
    n = len(xs)
    if n == 0:
        raise ValueError("no values")
    median = (xs[(n - 1) // 2] + xs[n // 2]) / 2
    j = 1
    while j + 1 <= n // 2 and 1 - 2 * _binom_cdf(j, n) >= confidence:
        j += 1
    coverage = 1 - 2 * _binom_cdf(j - 1, n)
    return xs[j - 1], median, xs[n - j], coverage


def wall_verdict(ratios, tol=WALL_TOLERANCE, confidence=CONFIDENCE):
    """("slower" | "faster" | "same" | "inconclusive", (low, median, high, coverage)) of
    paired ratios: slower only when the whole interval lies above 1 + tol, faster only
    when it lies below 1 / (1 + tol); inconclusive with too few rounds for an interval
    of the confidence asked (fewer than 6 at 95%)."""
    interval = median_interval(ratios, confidence)
    low, _, high, coverage = interval
    if coverage < confidence:
        return "inconclusive", interval
    if low > 1 + tol:
        return "slower", interval
    if high < 1 / (1 + tol):
        return "faster", interval
    return "same", interval


def tolerance_from_spread(spread):
    """Tier 1's tolerance for a case whose A/A runs deviated by at most ``spread``."""
    return min(max(FLOOR, SPREAD_FACTOR * spread), CEILING)


def load(path=TOLERANCES):
    """The stored A/A calibration: {"tier1": {id: {...}}, "tier2": {id: {...}}, ...}."""
    try:
        return json.loads(Path(path).read_text())
    except FileNotFoundError:
        return {"tier1": {}, "tier2": {}}


def tolerance(case_id, tier, stored):
    """(tolerance, where it comes from) of a case: its A/A spread, or the default for a
    case not calibrated yet."""
    entry = stored.get(f"tier{tier}", {}).get(case_id)
    if tier == 1:
        if entry is None:
            return UNCALIBRATED, "default: no A/A data"
        return entry["tolerance"], f"A/A spread {entry['spread']:.2%} over {entry['runs']} runs"
    if entry is None:
        return WALL_TOLERANCE, "no A/A data"
    return WALL_TOLERANCE, (f"{entry['false_alarms']} false alarms in {entry['runs']} A/A runs")


def may_block(case_id, stored):
    """Whether a tier-2 case's verdict may fail the gate: only after BLOCKING_RUNS A/A runs
    (or more) without a false alarm, in which the low end of the interval never came
    closer than BLOCKING_MARGIN of the tolerance to an alarm (below 1.05 for 10%)."""
    entry = stored.get("tier2", {}).get(case_id)
    return (bool(entry) and entry["runs"] >= BLOCKING_RUNS and entry["false_alarms"] == 0
            and entry["highest_low"] <= 1 + BLOCKING_MARGIN * WALL_TOLERANCE)
