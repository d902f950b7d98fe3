"""QuEST (the Quantum Exact Simulation Toolkit) behind the kernels' gate instructions,
through pyQuEST, its Cython binding (import name ``pyquest``): a ``Register`` holds the
state vector and each of pyQuEST's operator objects calls one QuEST C function on it
(``pauliX``, ``controlledNot``, ``hadamard``, ``rotateX``, ``multiStateControlledUnitary``,
``applyMatrixN``, ...). ``Register.apply_circuit`` runs a ``Circuit`` of them in a C loop.

Which distribution: the ``pyquest`` 0.0.1 wheel on PyPI is compiled against numpy 1.x and
fails to import with numpy 2 ("numpy.dtype size changed"); ``pyquest-develop``
0.0.1a0.dev1 (an sdist on PyPI, the same import name, QuEST's C sources inside) builds
against numpy 2.4 with Cython < 3 and scikit-build 0.17 without build isolation (~30 s).
``pyquest-cffi`` downloads QuEST's sources from GitHub while it builds.

Conventions are ours (checked numerically): qubit q is bit q of the index, bit j of a
k-qubit matrix's index is ``targets[j]``, Rx/Ry/Rz(t) = exp(-i t P / 2), Phase(t) =
diag(1, e^{i t}). The precision is QuEST's compile-time ``qreal`` (double by default), so
PRECISIONS follows ``pyquest.precision``: one precision per build.
"""

import atexit
import importlib.metadata
import weakref

import numpy as np

from .._guard import guarded_import
from . import _base

NAME = "quest"
_PRECISIONS = {1: "complex64", 2: "complex128"}  # pyquest.precision -> ours (4 is quad)

pyquest, AVAILABLE, REASON = guarded_import("pyquest", "core", "unitaries", "operators")


def _distribution():
    """Which distribution installed ``pyquest`` ("pyquest", "pyquest-develop") and its
    version; neither sets ``pyquest.__version__``."""
    for dist in importlib.metadata.packages_distributions().get("pyquest", ()):
        try:
            return dist, importlib.metadata.version(dist)
        except importlib.metadata.PackageNotFoundError:
            pass
    return "pyquest", "(version unknown)"


if AVAILABLE and pyquest.precision not in _PRECISIONS:
    AVAILABLE = False
    REASON = (f"pyquest is built with QuEST precision {pyquest.precision} (quad): "
              "not complex128 or complex64")
elif AVAILABLE:
    _DIST = _distribution()
    REASON = (f"{_DIST[0]} {_DIST[1]} (QuEST, {_PRECISIONS[pyquest.precision]}, "
              f"OpenMP {'on' if pyquest.openmp else 'off'})")
elif "dtype size changed" in REASON:
    REASON = (f"{' '.join(_distribution())} is compiled against numpy 1.x and does not "
              f"import with numpy {np.__version__} ({REASON}); build pyquest-develop "
              "0.0.1a0.dev1 from its sdist instead")

PRECISIONS = (_PRECISIONS[pyquest.precision],) if AVAILABLE else ("complex128",)
PACKAGE = "pyquest-develop"
FUSION_DEFAULT = 0
PRECISION = PRECISIONS[0]
SETTINGS = {"threads": "1 (QuEST's OpenMP loops follow the runtime's count: "
                       "omp_set_num_threads of the libgomp it links, see set_threads)",
            "api": "pyquest Register, one operator object per QuEST call, "
                   "Register.apply_circuit(Circuit) for gates and circuits",
            "precision": "QuEST's compile-time qreal: double in pyquest-develop's build",
            "gates": "pauliX/Y/Z, hadamard, sGate, tGate, rotateX/Y/Z, phaseShift, "
                     "swapGate, controlledNot, multiControlledMultiQubitNot, "
                     "(multi)controlledPhaseFlip/PhaseShift, controlledRotate*; "
                     "controls on |0> through multiStateControlledUnitary (1 target) "
                     "or X around; (multiControlled)unitary/twoQubitUnitary/"
                     "multiQubitUnitary, else applyMatrix* for non-unitary matrices",
            "fusion": "none (QuEST has none)"}

_require, _, sync = _base.basics(NAME, pyquest, AVAILABLE, REASON)


def version():
    _require()
    return _distribution()[1]


# --- threads -----------------------------------------------------------------------------
#
# QuEST's CPU kernels are plain `#pragma omp parallel` loops with no thread count of their
# own (pyquest.num_threads is only what OpenMP said at import). The runtime is found
# through pyquest.core's handle: the OpenMP runtime libQuEST.so links (the system libgomp,
# shared with any other tool linking it).
_threads = _base.OpenMPThreads(_require, lambda: pyquest.core.__file__, REASON)
threads, set_threads = _threads.threads, _threads.set_threads


# --- states ------------------------------------------------------------------------------

