"""The state-vector tables of ``python -m harness table`` and the report: best own kernel
/ qulacs per gate and n, who is fastest per gate and circuit, effective bandwidth against
the memory yardsticks, thread scaling, and the cost of the plain kernel call against a
prepared gate."""

import statistics

from harness import ids, results
from harness.timing import format_seconds

OWN = ("subspace", "loop", "unrolled", "stride", "threaded")
AMPLITUDE_BYTES = 16  # complex128


def gate_ratios(res, gates=("X", "H", "T", "CNOT")):
    data = results.table(res, ids.GATE_TIME)
    ns = sorted({n for (_, n, _) in data})
    lines = ["| gate | n | qulacs | best own kernel | own / qulacs |", "|---|---|---|---|---|"]
    for gate in gates:
        for n in ns:
            peer = data.get((gate, n, "qulacs"))
            own = {b: data[(gate, n, b)] for b in OWN if (gate, n, b) in data}
            if peer is None or not own:
                continue
            best = min(own, key=own.get)
            lines.append(f"| {gate} | {n} | {format_seconds(peer)} | {best} "
                         f"{format_seconds(own[best])} | {own[best] / peer:.2f} |")
    return "\n".join(lines)


def ranking(res, key=ids.GATE_TIME, what="gate"):
    """Per gate (or circuit) at the largest n with results: every backend from fastest to
    slowest, with its time over the fastest's and our best kernel's time over its own."""
    data = results.table(res, key)
    lines = [f"| {what} | n | rank | backend | time | / fastest | best own kernel / it |",
             "|---|---|---|---|---|---|---|"]
    for name in dict.fromkeys(g for g, _, _ in data):
        n = max(n for g, n, _ in data if g == name)
        times = {b: t for (g, m, b), t in data.items() if g == name and m == n}
        order = sorted(times, key=times.get)
        own = min((times[b] for b in OWN if b in times), default=None)
        for rank, backend in enumerate(order, 1):
            t = times[backend]
            mine = "-" if own is None else f"{own / t:.2f}"
            lines.append(f"| {name} | {n} | {rank} | {backend} | {format_seconds(t)} "
                         f"| {t / times[order[0]]:.2f} | {mine} |")
    return "\n".join(lines)


def peer_ratios(res, key=ids.GATE_TIME, what="gate"):
    """Our best kernel's time over each peer's, per gate (or circuit) and n, side by side
    (below 1: our kernel is faster): the issue's comparison table."""
    data = results.table(res, key)
    peers = list(dict.fromkeys(b for _, _, b in data if b not in OWN + ("naive", "cuda")))
    order = {g: i for i, g in enumerate(dict.fromkeys(g for g, _, _ in data))}
    lines = [f"| {what} | n | best own kernel | " + " | ".join(peers) + " |",
             "|---|---|---|" + "---|" * len(peers)]
    for name, n in sorted({(g, n) for g, n, _ in data}, key=lambda k: (order[k[0]], k[1])):
        own = {b: data[(name, n, b)] for b in OWN if (name, n, b) in data}
        if not own:
            continue
        best = min(own, key=own.get)
        cells = [f"{own[best] / data[(name, n, p)]:.2f}" if (name, n, p) in data else "-"
                 for p in peers]
        lines.append(f"| {name} | {n} | {best} {format_seconds(own[best])} | "
                     + " | ".join(cells) + " |")
    return "\n".join(lines)


def effective_gbs(n, seconds):
    """GB/s of a one-gate pass over n qubits that reads and writes every amplitude once."""
    return 2 * AMPLITUDE_BYTES * (1 << n) / seconds / 1e9


