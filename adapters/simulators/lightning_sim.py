"""PennyLane Lightning (``lightning.qubit``) behind the kernels' gate instructions, through
its C++ state vector (``StateVectorC128`` / ``StateVectorC64`` of
``pennylane_lightning.lightning_qubit_ops``): the object the device itself drives, with a
method per named gate (``PauliX``, ``Hadamard``, ``CNOT``, ``Toffoli``, ``RX``,
``ControlledPhaseShift``, ...; every one also takes control wires with values) and
``applyMatrix`` / ``applyControlledMatrix`` for the rest. No PennyLane tape or device is
involved: a gate is one call into C++ on the state it keeps.

Lightning is big-endian: wire 0 is the most significant bit. Our qubit q is wire n-1-q,
so the amplitude arrays are the same and only the gates are renumbered; a k-qubit matrix
(bit 0 = our ``locs[0]``) acts on the wires of ``locs`` reversed.

Circuit gradients (``prepare_gradient``, in :mod:`adapters.simulators._lightning_gradients`):
"adjoint" adds Lightning's C++ adjoint Jacobian to the same state and gates; "qnode" is a
PennyLane QNode on ``lightning.qubit``, the only place PennyLane itself is imported.
"""

import numpy as np

from .. import _gradients
from .._guard import guarded_import
from . import _base

NAME = "lightning"
PRECISIONS = ("complex128", "complex64")  # StateVectorC128 / StateVectorC64
PACKAGE = "pennylane-lightning"
FUSION_DEFAULT = 0
PRECISION = PRECISIONS[0]
# Threads: this wheel's gate kernels are serial (built without LQ_ENABLE_KERNEL_OMP): at
# OMP_NUM_THREADS=2, CPU time / wall time stays 1.0 for every named gate and applyMatrix
# (1-4 qubits, n=22..25, both precisions). Its libgomp runs only measurements and adjoint
# gradients (the circuit gradients below), which follow OMP_NUM_THREADS and threadpoolctl
# like any OpenMP library (the suites pin both to 1), so there is no set_threads.
# Fusion: run calls the state's method for each gate itself (one C++ call, one kernel, per
# gate), so nothing can fuse gates: no device, tape or circuit-level pass is involved.
SETTINGS = {"threads": "1 (gate kernels serial in this wheel; expval and adjoint follow "
                       "OMP_NUM_THREADS / threadpoolctl)",
            "fusion": "off (one C++ gate method, one kernel, per gate: the adapter calls "
                      "them itself)",
            "api": "lightning_qubit_ops StateVectorC128/C64: one C++ call per gate, "
                   "kernels its own dispatch picks (LM; AVX512 for CNOT/CZ)",
            "precision": "complex128 (StateVectorC128), complex64 (StateVectorC64)",
            "gates": "PauliX, Hadamard, T, RX, RZ, PhaseShift, SWAP, ...; CNOT, CY, CZ, "
                     "CRX/CRY/CRZ, ControlledPhaseShift, Toffoli, CSWAP; other controls "
                     "(values 0 or 1) through each method's controlled form; "
                     "applyMatrix / applyControlledMatrix otherwise",
            "gradients": "adjoint: AdjointJacobianC128 on the state and an OpsStruct of its "
                         "gates, energy by MeasurementsC128.expval; qnode: a QNode on "
                         "lightning.qubit, diff_method='adjoint', qml.grad"}

lightning, AVAILABLE, REASON = guarded_import("pennylane_lightning", "lightning_qubit_ops")
_CLASSES = {np.dtype(np.complex128): "StateVectorC128", np.dtype(np.complex64): "StateVectorC64"}
_DTYPES = {name: dtype for dtype, name in _CLASSES.items()}


_require, version, sync = _base.basics(NAME, lightning, AVAILABLE, REASON)


def from_numpy(vec):
    _require()
    precision = _base.precision_of(vec, NAME, PRECISIONS)
    dtype = _base.DTYPES[precision]
    vec = np.ascontiguousarray(vec, dtype=dtype)
    sv = getattr(lightning.lightning_qubit_ops, _CLASSES[dtype])(vec.shape[0].bit_length() - 1)
    sv.updateData(vec)  # copies into the state's own aligned buffer
    return sv


