"""Cache blocking for the fused backend: a fused circuit cut into stages, each one pass
over the state.

A stage holds gates that together touch at most ``b - w`` qubits (its active qubits). Its
chunk is 2**b amplitudes: every combination of the active qubits and of ``b - |active|``
untouched ones (spectators), for one value of the other qubits. The kernels copy a chunk
into an L2-sized buffer, apply all the stage's gates there, and copy it back, so the state
crosses the memory hierarchy once per stage, not once per gate.

In the buffer, the lowest w bits are spectators: runs of 2**w amplitudes that every gate
treats alike, the packed-SIMD kernels' vectors (:mod:`.simd`). The remaining
spectators are the lowest untouched qubits, so a chunk's amplitudes sit in long contiguous
stretches of the state.

Gates are taken into a stage in circuit order; a gate that does not fit (or that touches a
qubit of a gate already left for later) is left for a later stage, and blocks its qubits,
so gates only move past gates on other qubits and the meaning is kept. A gate too wide for
any stage runs on its own, over the whole state (:class:`Wide`), as does a stage's only
gate where it acts on one qubit (the stride kernel's pass needs no copy).
"""

from typing import NamedTuple

import numpy as np

from ..bits import bcomspace
from ..fusion import is_diagonal, is_diagonal_matrix, is_swap, pieces, span, zeros_skipped
from . import simd

#: Columns of an op row before its sorted qubit bits: kind (0 dense, 1 diagonal, or one of
#: simd.DENSE_KINDS: a dense gate whose zeros the kernel skips), target
#: count t, matrix offset, offsets offset, control value bits, count of sorted bits.
OP_HEAD = 6
DENSE, DIAGONAL = 0, 1


class Stage(NamedTuple):
    local: tuple        # physical qubit of each buffer bit
    w: int              # run bits: buffer bits 0..w-1, untouched by every gate
    gates: tuple        # the instructions, in the order they run
    outer: np.ndarray   # chunk-index bit i -> physical bit outer[i]
    tables: tuple       # (rlo, rhi, spec, hshift, tile) of the copy in: see `tables`
    back: tuple         # ... of the copy back: buffer bits relabelled by the stage's SWAPs
    ops: np.ndarray     # one row per gate: OP_HEAD columns, then its sorted run-space bits
    offs: np.ndarray    # per gate, the run offset of each of its 2**t matrix indices
    matrix: np.ndarray  # every gate's matrix (row-major) or diagonal, one after another

    # what the planner and the roofline ask of every step (this one, Wide, and the
    # split layout's): the share of the state it reads and writes, and whether its
    # gates run on chunks that sit in L2
    share = 1.0
    chunked = True


class Wide(NamedTuple):
    gate: object        # an instruction run alone over the whole state: one on more
                        # qubits than a stage holds, or a stage's only, one-qubit gate

    @property
    def gates(self):
        return (self.gate,)

    @property
    def share(self):  # the amplitudes its controls select
        return 1 / (1 << len(self.gate.ctrl_locs))

    chunked = False


def gates_of(steps):
    """Every gate the plan ``steps`` runs, in order."""
    return [g for s in steps for g in s.gates]


def plan(instructions, n, block_qubits, run_bits, fuse=None):
    """The steps (:class:`Stage`, :class:`Wide`) that run ``instructions`` on n qubits in
    chunks of 2**block_qubits amplitudes with runs of up to 2**run_bits. ``fuse`` (a
    function of a list of instructions) rewrites each stage's gates: fusing after the
    cut keeps every fused gate inside one stage's qubits."""
    b = min(block_qubits, n)
    # the runs are as long as the widest gate's targets allow, not its controls: a gate
    # with many controls (MQT's quantum walk has X with 19) would otherwise cut every
    # stage of the circuit to runs of one amplitude; it runs on its own instead, over
    # just the amplitudes its controls select
    widest = max((len(i.locs) for i in instructions if len(span(i)) <= b), default=0)
    w = max(0, min(run_bits, b - widest))
    steps = []
    for taken, active in groups(instructions, b - w):
        if active is None:
            steps.append(Wide(taken[0]))
            continue
        gates, moved = relabel(taken)
        gates = fuse(gates) if fuse else gates
        if len(gates) == 1 and len(gates[0].locs) == 1 and not moved:
            # one one-qubit gate: the stride kernel's one pass in place, where a stage
            # would copy the state out and back around the same pass
            steps.append(Wide(gates[0]))
            continue
        steps.append(stage(gates, n, b, w, active, moved))
    return steps


