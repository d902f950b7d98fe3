"""Rankings that carry their uncertainty. Every ranked time comes with its spread from the
same run, an interval ``(low, high)`` in seconds: the interleaved samples' minimum (the
headline) to their median in ``harness circuit``; asv's confidence interval in the sweep.
Two rows whose intervals overlap are within the noise of each other: a tie, shown as one
(``~1.00`` for a time over the fastest, a shared rank ``2=``).
"""

import statistics


def interval(samples):
    """(low, high): the minimum of ``samples`` and their median: where the headline sits
    and how far a typical call strays from it in the same run."""
    return min(samples), statistics.median(samples)


def overlaps(a, b):
    """Whether the intervals ``a`` and ``b`` ((low, high), either may be None) overlap;
    False where either is unknown."""
    if a is None or b is None:
        return False
    return a[0] <= b[1] and b[0] <= a[1]


def ranks(rows):
    """{name: rank label} for ``rows`` ({name: (seconds, interval or None)}), fastest
    first: a row within the noise of the first row of its group (its interval overlaps
    that row's) shares that row's rank, marked ``=`` ("1=", "1=", "3"); the first row told
    apart from it starts the next group. So "1=" is exactly a tie with the fastest, as
    ``~`` before a ratio is."""
    order = sorted(rows, key=lambda name: rows[name][0])
    labels, shared, leader = {}, {}, None
    for i, name in enumerate(order):
        if leader is not None and overlaps(rows[name][1], rows[leader][1]):
            rank = shared[leader]
        else:
            leader, rank = name, i + 1
        shared[name] = rank
    counts = {rank: list(shared.values()).count(rank) for rank in shared.values()}
    for name in order:
        labels[name] = f"{shared[name]}{'=' if counts[shared[name]] > 1 else ''}"
    return labels


def ratio_cell(seconds, interval_, fastest, fastest_interval):
    """A time over the fastest as a table shows it: ``~1.00``-style (a ``~`` before the
    ratio) where the two are tied within the noise, else the ratio."""
    ratio = seconds / fastest
    tied = overlaps(interval_, fastest_interval)
    return f"~{ratio:.2f}" if tied else f"{ratio:.2f}"


def settled(rows):
    """Whether the fastest two of ``rows`` ({name: (seconds, interval)}) are told apart:
    their intervals do not overlap (one row is settled; no row is not)."""
    order = sorted(rows, key=lambda name: rows[name][0])
    if len(order) < 2:
        return bool(order)
    return not overlaps(rows[order[0]][1], rows[order[1]][1])


def headline(rows):
    """(winner text, runner-up ratio text) for a "who is fastest" line: the fastest name,
    joined by every row tied with it ("a ~ b"), and the next untied row's time over it."""
    order = sorted(rows, key=lambda name: rows[name][0])
    if not order:
        return None, None
    first = order[0]
    tied = [n for n in order[1:] if overlaps(rows[n][1], rows[first][1])]
    rest = [n for n in order[1:] if n not in tied]
    winner = " ~ ".join([first, *tied])
    runner = (f"{rest[0]} x{rows[rest[0]][0] / rows[first][0]:.2f}" if rest else None)
    return winner, runner
