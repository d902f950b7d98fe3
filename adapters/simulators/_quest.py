"""What the two QuEST adapters share, given the pyQuEST package each drives: ``pyquest``
(one process, :mod:`.quest_sim`) or ``pyquest_mpi`` (QuEST's distributed build,
:mod:`.quest_mpi_sim`; the same sources under another name). A ``Register`` holds the
state and each of pyQuEST's operator objects calls one QuEST C function on it
(``pauliX``, ``controlledNot``, ``hadamard``, ``rotateX``, ``multiStateControlledUnitary``,
``applyMatrixN``, ...); ``Register.apply_circuit`` runs a ``Circuit`` of them in a C loop.

Conventions are ours (checked numerically): qubit q is bit q of the index, bit j of a
k-qubit matrix's index is ``targets[j]``, Rx/Ry/Rz(t) = exp(-i t P / 2), Phase(t) =
diag(1, e^{i t}). The precision is QuEST's compile-time ``qreal``: one per build.
"""

import atexit
import weakref

import numpy as np

from . import _base

#: pyquest.precision -> ours (4 is quad, which no dtype here holds)
PRECISIONS = {1: "complex64", 2: "complex128"}


class State:
    """A pyQuEST Register, released before the interpreter tears pyQuEST down.

    pyQuEST's deallocators log through its module's ``logger``. A Register still alive
    when Python wipes the modules' globals at exit (a script's global, a cached
    benchmark state) was freed after ``pyquest.core``'s globals were gone, and printed
    "Exception ignored in: 'pyquest.core.Register.__dealloc__'": so every state made
    here drops its Register at exit (:func:`release_all`, an atexit hook, which runs
    before that wipe)."""

    __slots__ = ("reg", "n", "__weakref__")

    def __init__(self, reg):
        self.reg, self.n = reg, reg.num_qubits
        _LIVE.add(self)


_LIVE = weakref.WeakSet()


@atexit.register
def release_all():
    for state in list(_LIVE):
        state.reg = None


def from_numpy(package, name, vec, precisions):
    """A Register of ``package`` holding ``vec``."""
    precision = _base.precision_of(vec, name, precisions)
    vec = np.ascontiguousarray(vec, dtype=_base.DTYPES[precision])
    reg = package.Register(vec.shape[0].bit_length() - 1)
    # a C loop of QuEST's setAmps over a typed memoryview of vec; in the distributed
    # build each rank keeps the amplitudes of its own chunk (no message)
    reg[:] = vec
    return State(reg)


def to_numpy(state, precision):
    # reg[:] copies the amplitudes (QuEST's getAmp in a C loop) into a new array; in the
    # distributed build each getAmp is a broadcast from the rank that holds it
    return np.asarray(state.reg[:], dtype=_base.DTYPES[precision])


def run(name, state, program):
    """``program`` on ``state`` in place (QuEST applies each gate at once)."""
    if type(state) is not State:
        raise _base.not_a_state(name, state)
    native = _base.built(program, name, state.n)
    try:
        state.reg.apply_circuit(native)
    except Exception as exc:
        raise _base.tool_failed(name, exc) from exc
    return state


# --- gates -------------------------------------------------------------------------------

_ROTATIONS = ("Rx", "Ry", "Rz", "phase")
#: instruction name -> how many controls (all valued 1) pyquest's operator of that name
#: takes (None: any): its H, S, T and Swap take none, its Y and rotations one.
_MAX_CONTROLS = {"X": None, "Z": None, "phase": None, "Y": 1, "Rx": 1, "Ry": 1, "Rz": 1,
                 "H": 0, "S": 0, "T": 0, "SWAP": 0}
_CLASSES = {"phase": "Phase", "SWAP": "Swap"}  # else the class has the instruction's name
#: QuEST refuses a "unitary" whose U U^dagger is off the identity by more than its
#: REAL_EPS (1e-13 in double, 1e-5 in single); a tenth of it leaves room for rounding.
_REAL_EPS = {"complex128": 1e-14, "complex64": 1e-6}


def _named(package, name, locs, ctrls, params):
    """pyquest's own operator for a named gate, or None (the name is trusted only with its
    parameters, and only within the controls the operator takes)."""
    most = _MAX_CONTROLS.get(name, -1)
    if ((most is not None and len(ctrls) > most)
            or len(locs) != (2 if name == "SWAP" else 1)
            or len(params) != (1 if name in _ROTATIONS else 0)):
        return None
    cls = getattr(package.unitaries, _CLASSES.get(name, name))
    if name == "SWAP":
        return cls(list(locs))
    kwargs = {"controls": list(ctrls)} if ctrls else {}
    return cls(locs[0], *params, **kwargs)


def operations(package, instruction):
    """The operator objects of ``package`` that apply ``instruction``."""
    u = package.unitaries
    name, locs, ctrls, vals, params = _base.parts(instruction)
    if all(v == 1 for v in vals):
        op = _named(package, name, locs, ctrls, params)
        if op is not None:
            return [op]
    matrix = np.ascontiguousarray(instruction.matrix, dtype=np.complex128)
    eps = _REAL_EPS[PRECISIONS[package.precision]]
    unitary = np.abs(matrix @ matrix.conj().T - np.eye(len(matrix))).max() <= eps
    if unitary and len(locs) == 1 and ctrls and any(v == 0 for v in vals):
        # multiStateControlledUnitary: controls on |0> in one pass (1 target only)
        return [u.U(list(locs), matrix, controls=list(ctrls), control_pattern=list(vals))]
    flips = [u.X(q) for q, v in zip(ctrls, vals) if v == 0]
    kwargs = {"controls": list(ctrls)} if ctrls else {}
    op = _named(package, name, locs, ctrls, params)  # a named gate with controls on |0>
    if op is None:
        op = (u.U if unitary else package.operators.MatrixOperator)(list(locs), matrix,
                                                                   **kwargs)
    return [*flips, op, *flips]


def circuit(package, instructions):
    """One ``Circuit`` of ``package`` applying ``instructions`` in order."""
    return package.Circuit([op for inst in instructions for op in operations(package, inst)])
