"""The fast reference: whole circuits in cache-sized windows, written plainly in numba and
sharing no code with the backends it validates (no templates, no SIMD intrinsics, no
fusion planner, no stage tables), so that a wrong result of theirs cannot be its own.

A circuit is cut into windows of gates whose target qubits together span at most
:data:`WINDOW_QUBITS` (a gate may move ahead of gates on other qubits, never past one it
shares a qubit with, targets or controls). For each window the state is walked chunk by
chunk: a chunk is the 2**w amplitudes that differ only in the window's qubits (padded with
the lowest other qubits, so that a chunk holds whole cache lines); they are gathered into
a buffer that stays in L1/L2, every gate of the window is applied to the buffer as a dense
matrix-vector product over its subspaces (controls read from each amplitude's whole
index, so they may lie outside the window), and the buffer is written back. Chunks are
independent and run in parallel on numba's threads. The state crosses memory once per
window instead of once per gate, which is what makes it fast enough to check a 24-qubit,
3,000-gate circuit in seconds per pass; the tests hold it to ``naive`` and ``subspace``.
"""

import numpy as np
from numba import njit, prange

from .._validate import check_gate, check_gate_on
from ..backend import Backend
from ..runner import KernelRunner, kernel_runner

#: The most target qubits one window spans: a chunk of 2**12 complex128 amplitudes is
#: 64 KiB, inside any L2.
WINDOW_QUBITS = 12


def _deposit_table(qubits):
    """offsets[j]: the state index whose bits at ``qubits`` (ascending significance of
    ``j``) are j's bits, all others zero."""
    j = np.arange(1 << len(qubits), dtype=np.int64)
    out = np.zeros_like(j)
    for bit, q in enumerate(qubits):
        out |= ((j >> bit) & 1) << q
    return out


@njit(cache=True, nogil=True)
def _base(chunk, others):
    """The state index of chunk number ``chunk``: its bits at the qubits ``others``."""
    base = 0
    for bit in range(others.size):
        base |= ((chunk >> bit) & 1) << others[bit]
    return base


#: How a gate's matrix is applied in the buffer: every entry (dense), its diagonal only,
#: or one entry per row (a permutation with phases: X, CNOT, SWAP move amplitudes).
DENSE, DIAGONAL, MONOMIAL = 0, 1, 2


@njit(cache=True, nogil=True)
def _first(group, positions):
    """The buffer index of group number ``group``: zeros inserted at the target
    ``positions`` (ascending)."""
    i = group
    for p in positions:
        i = ((i >> p) << (p + 1)) | (i & ((1 << p) - 1))
    return i


@njit(cache=True, nogil=True)
def _one_qubit(buf, stride, m, kind, bmask, bval):
    """A 2x2 ``m`` (row after row) on buffer bit log2(``stride``), where the buffer
    index's control bits ``bmask`` equal ``bval``."""
    m00, m01, m10, m11 = m[0], m[1], m[2], m[3]
    for hi in range(0, buf.size, 2 * stride):
        for i0 in range(hi, hi + stride):
            if (i0 & bmask) != bval:
                continue
            i1 = i0 + stride
            a0, a1 = buf[i0], buf[i1]
            if kind == DIAGONAL:
                buf[i0], buf[i1] = m00 * a0, m11 * a1
            elif kind == MONOMIAL:  # an anti-diagonal: X-like
                buf[i0], buf[i1] = m01 * a1, m10 * a0
            else:
                buf[i0], buf[i1] = m00 * a0 + m01 * a1, m10 * a0 + m11 * a1


