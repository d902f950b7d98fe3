"""The state-vector tables of ``python -m harness table`` and the report: the headline (who
is fastest per gate and circuit, both precisions), best own kernel / qulacs per gate and n,
every backend ranked per gate and circuit, each circuit's time over the fastest per
backend, effective bandwidth against the memory yardsticks, thread scaling, and the cost of
the plain kernel call against a prepared gate.

Tables that compare backends take an optional settings map, ``{(benchmark key, params
tuple): {"hash": ..., field: value, ...}}`` (what each result was measured with), and mark
with a numbered dagger and a footnote every result whose settings differ from the rest of
what it is compared with (:func:`differing`); see docs/architecture.md."""

import ast
import collections
import statistics

from harness import ids, registry, results
from harness import settings as settings_mod
from harness.ranking import overlaps, ranks, ratio_cell
from harness.settings import LIKE_KEYS
from harness.statevector import levels
from harness.timing import format_seconds

#: our contenders: every kernel of ours on the CPU (not the oracles, which are there to be
#: right; a GPU's times are not compared with one core's)
OWN = tuple(b.name for b in registry.simulators().values()
            if b.role == "kernel" and b.device == "cpu")
#: the peer the seeds compare with
BASELINE = registry.baseline("peer").name
AMPLITUDE_BYTES = 16  # complex128
#: The precisions of each suite, in the order their columns appear.
PRECISIONS = {"gate": (("complex128", ids.GATE_TIME), ("complex64", ids.GATE64_TIME)),
              "circuit": (("complex128", ids.CIRCUIT_TIME), ("complex64", ids.CIRCUIT64_TIME))}
#: The settings two backends must share for their times to be ranked side by side
#: unmarked (a tool's version and the way it is driven differ between backends anyway):
#: the fields of harness/settings.py's "like" hash.
COMPARED = LIKE_KEYS
MARK = "\u2020"


def table_of(res, key):
    """``results.table(res, key)``, or {} when ``res`` holds no result of ``key``."""
    return results.table(res, key) if key in res.get_all_result_keys() else {}


def spans_of(res, key):
    """``results.spans(res, key)`` (each result's interval), or {} without results."""
    return results.spans(res, key) if key in res.get_all_result_keys() else {}


def _rows_at(times, spans, name, n):
    """{backend: (seconds, interval)} of one case, as harness.ranking takes them."""
    return {b: (t, spans.get((name, n, b))) for b, t in times.items()}


def at_largest_n(data):
    """{name: (n, {backend: seconds})} of a (name, n, backend) table at each name's
    largest n with a result, names in first-seen order."""
    largest = {}
    for name, n, _ in data:
        largest[name] = max(n, largest.get(name, n))
    return {name: (n, {b: t for (g, m, b), t in data.items() if g == name and m == n})
            for name, n in largest.items()}


def differing(column, settings, fields=None):
    """{cell: what differs} for the cells of ``column`` ([(cell, (benchmark key, params
    tuple))]) whose settings are not the ones most of the column has; with no single
    most common settings (a tie, two cells that differ), every cell is marked.
    ``fields=None`` compares the settings hash; a tuple of fields compares those fields.
    Cells the map does not hold are neither compared nor marked; with no map
    (``settings=None``) nothing is."""
    known = [(cell, settings[where]) for cell, where in column
             if settings is not None and where in settings]

    def signature(entry):
        return entry.get("hash") if fields is None else tuple(entry.get(f) for f in fields)

    counts = collections.Counter(signature(entry) for _, entry in known)
    if len(counts) < 2:
        return {}
    (first, top), (_, second) = counts.most_common(2)
    majority = first if top > second else None
    marked = {}
    for cell, entry in known:
        if signature(entry) == majority:
            continue
        others = [e for _, e in known if signature(e) == majority] if majority is not None \
            else [e for _, e in known if signature(e) != signature(entry)]
        marked[cell] = _difference(entry, others, fields)
    return marked


#: Settings fields that a footnote does not name: the hashes of the others.
HASHES = ("hash", "like")


