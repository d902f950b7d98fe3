"""What the qulacs adapter promises beyond the shared contract (test_simulators.py checks
it against the reference, test_circuit_gradients.py its gradients on the QCBM): qulacs's
own named gates, its thread count, gradients of controlled rotations and phases through
its parametric gates with its RX sign, and being unavailable without qulacs."""

import importlib.util
import sys

import numpy as np
import pytest

from adapters.simulators import qulacs_sim as qs
from kernels import variational
from kernels.statevector import circuits, gates, naive
from kernels.statevector.circuits import Instruction
from kernels.variational import Problem, Slot

needs_qulacs = pytest.mark.skipif(not qs.AVAILABLE, reason=qs.REASON)
if qs.AVAILABLE:
    from adapters.simulators import _qulacs_gradients as qg


def random_state(n, rng):
    return rng.standard_normal(1 << n) + 1j * rng.standard_normal(1 << n)


def through_qulacs(state, gate_or_circuit):
    return qs.to_numpy(qs.run(qs.from_numpy(state), gate_or_circuit))


NAMED = [  # (instruction, the qulacs gate it must become)
    *[(circuits.gate(g, 3), g) for g in "XYZHST"],
    *[(circuits.gate(g, 4, theta=t), f"{g[1].upper()}-rotation")
      for g in ("Rx", "Ry", "Rz") for t in (0.7, -2.1)],
    (circuits.gate("phase", 0, theta=0.9), "DenseMatrix"),  # qulacs's U1 is a matrix gate
    (circuits.cnot(4, 1), "CNOT"),
    (circuits.cnot(0, 3), "CNOT"),
    (circuits.cz(2, 0), "CZ"),
    (circuits.toffoli(4, 0, 2), "DenseMatrix"),  # so is its TOFFOLI
    (circuits.swap(3, 1), "SWAP"),
    (circuits.gate("phase", 1, ctrl=(3,), theta=np.pi / 4), "DenseMatrix"),  # QFT's
    # not recognised with these controls: the dense fallback
    (circuits.gate("X", 2, ctrl=(0,), ctrl_vals=(0,)), "DenseMatrix"),
    (circuits.gate("Z", 2, ctrl=(0, 4), ctrl_vals=(1, 0)), "DenseMatrix"),
    (circuits.gate("Rx", 2, ctrl=(1,), theta=0.3), "DenseMatrix"),
    (Instruction("SWAP", gates.SWAP, (0, 4), (2,), (1,)), "DenseMatrix"),
    (Instruction("Rz", gates.Rz(0.5), (3,)), "DenseMatrix"),  # no params: use the matrix
]


@needs_qulacs
@pytest.mark.parametrize("inst, qulacs_name", NAMED, ids=lambda x: str(getattr(x, "name", x)))
def test_named_gates_match_reference(inst, qulacs_name):
    state = random_state(5, np.random.default_rng(1))
    g = qs.gate(inst)
    assert g.get(5).get_name() == qulacs_name
    expected = inst.apply(naive.apply, state.copy())
    np.testing.assert_allclose(through_qulacs(state, g), expected, atol=1e-12)


@needs_qulacs
def test_apply_refuses_other_dtypes():
    with pytest.raises(NotImplementedError):
        qs.apply(np.ones(4), gates.X, (0,))


@needs_qulacs
def test_set_threads_keeps_results():
    # 14 qubits: above the 2**13 amplitudes where qulacs starts to run in parallel
    n, rng = 14, np.random.default_rng(3)
    circ, state = qs.circuit(circuits.qcbm(n, rng), n), random_state(n, rng)
    original = qs.threads()
    out = {}
    try:
        for k in (1, 2, 1):
            qs.set_threads(k)
            assert qs.threads() == k
            out[k] = through_qulacs(state, circ)
    finally:
        qs.set_threads(original)
    np.testing.assert_allclose(out[1], out[2], atol=1e-12)
    with pytest.raises(ValueError):
        qs.set_threads(0)


@needs_qulacs
def test_version():
    assert qs.REASON == f"qulacs {qs.version()}"
    assert qs.sync() is None


