"""Every gradient method against an independent oracle: dense operators and the
analytic derivative of each gate (dRx/dt = -i/2 X Rx(t), ...), over seeded random
circuits with the awkward cases (controls on 0 and 1, shared angles, phase and Ry, Y in
the observable, two qubits), and the QCBM problem itself."""

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from kernels import variational
from kernels.statevector import circuits, gates, naive
from kernels.variational import Problem, Slot

DERIVATIVES = {"Rx": lambda t: -0.5j * gates.X @ gates.Rx(t),
               "Ry": lambda t: -0.5j * gates.Y @ gates.Ry(t),
               "Rz": lambda t: -0.5j * gates.Z @ gates.Rz(t),
               "phase": lambda t: np.diag([0, 1j * np.exp(1j * t)])}
TOLERANCE = {"finite": 1e-7}
FIXED = ("X", "Y", "Z", "H", "S", "T")


def oracle(problem, theta):
    """(energy, gradient) from dense 2**n x 2**n operators."""
    n = problem.n
    ops = [naive.dense_operator(n, i.matrix, i.locs, i.ctrl_locs, i.ctrl_vals)
           for i in problem.circuit(theta)]
    h = problem.hamiltonian()
    prefix = [np.eye(1 << n, dtype=complex)]
    for op in ops:
        prefix.append(op @ prefix[-1])
    psi = prefix[-1][:, 0]
    bra = np.conj(psi) @ h
    grad = np.zeros(problem.n_params)
    suffix = np.eye(1 << n, dtype=complex)
    for k in reversed(range(len(ops))):
        s = problem.slots[k]
        if s.param is not None:
            d = DERIVATIVES[s.name](theta[s.param])
            vals = s.ctrl_vals or (1,) * len(s.ctrl_locs)
            dop = (naive.dense_operator(n, d, s.locs, s.ctrl_locs, vals)
                   - naive.dense_operator(n, 0 * d, s.locs, s.ctrl_locs, vals))
            grad[s.param] += 2 * np.real(bra @ suffix @ dop @ prefix[k][:, 0])
        suffix = suffix @ ops[k]
    return float(np.real(bra @ psi)), grad


@settings(max_examples=40, deadline=None)
@given(problem=st.deferred(lambda: problems()))
def test_the_fused_state_is_the_circuits(problem):
    """problem.state runs prepared fixed gates and each run of rotations as one 2x2; it
    must be the gate-by-gate product of dense operators, in both precisions."""
    n = problem.n
    psi = np.zeros(1 << n, dtype=complex)
    psi[0] = 1
    for i in problem.circuit(problem.theta0):
        psi = naive.dense_operator(n, i.matrix, i.locs, i.ctrl_locs, i.ctrl_vals) @ psi
    np.testing.assert_allclose(problem.state(problem.theta0), psi, atol=1e-12, rtol=0)
    single = problem.state(problem.theta0, np.complex64)
    assert single.dtype == np.complex64
    np.testing.assert_allclose(single, psi, atol=2e-5, rtol=0)


@st.composite
def problems(draw):
    n = draw(st.integers(2, 4))
    n_params = draw(st.integers(1, 6))
    slots = []
    for _ in range(draw(st.integers(1, 12))):
        target = draw(st.integers(0, n - 1))
        others = [q for q in range(n) if q != target]
        ctrl = draw(st.lists(st.sampled_from(others), max_size=min(2, len(others)),
                             unique=True))
        vals = tuple(draw(st.lists(st.integers(0, 1), min_size=len(ctrl),
                                   max_size=len(ctrl))))
        if draw(st.booleans()):
            name, param = draw(st.sampled_from(list(DERIVATIVES))), draw(
                st.integers(0, n_params - 1))
        else:
            name, param = draw(st.sampled_from(FIXED)), None
        slots.append(Slot(name, (target,), tuple(ctrl), vals, param))
    # every parameter used at least once, so that n_params is what was drawn
    slots += [Slot("Ry", (p % n,), (), (), p) for p in range(n_params)]
    letters = st.sampled_from("XYZ")
    observable = [(draw(st.floats(-2, 2)),
                   draw(st.dictionaries(st.integers(0, n - 1), letters, min_size=1)))
                  for _ in range(draw(st.integers(1, 4)))]
    theta = np.array(draw(st.lists(st.floats(-7, 7), min_size=n_params, max_size=n_params)))
    return Problem(n, slots, observable, theta)


