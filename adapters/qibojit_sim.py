"""qibojit (qibo's numba backend) behind the kernels' gate instructions.

The state is a numpy array; a gate is ``NumbaBackend.apply_gate(gate, state, n)`` on it,
the call ``Circuit.execute`` makes for each gate, without building a new initial state
and result object per run. qibojit updates the array in place and returns it. One
backend object per precision (``set_precision`` is per backend object, so the two never
share a dtype); qibo gates are built once.

qibo is big-endian (qubit 0 is the most significant bit): our qubit q is qibo's n-1-q,
and a k-qubit ``Unitary`` (qibo's first qubit is its matrix's most significant bit) acts
on ``locs`` reversed. qibo's gates take controls valued 1 only; a control on |0> is X
before and after, inside the program. qibojit 0.1.4 runs on numba 0.68, the version our
own kernels are measured with; importing qibo leaves numba's thread count and threading
layer as they were (checked on 0.3.6).
"""

import numpy as np

from . import _simulator
from ._guard import guarded_import

NAME = "qibojit"
PRECISIONS = ("complex128", "complex64")
PRECISION = PRECISIONS[0]
SETTINGS = {"threads": "1 (numba's pool, see set_threads)",
            "api": "qibojit NumbaBackend.apply_gate per gate on a numpy state, in place",
            "gates": "X, Y, Z, H, S, T, RX, RY, RZ, U1, CNOT, CZ, CU1, TOFFOLI, SWAP, "
                     "Unitary; controlled_by, controls on |0> wrapped in X"}

qibojit, AVAILABLE, REASON = guarded_import("qibojit", "backends")
_backends = {}


_require, version, sync = _simulator.basics(NAME, qibojit, AVAILABLE, REASON)


def _backend(precision):
    backend = _backends.get(precision)
    if backend is None:
        import numba
        threads = numba.get_num_threads()
        backend = qibojit.backends.NumbaBackend()
        # the constructor sets numba's thread count to every core of the process: back to
        # what it was (the suites' one thread)
        backend.set_threads(threads)
        backend.set_dtype(_simulator.DTYPES[precision].type)
        # qibojit 0.1.4's set_precision reads an attribute qibo 0.3.6 no longer has, and
        # set_dtype leaves qibojit's own gate matrices in complex128 (its numba kernels
        # then refuse a complex64 state): they are rebuilt in the state's precision
        backend.custom_matrices = type(backend.custom_matrices)(precision)
        _backends[precision] = backend
    return backend


def threads():
    _require()
    return _backend(PRECISION).nthreads


def set_threads(n):
    """numba's thread count (qibojit's loops are numba prange loops)."""
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
    precision = _simulator.precision_of(vec, NAME, PRECISIONS)
    return _State(np.array(vec, dtype=_simulator.DTYPES[precision]), precision)


def to_numpy(state):
    _require()
    return state.vec.copy()


def _gates(instruction, n):
    from qibo import gates as G
    name, locs, ctrls, vals, params = _simulator.parts(instruction)
    q = [n - 1 - k for k in range(n)]  # q[k]: qibo's number for our qubit k
    fixed = {"X": G.X, "Y": G.Y, "Z": G.Z, "H": G.H, "S": G.S, "T": G.T}
    rotations = {"Rx": G.RX, "Ry": G.RY, "Rz": G.RZ, "phase": G.U1}
    if len(locs) == 1 and name in fixed:
        base = fixed[name](q[locs[0]])
    elif len(locs) == 1 and name in rotations and len(params) == 1:
        base = rotations[name](q[locs[0]], params[0])
    elif name == "SWAP" and len(locs) == 2:
        base = G.SWAP(q[locs[0]], q[locs[1]])
    else:
        base = G.Unitary(np.asarray(instruction.matrix, dtype=np.complex128),
                         *[q[k] for k in reversed(locs)])
    if ctrls:
        base = base.controlled_by(*[q[k] for k in ctrls])
    flips = [G.X(q[k]) for k, v in zip(ctrls, vals) if v == 0]
    return [*flips, base, *flips]


def _build(instructions, n):
    return [g for inst in instructions for g in _gates(inst, n)]


def gate(instruction):
    _require()
    return _simulator.Program(_build, [instruction])


def circuit(instructions, n):
    _require()
    return _simulator.Program(_build, instructions, n)


def run(state, program):
    """The program's gates on ``state`` in place: the timed call."""
    backend, n = _backend(state.precision), state.n
    vec = state.vec
    for g in program.get(n):
        vec = backend.apply_gate(g, vec, n)
    state.vec = vec
    return state


apply = _simulator.kernel_signature(__name__)
