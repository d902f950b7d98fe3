"""``python -m harness table``: the headline numbers of the latest results as Markdown:
best own kernel / qulacs per gate and n, effective bandwidth against the copy bandwidth,
and thread scaling."""

from harness import results

OWN = ("subspace", "loop", "unrolled", "stride", "threaded")
AMPLITUDE_BYTES = 16  # complex128


def _fmt_time(t):
    return f"{t * 1e6:.3g} us" if t < 1e-3 else f"{t * 1e3:.3g} ms"


def gate_ratios(res, gates=("X", "H", "T", "CNOT")):
    data = results.table(res, "statevector_gates.Gate.time_gate")
    ns = sorted({n for (_, n, _) in data})
    lines = ["| gate | n | qulacs | best own kernel | own / qulacs |", "|---|---|---|---|---|"]
    for gate in gates:
        for n in ns:
            peer = data.get((gate, n, "qulacs"))
            own = {b: data[(gate, n, b)] for b in OWN if (gate, n, b) in data}
            if peer is None or not own:
                continue
            best = min(own, key=own.get)
            lines.append(f"| {gate} | {n} | {_fmt_time(peer)} | {best} {_fmt_time(own[best])} "
                         f"| {own[best] / peer:.2f} |")
    return "\n".join(lines)


def bandwidth(res, min_qubits=20):
    """Effective bandwidth (every amplitude read and written once) of the fastest own
    kernel and of qulacs, against both memory yardsticks of ``machine.py``."""
    copy = results.table(res, "machine.MemoryBandwidth.track_copy_bandwidth").get(())
    inplace = results.table(res, "machine.MemoryBandwidth.track_inplace_bandwidth").get(())
    data = results.table(res, "statevector_gates.Gate.time_gate")
    if copy is None or inplace is None:
        return "(no memory-bandwidth result)"
    lines = [f"One thread, read + write: copy {copy:.1f} GB/s, in-place update {inplace:.1f} GB/s",
             "", "| gate | n | backend | GB/s | % of copy | % of in-place |",
             "|---|---|---|---|---|---|"]
    for gate in ("X", "H", "T", "CNOT"):
        for n in sorted({n for (g, n, _) in data if g == gate and n >= min_qubits}):
            own = {b: data[(gate, n, b)] for b in OWN if (gate, n, b) in data}
            picks = [min(own, key=own.get)] if own else []
            picks += ["qulacs"] if (gate, n, "qulacs") in data else []
            for backend in picks:
                gbs = 2 * AMPLITUDE_BYTES * (1 << n) / data[(gate, n, backend)] / 1e9
                lines.append(f"| {gate} | {n} | {backend} | {gbs:.1f} | {100 * gbs / copy:.0f}% "
                             f"| {100 * gbs / inplace:.0f}% |")
    return "\n".join(lines)


def thread_scaling(res):
    data = results.table(res, "statevector_threads.GateThreads.time_gate")
    lines = ["| gate | n | backend | threads | time | speed-up vs 1 thread |",
             "|---|---|---|---|---|---|"]
    for (gate, n, backend, t), v in sorted(data.items()):
        one = data.get((gate, n, backend, 1))
        if one is not None:
            lines.append(f"| {gate} | {n} | {backend} | {t} | {_fmt_time(v)} | {one / v:.2f} |")
    return "\n".join(lines)


def call_overhead(res):
    """The plain kernel signature (checks and plans every call) against applying the
    same gate prepared once."""
    calls = results.table(res, "statevector_gates.GateCall.time_call")
    prepared = results.table(res, "statevector_gates.Gate.time_gate")
    lines = ["| gate | n | kernel | kernel call | prepared gate | call / prepared |",
             "|---|---|---|---|---|---|"]
    for (gate, n, kernel), t in sorted(calls.items()):
        p = prepared.get((gate, n, kernel))
        if p is not None:
            lines.append(f"| {gate} | {n} | {kernel} | {_fmt_time(t)} | {_fmt_time(p)} "
                         f"| {t / p:.2f} |")
    return "\n".join(lines)


def report(machine=None):
    name, res = results.latest(machine=machine)
    print(f"machine {name}, commit {res.commit_hash[:8]}\n")
    for title, fn in (("Best own kernel vs qulacs (minimum time, one thread)", gate_ratios),
                      ("Effective bandwidth", bandwidth), ("Thread scaling", thread_scaling),
                      ("Cost of the plain kernel call", call_overhead)):
        print(f"## {title}\n")
        try:
            print(fn(res))
        except KeyError as exc:
            print(f"(no results for {exc})")
        print()
    return 0
