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
"""

import numpy as np

from . import _simulator
from ._guard import guarded_import

NAME = "lightning"
PRECISIONS = ("complex128", "complex64")  # StateVectorC128 / StateVectorC64
PRECISION = PRECISIONS[0]
SETTINGS = {"threads": "1 (OpenMP, OMP_NUM_THREADS=1 before import; no runtime control)",
            "api": "lightning_qubit_ops StateVectorC128/C64: one C++ call per gate",
            "gates": "PauliX, Hadamard, T, CNOT, Toffoli, RX, RZ, PhaseShift, "
                     "ControlledPhaseShift, SWAP, ... with control wires and values; "
                     "applyMatrix / applyControlledMatrix otherwise"}

lightning, AVAILABLE, REASON = guarded_import("pennylane_lightning", "lightning_qubit_ops")
_CLASSES = {np.dtype(np.complex128): "StateVectorC128", np.dtype(np.complex64): "StateVectorC64"}
_DTYPES = {name: dtype for dtype, name in _CLASSES.items()}


_require, version, sync = _simulator.basics(NAME, lightning, AVAILABLE, REASON)


def from_numpy(vec):
    _require()
    precision = _simulator.precision_of(vec, NAME, PRECISIONS)
    dtype = _simulator.DTYPES[precision]
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


# (name, targets) -> (Lightning gate, parameters from the instruction's) for the gates it
# names; any controls go with them (the controlled form of the same method).
_GATES = {"X": "PauliX", "Y": "PauliY", "Z": "PauliZ", "H": "Hadamard", "S": "S", "T": "T",
          "Rx": "RX", "Ry": "RY", "Rz": "RZ", "phase": "PhaseShift"}
# (name, controls) -> Lightning's own controlled gate, for controls all valued 1
_CONTROLLED = {("X", 1): "CNOT", ("Z", 1): "CZ", ("X", 2): "Toffoli",
               ("phase", 1): "ControlledPhaseShift"}


def _operation(instruction, n, dtype):
    name, locs, ctrls, vals, params = _simulator.parts(instruction)
    wire = [n - 1 - q for q in range(n)]
    targets, controls = [wire[q] for q in locs], [wire[q] for q in ctrls]
    rotation = name in ("Rx", "Ry", "Rz", "phase")
    if len(locs) == 1 and name in _GATES and (len(params) == 1 or not rotation):
        method, args = _GATES[name], list(params)
        if not ctrls:
            return method, (targets, False, args)
        if all(v == 1 for v in vals) and (name, len(ctrls)) in _CONTROLLED:
            return _CONTROLLED[name, len(ctrls)], (controls + targets, False, args)
        return method, (controls, [bool(v) for v in vals], targets, False, args)
    if name == "SWAP" and not ctrls:
        return "SWAP", (targets, False, [])
    matrix = np.ascontiguousarray(instruction.matrix, dtype=dtype)
    if not ctrls:
        return "applyMatrix", (matrix, targets[::-1], False)
    return "applyControlledMatrix", (matrix, controls, [bool(v) for v in vals],
                                     targets[::-1], False)


def _build(instructions, n, dtype):
    return [_operation(inst, n, dtype) for inst in instructions]


def gate(instruction):
    _require()
    return _simulator.Program(_build, [instruction])


def circuit(instructions, n):
    _require()
    return _simulator.Program(_build, instructions, n)


def run(sv, program):
    """The program's gates on ``sv`` in place: the timed call."""
    for method, args in program.get(sv.size().bit_length() - 1, _dtype(sv)):
        getattr(sv, method)(*args)
    return sv


apply = _simulator.kernel_signature(__name__)
