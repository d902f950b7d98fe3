"""The one way the harness times code outside asv: the minimum over samples (the seeds'
and the peers' statistic), each sample calling the function often enough to be
measurable, and ratios sampled in alternation so that a load change on this shared
machine moves both sides alike. asv's own timing does the rest."""

import time


def best_seconds(fn, repeat=5, max_seconds=1.0, min_sample=0.005):
    """The minimum over up to ``repeat`` samples (none started past ``max_seconds``) of
    one call's time, each sample calling ``fn`` often enough to last ``min_sample``
    seconds. The first call, which also warms ``fn`` up, counts as a sample."""
    start = time.perf_counter()
    fn()
    best = time.perf_counter() - start
    number = 1 if best >= min_sample else int(min_sample / max(best, 1e-9)) + 1
    for _ in range(repeat):
        if time.perf_counter() - start > max_seconds:
            break
        t0 = time.perf_counter()
        for _ in range(number):
            fn()
        best = min(best, (time.perf_counter() - t0) / number)
    return best


def interleaved_ratio(fn, baseline, rounds=7, max_seconds=1.0):
    """min time of ``fn`` / min time of ``baseline``, sampled in alternation in this
    process. At least one round; no new round past ``max_seconds``."""
    start = time.perf_counter()
    best_fn = best_base = float("inf")
    for _ in range(rounds):
        best_fn = min(best_fn, best_seconds(fn, repeat=1, max_seconds=float("inf")))
        best_base = min(best_base, best_seconds(baseline, repeat=1, max_seconds=float("inf")))
        if time.perf_counter() - start > max_seconds:
            break
    return float(f"{best_fn / best_base:.4g}")  # asv prints every digit


def format_seconds(t):
    """``t`` seconds with three significant digits in h, min, s, ms or us (no exponents:
    a cluster's predictions run to hours)."""
    if t >= 7200:
        return f"{t / 3600:.3g} h"
    if t >= 1000:
        return f"{t / 60:.3g} min"
    if t >= 1.0:
        return f"{t:.3g} s"
    return f"{t * 1e6:.3g} us" if t < 1e-3 else f"{t * 1e3:.3g} ms"
