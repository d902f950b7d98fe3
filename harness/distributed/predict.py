"""``python -m harness predict SOURCE --ranks R [--nodes K] [--link-gbps B] [--latency-us L]``:
what a circuit would take on a described cluster, split into compute and communication.

- **Compute**, per rank: the distributed backend's stretches for that rank (its gates
  restricted to its bits), run here on one thread on a slice of the rank's size where
  one fits (:data:`MEASURED_QUBITS`): measured, the slowest of the first and the last
  rank, whose global bits are all 0 and all 1 (a control on a global qubit skips a gate
  on one of them). A larger slice is priced by the cost model of the stages it runs (its
  multiply-adds an amplitude, passes over memory included) at this machine's rate on
  the same circuit, measured once on slices that fit (the circuit planned over more
  ranks).
- **Communication**, from the exchange plan: an exchange of k global bits swaps a block
  of 2**-k of the slice with each of 2**k - 1 partners, in messages of at most the
  exchange's chunk. The R ranks sit K to a node in order, so a block swapped with a
  partner of the same node is priced at two copies' time at this machine's in-place
  memory bandwidth, measured (what the node's exchanges took here), and one swapped with
  a partner on another node goes over the link, which the R/K ranks of a node share:
  bytes * (R/K) / link + messages * latency.

Times assume one rank per core and the ranks of a node not slowing each other's memory
traffic; the output says so.
"""

import functools
import json
import math
import sys
import time
from pathlib import Path

import numpy as np

from harness import provenance
from harness import threads as threads_mod
from harness.circuit import command, sources
from harness.distributed.arguments import LATENCY_US, LINK_GBPS
from harness.statevector import levels
from harness.timing import best_seconds, format_seconds
from kernels.statevector import distributed, states
from kernels.statevector.distributed.exchange import chunk_amplitudes, partners

#: Slices up to this many qubits are run here to measure a rank's compute (1 GiB in
#: complex128); larger ones are modelled from their passes.
MEASURED_QUBITS = 26

#: With ``--model``, the slices the compute rate is measured on: small, so it is quick.
MODEL_QUBITS = 20

#: The most ranks a prediction plans for: beyond the backend's own limit (the ranks it
#: runs on), as far as the clusters the published runs used.
MOST_RANKS = 1 << 16


def _checked(ranks, nodes, link_gbps, latency_us):
    try:
        g = distributed.global_qubits(ranks, MOST_RANKS)
    except ValueError as exc:
        raise command.BadInput(f"--ranks: {exc}") from None
    if isinstance(nodes, bool) or not isinstance(nodes, int) or nodes < 1 or ranks % nodes:
        raise command.BadInput(f"--nodes must divide the ranks ({ranks}), got {nodes!r}")
    if not (link_gbps > 0 and math.isfinite(link_gbps)):
        raise command.BadInput(f"--link-gbps must be a positive number, got {link_gbps!r}")
    if not (latency_us >= 0 and math.isfinite(latency_us)):
        raise command.BadInput(f"--latency-us must be a number >= 0, got {latency_us!r}")
    return g


def _programs(circuit, ranks, precision):
    """The first and the last rank's programs (their global bits all 0 and all 1: a
    control on a global qubit skips a gate on one of them)."""
    return [distributed.Program(circuit.instructions, circuit.n, precision.dtype,
                                distributed.Placement(rank, ranks), most_ranks=MOST_RANKS)
            for rank in sorted({0, ranks - 1})]


def _run(programs, local, precision):
    """The slowest of ``programs``' best seconds on a slice of 2**local, here, on one
    thread (a rank's, as the job runs it by default)."""
    threads_mod.set_threads(1)
    seconds = 0.0
    state = states.aligned(np.zeros(1 << local, precision.dtype), precision.dtype)
    for program in programs:
        state[:] = 0
        state[0] = 1
        seconds = max(seconds, best_seconds(functools.partial(program.compute, state),
                                            repeat=3, max_seconds=10.0))
    return seconds


_RATES = {}


def _rate(circuit, precision, qubits):
    """This machine's compute rate on ``circuit``, in the fusion cost model's units
    (complex multiply-adds, passes included) per second: the circuit planned over as
    many ranks as leave slices of 2**qubits, run here (measured once per circuit)."""
    key = (circuit.label, circuit.n, precision.name, qubits)
    if key not in _RATES:
        local = min(qubits, circuit.n)
        programs = _programs(circuit, 1 << (circuit.n - local), precision)
        cost = max(p.info["modelled_cost"] for p in programs)
        _RATES[key] = cost * (1 << local) / _run(programs, local, precision)
    return _RATES[key]


