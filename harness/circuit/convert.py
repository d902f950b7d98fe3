"""A qiskit ``QuantumCircuit`` as a list of our :class:`Instruction`s, with the same
meaning amplitude by amplitude (docs/architecture.md, "Circuits").

- Gates the peers run natively keep their names (H, CX, CCX, MCX, CP, CRZ, SWAP, CSWAP,
  RX/RY/RZ, S, T, Sdg, Tdg, P, U1, ...): a controlled gate becomes its base gate with
  ``ctrl_locs`` and the control values of its ``ctrl_state``.
- Other gates of qiskit's library on up to :data:`DENSE_QUBITS` qubits (U, U3, SX, RZZ,
  RXX, RCCX, CU3, ...) become dense matrices, from the gate's own matrix in qiskit.
- Larger gates and user-defined gates (OpenQASM ``gate`` definitions) are expanded
  through their definitions, recursively, their definitions' global phases included.
- The circuit's global phase is kept: a last ``dense`` instruction e^{i phi} I on qubit 0
  (a pass over the state, but amplitudes then equal qiskit's ``Statevector`` exactly).
- Final measurements, barriers, delays and identity gates do nothing to the state: they
  are dropped, and ``notes`` says so. A measurement followed by anything on its qubit, a
  reset, classical control and any other instruction that is not unitary is refused
  with :class:`NotUnitary`, which names it, its position and (given a ``locate``
  callback that knows the source file) its line.
"""

from typing import NamedTuple

import numpy as np

from kernels.statevector import circuits, gates

#: qiskit's library gates up to this many qubits (and unitary matrices up to
#: :data:`UNITARY_QUBITS`) become one dense instruction; larger ones are expanded.
DENSE_QUBITS = 3
UNITARY_QUBITS = 6

# qiskit gate name -> (our instruction name, angle or None: the gate's own first param).
# Each is checked against qiskit's matrix (tests/harness/test_circuit_import.py).
_NAMED = {
    "x": ("X", None), "y": ("Y", None), "z": ("Z", None), "h": ("H", None),
    "s": ("S", None), "t": ("T", None), "swap": ("SWAP", None),
    "rx": ("Rx", None), "ry": ("Ry", None), "rz": ("Rz", None),
    "p": ("phase", None), "u1": ("phase", None),
    "sdg": ("phase", -np.pi / 2), "tdg": ("phase", -np.pi / 4),
}
_FIXED = {"X": gates.X, "Y": gates.Y, "Z": gates.Z, "H": gates.H, "S": gates.S,
          "T": gates.T, "SWAP": gates.SWAP}
_ROTATIONS = {"Rx": gates.Rx, "Ry": gates.Ry, "Rz": gates.Rz, "phase": gates.phase}
#: operations that leave a state vector as it is
_IDENTITY = {"id", "delay"}


class NotUnitary(ValueError):
    """An instruction a state-vector simulation cannot run as a unitary (a mid-circuit
    measurement, a reset, classical control, ...), named with its position and line."""

    def __init__(self, name, index, qubits, why, line=None):
        self.name, self.index, self.qubits, self.line = name, index, tuple(qubits), line
        where = f"line {line}" if line is not None else f"instruction {index}"
        on = f" on qubit{'s' if len(qubits) > 1 else ''} {', '.join(map(str, qubits))}" \
            if qubits else ""
        super().__init__(f"{where}: {name}{on}: {why}")


class Converted(NamedTuple):
    instructions: list  #: [Instruction]
    n: int  #: qubits
    notes: list  #: what was dropped, as sentences
    global_phase: float  #: the phase kept as the last instruction (0: none)


def named(name, locs, ctrl_locs=(), ctrl_vals=(), theta=None):
    """Our named instruction ``name`` (X, Rz, SWAP, ...) on ``locs`` with controls."""
    if name in _ROTATIONS:
        matrix, params = _ROTATIONS[name](theta), (float(theta),)
    else:
        matrix, params = _FIXED[name], ()
    return circuits.Instruction(name, matrix, tuple(locs), tuple(ctrl_locs),
                                tuple(ctrl_vals), params)


