"""qibojit (qibo's numba backend) behind the kernels' gate instructions.

The state is a numpy array run on by a qibojit ``NumbaBackend`` of its own (not qibo's
global backend): a gate is ``backend.apply_gate(gate, state, n)``, a circuit a qibo
``Circuit`` run by ``backend.execute_circuit(circuit, initial_state=state)``. Both update
the array in place in qibo 0.3.6 (execute_circuit casts the initial state with its own
dtype, which is no copy, then calls apply_gate per gate): ``Circuit.execute`` would go
through the global backend and transpiler instead. Measured: execute_circuit costs the
same as calling apply_gate per gate for a circuit, a few us more for one gate.

qibo is big-endian (qubit 0 is the most significant bit): our qubit q is qibo's n-1-q,
and a k-qubit ``Unitary`` (qibo's first qubit is its matrix's most significant bit) acts
on ``locs`` reversed. RX, RY, RZ, U1 are our Rx, Ry, Rz, phase. qibo's gates take controls
valued 1 only; a control on |0> is X before and after, inside the program.

Versions: the pinned qibojit 0.1.4 accepts numba 0.68, the numba our kernels run on
(qibojit 0.1.17, the one made for qibo 0.3.6, requires numba < 0.62), so two mismatches
with qibo 0.3.6 are worked around: its ``set_precision`` reads an attribute qibo no
longer has (set_dtype is used, and qibojit's own gate matrices are rebuilt in the
precision), and its constructor sets numba's thread count to every core of the process
(and fails where NUMBA_NUM_THREADS is smaller): the backend here leaves numba's count as
it is. Importing qibo leaves numba's configuration (NUMBA_NUM_THREADS, threading layer)
as it was (checked); joblib, which qibo imports, sets KMP_INIT_AT_FORK=FALSE in the
environment. qibo logs one INFO line only when its global backend is made, which this
adapter never asks for.
"""

import numpy as np

from .._guard import guarded_import
from . import _base

NAME = "qibojit"
PRECISIONS = ("complex128", "complex64")
PACKAGE = "qibojit"
FUSION_DEFAULT = 0
PRECISION = PRECISIONS[0]
SETTINGS = {"threads": "1 (numba's count, which qibojit's prange loops use; see "
                       "set_threads)",
            "api": "a qibojit NumbaBackend per precision: apply_gate for a gate, "
                   "execute_circuit(Circuit, initial_state) for a circuit, in place",
            "gates": "X, Y, Z, H, S, T, RX, RY, RZ, U1, SWAP; controlled_by (CNOT, CZ, CU1, "
                     "TOFFOLI, ...); Unitary otherwise; controls on |0> wrapped in X",
            "fusion": "none (qibo's default); fusion k: Circuit.fuse(max_qubits=k), once "
                      "when the circuit is built"}

qibojit, AVAILABLE, REASON = guarded_import("qibojit", "backends")
_backends = {}


_require, version, sync = _base.basics(NAME, qibojit, AVAILABLE, REASON)


def _backend(precision):
    """The backend of one precision (``set_dtype`` is per backend object), made once."""
    backend = _backends.get(precision)
    if backend is None:
        backend = _new_backend()
        backend.set_dtype(precision)
        # set_dtype leaves qibojit's own gate matrices (custom_matrices) in complex128,
        # which its numba kernels then refuse next to a complex64 state
        backend.custom_matrices = type(backend.custom_matrices)(precision)
        _backends[precision] = backend
    return backend


def _new_backend():
    """A qibojit NumbaBackend whose constructor leaves numba's thread count alone."""
    import numba

    class NumbaBackend(qibojit.backends.NumbaBackend):
        made = False

        def set_threads(self, nthreads):
            if self.made:
                super().set_threads(nthreads)
            else:  # the constructor's call, with every core of the process
                self.nthreads = numba.get_num_threads()

    backend = NumbaBackend()
    backend.made = True
    return backend


def threads():
    """numba's thread count in this thread: the one qibojit's kernels run with."""
    _require()
    import numba
    return numba.get_num_threads()


def set_threads(n):
    """numba's thread count (qibojit's loops are numba prange loops; our own kernels
    share numba's pool, so this sets theirs too)."""
    _require()
    n = int(n)
    if n < 1:
        raise ValueError(f"n must be at least 1 thread, got {n}")
    for precision in PRECISIONS:
        _backend(precision).set_threads(n)


class _State:
    def __init__(self, vec, precision):
        self.vec, self.precision = vec, precision
        self.n = vec.shape[0].bit_length() - 1


def from_numpy(vec):
    _require()
    precision = _base.precision_of(vec, NAME, PRECISIONS)
    return _State(np.array(vec, dtype=_base.DTYPES[precision]), precision)


def to_numpy(state):
    _require()
    return state.vec.copy()


def _gates(instruction, n):
    from qibo import gates as G
    name, locs, ctrls, vals, params = _base.parts(instruction)
    q = [n - 1 - k for k in range(n)]  # q[k]: qibo's number for our qubit k
    fixed = {"X": G.X, "Y": G.Y, "Z": G.Z, "H": G.H, "S": G.S, "T": G.T}
    rotations = {"Rx": G.RX, "Ry": G.RY, "Rz": G.RZ, "phase": G.U1}
    if len(locs) == 1 and name in fixed:
        base = fixed[name](q[locs[0]])
    elif len(locs) == 1 and name in rotations and len(params) == 1:
        base = rotations[name](q[locs[0]], float(params[0]))
    elif name == "SWAP" and len(locs) == 2:
        base = G.SWAP(q[locs[0]], q[locs[1]])
    else:
        base = G.Unitary(np.asarray(instruction.matrix, dtype=np.complex128),
                         *[q[k] for k in reversed(locs)])
    if ctrls:
        base = base.controlled_by(*[q[k] for k in ctrls])
    flips = [G.X(q[k]) for k, v in zip(ctrls, vals) if v == 0]
    return [*flips, base, *flips]


def _build_gates(instructions, n):
    return [g for inst in instructions for g in _gates(inst, n)]


def _build_circuit(instructions, n):
    from qibo import Circuit
    out = Circuit(n)
    out.add(_build_gates(instructions, n))
    return out


#: Circuit.fuse(max_qubits=k) settings; 0: not fused (qibo's default)
FUSION = (0, 1, 2, 3, 4, 5)


def _fused(k):
    """The build of a circuit fused by qibo's ``Circuit.fuse(max_qubits=k)``, once, when it
    is built (outside the timed run); k = 0: qibo's default, not fused."""
    if not k:
        return _build_circuit

    def build(instructions, n):
        return _build_circuit(instructions, n).fuse(max_qubits=k)
    return build


def run(state, program):
    """The program on ``state`` in place: the timed call."""
    if type(state) is not _State:
        raise _base.not_a_state(NAME, state)
    n = state.n
    built = _base.built(program, NAME, n)
    backend = _backend(state.precision)
    try:
        if isinstance(built, list):
            vec = state.vec
            for g in built:
                vec = backend.apply_gate(g, vec, n)
            state.vec = vec
        else:
            state.vec = backend.execute_circuit(built, initial_state=state.vec).state()
    except Exception as exc:
        raise _base.tool_failed(NAME, exc) from exc
    return state


# a gate: its qibo gates (X around it for controls on |0>); a circuit: a qibo Circuit;
# both per state size (qibo is big-endian)
gate, circuit, apply = _base.programs(__name__, _require, _build_circuit, per_size=True,
                                      fusion=FUSION, fused=_fused, gate_build=_build_gates)
