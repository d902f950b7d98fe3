"""The fused backend's split layout: the state held split across the whole circuit, its
stages applied in place, with no copies.

The interleaved state is rewritten once, in place, as blocks of R amplitudes (R = a vector
register's floats, :data:`simd.BLOCK_RUNS`): R real parts then R imaginary parts, the
layout qsim holds a state in. So the lowest w = log2(R) qubits are lanes of one register,
and every other qubit (a high qubit) picks a block. At the end it is rewritten back; both
rewrites are one pass over the state each, counted in the program's passes and roofline.

A stage's chunk (2**b amplitudes, half of L2) holds the lane qubits, the high qubits
that pick a block's L2 set (:func:`set_qubits`), and as many more as it has room for; a
stage is a run of gates on those. For each chunk (one value of the qubits outside it)
every gate of the stage is applied to the chunk's blocks in place, so the state crosses
the memory hierarchy once per stage and is never copied. A
gate on high qubits only multiplies whole blocks by broadcast matrix entries (the staged
kernels of :mod:`.simd`, which take run indices), or, where its matrix only moves
amplitudes (:func:`is_permutation`), exchanges whole blocks along the permutation's
cycles with no arithmetic (MOVE); one that touches a lane qubit (a target
or a control below w) is a LANE gate: its inputs permuted within the register by each
pattern of its lane targets, times per-lane matrix vectors (:func:`lane_matrix`). A gate
with more qubits above those than a chunk holds runs alone over the whole state.

Block j's real parts start at float 2 * j * R; the kernels take run indices u with the
float index u * R, so every block index here is doubled (u = 2 j: high qubit q is bit
q - w + 1 of u), and the imaginary parts are the same floats from R on.
"""

from typing import NamedTuple

import numpy as np

from .. import lanes, machine
from ..bits import bcomspace
from ..codegen import sources
from ..fusion import is_diagonal, is_diagonal_matrix, mixed, pieces, span, zeros_skipped
from . import simd, stages

#: Columns of an op row: kind, K (the runs of a group; a MOVE's cycles), matrix offset
#: (floats), offsets offset, control bits (the run index's fixed bits, with the chunk's),
#: the carry mask (the run index bits the group loop does not visit), groups, and a lane
#: gate's targets inside the run (a lane mask).
OP_COLUMNS = 8
DENSE, DIAGONAL, DIAGONAL_LANES, LANE, MOVE = 0, 1, 2, 3, 4


class Step(NamedTuple):
    gates: tuple        # the instructions, in the order they run
    outer: np.ndarray   # chunk-index bit i -> run-index bit outer[i]
    ops: np.ndarray     # one row per gate, OP_COLUMNS wide
    offs: np.ndarray    # per gate, the run offset of each of its K runs
    matrix: np.ndarray  # complex entries: broadcast ones, then R per lane vector
    share: float        # the share of the state the step touches: 1 for a stage,
                        # 2**-c for a gate alone with c high controls
    chunked: bool       # a stage, its chunks in L2 (not a gate alone)


class Rewrite(NamedTuple):
    """The state rewritten, in place, into the split layout (``split``) or back: one
    pass over it, and no gate."""
    split: bool
    gates = ()
    share = 1.0
    chunked = False


def run_bit(q, w):
    """The run-index bit of high qubit q (the doubled block index, module doc)."""
    return q - w + 1