def from_qiskit(qc, locate=None):
    """``qc`` as a :class:`Converted`. ``locate(kind, qubit)`` -> a source line or None,
    for messages; ``kind`` is the qiskit instruction name (measure, reset, if_else...)."""
    if qc.parameters:
        names = ", ".join(sorted(p.name for p in qc.parameters))
        raise ValueError(f"the circuit has unbound parameters ({names}); bind them first "
                         "(QuantumCircuit.assign_parameters)")
    index = {bit: i for i, bit in enumerate(qc.qubits)}
    final = _final_measurements(qc, index)
    out, dropped = [], {}
    phase = float(qc.global_phase)
    for i, item in enumerate(qc.data):
        op, qubits = item.operation, [index[q] for q in item.qubits]
        if op.name in ("barrier", *_IDENTITY) or (op.name == "measure" and i in final):
            what = "final measurement" if op.name == "measure" else op.name
            dropped[what] = dropped.get(what, 0) + 1
            continue
        why = _refusal(op)
        if why:
            line = locate(op.name, qubits[0] if qubits else None) if locate else None
            raise NotUnitary(op.name, i, qubits, why, line)
        phase += _convert(op, qubits, out)
    phase = float(np.angle(np.exp(1j * phase)))  # in (-pi, pi]
    if phase != 0.0:
        out.append(circuits.Instruction("dense", np.exp(1j * phase) * gates.I2, (0,)))
    notes = [f"dropped {count} {what}{'s' if count > 1 else ''} (no effect on the state)"
             for what, count in dropped.items()]
    if phase != 0.0:
        notes.append(f"global phase {phase:.6g} kept as a last dense instruction on qubit 0")
    return Converted(out, qc.num_qubits, notes, phase)


def _final_measurements(qc, index):
    """Positions of the measurements after which nothing acts on their qubit."""
    touched, final = set(), set()
    for i in reversed(range(len(qc.data))):
        item = qc.data[i]
        name = item.operation.name
        if name in ("barrier", *_IDENTITY):
            continue
        qubits = {index[q] for q in item.qubits}
        if name == "measure" and not qubits & touched:
            final.add(i)
        elif name != "measure":
            touched |= qubits
    return final


def _refusal(op):
    """Why ``op`` cannot run as a unitary, or None."""
    from qiskit.circuit import ControlFlowOp, Gate
    if op.name == "measure":
        return "a mid-circuit measurement (something acts on its qubit afterwards)"
    if op.name == "reset":
        return "a reset is not unitary"
    if isinstance(op, ControlFlowOp):
        return "classical control flow is not unitary"
    if op.num_clbits or getattr(op, "num_vars", 0):
        return "an instruction on classical bits is not unitary"
    if not isinstance(op, Gate) and getattr(op, "definition", None) is None \
            and not hasattr(op, "to_matrix"):
        return "not a gate (it has no matrix and no definition)"
    return None


def _params(op):
    return [float(p) for p in op.params]


def _convert(op, qubits, out):
    """Append ``op`` on ``qubits`` to ``out``; returns the global phase it adds."""
    name = op.name
    if name in _IDENTITY:
        return 0.0
    if op.num_qubits == 0:  # a global phase gate: its 1x1 matrix
        return float(np.angle(_matrix(op)[0, 0]))
    if name in _NAMED and not getattr(op, "num_ctrl_qubits", 0):
        ours, angle = _NAMED[name]
        if ours in _ROTATIONS and angle is None:
            angle = _params(op)[0]
        out.append(named(ours, qubits, theta=angle))
        return 0.0
    if getattr(op, "num_ctrl_qubits", 0):
        done = _controlled(op, qubits, out)
        if done is not None:
            return done
    if name == "unitary" and op.num_qubits <= UNITARY_QUBITS:
        out.append(circuits.dense(np.asarray(op.to_matrix()), *qubits))
        return 0.0
    if _in_library(op) and op.num_qubits <= DENSE_QUBITS and hasattr(op, "to_matrix"):
        out.append(circuits.dense(_matrix(op), *qubits))
        return 0.0
    definition = getattr(op, "definition", None) or _synthesized(op)
    if definition is not None:
        return _expand(definition, qubits, out)
    if op.num_qubits <= UNITARY_QUBITS:
        out.append(circuits.dense(_matrix(op), *qubits))
        return 0.0
    raise NotImplementedError(f"gate {name} on {op.num_qubits} qubits has no definition "
                              "to expand and is too large for a dense matrix")


