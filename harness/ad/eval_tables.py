"""The evals' tables (gradbench's and ADBench's problems, suite ``ad_evals``): each
backend's derivative time with its ratios to the hand-written derivative and to the plain
objective, the ratios sampled in one process, and the issue's targets.

The ratios follow gradbench's and ADBench's presentation: time / manual says what a tool
costs over writing the derivative by hand; time / objective (ADBench's "Jacobian / objective")
what it costs over evaluating the function once."""

from harness import ids, markdown, results
from harness.timing import format_seconds
from kernels.ad.problems import PROBLEMS

#: the evals whose gradient the targets bound at gradbench's middle size
TARGET_EVALS = ("llsq", "lse", "gmm", "ode")
#: reverse and source gradient / objective at the middle size, one thread
MAX_VS_OBJECTIVE = 4.0


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


def _optional(res, name):
    try:
        return results.table(res, name)
    except KeyError:  # results without the suite
        return {}


def eval_times(res):
    """Per (eval, size): each backend's minimum derivative time, then x manual and
    x f (the plain numpy objective's time), from the suite's separate benchmarks."""
    times = _by_case(results.table(res, ids.EVAL_GRADIENT))
    objective = {case: t for (case, b), t in _optional(res, ids.EVAL_OBJECTIVE).items()
                 if b == "numpy"}
    rows = {case: {b: (t, row.get("manual"), objective.get(case)) for b, t in row.items()}
            for case, row in times.items()}

    def cell(row, b):
        t, manual, f = row[b]
        parts = [f"{t / manual:.3g}x manual"] if manual and b != "manual" else []
        parts += [f"{t / f:.3g}x f"] if f else []
        return format_seconds(t) + (f" ({', '.join(parts)})" if parts else "")
    return "Minimum time of one derivative (its ratio to the hand-written one, and to one " \
        "evaluation of f)\n\n" + markdown.matrix(rows, cell, ("eval", "size"))


def eval_ratios(res):
    """Derivative / objective and derivative / manual, each pair sampled alternately in
    one process, for the backends the profile samples."""
    vs_f = _by_case(_optional(res, ids.EVAL_VS_OBJECTIVE))
    vs_m = _by_case(_optional(res, ids.EVAL_VS_MANUAL))
    rows = {case: {b: (row.get(b), vs_m.get(case, {}).get(b)) for b in row}
            for case, row in vs_f.items()}

    def cell(row, b):
        f, m = row[b]
        return f"{f:.3g} / {m:.3g}" if m is not None else f"{f:.3g} / -"
    return "x objective / x manual, sampled in one process\n\n" + \
        markdown.matrix(rows, cell, ("eval", "size"))


def eval_targets(res):
    """The issue's bounds on the evals where the results have the middle sizes (the full
    profile runs them; the default one does not): reverse and source gradient / objective
    <= 4, and neither slower than torch."""
    vs_f = _optional(res, ids.EVAL_VS_OBJECTIVE)
    grad = _optional(res, ids.EVAL_GRADIENT)
    lines = ["| target | measured | bound | met |", "|---|---|---|---|"]
    for name in TARGET_EVALS:
        case = (name, middle_size(name))
        for backend in ("reverse", "source"):
            for what, value, bound in (
                    (f"{name} {case[1]}: {backend} / objective", vs_f.get((case, backend)),
                     MAX_VS_OBJECTIVE),
                    (f"{name} {case[1]}: {backend} / torch", _quotient(grad, case, backend),
                     1.0)):
                if value is None:
                    lines.append(f"| {what} | not measured | <= {bound:g} | - |")
                else:
                    lines.append(f"| {what} | {value:.3g} | <= {bound:g} | "
                                 f"{'yes' if value <= bound else 'NO'} |")
    return "\n".join(lines)


def _quotient(grad, case, backend):
    mine, torch = grad.get((case, backend)), grad.get((case, "torch"))
    return mine / torch if mine and torch else None


SECTIONS = (("AD evals: derivative time per backend", eval_times),
            ("AD evals: x objective / x manual (one process)", eval_ratios),
            ("AD evals: targets", eval_targets))
