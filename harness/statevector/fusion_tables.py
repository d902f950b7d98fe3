"""The fusion tables of the report and ``python -m harness table``: per circuit, size and
precision, the fused backend at its best setting against our best unfused kernel and
against each peer unfused and at its best setting (the fusion suite,
``statevector_fusion``); and the fused backend's effective bandwidth, counting the passes
it really makes, against the yardstick of the memory level its state sits in."""

from harness import ids, registry, results
from harness.statevector import levels
from harness.timing import format_seconds
from kernels.statevector.settings import PRECISIONS

#: The fusion suite's benchmarks, per precision.
SUITES = (("complex128", ids.FUSED_TIME), ("complex64", ids.FUSED64_TIME))
#: Our fused backend and our one-pass-per-gate kernel, as they declare themselves.
FUSED = registry.by_role("fusing")[0]
UNFUSED = registry.baseline("unfused").name


def _cases(res):
    """{(circuit, n, precision): {backend: {setting: seconds}}}."""
    out = {}
    present = set(res.get_all_result_keys())
    for precision, key in SUITES:
        if key not in present:
            continue
        for (circuit, n, backend, fusion), seconds in results.table(res, key).items():
            out.setdefault((circuit, n, precision), {}).setdefault(backend, {})[fusion] = seconds
    return out


def _programs(res):
    """{(circuit, n, precision): {setting: the settings (in order, itself among them)
    that compiled to its program}} from the fusion suite's digests (none recorded: each
    its own)."""
    if ids.FUSED_PROGRAM not in set(res.get_all_result_keys()):
        return {}
    digests = {}
    for (circuit, n, k, precision), d in results.table(res, ids.FUSED_PROGRAM).items():
        digests.setdefault((circuit, n, precision), {})[k] = d
    return {case: {k: sorted(j for j in row if row[j] == d) for k, d in row.items()}
            for case, row in digests.items()}


def _named(k, same):
    """A setting and those of the same program: "k3=k4=k5"."""
    return "=".join(f"k{j}" for j in same.get(k, [k]))


def _ratio(x):
    return f"{x:.2f}" if x >= 0.1 else f"{x:.2g}"


def _best(times):
    setting = min(times, key=times.get)
    return setting, times[setting]


def ratios(res):
    """Our fused backend (best setting) / our unfused kernel, / each peer's best setting
    and / each peer unfused: below 1, the fused backend is faster."""
    cases = _cases(res)
    if not cases:
        return "(no fusion results)"
    programs = _programs(res)
    peers = sorted({b for row in cases.values() for b in row} - {FUSED, UNFUSED})
    lines = [f"Each cell: {FUSED}'s time at its best setting over the peer's; for a peer "
             "that fuses, at the peer's best setting (kN; k0 is off) and then unfused (off, "
             f"where the peer has an off). Below 1: {FUSED} is faster.", "",
             f"| circuit | n | precision | {FUSED} (best k) | / {UNFUSED} | "
             + " | ".join(peers) + " |",
             "|---|--:|---|---|--:|" + "--:|" * len(peers)]
    for (circuit, n, precision), row in sorted(cases.items()):
        if FUSED not in row:
            continue
        k, t = _best(row[FUSED])
        best = _named(k, programs.get((circuit, n, precision), {}))
        cells = []
        for peer in peers:
            if peer not in row:
                cells.append("-")
                continue
            pk, pt = _best(row[peer])
            if len(row[peer]) == 1:  # one setting: a peer that does not fuse
                cells.append(_ratio(t / pt))
                continue
            off = row[peer].get(0)
            cells.append(f"{_ratio(t / pt)} k{pk}"
                         + (f", off {_ratio(t / off)}" if off is not None else ""))
        own = row.get(UNFUSED, {}).get(0)
        lines.append(f"| {circuit} | {n} | {precision} | {format_seconds(t)} ({best}) | "
                     f"{_ratio(t / own) if own else '-'} | " + " | ".join(cells) + " |")
    return "\n".join(lines)