@pytest.mark.parametrize("method", list(variational.GRADIENTS))
@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(problem=problems())
def test_methods_match_the_dense_oracle(method, problem):
    energy, want = oracle(problem, problem.theta0)
    assert problem.energy(problem.theta0) == pytest.approx(energy, abs=1e-12)
    try:
        got = variational.GRADIENTS[method](problem, problem.theta0)
    except NotImplementedError as exc:  # only the two-term rule may refuse, and says why
        assert method == "param_shift" and "param_shift" in str(exc)
        assert any(s.ctrl_locs for s in problem.slots if s.param is not None) or len(
            [s for s in problem.slots if s.param is not None]) > problem.n_params
        return
    assert got.shape == problem.theta0.shape and got.dtype == np.float64
    np.testing.assert_allclose(got, want, atol=TOLERANCE.get(method, 1e-10), rtol=0)


@pytest.mark.parametrize("method", list(variational.GRADIENTS))
@pytest.mark.parametrize("n", [2, 5])
def test_qcbm_gradient(method, n):
    problem = variational.qcbm_energy(n, 3, np.random.default_rng(n))
    theta = np.random.default_rng(10 + n).uniform(-np.pi, np.pi, problem.n_params)
    _, want = oracle(problem, theta)
    got = variational.GRADIENTS[method](problem, theta)
    np.testing.assert_allclose(got, want, atol=TOLERANCE.get(method, 1e-10), rtol=0)


def test_qcbm_is_the_gate_benchmarks_ansatz_with_25n_angles():
    problem = variational.qcbm_energy(5, 9, np.random.default_rng(3))
    bench = circuits.qcbm(5, np.random.default_rng(3), 9)
    assert problem.n_params == 25 * 5
    got = problem.circuit(problem.theta0)
    assert [(i.name, i.locs, i.ctrl_locs) for i in got] == [
        (i.name, i.locs, i.ctrl_locs) for i in bench]
    for a, b in zip(got, bench):
        np.testing.assert_array_equal(a.matrix, b.matrix)
    assert len(problem.observable) == 10 and problem.observable[4] == (1.0, {4: "Z", 0: "Z"})


def test_the_adjoint_sweep_at_a_size_the_oracle_cannot_reach_agrees_with_param_shift():
    problem = variational.qcbm_energy(13, 1, np.random.default_rng(0))
    np.testing.assert_allclose(variational.GRADIENTS["adjoint"](problem, problem.theta0),
                               variational.GRADIENTS["param_shift"](problem, problem.theta0),
                               atol=1e-11, rtol=0)


@pytest.mark.parametrize("method", list(variational.GRADIENTS))
@pytest.mark.parametrize("theta", [np.zeros(3), np.zeros((2, 2)), np.array([0, np.nan]),
                                   np.array(["a", "b"])])
def test_bad_angles_are_refused(method, theta):
    problem = variational.qcbm_energy(2, 1)
    with pytest.raises(ValueError, match="theta"):
        variational.GRADIENTS[method](problem, theta)


@pytest.mark.parametrize("observable, message", [
    ([(1.0, {5: "Z"})], "qubit 5, out of range"),
    ([(1.0, {0: "W"})], "'W' on qubit 0"),
    ([(1j, {0: "Z"})], "finite real"),
    ([(1.0,)], "observable entries"),
])
def test_bad_observables_are_named(observable, message):
    with pytest.raises(ValueError, match=message):
        Problem(2, [Slot("Rx", (0,), (), (), 0)], observable, [0.1])


