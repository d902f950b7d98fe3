"""The AD tables of ``python -m harness table`` and the report: every backend's gradient
time against the hand-written one, speed-ups against the peers, slowdown ratios,
objectives and compile times, forward mode's chunk sweep, and the targets the engines
are held to."""

import numpy as np

from harness import ids, markdown, registry, results, targets
from harness.ad.backends import PLAIN_OBJECTIVE, input_size
from harness.timing import format_seconds
from kernels.ad import ENGINES
from kernels.ad.problems import PROBLEMS

#: the hand-written derivative's name, the baseline of every ratio
MANUAL = registry.ad_baseline().name
#: the engine whose gradient takes a chunk (forward mode): the chunk sweep's
CHUNKED = next(b.name for b in registry.ad().values() if "chunk" in b.options)


def _by_case(data):
    """{(problem, n): {backend: value}} from a table keyed by (case, backend), cases in
    the order first seen (the suites' order), backends too."""
    out = {}
    for (case, backend), value in data.items():
        out.setdefault(case, {})[backend] = value
    return out


def _matrix(rows, cell):
    """A problem x backend Markdown table; ``cell(row, backend)`` formats one entry."""
    return markdown.matrix(rows, cell, ("problem", "n"))


def ad_gradients(res):
    """Each backend's minimum gradient time per case, with its ratio to the manual one."""
    rows = _by_case(results.table(res, ids.AD_GRADIENT))

    def cell(row, b):
        manual = row.get(MANUAL)
        return format_seconds(row[b]) + (f" ({row[b] / manual:.3g}x)" if manual else "")
    return "Minimum time of one gradient (ratio to the hand-written gradient)\n\n" + \
        _matrix(rows, cell)


def ad_slowdown(res):
    """Gradient time / objective time of each backend, measured in one process (the
    ForwardDiff seed's slowdown ratio; lower is better)."""
    rows = _by_case(results.table(res, ids.AD_SLOWDOWN))
    return _matrix(rows, lambda row, b: f"{row[b]:.3g}")


def ad_vs_manual(res):
    """Gradient time / the hand-written gradient's, sampled alternately in one process:
    the targets' ratios, steadier than dividing times taken minutes apart."""
    rows = _by_case(_table_or_empty(res, ids.AD_VS_MANUAL))
    return _matrix(rows, lambda row, b: f"{row[b]:.3g}")


def _table_or_empty(res, name):
    try:
        return results.table(res, name)
    except KeyError:  # results from before the benchmark existed
        return {}


def ad_objectives(res):
    """The objective as each backend evaluates it: the plain numpy f (what the manual
    gradient and our engines run) and each peer's translation, with compile seconds."""
    rows = _by_case(results.table(res, ids.AD_OBJECTIVE))
    try:
        compiled = _by_case(results.table(res, ids.AD_COMPILE))
    except KeyError:
        compiled = {}

    def cell(row, b):
        plain = row.get(PLAIN_OBJECTIVE)
        ratio = f" ({row[b] / plain:.3g}x)" if plain and b != PLAIN_OBJECTIVE else ""
        return format_seconds(row[b]) + ratio
    table = _matrix(rows, cell)
    if compiled:
        table += "\n\nCompile seconds (outside every timed call)\n\n" + \
            _matrix(compiled, lambda row, b: f"{row[b]:.3g} s")
    return table


def default_chunks(problem, n):
    """The chunk(s) forward mode picks by default on a case: (first,) or (first, then)."""
    inputs = input_size(PROBLEMS[problem].make_args(n, np.random.default_rng(0)))
    fw = ENGINES[CHUNKED]
    first = fw.default_chunk(inputs)
    # an element loop needs no dense seeds, so forward widens its chunk after one pass
    if PROBLEMS[problem].loop and first < inputs:
        return first, fw.loop_chunk(inputs - first)
    return (first,)


def _default_chunk(problem, n):
    return ", then ".join(str(c) for c in default_chunks(problem, n))


def ad_chunks(res):
    """Forward mode's gradient time per chunk, against the best chunk of the case."""
    rows = _by_case(results.table(res, ids.AD_CHUNK))
    lines = ["| problem | n | chunk | time | vs best chunk |", "|---|---|---|---|---|"]
    for (problem, n), row in rows.items():
        best = min(row.values())
        for chunk, t in sorted(row.items(), key=lambda kv: (kv[0] == "default", kv[0])):
            label = f"default ({_default_chunk(problem, n)})" if chunk == "default" else chunk
            lines.append(f"| {problem} | {n} | {label} | {format_seconds(t)} | {t / best:.2f} |")
    return "\n".join(lines)


