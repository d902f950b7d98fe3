"""The variational tables of ``python -m harness table`` and the report: gradient times,
the gradient/energy ratio with its references, peak memory, energies, and the issue's
targets for the adjoint method."""

from harness import ids, markdown, results, targets
from harness.timing import format_seconds
from kernels import variational

#: Published gradient/energy ratios the measured ones are read against.
REFERENCES = ("Yao.jl's reverse mode by uncomputing: 4.2x its forward pass at 16 qubits; "
              "the adjoint method (Jones and Gacon): 3-4x in theory, whatever the number of "
              "parameters.")

#: the method every other is drawn against (its ratio column)
BASELINE = next(m.name for m in variational.METHODS if m.baseline)


def _rows(data):
    """{n: {backend: value}} from a table keyed by (n, backend), both in suite order."""
    out = {}
    for (n, backend), value in sorted(data.items(), key=lambda kv: kv[0][0]):
        out.setdefault(n, {})[backend] = value
    return out


def _matrix(rows, cell):
    return markdown.matrix(rows, cell, ("n",))


def gradients(res):
    """Minimum time of one gradient per n and backend, with its ratio to our baseline
    method's (the adjoint method)."""
    rows = _rows(results.table(res, ids.VARIATIONAL_GRADIENT))

    def cell(row, b):
        base = row.get(BASELINE)
        return format_seconds(row[b]) + (f" ({row[b] / base:.3g}x)" if base else "")
    return ("Minimum time of one gradient of the QCBM energy (25n angles), and its ratio to "
            f"our {BASELINE} method\n\n" + _matrix(rows, cell))


def ratios(res):
    """Gradient time / the same backend's energy time, sampled in one process."""
    rows = _rows(results.table(res, ids.VARIATIONAL_RATIO))
    return (f"Gradient time / energy time, each backend against its own energy, sampled in "
            f"alternation in one process. References: {REFERENCES}\n\n"
            + _matrix(rows, lambda row, b: f"{row[b]:.3g}"))


def memory(res):
    """MiB the resident set grew at its peak during one gradient."""
    rows = _rows(results.table(res, ids.VARIATIONAL_MEMORY))
    return ("Peak memory one gradient adds (MiB; a state of n qubits is 2**n x 16 bytes: "
            "16 MiB at n = 20)\n\n" + _matrix(rows, lambda row, b: f"{row[b]:.3g}"))


def energies(res):
    """Minimum time of one energy per n and backend."""
    rows = _rows(results.table(res, ids.VARIATIONAL_ENERGY))
    return _matrix(rows, lambda row, b: format_seconds(row[b]))


def target_table(res):
    """Our method against its targets (harness.targets), as measured in these results."""
    ratio = results.table(res, ids.VARIATIONAL_RATIO)
    times = results.table(res, ids.VARIATIONAL_GRADIENT)
    method, bound = targets.VARIATIONAL_METHOD, targets.VARIATIONAL_RATIO
    peer = targets.VARIATIONAL_PEER
    lines = ["| target | n | measured | met |", "|---|---|---|---|"]
    for (n, b), r in sorted(ratio.items()):
        if b == method and n >= targets.VARIATIONAL_RATIO_FROM:
            lines.append(f"| {method} gradient / energy <= {bound} | {n} | {r:.3g} | "
                         f"{'yes' if r <= bound else 'NO'} |")
    for n in targets.VARIATIONAL_PEER_QUBITS:
        ours, theirs = times.get((n, method)), times.get((n, peer))
        if ours is None or theirs is None:
            lines.append(f"| {method} / {peer} adjoint <= 1 | {n} | not measured | - |")
            continue
        lines.append(f"| {method} / {peer} adjoint <= 1 | {n} | {ours / theirs:.3g} "
                     f"({format_seconds(ours)} vs {format_seconds(theirs)}) | "
                     f"{'yes' if ours <= theirs else 'NO'} |")
    return "\n".join(lines)


SECTIONS = [
    ("Variational circuits: gradient time", gradients),
    ("Variational circuits: gradient / energy", ratios),
    ("Variational circuits: peak memory of a gradient", memory),
    ("Variational circuits: energy time", energies),
    ("Variational circuits: targets", target_table),
]
