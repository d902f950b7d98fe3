"""What the qiskit-aer adapter promises beyond the shared contract (test_simulators.py):
its thread setting reaches Aer, run completes AerState's buffered work, fusion is Aer's
default for circuits and absent for single gates, and the named controlled gates it adds
(u, mcu, mcswap, X around |0> controls) act like their matrices."""

import numpy as np
import pytest

from adapters import qiskit_aer_sim as qa
from kernels.statevector import circuits, naive
from kernels.statevector.circuits import Instruction
from kernels.statevector.states import random_state

pytestmark = pytest.mark.skipif(not qa.AVAILABLE, reason=qa.REASON)


def _metadata(state):
    return state.aer.last_result()["metadata"]


def test_threads_reach_aer():
    state = random_state(4, np.random.default_rng(0))
    try:
        for k in (2, 1):
            qa.set_threads(k)
            assert qa.threads() == k
            s = qa.from_numpy(state)
            qa.run(s, qa.gate(circuits.gate("H", 0)))
            assert _metadata(s)["parallel_state_update"] == k
    finally:
        qa.set_threads(1)
    with pytest.raises(ValueError):
        qa.set_threads(0)


def test_run_flushes_the_buffered_operations():
    state = random_state(3, np.random.default_rng(1))
    s = qa.from_numpy(state)
    s.aer.apply_x(0)  # buffered by AerState, not yet applied
    qa.run(s, qa.gate(circuits.gate("H", 1)))
    assert _metadata(s)["fusion"]["enabled"] is True  # last_result exists: flushed


def test_fusion_on_circuits_not_single_gates():
    n = 16  # over Aer's fusion threshold (14)
    state = np.zeros(1 << n, dtype=np.complex128)
    state[0] = 1
    s = qa.from_numpy(state)
    qa.run(s, qa.gate(circuits.gate("H", n - 1)))
    assert _metadata(s)["fusion"]["applied"] is False
    qa.run(s, qa.circuit(circuits.qcbm(n, np.random.default_rng(0), depth=2), n))
    assert _metadata(s)["fusion"]["applied"] is True


def test_single_gates_with_zero_controls_are_not_fused():
    """x, cx, x on qubits over Aer's fusion threshold: fused in one flush, so gate()
    flushes between them (and still applies the gate)."""
    n = 16
    state = random_state(n, np.random.default_rng(4))
    inst = circuits.gate("X", 15, ctrl=(0,), ctrl_vals=(0,))
    program = qa.gate(inst)
    assert [method for method, _ in program] == ["apply_x", "flush", "apply_cx", "flush",
                                                 "apply_x"]
    s = qa.from_numpy(state)
    qa.run(s, program)
    assert _metadata(s)["fusion"]["applied"] is False
    expected = state.reshape(2, -1, 2).copy()  # axes: qubit 15, qubits 1..14, qubit 0
    expected[:, :, 0] = expected[::-1, :, 0]
    np.testing.assert_allclose(qa.to_numpy(s), expected.ravel(), atol=1e-12)
    s = qa.from_numpy(state)
    qa.run(s, qa.circuit([inst], n))  # a circuit: Aer's default fusion
    assert _metadata(s)["fusion"]["applied"] is True


NAMED = [  # (instruction, the AerState methods it becomes)
    (circuits.gate("H", 2), ["apply_h"]),
    (circuits.gate("Y", 0, ctrl=(2,)), ["apply_cy"]),
    (circuits.gate("Y", 1, ctrl=(2, 0)), ["apply_mcy"]),
    (circuits.gate("Z", 1, ctrl=(2, 0)), ["apply_mcz"]),
    (circuits.gate("H", 1, ctrl=(2,)), ["apply_mcu"]),
    (circuits.gate("Rx", 0, ctrl=(2,), theta=0.7), ["apply_mcu"]),
    (circuits.gate("Ry", 2, ctrl=(1, 0), theta=-1.3), ["apply_mcu"]),
    (circuits.gate("Rz", 1, ctrl=(0,), theta=2.1), ["apply_mcu"]),
    (circuits.gate("S", 1, ctrl=(0,)), ["apply_mcphase"]),
    (circuits.gate("phase", 1, theta=0.9), ["apply_mcphase"]),
    (circuits.gate("Rx", 2, theta=0.4), ["apply_u"]),
    (circuits.gate("Ry", 2, theta=-2.4), ["apply_u"]),
    (circuits.gate("Rz", 2, theta=0.4), ["apply_mcu"]),
    (Instruction("SWAP", circuits.swap(0, 2).matrix, (2, 0), (1,), (1,)), ["apply_mcswap"]),
    # controls on |0>: X around the named gate
    (circuits.gate("X", 1, ctrl=(0,), ctrl_vals=(0,)), ["apply_x", "apply_cx", "apply_x"]),
    (circuits.gate("Rz", 1, ctrl=(0, 2), ctrl_vals=(1, 0), theta=0.3),
     ["apply_x", "apply_mcu", "apply_x"]),
    # no name: the matrix, with a multiplexer for any controls
    (circuits.gate("Rx", 1, theta=0.3)._replace(params=()), ["apply_unitary"]),
    (Instruction("dense", circuits.gate("Ry", 0, theta=1.1).matrix, (1,), (0, 2), (0, 1)),
     ["apply_multiplexer"]),
]


@pytest.mark.parametrize("inst, ops", NAMED, ids=[f"{i.name}-{'-'.join(o)}" for i, o in NAMED])
def test_named_gates(inst, ops):
    program = qa.gate(inst)
    assert [method for method, _ in program if method != "flush"] == ops
    state = random_state(3, np.random.default_rng(2))
    expected = naive.apply(state.copy(), inst.matrix, inst.locs, inst.ctrl_locs,
                           inst.ctrl_vals or None)
    s = qa.from_numpy(state)
    qa.run(s, program)
    np.testing.assert_allclose(qa.to_numpy(s), expected, atol=1e-12)


def test_unitary_bit_order():
    """bit j of an apply_unitary matrix is its qubits[j]: CNOT controlled by bit 0 of the
    matrix index, put on qubits (2, 0), is controlled by qubit 2."""
    cnot_bit0 = np.array([[1, 0, 0, 0], [0, 0, 0, 1], [0, 0, 1, 0], [0, 1, 0, 0]])
    state = np.zeros(8, dtype=np.complex128)
    state[0b100] = 1  # qubit 2 set
    s = qa.from_numpy(state)
    qa.run(s, qa.gate(circuits.dense(cnot_bit0, 2, 0)))
    assert abs(qa.to_numpy(s)[0b101]) == pytest.approx(1)


def test_to_numpy_is_a_copy_and_the_state_goes_on():
    state = random_state(3, np.random.default_rng(3))
    s = qa.from_numpy(state)
    out = qa.to_numpy(s)
    out[:] = 0
    np.testing.assert_array_equal(qa.to_numpy(s), state)
    qa.run(s, qa.gate(circuits.gate("X", 0)))
    np.testing.assert_allclose(qa.to_numpy(s), state.reshape(4, 2)[:, ::-1].ravel())
