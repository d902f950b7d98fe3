"""Where a series (one benchmark, one backend, one machine, over runs in time order) changed
level, judged by the series' own noise.

A point is a candidate change when it lies further from the level before it than that
level's noise allows: the level is the median of up to ``LOOKBACK`` points since the last
change (at least ``MIN_POINTS`` of them: a shorter history says nothing of its noise),
its noise the larger of their robust spread (1.4826 x the median absolute deviation of
the logarithms: the standard deviation, for a normal sample) and a floor (``FLOORS``:
instruction counts are nearly exact; a time is never known to a percent or two). The
spread inside each run (a point's interval) is not the noise between runs, which is
what a change has to stand out of, and is not used. A candidate is
a change only when the ``CONFIRM`` points after it lie beyond the same bound on the same
side: one slow run is an outlier, three in a row a new level. The change names the first
point of the new level, and its ratio is the new level's median over the old.

Arrow's conbench flags a point at z = 5 of a plain standard deviation over the last 100
results and raised that to 30 against false alarms: a plain deviation is dragged by the
outliers it should flag. The median, the MAD and the confirmation keep one wild run from
either hiding or making a change.
"""

import math
import statistics
from typing import NamedTuple

LOOKBACK = 20
MIN_POINTS = 5
CONFIRM = 2
#: how many noise widths away a point must lie
Z = 5.0
#: the least relative noise assumed, per measure
FLOORS = {"instructions": 0.005, "seconds": 0.02}


class Change(NamedTuple):
    index: int  #: the first point of the new level
    ratio: float  #: the new level's median over the old
    threshold: float  #: the relative distance a point had to exceed
    confirmed: bool  #: False: at the series' end, fewer than CONFIRM points after it


def _mad_sigma(logs):
    center = statistics.median(logs)
    return 1.4826 * statistics.median(abs(x - center) for x in logs)


def find(values, measure="seconds", lookback=LOOKBACK, min_points=MIN_POINTS,
         confirm=CONFIRM, z=Z):
    """The changes (:class:`Change`) in ``values`` (numbers in time order; one that is
    not positive is passed over); ``measure``: "seconds" or "instructions" (its floor).
    The last change may be unconfirmed (too few points after it yet)."""
    logs = [math.log(v) if v and v > 0 else float("nan") for v in values]
    floor = math.log1p(FLOORS.get(measure, FLOORS["seconds"]))
    changes, start, i = [], 0, min_points
    while i < len(logs):
        window = [x for x in logs[max(start, i - lookback):i] if x == x]
        if len(window) < min_points or logs[i] != logs[i]:
            i += 1
            continue
        level = statistics.median(window)
        bound = z * max(_mad_sigma(window), floor)
        step = logs[i] - level
        if abs(step) <= bound:
            i += 1
            continue
        after = [x for x in logs[i + 1:i + 1 + confirm] if x == x]
        holds = all((x - level) * step > 0 and abs(x - level) > bound for x in after)
        if not holds:
            i += 1
            continue
        new_level = statistics.median(logs[i:i + 1 + confirm])
        changes.append(Change(i, math.exp(new_level - level), math.expm1(bound),
                              len(after) == confirm))
        if len(after) < confirm:
            break
        start, i = i, i + min_points
    return changes