def _difference(entry, others, fields):
    """What ``entry`` has that ``others`` do not: each differing field with their values."""
    names = fields or [f for f in dict.fromkeys([*entry, *others[0]]) if f not in HASHES]
    parts = []
    for f in names:
        theirs = list(dict.fromkeys(str(o.get(f, "-")) for o in others))
        if theirs != [str(entry.get(f, "-"))]:
            parts.append(f"{f} {entry.get(f, '-')} (others: {', '.join(theirs)})")
    return "; ".join(parts) or (f"settings {entry.get('hash')} (others: "
                                + ", ".join(dict.fromkeys(str(o.get("hash")) for o in others))
                                + ")")


class Footnotes:
    """Numbered marks for cells whose settings differ, and the footnotes naming what."""

    def __init__(self):
        self.notes = []

    def mark(self, marked, cell, where):
        """"" when ``cell`` is not in ``marked`` ({cell: what differs}), else a new mark
        whose footnote says ``where`` and what differs."""
        if cell not in marked:
            return ""
        self.notes.append(f"{MARK}{len(self.notes) + 1} {where}: {marked[cell]}")
        return f" {MARK}{len(self.notes)}"

    def markdown(self, table):
        """``table`` followed by its footnotes, one paragraph each."""
        return "\n\n".join([table, *self.notes])


#: What a table's ties mean, said above every table that ranks.
TIES = ("Each time is the minimum over its samples; its interval runs to their median in "
        "the same run. A time within the fastest's interval is a tie: its ratio is marked "
        "~, its rank shared (=).")


def _interval(span):
    return "-" if span is None else f"{format_seconds(span[0])} - {format_seconds(span[1])}"


def _leaders(times):
    """[(backend, seconds)] fastest first; ties kept in the table's order."""
    return sorted(times.items(), key=lambda item: item[1])


def headline(res, what="gate", settings=None):
    """Per gate (or circuit), in each precision at the largest n measured in it: the
    fastest backend and its time, and the runner-up with its time over the fastest's.
    Empty when neither precision has results."""
    per = [(precision, key, at_largest_n(table_of(res, key)))
           for precision, key in PRECISIONS[what]]
    per = [(precision, key, found) for precision, key, found in per if found]
    spans = {key: spans_of(res, key) for _, key, _ in per}
    if not per:
        return ""
    notes = Footnotes()
    head, uniform = [what], []
    for precision, _, found in per:
        sizes = {n for n, _ in found.values()}
        uniform.append(len(sizes) == 1)
        n_label = f" n={next(iter(sizes))}" if uniform[-1] else ""
        head += ([] if uniform[-1] else [f"n ({precision})"]) + \
            [f"{precision}{n_label}: fastest", f"{precision}: runner-up"]
    lines = ["| " + " | ".join(head) + " |", "|---" * len(head) + "|"]
    for name in dict.fromkeys(name for _, _, found in per for name in found):
        cells = [name]
        for (precision, key, found), same_n in zip(per, uniform):
            if name not in found:
                cells += ["-"] * (2 if same_n else 3)
                continue
            n, times = found[name]
            rows = _rows_at(times, spans[key], name, n)
            # judged against every backend at this row, not only the ones shown
            marked = differing([(b, (key, (name, n, b))) for b in times], settings, COMPARED)
            where = f"{name} n={n} {precision}"
            # the fastest, joined by every backend within its noise (a tie); the runner-up
            # is the fastest one told apart from it
            first = min(times, key=times.get)
            tied = [b for b in sorted(times, key=times.get)
                    if b != first and overlaps(rows[b][1], rows[first][1])]
            rest = [b for b in sorted(times, key=times.get) if b != first and b not in tied]
            cells += [] if same_n else [str(n)]
            winners = " ~ ".join(f"{b}{notes.mark(marked, b, f'{b}, {where}')}"
                                 for b in [first, *tied])
            cells.append(f"{winners} {format_seconds(times[first])}")
            runner = rest[0] if rest else None
            cells.append("-" if runner is None else
                         f"{runner}{notes.mark(marked, runner, f'{runner}, {where}')}"
                         f" \u00d7{times[runner] / times[first]:.2f}")
        lines.append("| " + " | ".join(cells) + " |")
    return notes.markdown("\n".join(lines))