def _compute(circuit, programs, precision, model=False):
    """(seconds, how, passes): the compute of the ranks of ``programs`` (:func:`_programs`),
    measured or modelled (module docstring); modelled whatever the size with ``model``."""
    local = programs[0].local
    passes = max(p.info["passes"] for p in programs)
    try:
        states.check_fits(local, precision.dtype, copies=3)
        fits = local <= MEASURED_QUBITS and not model
    except MemoryError:
        fits = False
    if fits:
        return _run(programs, local, precision), "measured here, one process", passes
    yard = MODEL_QUBITS if model else MEASURED_QUBITS
    rate = _rate(circuit, precision, yard)
    cost = max(p.info["modelled_cost"] for p in programs)
    return (cost * (1 << local) / rate,
            f"modelled: the cost model's {cost:.0f} multiply-adds an amplitude at "
            f"{rate / 1e9:.2f} G a second, measured here on slices of 2^{min(yard, circuit.n)}",
            passes)


def _communication(plan, ranks, nodes, precision, link_gbps, latency_us, memory_gbs):
    """{"intra": {...}, "inter": {...}, "seconds"}: the blocks swapped inside a node and
    over the link, each with the exchanges that swap any, the bytes and messages per rank
    and the seconds (an exchange with partners on both sides counts in both)."""
    local = plan.n - plan.g
    slice_size = 1 << local
    chunk = chunk_amplitudes(slice_size, precision.itemsize)
    per_node = ranks // nodes
    link = link_gbps * 1e9 / 8  # bytes per second, shared by the node's ranks
    out = {}
    for kind in ("intra", "inter"):
        out[kind] = {"exchanges": 0, "bytes_per_rank": 0, "messages": 0, "seconds": 0.0}
    for step in plan.steps:
        if not isinstance(step, distributed.plan.Exchange):
            continue
        block = slice_size >> len(step.local)  # amplitudes swapped with each partner
        nbytes = block * precision.itemsize
        messages = max(1, block // chunk)
        kinds = set()
        # rank 0's partners: every rank's lie as far (ranks sit in order, K to a node)
        for partner in partners(0, [G - local for G in step.glob]):
            kind = "intra" if partner < per_node else "inter"
            kinds.add(kind)
            row = out[kind]
            row["bytes_per_rank"] += nbytes
            if kind == "inter":  # inside a node the pair swaps in place (window.py)
                row["messages"] += messages
            # inside a node: two copies' time at the in-place bandwidth. The in-place
            # swap in a node window reads and writes each byte once, but every rank of
            # the node swaps at once, sharing its memory; measured here it takes about
            # two copies' time, as do messages, which copy each byte twice
            # (docs/distributed.md, "Measured here")
            row["seconds"] += (4 * nbytes / (memory_gbs * 1e9) if kind == "intra" else
                               nbytes * per_node / link + messages * latency_us * 1e-6)
        for kind in kinds:
            out[kind]["exchanges"] += 1
    out["seconds"] = out["intra"]["seconds"] + out["inter"]["seconds"]
    return out


def predict(source, qubits=None, ranks=2, nodes=1, link_gbps=LINK_GBPS,
            latency_us=LATENCY_US, precision="complex128", model=False):
    """The prediction as a dict (the JSON's shape); ``model``: every rank's compute
    modelled, none run."""
    precision = command.options(precision, "cold", 1, 0.0)
    g = _checked(ranks, nodes, link_gbps, latency_us)
    circuit = sources.load(source, qubits)
    started = time.perf_counter()
    try:
        programs = _programs(circuit, ranks, precision)
    except ValueError as exc:  # a gate wider than a slice
        raise command.BadInput(f"--ranks {ranks}: {exc}") from None
    compute, how, passes = _compute(circuit, programs, precision, model)
    memory_gbs = levels.inplace_gbs("DRAM")
    comm = _communication(programs[0].plan, ranks, nodes, precision, link_gbps, latency_us,
                          memory_gbs)
    total = compute + comm["seconds"]
    return {
        "circuit": circuit.label, "qubits": circuit.n, "gates": len(circuit.instructions),
        "precision": precision.name, "ranks": ranks, "nodes": nodes,
        "link_gbps": link_gbps, "latency_us": latency_us,
        "slice_bytes": precision.itemsize << (circuit.n - g),
        "compute": {"seconds": compute, "how": how, "passes": passes},
        "communication": comm, "memory_gbs": memory_gbs,
        "seconds": total, "comm_share": comm["seconds"] / total if total else 0.0,
        "measured_in": time.perf_counter() - started,
    }


def table(report):
    c, comm = report["compute"], report["communication"]
    mib = 2 ** 20
    lines = [
        f"circuit {report['circuit']}: {report['qubits']} qubits, {report['gates']} gates, "
        f"{report['precision']}; {report['ranks']} ranks on {report['nodes']} node"
        f"{'s' if report['nodes'] > 1 else ''}, slices of "
        f"{report['slice_bytes'] / mib:.1f} MiB",
        f"  predicted   {format_seconds(report['seconds']):>10}  "
        f"({100 * report['comm_share']:.0f}% communication)",
        f"  compute     {format_seconds(c['seconds']):>10}  per rank, {c['passes']} passes "
        f"over its slice ({c['how']})",
    ]
    for kind, words in (("intra", "inside a node"), ("inter", "over the link")):
        row = comm[kind]
        lines.append(f"  {kind + '-node':<11} {format_seconds(row['seconds']):>10}  "
                     f"{row['exchanges']} exchanges {words}, {row['bytes_per_rank'] / mib:.1f} "
                     f"MiB and {row['messages']} messages per rank")
    lines.append(f"  link {report['link_gbps']:g} Gb/s per node shared by its "
                 f"{report['ranks'] // report['nodes']} ranks, {report['latency_us']:g} us a "
                 f"message; memory {report['memory_gbs']:.1f} GB/s in-place (measured here). "
                 "One rank per core, ranks not slowing each other's memory traffic.")
    return "\n".join(lines)


def grid(reports):
    """Several predictions as one table: a row per circuit size, a column per node count,
    each cell the predicted time and its communication share."""
    first = reports[0]
    nodes = sorted({r["nodes"] for r in reports})
    sizes = sorted({r["qubits"] for r in reports})
    cell = {(r["qubits"], r["nodes"]): r for r in reports}
    per_node = sorted({r["ranks"] // r["nodes"] for r in reports})
    lines = [f"circuit {first['circuit']}, {first['precision']}; "
             f"{'/'.join(map(str, per_node))} rank(s) a node; link {first['link_gbps']:g} "
             f"Gb/s per node, {first['latency_us']:g} us a message; memory "
             f"{first['memory_gbs']:.1f} GB/s in-place (measured here). Predicted time "
             "(communication share); one rank per core.",
             f"{'qubits':>6}  " + "".join(f"{f'{k} node' + ('s' if k > 1 else ''):>20}"
                                          for k in nodes)]
    for n in sizes:
        row = []
        for k in nodes:
            r = cell.get((n, k))
            row.append(f"{format_seconds(r['seconds'])} ({100 * r['comm_share']:.0f}%)"
                       if r else "-")
        lines.append(f"{n:>6}  " + "".join(f"{c:>20}" for c in row))
    return "\n".join(lines)


def main(opts):
    cases = []
    for n in opts.qubits or [None]:
        for k in opts.nodes:
            cases.append((n, k, opts.ranks if opts.ranks is not None
                          else opts.ranks_per_node * k))
    reports = []
    try:
        for n, k, ranks in cases:
            reports.append(predict(opts.circuit, n, ranks, k, opts.link_gbps,
                                   opts.latency_us, opts.precision, opts.model))
    except (sources.SourceError, command.BadInput) as exc:
        at = f" ({n} qubits, {ranks} ranks on {k} nodes)" if len(cases) > 1 else ""
        print(f"predict{at}: {exc}", file=sys.stderr)
        return 2
    print(table(reports[0]) if len(reports) == 1 else grid(reports))
    if opts.json:
        out = reports[0] if len(reports) == 1 else {"predictions": reports}
        # the compute rate came from this machine: the file says which one
        out = {**out, "run": provenance.context("predict", getattr(opts, "argv", ()))}
        try:
            Path(opts.json).write_text(json.dumps(out, indent=1) + "\n")
        except OSError as exc:
            print(f"predict: cannot write: {exc}", file=sys.stderr)
            return 2
    return 0
