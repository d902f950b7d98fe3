"""The fused backend's gate kernels one at a time, against their roofline.

A case is one kind of gate (dense, diagonal, permutation), one width (1 to 4 qubits),
one layout (staged, split), one precision and one memory level (L1 or L2): a stage of
random gates of that kind on a state that sits in that level, so that the state is one
chunk and every gate sweeps it where it is. The time per gate and amplitude is set
against the roofline of one gate (:mod:`kernels.statevector.roofline`): its
multiply-adds at this core's FMA peak, or its read and write of every amplitude at the
in-place bandwidth of a buffer of the state's size, whichever is longer. All of it is
measured in the calling process, the cases, the peak and the bandwidths taken in turn,
round after round, so that a change of load on a shared machine moves them alike.

The gates act on the state's top qubits, above the lanes of a register, as a circuit's
wide gates mostly do; a lane case (split layout only) gives each gate one or more targets
among the lanes, so that it runs as the split layout's lane kernel (docs/circuits.md).
"""

import argparse
from typing import NamedTuple

import numpy as np

from harness import threads
from harness.timing import best_seconds
from kernels.statevector import fused, gates, roofline, states
from kernels.statevector.circuits import Instruction
from kernels.statevector.codegen import peak
from kernels.statevector.fused.program import LAYOUTS
from kernels.statevector.machine import cache_sizes
from kernels.statevector.settings import PRECISIONS

from . import levels

KINDS = ("dense", "diagonal", "permutation")
WIDTHS = (1, 2, 3, 4)
LEVELS = ("L1", "L2")
#: The qubits the gates are drawn from: the state's top six.
TOP = 6
#: Gates in a stage per level: enough that a call's fixed costs (the checks, the split
#: layout's two rewrites) are a few percent of it.
GATES = {"L1": 256, "L2": 24}


class Case(NamedTuple):
    kind: str
    k: int
    layout: str
    precision: str
    level: str
    lanes: bool = False  # every gate has a target among a register's lanes


