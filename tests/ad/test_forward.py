"""Forward mode beyond the shared cases: chunk mode, derivative, jacobian, hessian, nesting."""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from kernels.ad import forward, rules

from .cases import CASES

SIZED = [c for c in CASES if c[0] in {"element-loop", "matmul-2d-2d", "sum-axis", "getitem",
                                      "dot", "transpose", "fan-out", "nested-functions"}]


@pytest.mark.parametrize("case", SIZED, ids=[c[0] for c in SIZED])
def test_every_chunk_size_gives_identical_results(case):
    _, f, make_args, _ = case
    args = make_args(np.random.default_rng(3))
    n = sum(np.size(a) for a in args)
    want = forward.gradient(f, *args, chunk=n)
    for chunk in sorted({1, 2, 3, 5, n - 1, n, n + 4, forward.default_chunk(n)} - {0}):
        got = forward.gradient(f, *args, chunk=chunk)
        for g, w in zip(got, want):
            assert np.array_equal(g, w), f"chunk={chunk}"


@settings(max_examples=25, deadline=None)
@given(n=st.integers(1, 40), chunk=st.integers(1, 45), seed=st.integers(0, 2 ** 16))
def test_chunked_ackley_matches_one_pass(n, chunk, seed):
    x = np.random.default_rng(seed).uniform(0.5, 1.5, n)

    def ackley(x):
        return -20.0 * np.exp(-0.2 * np.sqrt(np.sum(x * x) / len(x))) - np.exp(
            np.sum(np.cos(2.0 * np.pi * x)) / len(x))

    assert np.array_equal(forward.gradient(ackley, x, chunk=chunk)[0],
                          forward.gradient(ackley, x, chunk=n)[0])


@pytest.mark.parametrize("n, chunk", [(1, 1), (12, 12), (1024, 94), (1600, 64),
                                      (16000, 64), (100000, 64)])
def test_default_chunk_balances_cache_sized_passes(n, chunk):
    assert forward.default_chunk(n) == chunk
    assert chunk * n * 8 <= forward.CHUNK_BYTES or chunk <= forward.MIN_CHUNK
    passes = -(-n // chunk)
    assert passes * chunk - n < passes  # balanced: the last pass is at most one short


def _count_passes(monkeypatch):
    sizes = []
    original = forward._seeds
    monkeypatch.setattr(forward, "_seeds", lambda args, start, size, tag:
                        sizes.append(size) or original(args, start, size, tag))
    return sizes


def test_an_element_loop_widens_the_chunk_after_the_first_pass(monkeypatch):
    sizes = _count_passes(monkeypatch)
    x = np.linspace(0.1, 1.0, 6000)
    (g,) = forward.gradient(lambda x: sum(np.sin(xi) for xi in x), x)
    np.testing.assert_allclose(g, np.cos(x), rtol=1e-14)
    first = forward.default_chunk(6000)
    assert sizes == [first, 6000 - first]


def test_vectorised_code_keeps_the_cache_sized_chunk(monkeypatch):
    sizes = _count_passes(monkeypatch)
    x = np.linspace(0.1, 1.0, 6000)
    forward.gradient(lambda x: np.sum(np.sin(x)), x)
    assert set(sizes[:-1]) == {forward.default_chunk(6000)} and sum(sizes) == 6000


def test_element_loop_never_builds_dense_seeds(monkeypatch):
    built = []
    original = forward._Seed.__getattr__
    monkeypatch.setattr(forward._Seed, "__getattr__",
                        lambda self, name: built.append(name) or original(self, name))

    def loop(x):
        return sum(np.sin(xi) * xi for xi in x)

    x = np.linspace(0.1, 1.0, 50)
    (g,) = forward.gradient(loop, x, chunk=50)
    np.testing.assert_allclose(g, np.cos(x) * x + np.sin(x), rtol=1e-14)
    assert built == []


def test_derivative_of_scalar_and_array_valued_functions():
    assert forward.derivative(lambda t: np.sin(t) * t, 0.3) == pytest.approx(
        np.cos(0.3) * 0.3 + np.sin(0.3), rel=1e-15)
    d = forward.derivative(lambda t: np.array([1.0, 2.0]) * t ** 2, 1.5)
    np.testing.assert_allclose(d, [3.0, 6.0])


@pytest.mark.parametrize("chunk", [None, 1, 2])
def test_jacobian(chunk):
    a = np.random.default_rng(1).uniform(0.5, 1.5, (3, 4))
    x = np.random.default_rng(2).uniform(0.5, 1.5, 4)
    jac = forward.jacobian(lambda x: np.sin(a @ x), x, chunk=chunk)
    np.testing.assert_allclose(jac, np.cos(a @ x)[:, None] * a, rtol=1e-14)


@pytest.mark.parametrize("chunk", [None, 1, 3])
def test_hessian_of_a_quadratic_form_and_of_ackley(chunk):
    rng = np.random.default_rng(4)
    a = rng.standard_normal((5, 5))
    x = rng.standard_normal(5)
    np.testing.assert_allclose(forward.hessian(lambda x: x @ a @ x, x, chunk=chunk), a + a.T,
                               atol=1e-13)

    def f(x):
        return np.sum(np.exp(np.sin(x)) * x[::-1])

    h = forward.hessian(f, x, chunk=chunk)
    step = 1e-5
    numeric = np.array([(forward.gradient(f, x + step * e)[0]
                         - forward.gradient(f, x - step * e)[0]) / (2 * step) for e in np.eye(5)])
    np.testing.assert_allclose(h, numeric, atol=1e-8)
    np.testing.assert_allclose(h, h.T, atol=1e-13)


def test_nested_derivatives_do_not_confuse_perturbations():
    # d/dx [x * d/dy (x * y)] = d/dx x^2 = 2x; without tags the inner derivative would
    # also pick up x's perturbation.
    outer = forward.derivative(lambda x: x * forward.derivative(lambda y: x * y, 3.0), 2.0)
    assert outer == pytest.approx(4.0)


def test_python_and_numpy_scalars_mix_with_duals():
    (g,) = forward.gradient(lambda x: np.sum(np.float64(2.0) * x + np.ones(3) * x) / 3 + 1,
                            np.ones(3))
    np.testing.assert_allclose(g, [1.0, 1.0, 1.0])


@pytest.mark.parametrize("chunk", [0, -1, 1.5, True])
def test_bad_chunk_is_refused(chunk):
    with pytest.raises(ValueError, match="chunk must be a positive int"):
        forward.gradient(lambda x: np.sum(x), np.ones(3), chunk=chunk)


def test_reductions_through_ufunc_methods_are_refused():
    with pytest.raises(rules.MissingRuleError, match=r"numpy\.add\.reduce"):
        forward.gradient(lambda x: np.add.reduce(x), np.ones(3))


def test_shape_mismatch_names_the_operation_and_shapes():
    with pytest.raises(ValueError, match=r"numpy\.add of shapes \(3,\), \(4,\)"):
        forward.gradient(lambda x, y: np.sum(x + y), np.ones(3), np.ones(4))


def test_derivative_and_hessian_refuse_the_wrong_kind_of_input():
    with pytest.raises(TypeError, match="derivative takes a float"):
        forward.derivative(np.sin, np.ones(2))
    with pytest.raises(TypeError, match="hessian takes a 1-D float array"):
        forward.hessian(np.sum, np.ones((2, 2)))
