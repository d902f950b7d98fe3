"""What the mindquantum adapter promises beyond the shared contract (test_simulators.py
checks the amplitudes; test_peer_specifics the named gates, the norm check and complex64):
the X gates of controls on |0> inside the program, the norm tolerance, set_threads
reaching mindquantum's own OpenMP runtime, and, beyond test_circuit_gradients, its
gradient's conventions, qubit order, shared and unused angles and refusals."""

import numpy as np
import pytest

from adapters.simulators import mindquantum_sim as mq
from kernels import variational
from kernels.statevector import circuits
from kernels.statevector.states import random_state
from kernels.variational import Problem, Slot

pytestmark = pytest.mark.skipif(not mq.AVAILABLE, reason=mq.REASON)
if mq.AVAILABLE:
    from adapters.simulators import _mindquantum_gradients as mqg


def test_controls_on_zero_are_x_gates_in_the_program():
    program = mq.gate(circuits.gate("Z", 2, ctrl=(0, 4), ctrl_vals=(1, 0))).get(5)
    names = [type(g).__name__ for g in program]
    assert names == ["XGate", "ZGate", "XGate"]
    assert list(program[0].obj_qubits) == [4] and list(program[1].ctrl_qubits) == [0, 4]


@pytest.mark.parametrize("dtype, ok, refused", [(np.complex128, 1e-14, 1e-9),
                                                (np.complex64, 1e-8, 1e-5)])
def test_norm_tolerance(dtype, ok, refused):
    state = random_state(4, np.random.default_rng(0))
    out = mq.to_numpy(mq.from_numpy((state * (1 + ok)).astype(dtype)))
    assert out.dtype == dtype
    np.testing.assert_allclose(out, state, rtol=0, atol=1e-12 if dtype == np.complex128 else 1e-6)
    with pytest.raises(ValueError, match="normalises"):
        mq.from_numpy((state * (1 + refused)).astype(dtype))


def test_set_threads_reaches_mindquantums_openmp():
    before = mq.threads()
    libs = mq._openmp()
    assert libs and all("mindquantum" in lib.filepath for lib in libs)  # not torch's
    try:
        mq.set_threads(2)
        assert mq.threads() == 2
        assert all(lib.num_threads == 2 for lib in mq._openmp())
    finally:
        mq.set_threads(before)
    assert mq.threads() == before
    with pytest.raises(ValueError):
        mq.set_threads(0)


# --- gradients of variational circuits -------------------------------------------------

def _mixed_problem():
    """Every kind of slot: fixed gates with controls on |1> and |0>, controlled rotations,
    an angle shared by two gates (index 0), one no gate uses (4), an identity term."""
    slots = [Slot("H", (0,)), Slot("Ry", (1,), (0,), (1,), 0), Slot("Rx", (2,), (0, 1), (1, 0), 1),
             Slot("phase", (0,), (2,), (0,), 2), Slot("Rz", (1,), (), (), 0),
             Slot("X", (2,), (0, 1), (0, 1)), Slot("Rx", (0,), (), (), 5), Slot("S", (1,), (2,)),
             Slot("phase", (2,), (), (), 3), Slot("T", (0,)), Slot("Ry", (2,), (1,), (0,), 1)]
    observable = [(0.7, {0: "Z", 2: "X"}), (-0.3, {1: "Y"}), (0.5, {0: "X", 1: "Z", 2: "Y"}),
                  (0.25, {})]
    return Problem(3, slots, observable, np.random.default_rng(3).uniform(-3, 3, 6))


def test_the_translated_circuit_is_ours():
    """The named-parameter circuit, run by mqvector at theta, gives our amplitudes: RX, RY,
    RZ, PhaseShift and the controls as ours, qubit q as bit q."""
    problem = _mixed_problem()
    circ, angles = mqg.circuit(problem, mq._gates)
    assert sorted(angles) == [0, 1, 2, 3, 5]  # one name per angle used, 4 unused
    sim = mq.mindquantum.simulator.Simulator("mqvector", problem.n)
    sim.apply_circuit(circ, problem.theta0[angles])
    np.testing.assert_allclose(sim.get_qs(), problem.state(problem.theta0), atol=1e-13)


def test_gradient_of_shared_unused_and_controlled_angles():
    problem = _mixed_problem()
    want = variational.GRADIENTS["adjoint"](problem, problem.theta0)
    got = mq.prepare_gradient(problem)(problem.theta0)
    assert got[4] == 0 and want[0] != 0
    np.testing.assert_allclose(got, want, atol=1e-12, rtol=0)
    assert mq.prepare_energy(problem)(problem.theta0) == pytest.approx(
        problem.energy(problem.theta0), abs=1e-12)


@pytest.mark.parametrize("t", [0.3, -2.0])
def test_qubit_order_with_an_asymmetric_observable(t):
    """Ry(t) on qubit 0, X on qubit 2: <X0 Z2> + 0.3 <Z1> = -sin t + 0.3 (qubits 0 and 2
    swapped would give 0.3, a constant)."""
    problem = Problem(3, [Slot("Ry", (0,), (), (), 0), Slot("X", (2,))],
                      [(1.0, {0: "X", 2: "Z"}), (0.3, {1: "Z"})], [t])
    assert mq.prepare_energy(problem)([t]) == pytest.approx(-np.sin(t) + 0.3, abs=1e-14)
    np.testing.assert_allclose(mq.prepare_gradient(problem)([t]), [-np.cos(t)], atol=1e-14)


def test_a_gate_mindquantum_cannot_parameterise_is_refused():
    problem = Problem(2, [Slot("Rx", (0, 1), (), (), 0)], [(1.0, {0: "Z"})], [0.1])
    with pytest.raises(NotImplementedError, match=r"parameterised gate for Rx on qubits \(0, 1"):
        mq.prepare_gradient(problem)


def test_an_unknown_method_is_refused():
    with pytest.raises(ValueError, match="no gradient method 'reverse'"):
        mq.prepare_energy(variational.qcbm_energy(2, 1), "reverse")