def qubits(level, dtype):
    """The state's qubits for ``level``: half of L1 (the staged layout's buffer takes as
    much again), or the fused backend's chunk (half of L2)."""
    dtype = np.dtype(dtype)
    if level == "L1":
        return int(np.log2(cache_sizes()[1] // 2 // dtype.itemsize))
    if level == "L2":
        return fused.block_qubits(dtype)
    raise ValueError(f"level must be one of {LEVELS}, got {level!r}")


def has_lanes(case):
    """Whether the case can be run: a lane case only in a layout with lanes."""
    return not case.lanes or fused.program.lane_qubits(case.layout, case.precision) > 0


def matrix(kind, k, rng):
    """A random gate of ``kind`` on k qubits."""
    if kind == "dense":
        return gates.random_unitary(k, rng)
    if kind == "diagonal":
        return np.diag(np.exp(1j * rng.uniform(-np.pi, np.pi, 1 << k)))
    if kind == "permutation":
        return np.eye(1 << k, dtype=complex)[rng.permutation(1 << k)]
    raise ValueError(f"kind must be one of {KINDS}, got {kind!r}")


def stage(case, rng):
    """(program, state): the case's stage, compiled and run once."""
    dtype = np.dtype(case.precision)
    n = qubits(case.level, dtype)
    top = list(range(n - TOP, n))
    w = fused.program.lane_qubits(case.layout, dtype)
    if not has_lanes(case):
        raise ValueError(f"the {case.layout} layout has no lane gates (lanes=True)")

    def targets():
        if not case.lanes:
            return rng.choice(top, size=case.k, replace=False)
        on = int(rng.integers(1, min(case.k, w) + 1))  # how many among the lanes
        return rng.permutation(np.concatenate([rng.choice(w, size=on, replace=False),
                                               rng.choice(top, size=case.k - on,
                                                          replace=False)]))

    stage_gates = [Instruction(case.kind, matrix(case.kind, case.k, rng),
                               tuple(int(q) for q in targets()))
                   for _ in range(GATES[case.level])]
    # at most k qubits: gates merge only where their qubits are the same
    program = fused.Program(stage_gates, n, dtype, max_qubits=case.k, layout=case.layout)
    state = states.zero_state(n, dtype)  # on a cache line, as the harness runs every backend
    program(state)  # compiles the stage loop
    return program, state


def roofline_seconds(case, fmas, gbs):
    """Seconds per amplitude of one gate of the case at its roofline, for an FMA peak
    ``fmas`` (real FMAs per second) and in-place ``gbs``."""
    one = Instruction(case.kind, matrix(case.kind, case.k, np.random.default_rng(0)),
                      tuple(range(case.k)))
    work = roofline.Work(roofline.multiply_adds(one), {"state": 1.0})
    limits = roofline.Limits({case.precision: fmas}, {case.level: gbs})
    return roofline.seconds(work, 0, case.precision, limits, case.level)


def measure(cases, rounds=7, seed=2026):
    """{case: (seconds per amplitude of one gate, its roofline's, what bounds it)}: every
    case's best over ``rounds`` rounds, and the FMA peak and the in-place bandwidths at
    their best over the same rounds."""
    rng = np.random.default_rng(seed)
    stages = {case: stage(case, rng) for case in cases}
    sizes = {(c.level, c.precision): (1 << stages[c][0].n) * np.dtype(c.precision).itemsize
             for c in cases}
    best = dict.fromkeys(cases, float("inf"))
    fmas = dict.fromkeys({c.precision for c in cases}, 0.0)
    gbs = dict.fromkeys(sizes, 0.0)
    for _ in range(rounds):
        for p in fmas:
            fmas[p] = max(fmas[p], peak.fma_rate(p, seconds=0.02, repeat=3))
        for key, nbytes in sizes.items():
            gbs[key] = max(gbs[key], levels.loop_gbs(nbytes, max_seconds=0.05))
        for case, (program, state) in stages.items():
            best[case] = min(best[case], best_seconds(
                lambda p=program, s=state: p(s), repeat=1, max_seconds=float("inf"),
                min_sample=0.01))
    out = {}
    for case, (program, _) in stages.items():
        per_gate = best[case] / program.info["fused_gates"] / (1 << program.n)
        roof, bound = roofline_seconds(case, fmas[case.precision],
                                       gbs[case.level, case.precision])
        out[case] = (per_gate, roof, bound)
    return out


def table(results):
    """Markdown lines: a row per kind and width, a column per layout, precision and
    level, each cell the share of the roofline (marked "mem" where the pass bounds it,
    not the FMA peak), empty for a case not measured."""
    columns = sorted({(c.layout, c.precision, c.level) for c in results})
    rows = sorted({(c.kind, c.k, c.lanes) for c in results},
                  key=lambda r: (KINDS.index(r[0]), r[2], r[1]))
    lines = ["| gate | " + " | ".join(f"{lay} {p} {lev}" for lay, p, lev in columns) + " |",
             "|---|" + "--:|" * len(columns)]
    for kind, k, on_lanes in rows:
        cells = []
        for lay, p, lev in columns:
            if Case(kind, k, lay, p, lev, on_lanes) not in results:
                cells.append("")
                continue
            seconds, roof, bound = results[Case(kind, k, lay, p, lev, on_lanes)]
            cells.append(f"{roof / seconds:.0%}" + ("" if bound == "compute" else " (mem)"))
        lines.append(f"| {kind} {k}{' on lanes' if on_lanes else ''} | "
                     + " | ".join(cells) + " |")
    return lines


def main(argv=None):
    """``python -m harness.statevector.stage_kernels [--levels L1,L2] [--rounds R]``:
    every case's share of its roofline, as a markdown table (the split layout's lane
    cases as rows of their own)."""
    parser = argparse.ArgumentParser(prog="python -m harness.statevector.stage_kernels")
    parser.add_argument("--levels", default=",".join(LEVELS))
    parser.add_argument("--kinds", default=",".join(KINDS))
    parser.add_argument("--rounds", type=int, default=7)
    opts = parser.parse_args(argv)
    threads.set_threads(1)
    cases = [c for c in (Case(kind, k, layout, p, level, on_lanes)
                         for kind in opts.kinds.split(",") for k in WIDTHS
                         for layout in LAYOUTS for p in PRECISIONS
                         for level in opts.levels.split(",") for on_lanes in (False, True))
             if has_lanes(c)]
    print("\n".join(table(measure(cases, rounds=opts.rounds))))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
