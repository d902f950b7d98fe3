"""The variational tables of ``python -m harness table`` and the report: gradient times,
the gradient/energy ratio with its references, peak memory, energies, and the issue's
targets for the adjoint method."""

from harness import ids, markdown, results
from harness.timing import format_seconds

#: Published gradient/energy ratios the measured ones are read against.
REFERENCES = ("Yao.jl's reverse mode by uncomputing: 4.2x its forward pass at 16 qubits; "
              "the adjoint method (Jones and Gacon): 3-4x in theory, whatever the number of "
              "parameters.")

#: The issue's targets: the adjoint ratio at n >= 12, and adjoint / lightning's adjoint.
RATIO_TARGET, RATIO_FROM = 4.0, 12
PEER, PEER_QUBITS = "lightning", (14, 20)


def _rows(data):
    """{n: {backend: value}} from a table keyed by (n, backend), both in suite order."""
    out = {}
    for (n, backend), value in sorted(data.items(), key=lambda kv: kv[0][0]):
        out.setdefault(n, {})[backend] = value
    return out


def _matrix(rows, cell):
    return markdown.matrix(rows, cell, ("n",))


def gradients(res):
    """Minimum time of one gradient per n and backend, with its ratio to our adjoint."""
    rows = _rows(results.table(res, ids.VARIATIONAL_GRADIENT))

    def cell(row, b):
        base = row.get("adjoint")
        return format_seconds(row[b]) + (f" ({row[b] / base:.3g}x)" if base else "")
    return ("Minimum time of one gradient of the QCBM energy (25n angles), and its ratio to "
            "our adjoint method\n\n" + _matrix(rows, cell))


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


def targets(res):
    """The adjoint method against the issue's targets, as measured in these results."""
    ratio = results.table(res, ids.VARIATIONAL_RATIO)
    times = results.table(res, ids.VARIATIONAL_GRADIENT)
    lines = ["| target | n | measured | met |", "|---|---|---|---|"]
    for (n, b), r in sorted(ratio.items()):
        if b == "adjoint" and n >= RATIO_FROM:
            lines.append(f"| adjoint gradient / energy <= {RATIO_TARGET} | {n} | {r:.3g} | "
                         f"{'yes' if r <= RATIO_TARGET else 'NO'} |")
    for n in PEER_QUBITS:
        ours, peer = times.get((n, "adjoint")), times.get((n, PEER))
        if ours is None or peer is None:
            lines.append(f"| adjoint / {PEER} adjoint <= 1 | {n} | not measured | - |")
            continue
        lines.append(f"| adjoint / {PEER} adjoint <= 1 | {n} | {ours / peer:.3g} "
                     f"({format_seconds(ours)} vs {format_seconds(peer)}) | "
                     f"{'yes' if ours <= peer else 'NO'} |")
    return "\n".join(lines)


SECTIONS = [
    ("Variational circuits: gradient time", gradients),
    ("Variational circuits: gradient / energy", ratios),
    ("Variational circuits: peak memory of a gradient", memory),
    ("Variational circuits: energy time", energies),
    ("Variational circuits: targets", targets),
]
