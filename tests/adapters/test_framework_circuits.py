"""The circuit simulations written in PyTorch and in jax.numpy (torch's "backprop",
jax-jit's "jit"): gradients on controlled rotations, phases and every fixed gate,
complex128 throughout, the repeated layer JAX scans over, and what they refuse.

The conformance test (test_circuit_gradients.py) covers the QCBM at n = 6. param_shift's
two-term rule holds for uncontrolled rotations with unshared angles only; elsewhere our
adjoint is the reference, itself checked against central differences.
"""

import numpy as np
import pytest

import adapters
from kernels import variational
from kernels.variational import Slot

FRAMEWORKS = ["torch_ad", "jax_jit_ad"]
# param_shift and adjoint are exact in float64: complex64 anywhere would miss this by 1e-7
ATOL = 1e-11
OBSERVABLE = [(0.7, {0: "Y", 2: "X"}), (-1.3, {1: "Z"}), (0.4, {0: "X", 1: "Y", 3: "Z"}),
              (0.9, {3: "X"}), (0.25, {2: "Z", 3: "Z"})]


@pytest.fixture(params=FRAMEWORKS)
def framework(request):
    module = adapters.load(request.param)
    if not module.AVAILABLE:
        pytest.skip(f"{request.param}: {module.REASON}")
    return module


def _problem(slots, seed):
    n_params = 1 + max(s.param for s in slots if s.param is not None)
    theta0 = np.random.default_rng(seed).uniform(-np.pi, np.pi, n_params)
    return variational.Problem(4, [Slot(*s) for s in slots], OBSERVABLE, theta0)


def _hadamards():
    return [Slot("H", (q,)) for q in range(4)]


def controlled_problem():
    """Controlled rotations (one and two controls, control values 0 and 1), a shared
    angle, and every fixed gate, some controlled."""
    return _problem(_hadamards() + [
        Slot("Rx", (0,), (1,), (), 0), Slot("Ry", (2,), (0, 3), (0, 1), 1),
        Slot("Rz", (3,), (2,), (0,), 2), Slot("phase", (1,), (0,), (), 3),
        Slot("X", (1,), (0,)), Slot("Y", (3,), (1,), (0,)), Slot("Z", (0,), (2, 3)),
        Slot("S", (2,)), Slot("T", (0,)), Slot("Rx", (1,), (), (), 0),
        Slot("Ry", (0,), (3,), (), 4), Slot("H", (2,), (1,)), Slot("Rz", (1,), (), (), 5),
    ], seed=1)


def phase_problem():
    """Phase gates between Hadamards and rotations: param_shift's rule holds."""
    return _problem(_hadamards() + [
        Slot("phase", (0,), (), (), 0), Slot("phase", (2,), (), (), 1),
        Slot("X", (1,), (0,)), Slot("Ry", (1,), (), (), 2), Slot("phase", (1,), (), (), 3),
        Slot("X", (3,), (2,)), Slot("phase", (3,), (), (), 4), Slot("H", (3,)),
        Slot("Rx", (2,), (), (), 5), Slot("phase", (2,), (), (), 6),
    ], seed=2)


def layered_problem():
    """Layers alike but for their fixed gate (H, then X): JAX must not scan them as one."""
    layers = [[Slot("Rx", (q,), (), (), 4 * k + q) for q in range(4)]
              + [Slot(g, (1,), (0,)), Slot(g, (2,))]
              for k, g in enumerate(["H"] * 3 + ["X"] * 3)]
    return _problem([s for layer in layers for s in layer], seed=6)


def _check(module, problem, want):
    grad = module.prepare_gradient(problem)
    energy = module.prepare_energy(problem)
    for theta in (problem.theta0, np.random.default_rng(3).uniform(-4, 4, problem.n_params)):
        got = grad(theta)
        assert isinstance(got, np.ndarray) and got.dtype == np.float64
        np.testing.assert_allclose(got, want(problem, theta), atol=ATOL, rtol=0)
        assert abs(energy(theta) - problem.energy(theta)) < ATOL


def test_controlled_rotations_and_fixed_gates(framework):
    problem = controlled_problem()
    adjoint = variational.GRADIENTS["adjoint"]
    theta = problem.theta0
    np.testing.assert_allclose(adjoint(problem, theta),
                               variational.GRADIENTS["finite"](problem, theta), atol=1e-8)
    _check(framework, problem, adjoint)


def test_phases_agree_with_param_shift(framework):
    _check(framework, phase_problem(), variational.GRADIENTS["param_shift"])


