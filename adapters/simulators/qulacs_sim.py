"""qulacs behind the kernels' gate instructions.

qulacs shares the project's conventions (qubit q is bit q of the index; bit j of a
DenseMatrix row/column index is target ``j`` of its target list), so amplitudes compare
one to one. Timing code builds gates, circuits and states in setup with :func:`gate`,
:func:`circuit` and :func:`from_numpy`, and times only :func:`run`; :func:`apply` (the
kernel signature, copying in and out) is for tests and convenience. Circuit gradients
(``prepare_gradient``) go through qulacs's ParametricQuantumCircuit.backprop, in
:mod:`adapters.simulators._qulacs_gradients`.
"""

import ctypes
import sys
import time

import numpy as np

from kernels.statevector._validate import state_qubits

from .. import _gradients
from .._guard import guarded_import
from . import _base

NAME = "qulacs"
#: qulacs's Python wheel is built for complex128 only.
PRECISIONS = ("complex128",)
PACKAGE = "qulacs"
FUSION_DEFAULT = 0
BASELINE = "peer"  # the peer every other is drawn relative to: the seeds' comparison
# Fusion: QuantumCircuit::update_quantum_state (src/cppsim/circuit.cpp) is a loop calling
# each gate's update_quantum_state in turn; qulacs merges gates only when asked, through
# QuantumCircuitOptimizer (optimize / merge_all) or gate.merge, which this adapter calls
# only when a circuit is built with a fusion setting. Else one pass over the state per gate.
SETTINGS = {"threads": "1 (its cached OpenMP count rewritten, see set_threads)",
            "gates": "named gates (X, H, CNOT, RX, ...), else DenseMatrix with controls",
            "circuits": "QuantumCircuit.update_quantum_state",
            "fusion": "off by default (update_quantum_state applies the circuit's gates one "
                      "by one); fusion k: QuantumCircuitOptimizer().optimize(circuit, k), "
                      "once when the circuit is built",
            "gradients": "ParametricQuantumCircuit.backprop(Observable); controls and phase "
                         "as parametric Pauli rotations"}

qulacs, AVAILABLE, REASON = guarded_import("qulacs", "gate")
if AVAILABLE:
    from qulacs.circuit import QuantumCircuitOptimizer


def _require():
    if not AVAILABLE:
        raise RuntimeError(f"the qulacs adapter is unavailable: {REASON}")


def version():
    _require()
    return qulacs.__version__


def sync():
    """qulacs on the CPU is synchronous; present for the common adapter interface."""


# --- threads ---------------------------------------------------------------------------
#
# qulacs does not follow the OpenMP runtime's thread count. Its C++ singleton OMPutil
# reads omp_get_max_threads() (or QULACS_NUM_THREADS) once, at qulacs's first parallel
# operation (creating a QuantumState is one), and from then on calls
# omp_set_num_threads(cached) before every parallel loop and restores its cached default
# after it. So threadpoolctl (or OMP_NUM_THREADS) only counts before that first operation.
# Measured on qulacs 0.6.14: a limit of 1 set after the first operation still keeps both
# cores busy. The singleton is an exported symbol, so the cached counts are rewritten.
# (qulacs stays serial below 2**13 amplitudes whatever the count.)

_OMPUTIL = "_ZZN7OMPutil8get_instEvE8instance"          # OMPutil::get_inst()::instance
_OMPUTIL_GUARD = "_ZGVZN7OMPutil8get_instEvE8instance"  # its "constructed" flag
_MAX_THREADS = 1024                                      # qulacs's MAX_NUM_THREADS


def _thread_fields():
    """The OMPutil fields (default count, qulacs count, serial threshold) as a ctypes
    array, or None where this qulacs build does not have them as we expect."""
    try:
        lib = ctypes.CDLL(sys.modules["qulacs_core"].__file__)
        guard = ctypes.c_uint8.in_dll(lib, _OMPUTIL_GUARD)
        fields = (ctypes.c_uint * 3).in_dll(lib, _OMPUTIL)
    except (KeyError, AttributeError, OSError, ValueError):
        return None
    if not guard.value:
        qulacs.QuantumState(1)  # a first operation builds the singleton
    default, count, threshold = fields
    if guard.value and 1 <= default <= _MAX_THREADS and 1 <= count <= _MAX_THREADS \
            and threshold <= 64:
        return fields
    return None


def threads():
    """The number of threads qulacs runs its parallel loops with."""
    _require()
    fields = _thread_fields()
    if fields is None:
        raise RuntimeError(f"qulacs {version()}: cannot read its thread count")
    return int(fields[1])


def set_threads(n):
    """Run qulacs's parallel loops with ``n`` OpenMP threads from now on."""
    _require()
    n = int(n)
    if not 1 <= n <= _MAX_THREADS:
        raise ValueError(f"n must be 1..{_MAX_THREADS} threads, got {n}")
    fields = _thread_fields()
    if fields is None:
        raise RuntimeError(
            f"qulacs {version()}: its cached thread count is not where this adapter "
            "expects it; set QULACS_NUM_THREADS before starting Python instead")
    fields[0] = fields[1] = n
    # The wheel's own OpenMP runtime, for any loop qulacs runs outside OMPutil; other
    # OpenMP runtimes in the process (numba, torch) are left alone.
    import threadpoolctl
    for lib in threadpoolctl.ThreadpoolController().select(user_api="openmp").lib_controllers:
        if "qulacs" in lib.filepath:
            lib.set_num_threads(n)


