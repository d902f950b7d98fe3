"""What the lightning adapter promises beyond the shared contract (test_simulators.py
checks it against the reference, test_peer_specifics.py the common named gates,
test_circuit_gradients.py its gradients on the QCBM): Lightning's own (controlled) gates
for every named instruction, its wire order, a real single-precision state, plain copies
in and out, and gradients of any circuit of named gates in our qubit order."""

import importlib.util
import sys
from types import SimpleNamespace

import numpy as np
import pytest

from adapters.simulators import lightning_sim as ls
from kernels import variational
from kernels.statevector import circuits, gates, naive
from kernels.statevector.circuits import Instruction
from kernels.statevector.states import random_state
from kernels.variational import Problem, Slot

pytestmark = pytest.mark.skipif(not ls.AVAILABLE, reason=ls.REASON)
if ls.AVAILABLE:
    from adapters.simulators import _lightning_gradients as lg
N = 5

NAMED = [  # (instruction, the Lightning method it must become)
    *[(circuits.gate(g, 3), m) for g, m in zip("XYZHST", ("PauliX", "PauliY", "PauliZ",
                                                            "Hadamard", "S", "T"))],
    *[(circuits.gate(g, 4, theta=-2.1), m) for g, m in (("Rx", "RX"), ("Ry", "RY"),
                                                          ("Rz", "RZ"), ("phase", "PhaseShift"))],
    (circuits.cnot(4, 1), "CNOT"),
    (circuits.gate("Y", 0, ctrl=(2,)), "CY"),
    (circuits.cz(2, 0), "CZ"),
    (circuits.toffoli(4, 0, 2), "Toffoli"),
    (circuits.swap(3, 1), "SWAP"),
    (Instruction("SWAP", gates.SWAP, (0, 4), (2,), (1,)), "CSWAP"),
    *[(circuits.gate(g, 2, ctrl=(1,), theta=0.3), m) for g, m in (
        ("Rx", "CRX"), ("Ry", "CRY"), ("Rz", "CRZ"), ("phase", "ControlledPhaseShift"))],
    # controls on |0>, or more of them: the same method's controlled form
    (circuits.gate("X", 2, ctrl=(0,), ctrl_vals=(0,)), "PauliX"),
    (circuits.gate("Z", 2, ctrl=(0, 4), ctrl_vals=(1, 0)), "PauliZ"),
    (circuits.gate("H", 1, ctrl=(0, 3, 4)), "Hadamard"),
    (Instruction("SWAP", gates.SWAP, (0, 4), (2, 1), (0, 1)), "SWAP"),
    # the name is trusted only with its parameters: otherwise the matrix runs
    (Instruction("Rz", gates.Rz(0.5), (3,)), "applyMatrix"),
    (Instruction("Rx", gates.Rx(0.5), (3,), (1,), (1,)), "applyControlledMatrix"),
    (circuits.dense(gates.random_unitary(3, np.random.default_rng(0)), 4, 0, 2), "applyMatrix"),
]


@pytest.mark.parametrize("precision", ls.PRECISIONS)
@pytest.mark.parametrize("inst, method", NAMED, ids=lambda x: str(getattr(x, "name", x)))
def test_named_gates_are_lightnings_own_and_match_reference(inst, method, precision):
    dtype = np.dtype(precision)
    assert ls.gate(inst).get(N, ls._CLASSES[dtype])[0][0] == method
    state = random_state(N, np.random.default_rng(1)).astype(dtype)
    expected = inst.apply(naive.apply, state.astype(np.complex128))
    sv = ls.from_numpy(state)
    ls.run(sv, ls.gate(inst))
    got = ls.to_numpy(sv)
    assert got.dtype == dtype
    np.testing.assert_allclose(got, expected, atol=1e-12 if dtype == np.complex128 else 2e-6)


def test_our_qubit_q_is_wire_n_minus_1_minus_q():
    """Lightning is big-endian; amplitudes are shared as they are, gates renumbered."""
    sv = ls.from_numpy(np.eye(1 << N, dtype=np.complex128)[0])
    sv.PauliX([N - 1], False, [])  # Lightning's last wire is our qubit 0
    assert np.argmax(np.abs(ls.to_numpy(sv))) == 1
    ls.run(sv, ls.gate(circuits.gate("X", 3)))
    assert np.argmax(np.abs(ls.to_numpy(sv))) == 1 + 8


def test_complex64_is_single_precision():
    n = 8
    state = random_state(n, np.random.default_rng(1))
    circ = ls.circuit(circuits.qcbm(n, np.random.default_rng(2), depth=5), n)
    out = {}
    for precision in ls.PRECISIONS:
        sv = ls.from_numpy(state.astype(precision))
        assert type(sv).__name__ == {"complex128": "StateVectorC128",
                                     "complex64": "StateVectorC64"}[precision]
        ls.run(sv, circ)
        out[precision] = ls.to_numpy(sv)
    err = np.max(np.abs(out["complex64"] - out["complex128"]))
    assert 1e-9 < err < 1e-4  # rounded like single precision, not computed in double


def test_states_are_copies():
    state = random_state(N, np.random.default_rng(4))
    before = state.copy()
    sv = ls.from_numpy(state)
    ls.run(sv, ls.gate(circuits.gate("H", 0)))
    np.testing.assert_array_equal(state, before)
    out = ls.to_numpy(sv)
    out[:] = 0
    assert np.abs(ls.to_numpy(sv)).max() > 0