def test_missing_qulacs_makes_it_unavailable(monkeypatch):
    """A fresh copy of the adapter, imported while qulacs cannot be: it imports, reports
    why, and every function names the reason."""
    for name in ("qulacs", "qulacs.gate", "qulacs_core"):
        monkeypatch.setitem(sys.modules, name, None)
    spec = importlib.util.spec_from_file_location(
        "adapters.simulators._qulacs_sim_copy", qs.__file__)
    copy = importlib.util.module_from_spec(spec)
    monkeypatch.setitem(sys.modules, spec.name, copy)  # apply finds its module there
    spec.loader.exec_module(copy)
    assert copy.AVAILABLE is False and copy.REASON == "qulacs is not installed"
    for call in (copy.version, lambda: copy.set_threads(1), lambda: copy.circuit([], 1),
                 lambda: copy.gate(circuits.gate("X", 0)),
                 lambda: copy.from_numpy(np.ones(2, complex)),
                 lambda: copy.apply(np.ones(2, complex), gates.X, (0,)),
                 lambda: copy.prepare_gradient(variational.qcbm_energy(2, 1)),
                 lambda: copy.prepare_energy(variational.qcbm_energy(2, 1)),
                 lambda: copy.circuit_gradient(variational.qcbm_energy(2, 1), np.zeros(5))):
        with pytest.raises(RuntimeError, match="qulacs is not installed"):
            call()


# --- circuit gradients -----------------------------------------------------------------

@needs_qulacs
def test_controlled_phase_is_three_pauli_rotations():
    """phase(t) on 1 controlled by 0 = exp(i t |11><11|) = exp(-i t G / 2) with
    G = (Z_1 + Z_0 - Z_0 Z_1 - I) / 2; the identity (a global phase) is dropped."""
    terms = qg.rotation_terms(Slot("phase", (1,), (0,), (1,), 0))
    assert sorted((c, sorted(w.items())) for c, w in terms) == [
        (-0.5, [(0, "Z"), (1, "Z")]), (0.5, [(0, "Z")]), (0.5, [(1, "Z")])]
    # a control on |0> flips the sign of every term with its Z
    terms = qg.rotation_terms(Slot("Rx", (2,), (0,), (0,), 0))
    assert sorted((c, sorted(w.items())) for c, w in terms) == [
        (0.5, [(0, "Z"), (2, "X")]), (0.5, [(2, "X")])]


@needs_qulacs
def test_controlled_rotations_and_phases_differentiate_like_ours():
    """Every rotation with 0, 1 (on |1> or |0>) and 2 controls, a shared parameter, fixed
    gates with controls on |0> (DenseMatrix, undone by backprop), and an observable that
    changes under any relabelling of the qubits."""
    slots, k = [Slot("H", (q,)) for q in range(4)], 0
    for name in ("Rx", "Ry", "Rz", "phase"):
        for target, ctrls, vals in ((2, (), ()), (0, (1,), (1,)), (1, (3,), (0,)),
                                    (3, (0, 2), (0, 1))):
            slots += [Slot(name, (target,), ctrls, vals, k),
                      Slot("X", ((target + 3) % 4,), (target,))]
            k += 1
    slots += [Slot("S", (2,), (0,), (0,)), Slot("Y", (1,), (2, 3)), Slot("Rz", (0,), param=5)]
    observable = [(1.1, {0: "Z", 3: "Y"}), (-0.6, {2: "X"}), (0.3, {1: "Z"}), (2.0, {})]
    problem = Problem(4, slots, observable, np.random.default_rng(5).uniform(-3, 3, k))
    grad, energy = qs.prepare_gradient(problem), qs.prepare_energy(problem)
    for theta in (problem.theta0, problem.theta0[::-1].copy()):
        np.testing.assert_allclose(grad(theta), variational.GRADIENTS["adjoint"](problem, theta),
                                   atol=1e-12, rtol=0)
        assert abs(energy(theta) - problem.energy(theta)) < 1e-12


@needs_qulacs
def test_rx_sign_is_ours_not_qulacss():
    """qulacs's RX(t) is exp(+i t X/2): the adapter passes -t and flips the gradient, so
    <Y> after our Rx(t)|0> is -sin t and its derivative -cos t."""
    problem = Problem(1, [Slot("Rx", (0,), param=0)], [(1.0, {0: "Y"})], [0.0])
    circuit = qg.Backprop(problem, qs._gate).circuit
    assert circuit.get_gate(0).get_name() == "ParametricRX"
    t = np.array([0.3])
    assert abs(qs.prepare_energy(problem)(t) + np.sin(0.3)) < 1e-14
    np.testing.assert_allclose(qs.prepare_gradient(problem)(t), [-np.cos(0.3)], atol=1e-14)


@needs_qulacs
def test_a_rotation_qulacs_cannot_keep_parametric_is_named():
    with pytest.raises(NotImplementedError, match="no parametric form of 'Rxx'"):
        qg.rotation_terms(Slot("Rxx", (0,), param=0))
