"""What the qiskit-aer adapter promises beyond the shared contract (test_simulators.py):
its thread setting reaches Aer, run completes AerState's buffered work, fusion is Aer's
default for circuits and absent for single gates, the named controlled gates it adds
(u, mcu, mcswap, X around |0> controls) act like their matrices, and, beyond
test_circuit_gradients, its qiskit-algorithms gradient: present only with that package,
conventions, qubit order, controlled rotations (through transpile), refusals."""

import importlib.util
import sys

import numpy as np
import pytest

from adapters.simulators import qiskit_aer_sim as qa
from kernels import variational
from kernels.statevector import circuits, naive
from kernels.statevector.circuits import Instruction
from kernels.statevector.states import random_state
from kernels.variational import Problem, Slot

pytestmark = pytest.mark.skipif(not qa.AVAILABLE, reason=qa.REASON)
if qa.AVAILABLE and qa._HAS_ALGORITHMS:
    from adapters.simulators import _qiskit_gradients as qg


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
    assert [method for method, _ in program.get(n)] == ["apply_x", "flush", "apply_cx",
                                                        "flush", "apply_x"]
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
    assert [method for method, _ in program.get(3) if method != "flush"] == ops
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


# --- gradients of variational circuits (qiskit-algorithms, not Aer) ----------------------

needs_algorithms = pytest.mark.skipif(not qa._HAS_ALGORITHMS, reason=qa._ALGORITHMS_REASON)


def test_gradient_methods_only_with_qiskit_algorithms(monkeypatch):
    """A second copy of the adapter, loaded while qiskit_algorithms cannot be imported,
    offers no gradient and says why when asked for one."""
    assert hasattr(qa, "GRADIENT_METHODS") == qa._HAS_ALGORITHMS
    monkeypatch.setitem(sys.modules, "qiskit_algorithms", None)  # import raises
    spec = importlib.util.spec_from_file_location(
        "adapters.simulators._qiskit_aer_sim_copy", qa.__file__)
    copy = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(copy)
    assert copy.AVAILABLE and not hasattr(copy, "GRADIENT_METHODS")
    with pytest.raises(RuntimeError, match="qiskit_algorithms is not installed"):
        copy.prepare_gradient(variational.qcbm_energy(2, 1))


def _controlled_problem():
    """Rotations under one and two controls valued 1 and 0 (qiskit's ctrl_state), fixed
    controlled gates, an angle shared by a controlled and a plain rotation (0), one no gate
    uses (3), an identity term."""
    slots = [Slot("H", (0,)), Slot("H", (3,)), Slot("Rx", (1,), (0,), (0,), 0),
             Slot("Rz", (1,), (), (), 0), Slot("Ry", (2,), (0, 3), (1, 0), 1),
             Slot("X", (3,), (1, 2), (0, 1)), Slot("phase", (0,), (2, 1), (1, 1), 2),
             Slot("Rz", (3,), (2,), (1,), 4), Slot("Y", (0,), (3,)), Slot("T", (2,)),
             Slot("S", (1,), (0,), (0,)), Slot("Rx", (2,), (), (), 4)]
    observable = [(0.6, {0: "X", 3: "Z"}), (-0.4, {2: "Y", 1: "X"}), (0.9, {3: "Y"}), (0.1, {})]
    return Problem(4, slots, observable, np.random.default_rng(4).uniform(-3, 3, 5))


@needs_algorithms
def test_the_translated_circuit_is_ours():
    """The ParameterVector circuit bound at theta gives our amplitudes in qiskit's own
    Statevector: rx, ry, rz, p and ctrl_state as ours, qubit q as bit q."""
    from qiskit.quantum_info import Statevector

    problem = _controlled_problem()
    circ = qg.circuit(problem)
    bound = circ.assign_parameters(problem.theta0[qg._angles(circ)])
    np.testing.assert_allclose(Statevector(bound).data, problem.state(problem.theta0),
                               atol=1e-13)


@needs_algorithms
def test_gradient_of_controlled_shared_and_unused_angles():
    problem = _controlled_problem()
    for theta in (problem.theta0, -problem.theta0):
        want = variational.GRADIENTS["adjoint"](problem, theta)
        got = qa.prepare_gradient(problem)(theta)
        assert got[3] == 0 and want[0] != 0
        np.testing.assert_allclose(got, want, atol=1e-12, rtol=0)
        assert qa.prepare_energy(problem)(theta) == pytest.approx(problem.energy(theta),
                                                                  abs=1e-12)


@needs_algorithms
def test_controlled_rotations_still_need_transpiling():
    """qiskit-algorithms 0.4.0 under qiskit 2.x drops a controlled rotation's angle
    (ControlledGate.is_parameterized() is False): KeyError. When this test fails, the
    workaround in _qiskit_gradients (transpile first) can go."""
    from qiskit_algorithms.gradients import ReverseEstimatorGradient

    problem = Problem(2, [Slot("H", (0,)), Slot("Ry", (1,), (0,), (1,), 0)],
                      [(1.0, {1: "X"})], [0.4])
    circ = qg.circuit(problem)
    with pytest.raises(KeyError):
        ReverseEstimatorGradient().run([circ], [qg.observable(problem)], [[0.4]]).result()
    assert qg._differentiable(problem, circ) is not circ
    plain = variational.qcbm_energy(3, 2)
    assert qg._differentiable(plain, qg.circuit(plain)).count_ops().keys() == {"rx", "rz", "cx"}


@needs_algorithms
@pytest.mark.parametrize("t", [0.3, -2.0])
def test_qubit_order_with_an_asymmetric_observable(t):
    """Rz(t) on |+> of qubit 0, X on qubit 2: <Y0 Z2> - 0.5 <Z1> = -sin t - 0.5; qubits 0
    and 2 swapped would give a constant."""
    problem = Problem(3, [Slot("H", (0,)), Slot("Rz", (0,), (), (), 0), Slot("X", (2,))],
                      [(1.0, {0: "Y", 2: "Z"}), (-0.5, {1: "Z"})], [t])
    assert qa.prepare_energy(problem)([t]) == pytest.approx(-np.sin(t) - 0.5, abs=1e-14)
    np.testing.assert_allclose(qa.prepare_gradient(problem)([t]), [-np.cos(t)], atol=1e-14)


@needs_algorithms
def test_a_gate_on_two_targets_is_refused():
    problem = Problem(2, [Slot("Ry", (0, 1), (), (), 0)], [(1.0, {0: "Z"})], [0.1])
    with pytest.raises(NotImplementedError, match=r"Ry acts on one qubit, not \(0, 1\)"):
        qa.prepare_energy(problem)
