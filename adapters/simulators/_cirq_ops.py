"""Instructions as Cirq operations, shared by the cirq and qsim adapters.

Cirq orders amplitudes big-endian over its qubit order (the first qubit is the most
significant bit), so our qubit q is ``LineQubit(n - 1 - q)`` over ``LineQubit.range(n)``:
the amplitude arrays are then the same, and only the gates are renumbered. For the same
reason a k-qubit matrix (whose bit j is our ``locs[j]``, bit 0 the least significant)
acts on ``locs`` reversed.
"""

import numpy as np

from ._base import parts


def _named(cirq):
    """(name, targets, controls) -> f(theta) -> a Cirq gate on (controls..., targets...)."""
    return {
        ("X", 1, 0): lambda t: cirq.X, ("Y", 1, 0): lambda t: cirq.Y,
        ("Z", 1, 0): lambda t: cirq.Z, ("H", 1, 0): lambda t: cirq.H,
        ("S", 1, 0): lambda t: cirq.S, ("T", 1, 0): lambda t: cirq.T,
        # cirq.rx(t) is exp(-i t X / 2), ours
        ("Rx", 1, 0): cirq.rx, ("Ry", 1, 0): cirq.ry, ("Rz", 1, 0): cirq.rz,
        # ZPowGate(exponent=e) is diag(1, exp(i pi e)): our phase(t) at e = t / pi
        ("phase", 1, 0): lambda t: cirq.ZPowGate(exponent=t / np.pi),
        ("X", 1, 1): lambda t: cirq.CNOT, ("Z", 1, 1): lambda t: cirq.CZ,
        ("X", 1, 2): lambda t: cirq.CCX,
        ("phase", 1, 1): lambda t: cirq.CZPowGate(exponent=t / np.pi),
        ("SWAP", 2, 0): lambda t: cirq.SWAP,
    }


def operation(cirq, instruction, n):
    """One Cirq operation for ``instruction`` on ``n`` qubits: Cirq's named gate where it
    has one for the name and controls, else the named (or matrix) gate controlled by the
    control qubits with their values."""
    name, locs, ctrls, vals, params = parts(instruction)
    qubit = cirq.LineQubit.range(n)[::-1]  # qubit[q] is our qubit q
    theta = params[0] if params else None
    table = _named(cirq)
    rotation = name in ("Rx", "Ry", "Rz", "phase")
    usable = not rotation or len(params) == 1
    if usable and all(v == 1 for v in vals) and (name, len(locs), len(ctrls)) in table:
        gate = table[name, len(locs), len(ctrls)](theta)
        return gate.on(*[qubit[q] for q in ctrls], *[qubit[q] for q in locs])
    if usable and (name, len(locs), 0) in table:
        gate = table[name, len(locs), 0](theta)
        targets = locs
    else:
        # a matrix is applied as given (Cirq's unitarity check would refuse others)
        gate = cirq.MatrixGate(np.asarray(instruction.matrix, dtype=np.complex128),
                               unitary_check=False)
        targets = locs[::-1]
    op = gate.on(*[qubit[q] for q in targets])
    if ctrls:
        op = op.controlled_by(*[qubit[q] for q in ctrls], control_values=list(vals))
    return op


def operations(cirq, instructions, n):
    return [operation(cirq, inst, n) for inst in instructions]