def groups(instructions, budget, needs=span):
    """``instructions`` cut into groups, in order: (gates, active) where the gates together
    need at most ``budget`` qubits (``needs(gate)``: the qubits a gate needs at hand, all
    it touches by default), or ((gate,), None) for a gate that alone needs more.

    Gates are taken in circuit order; one that does not fit, or touches a qubit of a gate
    already left for later, is left for a later group and blocks every qubit it touches,
    so gates only move past gates on other qubits and the meaning is kept. The cache
    blocking above takes its stages from here, and the distributed backend the stretches
    between its exchanges (kernels.statevector.distributed), with ``needs`` the qubits a
    gate mixes."""
    remaining = list(instructions)
    while remaining:
        if len(needs(remaining[0])) > budget:
            yield (remaining.pop(0),), None
            continue
        taken, left, active, blocked = [], [], set(), set()
        for inst in remaining:
            wanted = set(needs(inst))
            if not (set(span(inst)) & blocked) and len(active | wanted) <= budget:
                taken.append(inst)
                active |= wanted
            else:
                left.append(inst)
                blocked |= set(span(inst))
        yield taken, active
        remaining = left


def relabel(gates):
    """``gates`` without their SWAPs, and where the swaps leave each qubit's amplitudes:
    (gates, {qubit: qubit}). A gate after SWAP(a, b) on a is the same gate on b before
    it, so every swap moves to the end of the stage, where it costs nothing: the chunk
    is copied back with its bits relabelled."""
    where = {}  # a later gate on q acts on where.get(q, q)
    out = []
    for g in gates:
        if is_swap(g):
            a, b = g.locs
            where[a], where[b] = where.get(b, b), where.get(a, a)
            continue
        if where:
            g = g._replace(locs=tuple(where.get(q, q) for q in g.locs),
                           ctrl_locs=tuple(where.get(q, q) for q in g.ctrl_locs))
        out.append(g)
    return out, {v: k for k, v in where.items()}


def stage(gates, n, b, w, active, moved=None):
    spectators = [q for q in range(n) if q not in active][:b - len(active)]
    local = tuple(spectators[:w]) + tuple(sorted(set(spectators[w:]) | active))
    bit = {q: j for j, q in enumerate(local)}
    outer = np.array([q for q in range(n) if q not in bit], dtype=np.int64)
    rows, offs, mats = [], [], []
    # a gate as its pieces where it does not mix a target, each over its share of the
    # runs (fusion.pieces), and each piece as its sectors where it has them
    for inst in (p for g in gates for p in pieces(g)):
        targets = [bit[q] - w for q in inst.locs]
        ctrls = [bit[q] - w for q in inst.ctrl_locs]
        vals = inst.ctrl_vals or (1,) * len(ctrls)
        diagonal = is_diagonal(inst)
        m = np.asarray(inst.matrix, dtype=np.complex128)
        places = bcomspace(b - w, targets)
        shape, parts = (None, None) if diagonal else zeros_skipped(
            m, simd.STRUCTURED_COLUMNS)
        # a gate whose zeros form a pattern a kernel skips: one op of that kind; one
        # whose matrix falls apart into sectors: an op per sector, on its runs
        ops = [(DIAGONAL if diagonal else simd.DENSE_KINDS[shape], m, places)] if (
            parts is None) else [(DIAGONAL if is_diagonal_matrix(sub) else DENSE, sub,
                                  places[at]) for at, sub in parts]
        for kind, m, places in ops:
            row = [kind, len(places).bit_length() - 1,
                   sum(len(x) for x in mats), sum(len(x) for x in offs),
                   sum(v << c for c, v in zip(ctrls, vals)),
                   len(targets) + len(ctrls)] + sorted(targets + ctrls)
            rows.append(row)
            offs.append(places)
            mats.append(np.diagonal(m) if kind == DIAGONAL else m.ravel())
    width = OP_HEAD + max((r[5] for r in rows), default=0)
    ops = np.zeros((len(rows), width), dtype=np.int64)
    for k, r in enumerate(rows):
        ops[k, :len(r)] = r
    back = tuple((moved or {}).get(q, q) for q in local)
    copy_in = tables(local, w)
    return Stage(local, w, tuple(gates), outer, copy_in,
                 copy_in if back == local else tables(back, w), ops,
                 np.concatenate(offs) if offs else np.zeros(0, dtype=np.int64),
                 np.concatenate(mats) if mats else np.zeros(0, dtype=np.complex128))


def tables(local, w):
    """(rlo, rhi, spec, hshift, tile): run rj of the buffer (its bits are buffer bits w and
    up) starts at the chunk's base + rlo[rj & lo] + rhi[rj >> hshift] in the state (two
    half-size tables instead of one per run), and its i-th amplitude is spec[i] further.
    ``tile`` runs are copied at once: 1 where a run is consecutive amplitudes (spec[i] ==
    i), else up to 2**simd.TILE_BITS runs whose starts are consecutive amplitudes (their bits
    are the lowest qubits), so that each lane's amplitudes are read a cache line at a
    time."""
    runs = local[w:]
    h = (len(runs) + 1) // 2
    bits = 0
    if tuple(local[:w]) != tuple(range(w)):
        while bits < min(simd.TILE_BITS, h) and runs[bits] == bits:
            bits += 1
    b = len(local)
    return (bcomspace(b, runs[:h]), bcomspace(b, runs[h:]), bcomspace(b, local[:w]), h,
            1 << bits)