def test_one_program_runs_both_precisions_and_sizes():
    prog = ls.gate(circuits.cnot(0, 2))
    for n in (3, 6):
        for precision in ls.PRECISIONS:
            state = random_state(n, np.random.default_rng(n)).astype(precision)
            sv = ls.from_numpy(state)
            ls.run(sv, prog)
            expected = circuits.cnot(0, 2).apply(naive.apply, state.astype(np.complex128))
            np.testing.assert_allclose(ls.to_numpy(sv), expected, atol=2e-6)
    with pytest.raises(ValueError):
        ls.run(ls.from_numpy(random_state(2, np.random.default_rng(0))), prog)


def test_no_thread_control_and_version():
    # the wheel's gate kernels are serial: there is no thread count to set (see SETTINGS)
    assert not hasattr(ls, "set_threads")
    assert ls.REASON == f"pennylane_lightning {ls.version()}"
    assert ls.sync() is None


# --- circuit gradients -----------------------------------------------------------------

def every_gate_problem():
    """Every slot kind Lightning names differently: CNOT, CY, Toffoli, CRX/CRY/CRZ,
    ControlledPhaseShift, controls on |0> and several controls (the methods' controlled
    forms), a parameter shared by two gates, and an observable no qubit relabelling leaves
    alone (the ring's would hide a reversed wire order)."""
    slots, k = [Slot("H", (q,)) for q in range(4)], 0
    for name in ("Rx", "Ry", "Rz", "phase"):
        for target, ctrls, vals in ((0, (), ()), (1, (3,), (1,)), (3, (0,), (0,)),
                                    (2, (0, 3), (1, 0))):
            slots += [Slot(name, (target,), ctrls, vals, k),
                      Slot("X", ((target + 1) % 4,), (target,))]
            k += 1
    slots += [Slot(g, (2,), (1,), (0,)) for g in "YZST"]
    slots += [Slot("X", (3,), (0, 1)), Slot("Y", (0,), (2,)), Slot("Ry", (1,), param=0)]
    observable = [(0.7, {0: "Z", 1: "Z"}), (-1.3, {3: "X"}), (0.4, {2: "Y", 0: "X"}),
                  (0.9, {1: "Y"}), (0.25, {})]
    return Problem(4, slots, observable, np.random.default_rng(3).uniform(-3, 3, k))


@pytest.mark.parametrize("method", ls.GRADIENT_METHODS)
def test_every_gate_kind_differentiates_like_ours(method):
    problem = every_gate_problem()
    grad, energy = ls.prepare_gradient(problem, method), ls.prepare_energy(problem, method)
    for theta in (problem.theta0, -problem.theta0[::-1]):
        # param_shift's two-term rule fails for controlled rotations: our adjoint is exact
        np.testing.assert_allclose(grad(theta), variational.GRADIENTS["adjoint"](problem, theta),
                                   atol=1e-12, rtol=0)
        assert abs(energy(theta) - problem.energy(theta)) < 1e-12


def test_adjoint_state_is_ours_amplitude_for_amplitude():
    """The renumbering (our qubit q = wire n-1-q) checked on the state itself."""
    problem = every_gate_problem()
    adjoint = lg.Adjoint(problem, ls._operation)
    assert {"CNOT", "CY", "Toffoli", "CRX", "CRY", "CRZ", "ControlledPhaseShift", "RX",
            "PhaseShift", "S"} <= set(adjoint.ops_lists[0])  # the names it differentiates
    adjoint.forward(problem.theta0)
    np.testing.assert_allclose(ls.to_numpy(adjoint.sv), problem.state(problem.theta0),
                               atol=1e-13)


@pytest.mark.parametrize("method", ls.GRADIENT_METHODS)
def test_rx_sign(method):
    """<Y> after Rx(t)|0> = exp(-i t X/2)|0> is -sin t (the opposite sign convention
    would give +sin t)."""
    problem = Problem(2, [Slot("Rx", (1,), param=0)], [(1.0, {1: "Y"})], [0.0])
    t = np.array([0.3])
    assert abs(ls.prepare_energy(problem, method)(t) + np.sin(0.3)) < 1e-14
    np.testing.assert_allclose(ls.prepare_gradient(problem, method)(t), [-np.cos(0.3)],
                               atol=1e-14)


@pytest.mark.parametrize("method", ls.GRADIENT_METHODS)
def test_a_gate_without_a_lightning_name_is_refused(method):
    odd = SimpleNamespace(  # a gate the Slot vocabulary may grow, running as a matrix
        n=2, theta0=np.zeros(1), slots=(Slot("Rxx", (0,), param=0),), observable=[],
        circuit=lambda theta: [Instruction("Rxx", gates.Rx(0.0), (0,), params=(0.0,))],
        check=lambda theta: theta)
    with pytest.raises(NotImplementedError, match="'Rxx'"):
        ls.prepare_gradient(odd, method)


def test_missing_lightning_makes_gradients_unavailable(monkeypatch):
    monkeypatch.setitem(sys.modules, "pennylane_lightning", None)
    spec = importlib.util.spec_from_file_location(
        "adapters.simulators._lightning_sim_copy", ls.__file__)
    copy = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(copy)
    assert copy.AVAILABLE is False
    problem = variational.qcbm_energy(2, 1)
    for call in (copy.prepare_gradient, copy.prepare_energy,
                 lambda p: copy.circuit_gradient(p, p.theta0)):
        with pytest.raises(RuntimeError, match="pennylane_lightning is not installed"):
            call(problem)