class _State:
    """A pyquest Register, released before the interpreter tears pyquest down.

    pyquest's deallocators log through its module's ``logger``. A Register still alive
    when Python wipes the modules' globals at exit (a script's global, a cached
    benchmark state) was freed after ``pyquest.core``'s globals were gone, and printed
    "Exception ignored in: 'pyquest.core.Register.__dealloc__'": so every state made
    here drops its Register at exit (:func:`_release_all`, an atexit hook, which runs
    before that wipe)."""

    __slots__ = ("reg", "n", "__weakref__")

    def __init__(self, reg):
        self.reg, self.n = reg, reg.num_qubits
        _LIVE.add(self)


_LIVE = weakref.WeakSet()


@atexit.register
def _release_all():
    for state in list(_LIVE):
        state.reg = None


def from_numpy(vec):
    _require()
    precision = _base.precision_of(vec, NAME, PRECISIONS)
    vec = np.ascontiguousarray(vec, dtype=_base.DTYPES[precision])
    reg = pyquest.Register(vec.shape[0].bit_length() - 1)
    reg[:] = vec  # a C loop of QuEST's setAmps over a typed memoryview of vec
    return _State(reg)


def to_numpy(state):
    _require()
    # reg[:] copies the amplitudes (QuEST's getAmp in a C loop) into a new array
    return np.asarray(state.reg[:], dtype=_base.DTYPES[PRECISION])


# --- gates -------------------------------------------------------------------------------

_FIXED = ("X", "Y", "Z", "H", "S", "T")
_ROTATIONS = ("Rx", "Ry", "Rz", "phase")
#: instruction name -> how many controls (all valued 1) pyquest's operator of that name
#: takes (None: any): its H, S, T and Swap take none, its Y and rotations one.
_MAX_CONTROLS = {"X": None, "Z": None, "phase": None, "Y": 1, "Rx": 1, "Ry": 1, "Rz": 1,
                 "H": 0, "S": 0, "T": 0, "SWAP": 0}
_CLASSES = {"phase": "Phase", "SWAP": "Swap"}  # else the class has the instruction's name
#: QuEST refuses a "unitary" whose U U^dagger is off the identity by more than its
#: REAL_EPS (1e-13 in double, 1e-5 in single); a tenth of it leaves room for rounding.
_REAL_EPS = {"complex128": 1e-14, "complex64": 1e-6}


def _is_unitary(m):
    return np.abs(m @ m.conj().T - np.eye(len(m))).max() <= _REAL_EPS[PRECISION]


def _named(name, locs, ctrls, params):
    """pyquest's own operator for a named gate, or None (the name is trusted only with its
    parameters, and only within the controls the operator takes)."""
    most = _MAX_CONTROLS.get(name, -1)
    if ((most is not None and len(ctrls) > most)
            or len(locs) != (2 if name == "SWAP" else 1)
            or len(params) != (1 if name in _ROTATIONS else 0)):
        return None
    cls = getattr(pyquest.unitaries, _CLASSES.get(name, name))
    if name == "SWAP":
        return cls(list(locs))
    kwargs = {"controls": list(ctrls)} if ctrls else {}
    return cls(locs[0], *params, **kwargs)


def _operations(instruction):
    u = pyquest.unitaries
    name, locs, ctrls, vals, params = _base.parts(instruction)
    if all(v == 1 for v in vals):
        op = _named(name, locs, ctrls, params)
        if op is not None:
            return [op]
    matrix = np.ascontiguousarray(instruction.matrix, dtype=np.complex128)
    unitary = _is_unitary(matrix)
    if unitary and len(locs) == 1 and ctrls and any(v == 0 for v in vals):
        # multiStateControlledUnitary: controls on |0> in one pass (1 target only)
        return [u.U(list(locs), matrix, controls=list(ctrls), control_pattern=list(vals))]
    flips = [u.X(q) for q, v in zip(ctrls, vals) if v == 0]
    kwargs = {"controls": list(ctrls)} if ctrls else {}
    op = _named(name, locs, ctrls, params)  # a named gate with controls on |0>
    if op is None:
        op = (u.U if unitary else pyquest.operators.MatrixOperator)(list(locs), matrix,
                                                                   **kwargs)
    return [*flips, op, *flips]


def _build(instructions, n):
    return pyquest.Circuit([op for inst in instructions for op in _operations(inst)])


def run(state, program):
    """The program on ``state`` in place: the timed call (QuEST applies each gate at
    once; nothing is deferred)."""
    if type(state) is not _State:
        raise _base.not_a_state(NAME, state)
    native = _base.built(program, NAME, state.n)
    try:
        state.reg.apply_circuit(native)
    except Exception as exc:
        raise _base.tool_failed(NAME, exc) from exc
    return state


gate, circuit, apply = _base.programs(__name__, _require, _build)