def gate_ratios(res, gates=("X", "H", "T", "CNOT")):
    data = results.table(res, ids.GATE_TIME)
    ns = sorted({n for (_, n, _) in data})
    lines = [f"| gate | n | {BASELINE} | best own kernel | own / {BASELINE} |",
             "|---|---|---|---|---|"]
    for gate in gates:
        for n in ns:
            peer = data.get((gate, n, BASELINE))
            own = {b: data[(gate, n, b)] for b in OWN if (gate, n, b) in data}
            if peer is None or not own:
                continue
            best = min(own, key=own.get)
            lines.append(f"| {gate} | {n} | {format_seconds(peer)} | {best} "
                         f"{format_seconds(own[best])} | {own[best] / peer:.2f} |")
    return "\n".join(lines)


def ranking(res, key=ids.GATE_TIME, what="gate", settings=None):
    """Per gate (or circuit) at the largest n with results: every backend from fastest to
    slowest, with its time over the fastest's and our best kernel's time over its own; a
    backend whose COMPARED settings differ from the others' at that gate is marked."""
    notes = Footnotes()
    spans = spans_of(res, key)
    lines = [f"| {what} | n | rank | backend | time | interval | / fastest | "
             "best own kernel / it |", "|---|---|---|---|---|---|---|---|"]
    for name, (n, times) in at_largest_n(table_of(res, key)).items():
        order = [b for b, _ in _leaders(times)]
        rows = _rows_at(times, spans, name, n)
        shared = ranks(rows)
        own = min((times[b] for b in OWN if b in times), default=None)
        marked = differing([(b, (key, (name, n, b))) for b in order], settings, COMPARED)
        first = order[0]
        for backend in order:
            t, span = rows[backend]
            mine = "-" if own is None else f"{own / t:.2f}"
            mark = notes.mark(marked, backend, f"{backend}, {name} n={n}")
            ratio = "1.00" if backend == first else ratio_cell(t, span, *rows[first])
            lines.append(f"| {name} | {n} | {shared[backend]} | {backend}{mark} | "
                         f"{format_seconds(t)} | {_interval(span)} | {ratio} | {mine} |")
    return notes.markdown(TIES + "\n\n" + "\n".join(lines))


def backend_order(res, key):
    """The backends of ``key``'s results in its suite's order (its last parameter), those
    with every combination skipped included; [] without results."""
    if key not in res.get_all_result_keys():
        return []
    return [ast.literal_eval(p) for p in res.get_result_params(key)[-1]]


def over_fastest(data, order=()):
    """(backends, {name: (n, fastest backend, its seconds, {backend: seconds / fastest's})})
    at each name's largest n: the circuit x backend comparison. The backends that have a
    result, in ``order`` (a suite's, see :func:`backend_order`), then as first seen."""
    seen = dict.fromkeys(b for _, _, b in data)
    backends = [b for b in order if b in seen] + [b for b in seen if b not in order]
    rows = {}
    for name, (n, times) in at_largest_n(data).items():
        fastest, best = _leaders(times)[0]
        rows[name] = (n, fastest, best, {b: t / best for b, t in times.items()})
    return backends, rows


def time_over_fastest(res, key=ids.CIRCUIT_TIME, what="circuit", settings=None):
    """Rows: each circuit (or gate) at its largest n; columns: every backend; a cell: its
    time over the fastest backend's there ("-": not run at that n). A cell whose settings
    hash differs from the rest of its backend's column is marked."""
    backends, rows = over_fastest(table_of(res, key), backend_order(res, key))
    spans, times = spans_of(res, key), table_of(res, key)
    notes = Footnotes()
    marks = {b: differing([(name, (key, (name, n, b))) for name, (n, _, _, ratios)
                           in rows.items() if b in ratios], settings) for b in backends}
    lines = [TIES, "", "| " + " | ".join([what, "n", "fastest", *backends]) + " |",
             "|---" * (3 + len(backends)) + "|"]
    for name, (n, fastest, best, ratios) in rows.items():
        first = (best, spans.get((name, n, fastest)))

        def cell(b, name=name, n=n, first=first, ratios=ratios, fastest=fastest):
            ratio = "1.00" if b == fastest else ratio_cell(
                times[(name, n, b)], spans.get((name, n, b)), *first)
            return ratio + notes.mark(marks[b], name, f"{b}, {name} n={n}")
        cells = [cell(b) if b in ratios else "-" for b in backends]
        lines.append("| " + " | ".join([name, str(n), f"{fastest} {format_seconds(best)}",
                                        *cells]) + " |")
    return notes.markdown("\n".join(lines))