def _synthesized(op):
    """A circuit for a high-level object without a definition (PermutationGate, ...), by
    qiskit's HighLevelSynthesis with its default plugins; None if it makes none."""
    from qiskit import QuantumCircuit
    from qiskit.transpiler.passes import HighLevelSynthesis
    one = QuantumCircuit(op.num_qubits)
    try:
        one.append(op, range(op.num_qubits))
        out = HighLevelSynthesis()(one)
    except Exception:
        return None
    if len(out.data) == 1 and out.data[0].operation is op:
        return None  # nothing to synthesize it into
    return out


def _in_library(op):
    # qiskit's own gates (not OpenQASM user definitions, which are expanded)
    return (getattr(type(op), "__module__", None) or "").startswith("qiskit.circuit.library")


def _matrix(op):
    from qiskit.quantum_info import Operator
    try:
        return np.asarray(op.to_matrix(), dtype=np.complex128)
    except Exception:  # some operations only have an Operator form
        return np.asarray(Operator(op).data, dtype=np.complex128)


def _expand(definition, qubits, out):
    """The gates of a definition circuit on our ``qubits``; returns its global phase."""
    index = {bit: qubits[i] for i, bit in enumerate(definition.qubits)}
    phase = float(definition.global_phase)
    for item in definition.data:
        op = item.operation
        if op.name == "barrier":
            continue
        inner = [index[q] for q in item.qubits]
        why = _refusal(op)
        if why:
            raise NotUnitary(op.name, None, inner, f"inside a gate definition: {why}")
        phase += _convert(op, inner, out)
    return phase


def _controlled(op, qubits, out):
    """A controlled gate as one instruction with controls; None if it is not one."""
    c = op.num_ctrl_qubits
    ctrls, targets = qubits[:c], qubits[c:]
    vals = tuple((int(op.ctrl_state) >> j) & 1 for j in range(c))
    if op.num_qubits <= DENSE_QUBITS:
        # the target block read from qiskit's own matrix of the whole gate: this also
        # holds gates whose base_gate leaves out a phase (CU's gamma)
        block = _target_block(_matrix(op), c, int(op.ctrl_state))
        if block is None:
            return None
        inst = _as_named(op.base_gate, targets, block)
        out.append(inst._replace(ctrl_locs=tuple(ctrls), ctrl_vals=vals))
        return 0.0
    base = op.base_gate
    if base.num_qubits != len(targets):
        return None
    inner = []
    if _convert(base, targets, inner) != 0.0 or len(inner) != 1:
        return None  # a phase or several gates: expanded through its definition instead
    (inst,) = inner
    out.append(inst._replace(ctrl_locs=inst.ctrl_locs + tuple(ctrls),
                             ctrl_vals=(inst.ctrl_vals or (1,) * len(inst.ctrl_locs)) + vals))
    return 0.0


def _target_block(matrix, c, state):
    """The block a controlled-gate matrix applies where its controls (the low c bits)
    read ``state``; None when the rest is not the identity."""
    dim = matrix.shape[0]
    rows = [i for i in range(dim) if i & ((1 << c) - 1) == state]
    block = matrix[np.ix_(rows, rows)]
    rest = matrix.copy()
    rest[np.ix_(rows, rows)] = np.eye(len(rows))
    if not np.allclose(rest, np.eye(dim), rtol=0, atol=1e-12):
        return None
    return block


def _as_named(base, targets, block):
    """Our named instruction for ``base`` when its name maps to one whose matrix is
    ``block``, else ``block`` as a dense instruction."""
    if base.name in _NAMED:
        ours, angle = _NAMED[base.name]
        if ours in _ROTATIONS and angle is None:
            angle = _params(base)[0]
        inst = named(ours, targets, theta=angle)
        if np.allclose(inst.matrix, block, rtol=0, atol=1e-12):
            return inst
    return circuits.dense(block, *targets)