def test_a_fixed_gate_cannot_hold_a_parameter():
    with pytest.raises(ValueError, match="'H' has no angle"):
        Problem(2, [Slot("H", (0,), (), (), 0)], [(1.0, {0: "Z"})], [0.1])


@pytest.mark.parametrize("slot, message", [
    (Slot("Rx", (-1,), (), (), 0), r"qubits must be integers in \[0, 2\)"),
    (Slot("Rx", (2,), (), (), 0), r"qubits must be integers in \[0, 2\)"),
    (Slot("Rx", (0.0,), (), (), 0), "qubits must be integers"),
    (Slot("Rx", (), (), (), 0), "qubits must be integers"),
    (Slot("Rx", (0,), (0,), (), 0), "appears twice"),
    (Slot("Rx", (0,), (1,), (2,), 0), "ctrl_vals"),
    (Slot("Rx", (0,), (1,), (1, 0), 0), "ctrl_vals"),
    (Slot("Rx", (0,), (), (), -1), "non-negative integer"),
    (Slot("Rx", (0,), (), (), 0.0), "non-negative integer"),
])
def test_a_slot_off_the_register_is_named(slot, message):
    """Without the check, qubit -1 would index the last bit and give a wrong energy."""
    with pytest.raises(ValueError, match=message):
        Problem(2, [slot], [(1.0, {0: "Z"})], [0.1])


@pytest.mark.parametrize("n, depth", [(1, 9), (2.5, 9), (3, 0)])
def test_qcbm_sizes_are_checked(n, depth):
    with pytest.raises(ValueError, match="n >= 2|depth"):
        variational.qcbm_energy(n, depth)


def test_runs_of_rotations_are_fused_and_exact():
    """The adjoint sweep's runs: seven rotations in a row on qubit 1 (one pass), two
    rotations controlled by qubit 0 on |0> (one pass, the derivative on that subspace
    only), one controlled on |1> (its own), a run of diagonal ones sharing an angle, and
    a lone rotation after a fixed gate."""
    names = ["Rx", "Ry", "Rz", "phase", "Rx", "Rz", "Ry"]
    slots = [Slot("H", (q,)) for q in range(3)]
    slots += [Slot(name, (1,), (), (), k) for k, name in enumerate(names)]
    slots += [Slot("Ry", (1,), (0,), (0,), 7), Slot("Rx", (1,), (0,), (0,), 8),
              Slot("Rz", (1,), (0,), (1,), 9), Slot("Rz", (2,), (), (), 10),
              Slot("phase", (2,), (), (), 10), Slot("Rz", (2,), (), (), 2),
              Slot("X", (0,), (2,)), Slot("Rx", (1,), (), (), 11)]
    problem = Problem(3, slots, [(0.7, {1: "X", 2: "Y"}), (-1.3, {1: "Z"}), (0.4, {0: "Y"})],
                      np.random.default_rng(5).uniform(-3, 3, 12))
    plan = variational.fused.plan(problem.slots, problem.n, variational.KERNEL)
    runs = [step.stop - step.start for step in plan.steps
            if isinstance(step, variational.fused.Run)]
    assert runs == [7, 2, 1, 3, 1]
    _, want = oracle(problem, problem.theta0)
    np.testing.assert_allclose(variational.GRADIENTS["adjoint"](problem, problem.theta0),
                               want, atol=1e-12, rtol=0)


def test_the_fused_rotation_matrices_are_the_circuits():
    """fused builds every rotation's matrix at once from its generator; they must be
    kernels.statevector.circuits' gates, angle for angle."""
    names = ["Rx", "Ry", "Rz", "phase"] * 10
    slots = [Slot(name, (k % 3,), (), (), k) for k, name in enumerate(names)]
    plan = variational.fused.plan(tuple(Slot(*s) for s in slots), 3, variational.KERNEL)
    angles = np.random.default_rng(3).uniform(-7, 7, len(names))
    got = variational.fused.rotations(plan, angles)
    for name, t, m in zip(names, angles, got):
        np.testing.assert_allclose(m, circuits.gate(name, 0, theta=t).matrix, atol=1e-15)
