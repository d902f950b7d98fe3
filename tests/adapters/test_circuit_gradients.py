"""The circuit-gradient contract, for every adapter that offers one: agreement with the
parameter-shift rule at n = 6 (1e-8), the energy with ours, fresh angles honoured by a
prepared function, bad angles refused."""

import numpy as np
import pytest

import adapters
from kernels import variational
from kernels.variational import Problem, Slot

LABELS = sorted(adapters.circuit_gradients())


@pytest.fixture(scope="module")
def problem():
    return variational.qcbm_energy(6, 9, np.random.default_rng(6))


@pytest.fixture(scope="module")
def reference(problem):
    thetas = [problem.theta0, np.random.default_rng(1).uniform(-np.pi, np.pi, problem.n_params)]
    return [(t, variational.GRADIENTS["param_shift"](problem, t), problem.energy(t))
            for t in thetas]


def _entry(label):
    module, method = adapters.circuit_gradients()[label]
    if not module.AVAILABLE:
        pytest.skip(f"{module.NAME}: {module.REASON}")
    return module, method


def test_some_adapter_offers_circuit_gradients():
    assert {"qulacs", "lightning"} <= {label.split(":")[0] for label in LABELS}


@pytest.mark.parametrize("label", LABELS)
def test_gradient_and_energy_agree_with_ours(label, problem, reference):
    module, method = _entry(label)
    grad = module.prepare_gradient(problem, method)
    energy = module.prepare_energy(problem, method)
    for theta, want, e in reference:  # one prepared function, two points
        got = np.asarray(grad(theta.copy()))
        assert got.shape == theta.shape
        np.testing.assert_allclose(got, want, atol=1e-8, rtol=0, err_msg=label)
        assert abs(float(energy(theta.copy())) - e) < 1e-10, label


def _asymmetric():
    """The QCBM at n = 5 with a controlled rotation (on |0> and on |1>), a phase gate and an
    observable with Y terms and a different weight on every qubit. The Ising ring is
    invariant under reversing the qubits and, being real, under negating every angle, so
    an adapter that numbered its wires backwards or flipped a rotation's sign would pass
    the QCBM above; here it cannot."""
    qcbm = variational.qcbm_energy(5, 3, np.random.default_rng(5))
    p = qcbm.n_params
    slots = list(qcbm.slots) + [
        Slot("Ry", (3,), (0,), (0,), p), Slot("phase", (1,), (), (), p + 1),
        Slot("Rx", (4,), (2,), (1,), p + 2), Slot("Ry", (0,), (), (), p + 3)]
    observable = [(0.3 + 0.2 * q, {q: "Z"}) for q in range(5)]
    observable += [(0.7, {0: "Y", 1: "X"}), (-0.4, {2: "Y", 4: "Z"}), (0.25, {3: "X"})]
    theta0 = np.random.default_rng(55).uniform(-np.pi, np.pi, p + 4)
    return Problem(5, slots, observable, theta0, name="asymmetric")


@pytest.mark.parametrize("label", LABELS)
def test_wires_and_signs_are_ours(label):
    module, method = _entry(label)
    problem = _asymmetric()
    try:
        grad = module.prepare_gradient(problem, method)
    except NotImplementedError as exc:  # an adapter may name a gate it cannot take
        pytest.skip(f"{label}: {exc}")
    want = variational.GRADIENTS["adjoint"](problem, problem.theta0)
    np.testing.assert_allclose(grad(problem.theta0.copy()), want, atol=1e-8, rtol=0,
                               err_msg=label)
    energy = module.prepare_energy(problem, method)
    assert abs(float(energy(problem.theta0.copy())) - problem.energy(problem.theta0)) < 1e-10


@pytest.mark.parametrize("label", [lbl for lbl in LABELS if ":" not in lbl])
def test_circuit_gradient_is_the_default_method(label, problem, reference):
    module, _ = _entry(label)
    theta, want, _ = reference[0]
    np.testing.assert_allclose(module.circuit_gradient(problem, theta), want, atol=1e-8, rtol=0)


@pytest.mark.parametrize("label", LABELS)
def test_wrong_angles_are_refused(label, problem):
    module, method = _entry(label)
    grad = module.prepare_gradient(problem, method)
    with pytest.raises(ValueError, match="theta"):
        grad(np.zeros(problem.n_params + 1))


def test_an_unknown_method_is_named():
    module = adapters.load("qulacs_sim")
    if not module.AVAILABLE:
        pytest.skip(module.REASON)
    with pytest.raises(ValueError, match="no gradient method 'bogus'"):
        module.prepare_gradient(variational.qcbm_energy(2, 1), "bogus")
