"""What the cirq adapter (and the Cirq conversion it shares with qsim, adapters/_cirq_ops)
promises beyond the shared contract (test_simulators.py checks it against the reference):
Cirq's own gates for every named instruction, its qubit order, a real single-precision
state, and one operation per instruction applied to the state Cirq keeps."""

import numpy as np
import pytest

from adapters.simulators import cirq_sim as cs
from kernels.statevector import circuits, gates, naive
from kernels.statevector.circuits import Instruction
from kernels.statevector.states import random_state

pytestmark = pytest.mark.skipif(not cs.AVAILABLE, reason=cs.REASON)
N = 5

NAMED = [  # (instruction, the class of the Cirq gate it must become)
    *[(circuits.gate(g, 3), c) for g, c in zip("XYZHST", ("_PauliX", "_PauliY", "_PauliZ",
                                                            "HPowGate", "ZPowGate", "ZPowGate"))],
    *[(circuits.gate(g, 4, theta=-2.1), c) for g, c in (("Rx", "Rx"), ("Ry", "Ry"),
                                                         ("Rz", "Rz"), ("phase", "ZPowGate"))],
    (circuits.cnot(4, 1), "CXPowGate"),
    (circuits.cz(2, 0), "CZPowGate"),
    (circuits.toffoli(4, 0, 2), "CCXPowGate"),
    (circuits.swap(3, 1), "SwapPowGate"),
    (circuits.gate("phase", 1, ctrl=(3,), theta=0.4), "CZPowGate"),
    # other controls: the named gate controlled by them (Cirq's ControlledGate)
    (circuits.gate("X", 2, ctrl=(0,), ctrl_vals=(0,)), "ControlledGate"),
    (circuits.gate("Z", 2, ctrl=(0, 4), ctrl_vals=(1, 0)), "ControlledGate"),
    (circuits.gate("Rx", 2, ctrl=(1,), theta=0.3), "ControlledGate"),
    (Instruction("SWAP", gates.SWAP, (0, 4), (2,), (0,)), "ControlledGate"),
    # the name is trusted only with its parameters: otherwise the matrix runs
    (Instruction("Rz", gates.Rz(0.5), (3,)), "MatrixGate"),
    (circuits.dense(gates.random_unitary(3, np.random.default_rng(0)), 4, 0, 2), "MatrixGate"),
]


@pytest.mark.parametrize("precision", cs.PRECISIONS)
@pytest.mark.parametrize("inst, cls", NAMED, ids=lambda x: str(getattr(x, "name", x)))
def test_named_gates_are_cirqs_own_and_match_reference(inst, cls, precision):
    (op,) = cs.gate(inst).get(N)
    assert type(op.gate).__name__ == cls
    state = random_state(N, np.random.default_rng(1)).astype(precision)
    expected = inst.apply(naive.apply, state.astype(np.complex128))
    got = cs.to_numpy(cs.run(cs.from_numpy(state), cs.gate(inst)))
    assert got.dtype == np.dtype(precision)
    np.testing.assert_allclose(got, expected, atol=1e-12 if precision == "complex128" else 2e-6)


def test_our_qubit_q_is_line_qubit_n_minus_1_minus_q():
    """Cirq is big-endian over LineQubit 0..n-1: our qubit 0 is the last LineQubit."""
    import cirq
    (op,) = cs.gate(circuits.cnot(0, 3)).get(N)
    assert op.qubits == (cirq.LineQubit(N - 1), cirq.LineQubit(N - 4))
    s = cs.from_numpy(np.eye(1 << N, dtype=np.complex128)[0])
    cirq.act_on(cirq.X(cirq.LineQubit(N - 1)), s)
    assert np.argmax(np.abs(cs.to_numpy(s))) == 1


def test_circuits_are_their_operations_in_order_built_once():
    circ = circuits.qft(N)
    program = cs.circuit(circ, N)
    ops = program.get(N)
    assert len(ops) == len(circ) and program.get(N) is ops
    assert [type(op.gate).__name__ for op in ops[:2]] == ["HPowGate", "CZPowGate"]


def test_run_updates_the_simulation_state_in_place_and_from_numpy_copies():
    state = random_state(N, np.random.default_rng(2))
    s = cs.from_numpy(state)
    before = state.copy()
    assert cs.run(s, cs.gate(circuits.gate("H", 1))) is s
    np.testing.assert_array_equal(state, before)  # the caller's vector is not Cirq's
    out = cs.to_numpy(s)
    out[:] = 0  # a new array: Cirq's state is untouched
    assert np.abs(cs.to_numpy(s)).max() > 0


def test_complex64_is_single_precision():
    n = 8
    state = random_state(n, np.random.default_rng(1))
    program = cs.circuit(circuits.qcbm(n, np.random.default_rng(2), depth=5), n)
    out = {}
    for dtype in (np.complex128, np.complex64):
        s = cs.from_numpy(state.astype(dtype))
        cs.run(s, program)
        assert s.target_tensor.dtype == dtype
        out[dtype] = cs.to_numpy(s)
    err = np.max(np.abs(out[np.complex64] - out[np.complex128]))
    assert 1e-9 < err < 1e-4  # rounded like single precision, not computed in double
