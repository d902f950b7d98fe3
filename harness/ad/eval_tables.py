"""The evals' tables (gradbench's and ADBench's problems, suite ``ad_evals``): each
backend's derivative time with its ratios to the hand-written derivative and to the plain
objective, the ratios sampled in one process, and the issue's targets.

The ratios follow gradbench's and ADBench's presentation: time / manual says what a tool
costs over writing the derivative by hand; time / objective (ADBench's "Jacobian / objective")
what it costs over evaluating the function once."""

from harness import ids, markdown, registry, results, targets
from harness.ad.backends import PLAIN_OBJECTIVE, compiling_names, own_objectives
from harness.ad.tables import target_lines
from harness.timing import format_seconds
from kernels.ad.problems import PROBLEMS

#: the hand-written derivative's name, the baseline of every ratio
MANUAL = registry.ad_baseline().name
#: the suite's derivative benchmark of each kind the targets name
SUITES = {"gradient": ids.EVAL_GRADIENT, "jacobian": ids.EVAL_JACOBIAN}


def middle_size(name):
    """gradbench's middle size of an eval: the median of its sizes (the lower one of an
    even count), in the registry's order, smallest first."""
    sizes = PROBLEMS[name].sizes
    return sizes[(len(sizes) - 1) // 2]


def _by_case(data):
    out = {}
    for (case, backend), value in data.items():
        out.setdefault(case, {})[backend] = value
    return out


def optional(res, name):
    """results.table of ``name``, empty for results without its suite."""
    try:
        return results.table(res, name)
    except KeyError:  # results without the suite
        return {}


def eval_times(res):
    """Per (eval, size): each backend's minimum derivative time, then x manual and
    x f (the plain numpy objective's time), from the suite's separate benchmarks; the
    gradient evals, then the Jacobian evals (whose backends include the peers' jacfwd)."""
    objective = {case: t for (case, b), t in optional(res, ids.EVAL_OBJECTIVE).items()
                 if b == PLAIN_OBJECTIVE}

    def cell(row, b):
        t, manual, f = row[b]
        parts = [f"{t / manual:.3g}x manual"] if manual and b != MANUAL else []
        parts += [f"{t / f:.3g}x f"] if f else []
        return format_seconds(t) + (f" ({', '.join(parts)})" if parts else "")

    parts = []
    for title, name in (("Gradients", ids.EVAL_GRADIENT), ("Jacobians", ids.EVAL_JACOBIAN),
                        ("Nested (the whole procedure)", ids.EVAL_NESTED)):
        times = _by_case(optional(res, name))
        if times:
            rows = {case: {b: (t, row.get(MANUAL), objective.get(case))
                           for b, t in row.items()} for case, row in times.items()}
            parts.append(f"{title}: minimum time of one (its ratio to the hand-written one, "
                         f"and to one evaluation of f)\n\n"
                         + markdown.matrix(rows, cell, ("eval", "size")))
    return "\n\n".join(parts)


def eval_ratios(res):
    """Derivative / objective and derivative / manual, each pair sampled alternately in
    one process, for the backends the profile samples."""
    vs_f = _by_case(optional(res, ids.EVAL_VS_OBJECTIVE))
    vs_m = _by_case(optional(res, ids.EVAL_VS_MANUAL))
    rows = {case: {b: (row.get(b), vs_m.get(case, {}).get(b)) for b in row}
            for case, row in vs_f.items()}

    def cell(row, b):
        f, m = row[b]
        return f"{f:.3g} / {m:.3g}" if m is not None else f"{f:.3g} / -"
    return "x objective / x manual, sampled in one process\n\n" + \
        markdown.matrix(rows, cell, ("eval", "size"))


def eval_memory(res):
    """Peak memory one derivative adds, and its ratio to the plain objective's own peak
    (a tape's cost in memory: what it keeps for the backward pass)."""
    peaks = _by_case(optional(res, ids.EVAL_MEMORY))
    if not peaks:
        return ""
    objective = {case: mib for (case, b), mib in
                 optional(res, ids.EVAL_OBJECTIVE_MEMORY).items() if b == PLAIN_OBJECTIVE}
    rows = {case: {b: (mib, objective.get(case)) for b, mib in row.items()}
            for case, row in peaks.items()}

    def cell(row, b):
        mib, f = row[b]
        # below a tenth of a MiB the resident set's granularity (pages) is the story
        ratio = f" ({mib / f:.3g}x f)" if f and f >= 0.1 else ""
        return f"{mib:.3g} MiB{ratio}"
    return ("peak memory one derivative adds (its ratio to one objective's own peak)\n\n"
            + markdown.matrix(rows, cell, ("eval", "size")))


def eval_targets(res):
    """The targets on the evals (harness.targets): the engines' gradient / objective at
    gradbench's middle size of the evals named (the full profile runs those sizes; the
    default one does not), and no engine slower than its peer on any eval run."""
    vs_f = optional(res, ids.EVAL_VS_OBJECTIVE)
    rows = []
    for name in targets.EVALS:
        case = (name, middle_size(name))
        for backend in targets.EVAL_ENGINES:
            rows.append((f"{name} {case[1]}: {backend} / objective",
                         vs_f.get((case, backend)), "<=", targets.EVAL_MAX_VS_OBJECTIVE))
    for kind, engines, peer in targets.EVAL_PEERS:
        times = _by_case(optional(res, SUITES[kind]))
        for (name, size), row in times.items():
            for engine in engines:
                if engine in row and peer in row:
                    rows.append((f"{name} {size}: {engine} / {peer}", row[engine] / row[peer],
                                 "<=", 1.0))
    return target_lines(rows + _compiled_targets(res))


def _compiled_targets(res):
    """The rows of our engines that compile: gradient over the engine's own objective
    (minimum times of one run) on every eval it ran, and over each compiling peer's."""
    engines = own_objectives()
    peers = [b for b in compiling_names() if b not in engines]
    own = _by_case(optional(res, ids.EVAL_OBJECTIVE))
    rows = []
    for (name, size), row in _by_case(optional(res, ids.EVAL_GRADIENT)).items():
        for engine in (e for e in engines if e in row):
            objective = own.get((name, size), {}).get(engine)
            rows.append((f"{name} {size}: {engine} / its own objective",
                         row[engine] / objective if objective else None, "<=",
                         targets.COMPILED_VS_OWN.get(name, targets.COMPILED_VS_OWN_ELSE)))
            rows += [(f"{name} {size}: {engine} / {peer}", row[engine] / row[peer], "<=",
                      1.0) for peer in peers if peer in row]
    return rows


SECTIONS = (("AD evals: derivative time per backend", eval_times),
            ("AD evals: x objective / x manual (one process)", eval_ratios),
            ("AD evals: peak memory", eval_memory),
            ("AD evals: targets", eval_targets))
