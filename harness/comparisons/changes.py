"""Where a series (one benchmark, one backend, one machine, over runs in time order) changed
level, judged by the series' own noise.

At each point the level before it is the median of up to ``LOOKBACK`` points since the
last change (at least ``MIN_POINTS`` of them). The series' noise is the largest of three
spreads of the logarithms: that of those points (1.4826 x their median absolute
deviation: the standard deviation, for a normal sample), that of the whole series from
one run to the next (1.4826 x the median of the successive differences, over the square
root of two: a change moves one difference, so this one does not grow with the changes,
and a few points cannot make it small by chance), and a floor (``FLOORS``: instruction
counts are nearly exact; a time is never known to a percent or two). The spread inside
each run (a point's interval) is not the noise between runs, which is what a change has
to stand out of, and is not used.

A change is a new level: the point and the ``CONFIRM`` points after it, whose median lies
beyond ``Z`` of its own noise from the level (the median of four points strays about
0.55 as far as one point does: ``BLOCK_SPREAD``), with every one of them on the same side.
One wild run moves the median of four little; four in a row are a new level.
Once found, the change is placed where splitting the points around it into two levels
leaves the least absolute deviation from the two medians, so that it names the first
commit of the new level even where the noise put that run's time near the old one. Its
ratio is the new level over the old.

Arrow's conbench flags a point at z = 5 of a plain standard deviation over the last 100
results, and raised that to 30 against false alarms: a plain deviation is dragged by the
outliers it should flag. The medians, the MAD and the block keep one wild run from either
hiding a change or making one.
"""

import math
import statistics
from typing import NamedTuple

LOOKBACK = 20
MIN_POINTS = 5
CONFIRM = 3
#: how many of its own noise widths away a new level's median must lie. Measured on
#: 2,000 seeded series of 30 runs (tests/comparisons/test_changes.py): with normal noise
#: of 3%, 0.5% of them show a change that is not there and a step of 15% is found at its
#: first run in 93%; of 2%, 0.1% and 100%; of 1%, none and all (at 4.5: 1.0% and 95% at
#: 3%)
Z = 5.0
#: the noise of the median of 1 + CONFIRM points, over one point's (for a normal sample,
#: the median of four has a standard deviation of 0.55)
BLOCK_SPREAD = 0.55
#: the least relative noise assumed, per measure
FLOORS = {"instructions": 0.005, "seconds": 0.02}


class Change(NamedTuple):
    index: int  #: the first point of the new level (among the positive values)
    ratio: float  #: the new level's median over the old
    threshold: float  #: how far, relatively, the new level's median had to lie


def _mad_sigma(logs):
    center = statistics.median(logs)
    return 1.4826 * statistics.median(abs(x - center) for x in logs)


def _deviation(xs):
    center = statistics.median(xs)
    return sum(abs(x - center) for x in xs)


def _split(logs, low, high, first, last):
    """The split in ``first..last`` of the points ``low..high-1`` that leaves the least
    absolute deviation from the medians of the two sides."""
    return min(range(first, last + 1),
               key=lambda s: (_deviation(logs[low:s]) + _deviation(logs[s:high]), s))


def find(values, measure="seconds", lookback=LOOKBACK, min_points=MIN_POINTS,
         confirm=CONFIRM, z=Z):
    """The changes (:class:`Change`) in ``values`` (positive numbers in time order; a
    point that is not one is left out); ``measure``: "seconds" or "instructions" (its
    floor). A change in the last points, before ``confirm`` more have come, is not
    found yet."""
    logs = [math.log(v) for v in values if v and v > 0]
    floor = math.log1p(FLOORS.get(measure, FLOORS["seconds"]))
    steps = [abs(b - a) for a, b in zip(logs, logs[1:])]
    run_to_run = 1.4826 * statistics.median(steps) / math.sqrt(2) if steps else 0.0
    changes, start, i = [], 0, min_points
    while i + confirm < len(logs):
        window = logs[max(start, i - lookback):i]
        level = statistics.median(window)
        block = logs[i:i + 1 + confirm]
        step = statistics.median(block) - level
        # the window's own spread only where the series' and the floor do not settle it
        # already (most points): a history of a thousand runs reads in a millisecond
        least = z * BLOCK_SPREAD * max(run_to_run, floor)
        if abs(step) <= least or not all((x - level) * step > 0 for x in block):
            i += 1
            continue
        bound = max(least, z * BLOCK_SPREAD * _mad_sigma(window))
        if abs(step) <= bound:
            i += 1
            continue
        # where the new level starts: the best split of the points around the block
        low = max(start, i - lookback)
        high = min(len(logs), i + 1 + 2 * confirm)
        first = _split(logs, low, high, max(low + min_points, i - confirm),
                       min(i + confirm, high - 1 - confirm))
        old = statistics.median(logs[max(start, first - lookback):first])
        new = statistics.median(logs[first:first + 1 + confirm])
        changes.append(Change(first, math.exp(new - old), math.expm1(bound)))
        start, i = first, first + min_points
    return changes