def _dtype(sv):
    return _DTYPES[type(sv).__name__]


def to_numpy(sv):
    _require()
    out = np.empty(sv.size(), dtype=_dtype(sv))
    sv.getState(out)
    return out


# instruction name -> Lightning's method, for 1-target gates and SWAP (2 targets,
# symmetric, so its wires' order is free); any controls go with them (every method has a
# controlled form taking control wires and their values, 0 included).
_GATES = {"X": "PauliX", "Y": "PauliY", "Z": "PauliZ", "H": "Hadamard", "S": "S", "T": "T",
          "Rx": "RX", "Ry": "RY", "Rz": "RZ", "phase": "PhaseShift", "SWAP": "SWAP"}
_ROTATIONS = ("Rx", "Ry", "Rz", "phase")  # Lightning's RX(t) = exp(-i t X/2), as ours
# (name, controls) -> Lightning's own controlled gate, for controls all valued 1. Measured
# at n=20 (complex128): CNOT 0.35 ms vs PauliX with a control 1.0 ms, CRX 0.85 vs 1.35,
# CY 0.67 vs 1.05, ControlledPhaseShift 0.59 vs 1.0 (applyControlledMatrix: 1.6-2.1 ms).
_CONTROLLED = {("X", 1): "CNOT", ("Y", 1): "CY", ("Z", 1): "CZ", ("X", 2): "Toffoli",
               ("Rx", 1): "CRX", ("Ry", 1): "CRY", ("Rz", 1): "CRZ",
               ("phase", 1): "ControlledPhaseShift", ("SWAP", 1): "CSWAP"}


def _operation(instruction, n, dtype):
    """(method name, arguments) of one instruction on an n-qubit state of ``dtype``."""
    name, locs, ctrls, vals, params = _base.parts(instruction)
    targets, controls = [n - 1 - q for q in locs], [n - 1 - q for q in ctrls]
    named = name in _GATES and len(locs) == (2 if name == "SWAP" else 1) \
        and (len(params) == 1 if name in _ROTATIONS else not params)
    if named:  # the name is trusted only with its parameters, else the matrix runs
        if not ctrls:
            return _GATES[name], (targets, False, list(params))
        if all(v == 1 for v in vals) and (name, len(ctrls)) in _CONTROLLED:
            return _CONTROLLED[name, len(ctrls)], (controls + targets, False, list(params))
        return _GATES[name], (controls, [bool(v) for v in vals], targets, False,
                              list(params))
    # A k-qubit matrix's wires are most significant first: our locs reversed.
    matrix = np.ascontiguousarray(instruction.matrix, dtype=dtype)
    if not ctrls:
        return "applyMatrix", (matrix, targets[::-1], False)
    return "applyControlledMatrix", (matrix, controls, [bool(v) for v in vals],
                                     targets[::-1], False)


def _build(instructions, n, state_class):
    dtype = _DTYPES[state_class]
    return [_operation(inst, n, dtype) for inst in instructions]


def run(sv, program):
    """The program's gates on ``sv`` in place: the timed call."""
    state_class = type(sv).__name__  # the program is built per class (precision)
    if state_class not in _DTYPES:
        raise _base.not_a_state(NAME, sv)
    ops = _base.built(program, NAME, sv.size().bit_length() - 1, state_class)
    try:
        for method, args in ops:
            getattr(sv, method)(*args)
    except Exception as exc:
        raise _base.tool_failed(NAME, exc) from exc
    return sv


gate, circuit, apply = _base.programs(__name__, _require, _build, per_size=True)


# --- circuit gradients (docs/architecture.md, "Adapters"): in _lightning_gradients ----

GRADIENT_METHODS = ("adjoint", "qnode")


# the adjoint method runs this adapter's gates: its _operation, handed in
prepare_gradient, prepare_energy, circuit_gradient = _gradients.delegated(
    NAME, GRADIENT_METHODS, _require, __name__, "._lightning_gradients", operation=_operation)