def set_qubits(n, w, itemsize):
    """How many of the lowest high qubits pick L2's set: the blocks one way of L2 holds
    (:func:`machine.way_bytes`). A chunk that fixes one of them (an outer qubit among
    them) falls in half of L2's sets, and would be evicted by itself before its stage is
    done (QV-like layers at n = 20 in complex64 took 2.1x as long with three of them
    outer as with none): so they are always in the chunk."""
    block = (1 << w) * itemsize
    return max(0, min(n - w, (machine.way_bytes(2) // block).bit_length() - 1))


def plan(instructions, n, block_qubits, w, fuse=None, itemsize=8):
    """The steps that run ``instructions`` on an n-qubit state in the split layout with
    2**w lanes and chunks of 2**block_qubits amplitudes of ``itemsize`` bytes, the
    rewrites into it and back first and last. A chunk holds the lane qubits, the
    :func:`set_qubits` above them, and as many more as the chunk size leaves room for:
    a stage takes gates on those (in circuit order, as :func:`stages.groups` does).
    ``fuse`` rewrites each stage's gates, as in :func:`stages.plan`."""
    b = max(min(block_qubits, n), w)
    low = w + set_qubits(n, w, itemsize)  # every qubit below is in every chunk
    high = list(range(low, n))
    budget = max(0, b - low)

    def needs(inst):
        return [q for q in span(inst) if q >= low]

    steps = []
    for taken, active in stages.groups(instructions, budget, needs):
        gates = list(taken)
        if active is None:  # more high qubits than a chunk holds: the whole state
            local = range(w, n)
            share = 1 / (1 << sum(q >= w for q in gates[0].ctrl_locs))
        else:
            gates = fuse(gates) if fuse else gates
            spare = [q for q in high if q not in active][:budget - len(active)]
            local, share = sorted(set(range(w, low)) | set(active) | set(spare)), 1.0
        steps.append(step(gates, n, w, local, share, active is not None))
    return [Rewrite(True), *steps, Rewrite(False)]


def step(gates, n, w, local, share=1.0, chunked=True):
    """The step applying ``gates`` to chunks whose high qubits other than ``local`` are
    fixed."""
    outer = np.array([run_bit(q, w) for q in range(w, n) if q not in local], dtype=np.int64)
    chunk = sum(1 << run_bit(q, w) for q in local)
    rows, offs, mats = [], [], []
    used = 0  # floats of the matrix so far
    # a gate as its pieces where it does not mix a target above the lanes (each piece
    # over its share of the runs); one it does not mix among the lanes keeps it, its
    # patterns left out of the lane kernel (lane_mask below); a gate on high qubits
    # whose matrix falls apart into sectors as one op per sector
    for inst in (p for g in gates for p in pieces(g, keep=range(w))):
        # plain ints: the bit arithmetic below (and the lane masks' bit_length) is on
        # Python ints, whatever integers a caller's locs hold
        inst = inst._replace(locs=tuple(int(q) for q in inst.locs),
                             ctrl_locs=tuple(int(q) for q in inst.ctrl_locs),
                             ctrl_vals=tuple(int(v) for v in (
                                 () if inst.ctrl_vals is None else inst.ctrl_vals)))
        hi_t = [q for q in inst.locs if q >= w]
        hi_c = [(q, v) for q, v in zip(inst.ctrl_locs, inst.ctrl_vals or
                                       (1,) * len(inst.ctrl_locs)) if q >= w]
        touched = sum(1 << run_bit(q, w) for q in hi_t + [q for q, _ in hi_c])
        free = chunk & ~touched
        ctrl = sum(v << run_bit(q, w) for q, v in hi_c)
        diagonal = is_diagonal(inst)
        in_lanes = len(hi_t) < len(inst.locs) or len(hi_c) < len(inst.ctrl_locs)
        m = np.asarray(inst.matrix, dtype=np.complex128)
        mixes = mixed(m)
        lane_mask = sum(1 << q for j, q in enumerate(inst.locs) if q < w and j in mixes)
        k = 1 << len(hi_t)
        places = bcomspace(0, [run_bit(q, w) for q in hi_t])
        parts = None  # the ops of a gate on high qubits that runs as its sectors
        if not in_lanes and not diagonal and is_permutation(m):
            # moves, no arithmetic: K is the count of cycles, offs their table
            kind, entries = MOVE, np.zeros(0, np.complex128)
            bounds, order = move_cycles(m)
            k, places = len(bounds) - 1, np.concatenate([bounds, places[order]])
        elif not in_lanes:
            entries = np.diagonal(m) if diagonal else m.ravel()
            shape, parts = (None, None) if diagonal else zeros_skipped(
                m, simd.STRUCTURED_COLUMNS)
            kind = DIAGONAL if diagonal else simd.DENSE_KINDS[shape]
        else:
            kind = DIAGONAL_LANES if diagonal else LANE
            entries = lane_matrix(inst, w, diagonal, lane_mask)
            kept = (lanes.by_parity(entries, lane_mask) if not diagonal and lane_mask and
                    simd.lane_in_registers(k, 1 << bin(lane_mask).count("1")) else None)
            if kept is not None:  # half the terms (simd.LANE[R, L | R])
                entries, lane_mask = kept, lane_mask | 1 << w
            entries = entries.ravel()
        # a gate's sectors: each a gate on some of its runs (fusion.sectors)
        ops = [(kind, k, entries, places)] if parts is None else [
            (DIAGONAL, len(at), np.diagonal(sub), places[at]) if is_diagonal_matrix(sub)
            else (DENSE, len(at), sub.ravel(), places[at]) for at, sub in parts]
        for kind, k, entries, places in ops:
            if kind in (LANE, DIAGONAL_LANES) and used % (1 << w):
                # per-lane entries are loaded as whole vectors: each starts on one (the
                # program holds the matrix on a cache line, program.entries)
                mats.append(np.zeros(-used % (1 << w), np.complex128))
                used += len(mats[-1])
            rows.append([kind, k, used, sum(len(x) for x in offs), ctrl, ~free,
                         1 << bin(free).count("1"), lane_mask])
            offs.append(places)
            mats.append(entries)
            used += len(entries)
    return Step(tuple(gates), outer, np.array(rows, dtype=np.int64).reshape(-1, OP_COLUMNS),
                _joined(offs),
                np.concatenate(mats) if mats else np.zeros(0, np.complex128), share, chunked)


def is_permutation(m):
    """Whether the matrix ``m`` only moves amplitudes: one entry a row and a column, each
    exactly 1 (X, CNOT, SWAP, Toffoli, and any product of them)."""
    m = np.asarray(m)
    ones = m == 1
    return bool(np.all((m == 0) | ones) and np.all(ones.sum(axis=0) == 1)
                and np.all(ones.sum(axis=1) == 1))


def move_cycles(m):
    """(bounds, order) of the permutation matrix ``m``: the indices it moves, as cycles
    d_0 ... d_{L-1} in which row d_i takes column d_(i+1) (d_(L-1) takes d_0), one after
    another in ``order``; cycle c is order[bounds[c]:bounds[c + 1]]. Fixed points are in
    no cycle."""
    source = np.argmax(np.asarray(m) == 1, axis=1)  # row o takes column source[o]
    seen, bounds, order = set(), [0], []
    for start in range(len(source)):
        if start in seen or source[start] == start:
            continue
        j = start
        while j not in seen:
            seen.add(j)
            order.append(j)
            j = int(source[j])
        bounds.append(len(order))
    return np.array(bounds, dtype=np.int64), np.array(order, dtype=np.int64)


def _joined(parts):
    return np.concatenate(parts) if parts else np.zeros(0, dtype=np.int64)


def lane_matrix(inst, w, diagonal, mask=None):
    """The per-lane entries of a gate that touches lane qubits (below w): for its K =
    2**h runs (h high targets) and each lane l < R = 2**w, the matrix entries that lane
    needs, as vectors over the lanes.

    Dense: entries[o, i * P + j, l] = U[row(o, l), col(i, l ^ p_j)], the P = 2**t
    patterns p_j the subsets of its t lane targets' bits (:func:`lanes.patterns`):
    lane l of output run o is the sum of these times lane l ^ p_j of input run i.
    Diagonal: entries[c, l] = U[row(c, l), row(c, l)]. A lane whose lane controls are
    not met gets the identity's entries (1 for o = i and p = 0, else 0). ``mask``: the
    lane targets whose patterns are taken (:func:`lanes.dense`; default all)."""
    vals = inst.ctrl_vals or (1,) * len(inst.ctrl_locs)
    if diagonal:
        return lanes.diagonal(inst.matrix, inst.locs, inst.ctrl_locs, vals, w)
    return lanes.dense(inst.matrix, inst.locs, inst.ctrl_locs, vals, w, mask)


_TEMPLATE = """
def {NAME}(re, im, outer, ops, offs, m_re, m_im, s_re, s_im):
    n_workers = s_re.shape[0]
""" + sources.worker_chunks(("sre", "s_re"), ("sim", "s_im")) + """\
            for o in range(ops.shape[0]):
                kind = ops[o, 0]
                K = ops[o, 1]
                m0 = ops[o, 2]
                oo = ops[o, 3]
                ctrl = ops[o, 4] | base
                mask = ops[o, 5]
                groups = ops[o, 6]
                lanes = ops[o, 7]
{DENSE}
                elif kind == 1:
                    DIAGONAL(re, im, offs, oo, K, mask, ctrl, groups, m_re, m_im, m0)
                elif kind == 2:
                    DIAGONAL_LANES(re, im, offs, oo, K, mask, ctrl, groups, m_re, m_im, m0)
                elif kind == 4:
                    MOVE(re, im, offs, oo, K, mask, ctrl, groups)
{LANES}
"""

_CONVERT = """
def {NAME}(flat, blocks, split):
    for j in prange(blocks):
        if split:
            SPLIT(flat, j)
        else:
            JOIN(flat, j)
"""


def _lane_dispatch(lanes):
    """The branch per lane mask: each LANE kernel's shuffles are constants."""
    lines, codes = [], [c for r, c in simd.LANE if r == lanes]
    for m in codes:
        lines.append(f"{'else' if m == codes[-1] else f'elif lanes == {m}'}:")
        lines.append(f"    LANE_{m}(re, im, offs, oo, K, mask, ctrl, groups, m_re, m_im, m0, "
                     "sre, sim)")
    return sources.indent(lines, 4)


def _source():
    out = [sources.HEADER, "from kernels.statevector.fused import simd  "
           f"# digest {simd.source_digest()}\n"]
    for r in simd.BLOCK_RUNS:
        names = {"DIAGONAL_LANES": f"simd.DIAGONAL_LANES[{r}]",
                 "DIAGONAL": f"simd.DIAGONAL[{r}]", "MOVE": f"simd.MOVE[{r}]",
                 "SPLIT": f"simd.SPLIT[{r}]",
                 "JOIN": f"simd.JOIN[{r}]"}
        names.update({f"LANE_{c}": f"simd.LANE[{r}, {c}]" for rr, c in simd.LANE if rr == r})
        names.update(simd.dense_names(r))
        stage, convert = _TEMPLATE.replace("{DENSE}", sources.indent(
            simd.dense_dispatch("re", "im"), 4)), _CONVERT
        stage = stage.replace("{LANES}", _lane_dispatch(r))
        for name in sorted(names, key=len, reverse=True):  # DIAGONAL_LANES before DIAGONAL
            alias = f"{name.lower()}_{r}"
            out.append(f"{alias} = {names[name]}\n")
            stage = stage.replace(f"{name}(", f"{alias}(")
            convert = convert.replace(f"{name}(", f"{alias}(")
        out.append(sources.serial_and_parallel(f"stage_{r}", stage))
        out.append(sources.serial_and_parallel(f"convert_{r}", convert))
    return "".join(out)


_generated = sources.load_module("fused_split", _source())


def loops(kind, lanes):
    """(serial, parallel): the generated loops ``kind`` ("stage": a step's stage loop,
    "convert": the rewrite between the interleaved and the split layout) for runs of
    ``lanes``."""
    return tuple(getattr(_generated, f"{kind}_{lanes}_{how}") for how in ("serial", "parallel"))