def test_layers_differing_in_a_fixed_gate(framework):
    _check(framework, layered_problem(), variational.GRADIENTS["param_shift"])


def test_qcbm_to_float64_precision(framework):
    problem = variational.qcbm_energy(4, 3, np.random.default_rng(4))
    _check(framework, problem, variational.GRADIENTS["param_shift"])


def test_a_circuit_without_angles(framework):
    problem = variational.Problem(4, _hadamards() + [Slot("X", (1,), (0,))], OBSERVABLE, [])
    assert framework.prepare_gradient(problem)([]).shape == (0,)
    assert abs(framework.prepare_energy(problem)([]) - problem.energy([])) < ATOL


def test_two_qubit_gates_are_named(framework):
    problem = variational.Problem(4, _hadamards() + [Slot("SWAP", (0, 1))], OBSERVABLE, [])
    for prepare in (framework.prepare_gradient, framework.prepare_energy):
        with pytest.raises(NotImplementedError, match="SWAP"):
            prepare(problem)


def test_an_unavailable_tool_raises(framework, monkeypatch):
    monkeypatch.setattr(framework, "AVAILABLE", False)
    for prepare in (framework.prepare_gradient, framework.prepare_energy):
        with pytest.raises(RuntimeError, match="unavailable"):
            prepare(controlled_problem())


def test_torch_computes_in_complex128_and_float64():
    torch_ad = adapters.load("torch_ad")
    if not torch_ad.AVAILABLE:
        pytest.skip(torch_ad.REASON)
    from torch.overrides import TorchFunctionMode

    from adapters.ad import _torch_gradients

    class Dtypes(TorchFunctionMode):
        seen = set()

        def __torch_function__(self, func, types, args=(), kwargs=None):
            out = func(*args, **(kwargs or {}))
            for t in out if isinstance(out, tuple) else (out,):
                if isinstance(t, torch_ad.torch.Tensor) and t.is_floating_point() | t.is_complex():
                    self.seen.add(t.dtype)
            return out

    problem = controlled_problem()
    theta = torch_ad.torch.from_numpy(problem.theta0).requires_grad_()
    with Dtypes():
        energy = _torch_gradients.energy_function(problem)(theta)
        energy.backward()
    assert energy.dtype == torch_ad.torch.float64
    assert Dtypes.seen == {torch_ad.torch.float64, torch_ad.torch.complex128}


def test_jax_computes_in_complex128_and_float64():
    jax_jit_ad = adapters.load("jax_jit_ad")
    if not jax_jit_ad.AVAILABLE:
        pytest.skip(jax_jit_ad.REASON)
    from adapters.ad import _jax_gradients

    problem = controlled_problem()
    energy = _jax_gradients.energy_function(problem)
    jaxpr = str(jax_jit_ad.jax.make_jaxpr(jax_jit_ad.jax.grad(energy))(problem.theta0))
    assert "c128" in jaxpr and "f64" in jaxpr
    assert not any(t in jaxpr for t in ("c64", "f32", "f16", "bf16"))


@pytest.mark.parametrize("signature, want", [
    ([9, 1, 2, 3, 1, 2, 3, 1, 2, 3, 1, 7], (1, 3, 3)),
    ([5, 5, 5, 5], (0, 1, 4)),
    ([0, 1, 2], (0, 0, 0)),
    ([], (0, 0, 0)),
])
def test_repeated_block(signature, want):
    jax_jit_ad = adapters.load("jax_jit_ad")
    if not jax_jit_ad.AVAILABLE:
        pytest.skip(jax_jit_ad.REASON)
    from adapters.ad import _jax_gradients
    assert _jax_gradients.repeated_block(np.array(signature, dtype=np.int64)) == want


def test_jax_scans_over_the_qcbm_layers():
    jax_jit_ad = adapters.load("jax_jit_ad")
    if not jax_jit_ad.AVAILABLE:
        pytest.skip(jax_jit_ad.REASON)
    from adapters.ad import _jax_gradients

    problem = variational.qcbm_energy(5, 9, np.random.default_rng(5))
    jaxpr = jax_jit_ad.jax.make_jaxpr(_jax_gradients.energy_function(problem))(problem.theta0)
    scans = [e for e in jaxpr.eqns if e.primitive.name == "scan"]
    # the 7 middle layers (3 rotations per qubit and a ring of CNOTs) in one scan
    assert len(scans) == 1 and scans[0].params["length"] == 7