def bandwidth(res):
    """The fused backend's effective bandwidth (its passes x the state read and written,
    per second) against the in-place yardstick of the level its state sits in."""
    cases = _cases(res)
    present = set(res.get_all_result_keys())
    if not {ids.FUSED_PASSES, ids.LEVEL_BANDWIDTH} <= present:
        return "(no fused-circuit passes or memory-level yardsticks)"
    passes = results.table(res, ids.FUSED_PASSES)
    yard = {level: gbs for (level,), gbs in results.table(res, ids.LEVEL_BANDWIDTH).items()}
    if not cases or not passes or not yard:
        return "(no fused-circuit passes or memory-level yardsticks)"
    programs = _programs(res)
    lines = ["One thread. Yardsticks (in-place update, read + write): "
             + ", ".join(f"{lv} {yard[lv]:.1f} GB/s" for lv in levels.LEVELS if lv in yard),
             "", "| circuit | n | precision | k | passes | time | GB/s | level | % of level |",
             "|---|--:|---|--:|--:|--:|--:|---|--:|"]
    for (circuit, n, precision), row in sorted(cases.items()):
        same = programs.get((circuit, n, precision), {})
        times = row.get(FUSED, {})
        for k in sorted(times):
            count = passes.get((circuit, n, k, precision))
            if count is None or k != same.get(k, [k])[0]:
                continue  # not measured, or its program's row is its lowest setting's
            # one row a program: its best time over the settings that ran it
            seconds = min(times[j] for j in same.get(k, [k]) if j in times)
            nbytes = PRECISIONS[precision].itemsize << n
            level = levels.level_of(nbytes)
            gbs = levels.effective_gbs(count, nbytes, seconds)
            share = f"{100 * gbs / yard[level]:.0f}%" if level in yard else "-"
            label = "=".join(str(j) for j in same.get(k, [k]))
            lines.append(f"| {circuit} | {n} | {precision} | {label} | {count:.0f} | "
                         f"{format_seconds(seconds)} | {gbs:.1f} | {level} | {share} |")
    return "\n".join(lines)


def roofline(res):
    """How near its roofline the fused backend ran each circuit (roofline time / time, the
    suite's ``FusedRoofline``), at its default, the width its planner chose, and at each
    setting; the best setting is marked, so a default that is not the best shows."""
    present = set(res.get_all_result_keys())
    if ids.FUSED_ROOFLINE not in present:
        return f"(no {FUSED} roofline results)"
    fraction = results.table(res, ids.FUSED_ROOFLINE)
    chosen = results.table(res, ids.FUSED_CHOSEN) if ids.FUSED_CHOSEN in present else {}
    settings = sorted({f for (_, _, f, _) in fraction if f != "default"}, key=int)
    lines = ["One thread. Each cell: the roofline time (the larger of the multiply-adds at "
             "the core's FMA peak and each memory level's traffic at its in-place "
             "bandwidth) over the time, in %; * the setting nearest its roofline.", "",
             "| circuit | n | precision | default (k chosen) | "
             + " | ".join(f"k{k}" for k in settings) + " |",
             "|---|--:|---|--:|" + "--:|" * len(settings)]
    cases = sorted({(c, n, p) for (c, n, _, p) in fraction})
    for circuit, n, precision in cases:
        row = {f: fraction.get((circuit, n, f, precision))
               for f in ("default", *settings)}
        best = max((f for f in settings if row[f] is not None), key=row.get, default=None)

        def cell(f, row=row, best=best):
            return "-" if row[f] is None else f"{100 * row[f]:.0f}%{'*' if f == best else ''}"
        k = chosen.get((circuit, n, "default", precision))
        lines.append(f"| {circuit} | {n} | {precision} | {cell('default')}"
                     f"{f' (k{k:.0f})' if k is not None else ''} | "
                     + " | ".join(cell(f) for f in settings) + " |")
    return "\n".join(lines)


SECTIONS = ((f"Fused circuits: {FUSED} / {UNFUSED} and / each peer (below 1: {FUSED} is "
             "faster)", ratios),
            ("Fused circuits: effective bandwidth per memory level", bandwidth),
            (f"Fused circuits: how near {FUSED} runs to its roofline", roofline))