def peer_ratios(res, key=ids.GATE_TIME, what="gate"):
    """Our best kernel's time over each peer's, per gate (or circuit) and n, side by side
    (below 1: our kernel is faster): the issue's comparison table."""
    data = results.table(res, key)
    ours = {b.name for b in registry.simulators().values() if b.own}
    peers = list(dict.fromkeys(b for _, _, b in data if b not in ours))
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
    qulacs on every gate, against the in-place yardstick of the memory level the state
    sits in (``machine.LevelBandwidth``, sizes from the OS; a gate's access pattern: the
    ceiling the kernels aim at), and against the 256 MiB in-place and copy ones."""
    copy = results.table(res, ids.COPY_BANDWIDTH).get(())
    inplace = results.table(res, ids.INPLACE_BANDWIDTH).get(())
    yard = ({level: gbs for (level,), gbs in results.table(res, ids.LEVEL_BANDWIDTH).items()}
            if ids.LEVEL_BANDWIDTH in set(res.get_all_result_keys()) else {})
    data = results.table(res, ids.GATE_TIME)
    if copy is None or inplace is None:
        return "(no memory-bandwidth result)"
    head = f"One thread, read + write: in-place update {inplace:.1f} GB/s, copy {copy:.1f} GB/s"
    if yard:
        head += "; per level: " + ", ".join(f"{lv} {yard[lv]:.1f} GB/s"
                                            for lv in levels.LEVELS if lv in yard)
    lines = [head, "", "| gate | n | backend | GB/s | level | % of level | % of in-place | "
             "% of copy |", "|---|---|---|---|---|---|---|---|"]
    gates = list(dict.fromkeys(g for g, _, _ in data))
    for gate in gates:
        for n in sorted({n for (g, n, _) in data if g == gate and n >= min_qubits}):
            level = levels.level_of(AMPLITUDE_BYTES << n)
            for backend in (*OWN, BASELINE):
                if (gate, n, backend) not in data:
                    continue
                gbs = effective_gbs(n, data[(gate, n, backend)])
                share = f"{100 * gbs / yard[level]:.0f}%" if level in yard else "-"
                lines.append(f"| {gate} | {n} | {backend} | {gbs:.1f} | {level} | {share} | "
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


def recorded_settings(res, results_dir=results.RESULTS_DIR):
    """The settings map of ``res`` (an asv Results read from ``results_dir``), as
    harness/settings.py recorded it beside asv's file ({} for results from before
    settings were recorded)."""
    return settings_mod.load(results.path_of(res, results_dir))


def with_settings(fn, *args):
    """``fn(res, *args, settings=...)`` as a function of ``res`` and the settings map."""
    return lambda res, settings=None: fn(res, *args, settings=settings)


SECTIONS = (("Who is fastest per gate (largest n, both precisions)",
             with_settings(headline, "gate")),
            ("Who is fastest per circuit (largest n, both precisions)",
             with_settings(headline, "circuit")),
            (f"Best own kernel vs {BASELINE} (minimum time, one thread)", gate_ratios),
            ("Best own kernel / each peer, gates (below 1: ours is faster)", peer_ratios),
            ("Best own kernel / each peer, circuits",
             lambda res: peer_ratios(res, ids.CIRCUIT_TIME, "circuit")),
            ("Ranking per gate at the largest n", with_settings(ranking)),
            ("Ranking per circuit at the largest n",
             with_settings(ranking, ids.CIRCUIT_TIME, "circuit")),
            ("Circuit time / fastest per backend at the largest n",
             with_settings(time_over_fastest, ids.CIRCUIT_TIME)),
            ("Circuit time / fastest per backend at the largest n, complex64",
             with_settings(time_over_fastest, ids.CIRCUIT64_TIME)),
            ("Effective bandwidth", bandwidth), ("Thread scaling", thread_scaling),
            ("Cost of the plain kernel call", call_overhead))