# --- gates -----------------------------------------------------------------------------

# (instruction name, number of targets, number of controls, all valued 1) -> qulacs gate,
# called with the controls then the targets: what a qulacs user writes.
_NAMED = {
    ("X", 1, 0): "X", ("Y", 1, 0): "Y", ("Z", 1, 0): "Z",
    ("H", 1, 0): "H", ("S", 1, 0): "S", ("T", 1, 0): "T",
    ("X", 1, 1): "CNOT", ("Z", 1, 1): "CZ", ("X", 1, 2): "TOFFOLI",
    ("SWAP", 2, 0): "SWAP",
}
# name -> (qulacs gate, angle sign). qulacs 0.6.14's RX(q, t) is exp(+i t X / 2), the
# opposite of our Rx(t) = exp(-i t X / 2) (checked numerically), so the angle is negated.
# U1(q, t) is diag(1, exp(i t)), our phase(t).
_ROTATIONS = {"Rx": ("RX", -1.0), "Ry": ("RY", -1.0), "Rz": ("RZ", -1.0), "phase": ("U1", 1.0)}


def _dense(matrix, locs, ctrl_locs, ctrl_vals):
    g = qulacs.gate.DenseMatrix(list(locs), np.asarray(matrix, dtype=np.complex128))
    for q, v in zip(ctrl_locs, ctrl_vals):
        g.add_control_qubit(q, v)
    return g


def _gate(instruction):
    """qulacs's named gate where it has one for the (checked) instruction's name and
    controls (the name is trusted to match the matrix), else a DenseMatrix with its
    controls, so every instruction runs."""
    locs, ctrls, vals = instruction.locs, instruction.ctrl_locs, instruction.ctrl_vals
    if all(v == 1 for v in vals):
        named = _NAMED.get((instruction.name, len(locs), len(ctrls)))
        if named:
            return getattr(qulacs.gate, named)(*ctrls, *locs)
        if instruction.name in _ROTATIONS and len(locs) == 1 and not ctrls \
                and len(instruction.params) == 1:
            named, sign = _ROTATIONS[instruction.name]
            return getattr(qulacs.gate, named)(locs[0], sign * instruction.params[0])
    return _dense(instruction.matrix, locs, ctrls, vals)


def _build(instructions, n):
    if n is None:  # a gate
        return _gate(instructions[0])
    out = qulacs.QuantumCircuit(n)
    for inst in instructions:
        out.add_gate(_gate(inst))
    return out


#: QuantumCircuitOptimizer().optimize(circuit, k) block sizes; 0: not optimized (qulacs's
#: default: every gate is applied as it was added)
FUSION = (0, 1, 2, 3, 4, 5)
#: the optimizer's time on the last circuit built with a setting k > 0 (outside every run)
OPTIMIZE_SECONDS = None


def _optimized(k):
    """The build of a qulacs QuantumCircuit merged by QuantumCircuitOptimizer into gates
    of up to k qubits, once, when it is built (outside the timed run); k = 0 is qulacs's
    default, not optimized."""
    if not k:
        return _build

    def build(instructions, n):
        global OPTIMIZE_SECONDS
        out = _build(instructions, n)
        start = time.perf_counter()
        QuantumCircuitOptimizer().optimize(out, k)
        OPTIMIZE_SECONDS = time.perf_counter() - start
        return out
    return build


# qulacs itself does not check a gate's qubits against the state's size (a gate beyond it
# writes outside the state, or crashes): the base checks them first
gate, circuit, apply = _base.programs(__name__, _require, _build, fusion=FUSION,
                                      fused=_optimized)


# --- states ----------------------------------------------------------------------------

def from_numpy(vec):
    """A qulacs QuantumState holding a copy of the amplitudes ``vec`` (complex128)."""
    _require()
    _base.precision_of(vec, NAME, PRECISIONS)
    qstate = qulacs.QuantumState(state_qubits(np.asarray(vec)))
    qstate.load(np.ascontiguousarray(vec, dtype=np.complex128))
    return qstate


def to_numpy(qstate):
    """The amplitudes of ``qstate`` as a new numpy array."""
    _require()
    return np.array(qstate.get_vector(), dtype=np.complex128)


def run(qstate, program):
    """Apply a gate or circuit from :func:`gate`/:func:`circuit` to ``qstate`` in place:
    the only call a timing loop makes."""
    if not isinstance(qstate, qulacs.QuantumState):
        raise _base.not_a_state(NAME, qstate)
    native = _base.built(program, NAME, qstate.get_qubit_count())
    try:
        native.update_quantum_state(qstate)
    except Exception as exc:
        raise _base.tool_failed(NAME, exc) from exc
    return qstate



# --- circuit gradients (docs/architecture.md, "Adapters"): in _qulacs_gradients -------

GRADIENT_METHODS = ("backprop",)


# the gradient module builds its fixed gates with this adapter's _gate, handed in
prepare_gradient, prepare_energy, circuit_gradient = _gradients.delegated(
    NAME, GRADIENT_METHODS, _require, __name__, "._qulacs_gradients", gate=_gate)