@njit(cache=True, nogil=True)
def _many_qubits(buf, positions, offsets, m, columns, kind, bmask, bval, work):
    """A 2**k x 2**k ``m`` (row after row): a group is the amplitudes at ``first +
    offsets[r]`` (``positions``: the targets' buffer bits, ascending), updated where the
    first one's buffer index has its control bits ``bmask`` equal to ``bval``.
    ``columns[r]``: the one nonzero column of row r of a monomial matrix."""
    dim = offsets.size
    for group in range(buf.size // dim):
        i = _first(group, positions)
        if (i & bmask) != bval:
            continue
        if kind == DIAGONAL:
            for r in range(dim):
                buf[i + offsets[r]] *= m[r * dim + r]
            continue
        for r in range(dim):
            work[r] = buf[i + offsets[r]]
        if kind == MONOMIAL:
            for r in range(dim):
                buf[i + offsets[r]] = m[r * dim + columns[r]] * work[columns[r]]
            continue
        for r in range(dim):
            acc = m[r * dim] * work[0]
            for c in range(1, dim):
                acc += m[r * dim + c] * work[c]
            buf[i + offsets[r]] = acc


@njit(cache=True, nogil=True, parallel=True)
def _window(state, others, local, positions, offsets, matrix, columns, meta, dim_max):
    """Every chunk of the state through the window's gates. Gate g's rows are
    ``meta[g, 0]`` to ``meta[g, 0] + meta[g, 1]`` of ``offsets`` and ``columns``, its
    targets' buffer bits ``positions[meta[g, 2]:meta[g, 2] + k]``, its kind, its controls
    inside the window (buffer bits and values) and outside it (state bits and values,
    the same for a whole chunk), its entries ``matrix[meta[g, 9]:]`` row after row."""
    n_chunks = 1 << others.size
    size = local.size
    for chunk in prange(n_chunks):
        base = _base(chunk, others)
        buf = np.empty(size, dtype=state.dtype)
        work = np.empty(dim_max, dtype=state.dtype)
        for j in range(size):
            buf[j] = state[base + local[j]]
        for g in range(meta.shape[0]):
            start, dim, pstart, k, kind, bmask, bval, smask, sval, mstart = meta[g]
            if (base & smask) != sval:
                continue  # a control outside the window is off for this whole chunk
            m = matrix[mstart:mstart + dim * dim]
            if k == 1:
                _one_qubit(buf, 1 << positions[pstart], m, kind, bmask, bval)
            else:
                _many_qubits(buf, positions[pstart:pstart + k], offsets[start:start + dim],
                             m, columns[start:start + dim], kind, bmask, bval, work)
        for j in range(size):
            state[base + local[j]] = buf[j]


def _kind(matrix):
    """DIAGONAL, MONOMIAL (with each row's nonzero column) or DENSE, from the entries."""
    nonzero = matrix != 0
    per_row = nonzero.sum(axis=1)
    if np.all(per_row <= 1) and np.all(nonzero.sum(axis=0) <= 1):
        columns = np.argmax(nonzero, axis=1)
        if np.array_equal(columns, np.arange(len(columns))):
            return DIAGONAL, columns
        return MONOMIAL, columns
    return DENSE, np.zeros(matrix.shape[0], dtype=np.int64)


def _merged(gates):
    """The window's gates with each run of uncontrolled one-qubit gates on one qubit
    multiplied into one (H Rz H is one 2x2), and nothing else changed."""
    out = []
    for g in gates:
        last = out[-1] if out else None
        if (last is not None and len(g.locs) == 1 and not g.ctrl_locs
                and last.locs == g.locs and not last.ctrl_locs):
            out[-1] = last._replace(matrix=g.matrix @ last.matrix)
        else:
            out.append(g)
    return out


def _windows(gates, width):
    """[(target qubits, [gate])]: the gates in windows whose targets span at most
    ``width`` qubits, each gate after every gate it shares a qubit with."""
    remaining, out = list(gates), []
    while remaining:
        span, taken, rest, blocked = set(), [], [], set()
        for g in remaining:
            qubits = set(g.locs) | set(g.ctrl_locs)
            if not taken and not blocked and len(g.locs) > width:
                out.append((set(g.locs), [g]))  # wider than any window: a window alone
                blocked |= qubits
                continue
            if qubits & blocked or len(span | set(g.locs)) > width:
                rest.append(g)
                blocked |= qubits  # nothing on these qubits may pass it
            else:
                span |= set(g.locs)
                taken.append(g)
        if taken:
            out.append((span, taken))
        remaining = rest
    return out


def _run_window(state, n, span, gates):
    width = min(n, max(len(span), WINDOW_QUBITS))
    # the window's qubits, padded with the lowest others: whole cache lines per chunk
    window = sorted(span)
    window += [q for q in range(n) if q not in span][:width - len(window)]
    window.sort()
    position = {q: i for i, q in enumerate(window)}
    others = np.array([q for q in range(n) if q not in position], dtype=np.int64)
    local = _deposit_table(window)
    gates = _merged(gates)
    dims = [1 << len(g.locs) for g in gates]
    dim_max, rows = max(dims), sum(dims)
    offsets = np.zeros(rows, dtype=np.int64)
    columns = np.zeros(rows, dtype=np.int64)
    matrix = np.zeros(sum(d * d for d in dims), dtype=state.dtype)
    positions = np.zeros(sum(len(g.locs) for g in gates), dtype=np.int64)
    meta = np.zeros((len(gates), 10), dtype=np.int64)
    start = pstart = mstart = 0
    for index, (g, dim) in enumerate(zip(gates, dims)):
        targets = [position[q] for q in g.locs]
        offsets[start:start + dim] = _deposit_table(targets)
        matrix[mstart:mstart + dim * dim] = np.asarray(g.matrix).reshape(-1)
        kind, columns[start:start + dim] = _kind(np.asarray(g.matrix))
        positions[pstart:pstart + len(targets)] = sorted(targets)
        inside = [(position[q], v) for q, v in zip(g.ctrl_locs, g.ctrl_vals) if q in position]
        outside = [(q, v) for q, v in zip(g.ctrl_locs, g.ctrl_vals) if q not in position]
        meta[index] = (start, dim, pstart, len(targets), kind,
                       sum(1 << b for b, _ in inside), sum(v << b for b, v in inside),
                       sum(1 << q for q, _ in outside), sum(v << q for q, v in outside),
                       mstart)
        start, pstart, mstart = start + dim, pstart + len(targets), mstart + dim * dim
    _window(state, others, local, positions, offsets, matrix, columns, meta, dim_max)


def run(state, gates):
    """Apply checked gates (kernels.statevector._validate.Gate) to ``state`` in place."""
    n = state.shape[0].bit_length() - 1
    for span, window in _windows(gates, min(n, WINDOW_QUBITS)):
        _run_window(state, n, span, window)
    return state


def _require(state):
    if not isinstance(state, np.ndarray) or state.dtype not in (np.complex128, np.complex64):
        raise NotImplementedError(f"blocked runs complex128 and complex64 numpy states, not "
                                  f"{getattr(state, 'dtype', type(state).__name__)}")


def apply(state, matrix, locs, ctrl_locs=(), ctrl_vals=None):
    g = check_gate(state, matrix, locs, ctrl_locs, ctrl_vals)
    _require(state)
    return run(state, [g])


class BlockedRunner(KernelRunner):
    """The reference as a backend: a circuit's gates checked once, then run in windows."""

    def program(self, instructions, n):
        gates = [check_gate_on(n, i.matrix, i.locs, i.ctrl_locs, i.ctrl_vals or None,
                               self.dtype) for i in instructions]

        def circuit(state):
            _require(state)
            if state.shape != (1 << n,):
                raise ValueError(f"state must have {1 << n} amplitudes, got {state.shape}")
            return run(state, gates)
        return circuit


BACKEND = Backend(
    name="blocked", role="reference", precisions=("complex128", "complex64"),
    runner=kernel_runner(__name__, BlockedRunner), threads="numba",
    # an oracle computes what IEEE arithmetic gives: harness circuit counts its subnormals
    flushes_subnormals="no",
    describe={"driven": "kernels.statevector.reference.blocked.run: windows of gates on "
                        f"at most {WINDOW_QUBITS} target qubits, chunk by chunk"})