def bandwidth(res, min_qubits=20):
    """Effective bandwidth (every amplitude read and written once) of every own kernel and
    qulacs on every gate, against the in-place yardstick of ``machine.py`` (a gate's access
    pattern: the ceiling the kernels aim at) and the copy one."""
    copy = results.table(res, ids.COPY_BANDWIDTH).get(())
    inplace = results.table(res, ids.INPLACE_BANDWIDTH).get(())
    data = results.table(res, ids.GATE_TIME)
    if copy is None or inplace is None:
        return "(no memory-bandwidth result)"
    lines = [f"One thread, read + write: in-place update {inplace:.1f} GB/s, copy {copy:.1f} GB/s",
             "", "| gate | n | backend | GB/s | % of in-place | % of copy |",
             "|---|---|---|---|---|---|"]
    gates = list(dict.fromkeys(g for g, _, _ in data))
    for gate in gates:
        for n in sorted({n for (g, n, _) in data if g == gate and n >= min_qubits}):
            for backend in (*OWN, "qulacs"):
                if (gate, n, backend) not in data:
                    continue
                gbs = effective_gbs(n, data[(gate, n, backend)])
                lines.append(f"| {gate} | {n} | {backend} | {gbs:.1f} | "
                             f"{100 * gbs / inplace:.0f}% | {100 * gbs / copy:.0f}% |")
    return "\n".join(lines)


#: A call slower than this many medians of its own case is counted as an outlier.
OUTLIER = 1.5
#: A case whose median is this far above its minimum is flagged as unsteady.
UNSTEADY = 1.25
#: ... or whose outliers are more than this share of its calls.
OUTLIER_SHARE = 0.05


def thread_scaling(res):
    """Per gate, n, backend and thread count: the spread of the single calls asv timed
    (minimum, median, 90th percentile, outliers) and the speed-up over the same backend
    on one thread by both minimum and median, so a reader sees when they disagree."""
    data = results.samples(res, ids.THREADS_TIME)
    lines = [f"Each case's calls are timed one by one. Outliers: calls over {OUTLIER}x the "
             f"median. `!`: the median is over {UNSTEADY}x the minimum, or over "
             f"{OUTLIER_SHARE:.0%} of the calls are outliers; read its speed-ups with care.", "",
             "| gate | n | backend | threads | calls | min | median | p90 | outliers "
             "| speed-up (min) | speed-up (median) |",
             "|---|---|---|---|---|---|---|---|---|---|---|"]
    spread = {case: _spread(times) for case, times in data.items()}
    for (gate, n, backend, t), (low, mid, p90, slow) in sorted(spread.items()):
        one = spread.get((gate, n, backend, 1))
        if one is None:
            continue
        calls = len(data[(gate, n, backend, t)])
        flag = " !" if mid > UNSTEADY * low or slow > OUTLIER_SHARE * calls else ""
        lines.append(f"| {gate} | {n} | {backend} | {t} | {calls} | {format_seconds(low)} "
                     f"| {format_seconds(mid)} | {format_seconds(p90)} | {slow}{flag} "
                     f"| {one[0] / low:.2f} | {one[1] / mid:.2f} |")
    return "\n".join(lines)


def _spread(times):
    """(minimum, median, 90th percentile, number of outliers) of one case's samples."""
    ordered = sorted(times)
    mid = statistics.median(ordered)
    p90 = ordered[min(len(ordered) - 1, (9 * len(ordered)) // 10)]
    return ordered[0], mid, p90, sum(t > OUTLIER * mid for t in ordered)


def call_overhead(res):
    """The plain kernel signature (checks and plans every call) against applying the
    same gate prepared once."""
    calls = results.table(res, ids.GATE_CALL)
    prepared = results.table(res, ids.GATE_TIME)
    lines = ["| gate | n | kernel | kernel call | prepared gate | call / prepared |",
             "|---|---|---|---|---|---|"]
    for (gate, n, kernel), t in sorted(calls.items()):
        p = prepared.get((gate, n, kernel))
        if p is not None:
            lines.append(f"| {gate} | {n} | {kernel} | {format_seconds(t)} | {format_seconds(p)} "
                         f"| {t / p:.2f} |")
    return "\n".join(lines)


SECTIONS = (("Best own kernel vs qulacs (minimum time, one thread)", gate_ratios),
            ("Best own kernel / each peer, gates (below 1: ours is faster)", peer_ratios),
            ("Best own kernel / each peer, circuits",
             lambda res: peer_ratios(res, ids.CIRCUIT_TIME, "circuit")),
            ("Ranking per gate at the largest n", ranking),
            ("Ranking per circuit at the largest n",
             lambda res: ranking(res, ids.CIRCUIT_TIME, "circuit")),
            ("Effective bandwidth", bandwidth), ("Thread scaling", thread_scaling),
            ("Cost of the plain kernel call", call_overhead))