def ad_speedups(res):
    """The ForwardDiff seed's speed-up table: each peer's minimum gradient time over each of
    our engines' (above 1: the engine is faster), per problem and size."""
    rows = _by_case(results.table(res, ids.AD_GRADIENT))
    cols = markdown.columns(rows)
    engines = [b for b in cols if b in ENGINES]
    peers = [b for b in cols if b not in ENGINES and b != MANUAL]
    lines = ["| problem | n | engine | " + " | ".join(f"vs {p}" for p in peers) + " |",
             "|---" * (3 + len(peers)) + "|"]
    for (problem, n), row in rows.items():
        for engine in (e for e in engines if e in row):
            cells = (f"{row[p] / row[engine]:.3g}x" if p in row else "-" for p in peers)
            lines.append(f"| {problem} | {n} | {engine} | " + " | ".join(cells) + " |")
    return "\n".join(lines)


def ad_trmul(res, case=("trmul", 30)):
    """The YAAD seed's table: tr(A @ B) 30x30, every backend's minimum gradient time
    against the hand-written gradient, and the same ratio sampled in one process."""
    grad = {b: t for (c, b), t in results.table(res, ids.AD_GRADIENT).items() if c == case}
    one = {b: r for (c, b), r in _table_or_empty(res, ids.AD_VS_MANUAL).items() if c == case}
    manual = grad.get(MANUAL)
    lines = ["| backend | minimum time | / manual | / manual (one process) |",
             "|---|---|---|---|"]
    for backend, t in sorted(grad.items(), key=lambda kv: kv[1]):
        ratio = f"{t / manual:.3g}" if manual else "-"
        alt = f"{one[backend]:.3g}" if backend in one else "-"
        lines.append(f"| {backend} | {format_seconds(t)} | {ratio} | {alt} |")
    return "\n".join(lines)


def _ratio(data, a, b):
    return data[a] / data[b] if a in data and b in data else None


def _best_forward(res, case):
    """The fastest gradient of ``case`` by the engine with chunks: its default chunk or
    any swept one."""
    times = [results.table(res, ids.AD_GRADIENT).get((case, CHUNKED))]
    try:
        times += [t for (c, _), t in results.table(res, ids.AD_CHUNK).items() if c == case]
    except KeyError:
        pass
    return min((t for t in times if t is not None), default=None)


def _label(case):
    problem, n = case
    return {"trmul": f"tr(A @ B) {n}x{n}", "ackley": f"Ackley n={n}",
            "ackley_loop": f"Ackley loop n={n}"}.get(problem, f"{problem} n={n}")


def ad_targets(res):
    """The targets of the AD engines (harness.targets), each with the measured value
    where the results have it: met, missed, or not measured."""
    grad = results.table(res, ids.AD_GRADIENT)
    slow = results.table(res, ids.AD_SLOWDOWN)
    vs_manual = _table_or_empty(res, ids.AD_VS_MANUAL)
    rows = []
    for t in targets.AD:
        # ratios to manual measured in one process where the results have them (each
        # side against manual, so a / b is their quotient); else minimum times' quotient
        one = {b: r for (c, b), r in vs_manual.items() if c == t.case}
        data = {**one, MANUAL: 1.0} if one else {b: x for (c, b), x in grad.items()
                                                  if c == t.case}
        rows.append((f"{_label(t.case)}: {t.numerator} / {t.denominator}",
                     _ratio(data, t.numerator, t.denominator),
                     "<=" if t.at_most else ">=", t.bound))
    problem, start = targets.AD_FORWARD_CASE, targets.AD_FORWARD_FROM
    for n in sorted({n for ((p, n), _) in grad if p == problem and n >= start}):
        case = (problem, n)
        best = _best_forward(res, case)
        for peer, bound in targets.AD_FORWARD_AHEAD_OF:
            peer_time = grad.get((case, peer))
            ratio = peer_time / best if best and peer_time else None
            rows.append((f"{_label(case)}: {peer} / {CHUNKED} (best chunk)", ratio, ">=",
                         bound))
    engines, case, bound = targets.AD_SLOWDOWN
    for backend in engines:
        rows.append((f"{_label(case)}: {backend} gradient / objective",
                     slow.get((case, backend)), "<=", bound))
    return target_lines(rows)


def target_lines(rows):
    """A targets table from ``rows`` of (what, measured value or None, "<=" or ">=",
    bound)."""
    lines = ["| target | measured | bound | met |", "|---|---|---|---|"]
    for what, value, op, bound in rows:
        if value is None:
            lines.append(f"| {what} | not measured | {op} {bound:.3g} | - |")
            continue
        met = value <= bound if op == "<=" else value >= bound
        lines.append(f"| {what} | {value:.3g} | {op} {bound:.3g} | {'yes' if met else 'NO'} |")
    return "\n".join(lines)


SECTIONS = (("AD: gradient time per backend", ad_gradients),
               ("AD: speed-up of each engine against each peer", ad_speedups),
               ("AD: tr(A @ B) 30x30 against the hand-written gradient", ad_trmul),
               ("AD: slowdown ratio (gradient / objective, one process)", ad_slowdown),
               ("AD: gradient / manual gradient (one process)", ad_vs_manual),
               ("AD: objective time per backend (ratio to the plain numpy f)", ad_objectives),
               ("AD: forward mode's chunk sweep", ad_chunks),
               ("AD: targets", ad_targets))
