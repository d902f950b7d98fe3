"""The circuit-gradient contract, for every adapter that offers one: agreement with the
parameter-shift rule at n = 6 (1e-8), the energy with ours, fresh angles honoured by a
prepared function, bad angles refused."""

import ast
from pathlib import Path

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


# --- where the gradients live (adapters/_gradients.py) ----------------------------------

#: built-in adapter -> the private module holding its tool's gradient translation
LAYOUT = {"qulacs_sim": "_qulacs_gradients", "lightning_sim": "_lightning_gradients",
          "qiskit_aer_sim": "_qiskit_gradients", "mindquantum_sim": "_mindquantum_gradients",
          "torch_ad": "_torch_gradients", "jax_jit_ad": "_jax_gradients"}


def _imports(path):
    """The modules ``path``'s import statements name, relative ones by their last part."""
    tree = ast.parse(path.read_text())
    out = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom):
            out |= {node.module.split(".")[-1]} if node.module else {a.name for a in node.names}
        elif isinstance(node, ast.Import):
            out |= {a.name.split(".")[-1] for a in node.names}
    return out


@pytest.mark.parametrize("name", sorted(adapters.ADAPTERS))
def test_circuit_gradients_live_in_their_own_module(name):
    """An adapter offering circuit gradients keeps the public names, and its translation
    lives in _<tool>_gradients beside it, which the adapter names to _gradients.delegated
    (imported on first use, once the tool is known to be there) and never imports itself,
    defining gradient(problem, method, ...) and energy(problem, method, ...)."""
    module = adapters.load(name)
    assert hasattr(module, "prepare_gradient") == (name in LAYOUT)
    if name not in LAYOUT:
        return
    for f in ("prepare_gradient", "prepare_energy", "circuit_gradient"):
        assert callable(getattr(module, f)) and getattr(module, f).__module__ == module.__name__
    here = Path(module.__file__)
    assert LAYOUT[name] not in _imports(here)
    assert f'"._{LAYOUT[name].lstrip("_")}"' in here.read_text()
    tree = ast.parse((here.parent / f"{LAYOUT[name]}.py").read_text())
    functions = {n.name: [a.arg for a in n.args.args] for n in tree.body
                 if isinstance(n, ast.FunctionDef)}
    for f in ("gradient", "energy"):
        assert functions[f][:2] == ["problem", "method"], (LAYOUT[name], f)


@pytest.mark.parametrize("name", sorted(LAYOUT))
def test_an_unknown_method_is_named_installed_or_not(name):
    module = adapters.load(name)
    with pytest.raises(ValueError, match="no gradient method 'bogus'"):
        module.prepare_gradient(variational.qcbm_energy(2, 1), "bogus")
    with pytest.raises(ValueError, match="no gradient method 'bogus'"):
        module.prepare_energy(variational.qcbm_energy(2, 1), "bogus")
