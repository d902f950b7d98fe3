"""Nested differentiation: every combination of two engines either works, and matches an
analytic Hessian or derivative, or refuses with an error naming the engines; none may
return a wrong number (perturbation confusion, a derivative lost at a level).

Works: forward over forward (``forward.hessian``, tagged levels), forward over reverse
(``reverse.hessian``: the tape computes on Duals), forward over source
(``source.hessian``). Refused: reverse over reverse, reverse over forward, reverse over
source, source over anything, central differences of traced values.
"""

import numpy as np
import pytest

from kernels.ad import finite, forward, problems, reverse, source
from kernels.ad._arrays import EscapeError

_RNG = np.random.default_rng(1988)
HESSIANS = {"forward": forward.hessian, "reverse": reverse.hessian, "source": source.hessian}


# -- forward over forward: perturbation confusion (Siskind and Pearlmutter) ---------------

def test_perturbation_confusion_is_avoided():
    # d/dx [x * (d/dy (x + y))(y=1)] at x = 1: the inner derivative is 1, so this is 1;
    # confusing the two perturbations gives 2
    got = forward.derivative(lambda x: x * forward.derivative(lambda y: x + y, 1.0), 1.0)
    assert got == 1.0


def test_perturbation_confusion_in_the_inner_function():
    # d/dx (d/dy (x * y))(y=2) at x = 3 = d/dx x = 1; and d/dy of x*y*y needs the inner y
    assert forward.derivative(lambda x: forward.derivative(lambda y: x * y, 2.0), 3.0) == 1.0
    got = forward.derivative(lambda x: forward.derivative(lambda y: x * y * y, 2.0), 3.0)
    assert got == 4.0  # d/dx (2 x y) at y = 2


def test_nested_gradient_and_jacobian():
    x0, y0 = _RNG.uniform(-1, 1, 3), _RNG.uniform(-1, 1, 3)
    # d/dx sum(x * grad_y sum(x * y)) = d/dx sum(x * x) = 2x
    got = forward.gradient(
        lambda x: np.sum(x * forward.gradient(lambda y: np.sum(x * y), y0)[0]), x0)[0]
    np.testing.assert_allclose(got, 2.0 * x0, rtol=1e-15)
    # J_y(x * y * y) = diag(2 x y), times x: 2 x^2 y; its Jacobian in x: diag(4 x y)
    got = forward.jacobian(lambda x: forward.jacobian(lambda y: x * y * y, y0) @ x, x0)
    np.testing.assert_allclose(got, np.diag(4.0 * x0 * y0), rtol=1e-14)


# -- Hessians: forward over forward, reverse, source -----------------------------------------

def polynomial(x):
    return np.sum(x ** 3) * x[0] + np.prod(x[1:3]) + np.sum(np.sin(x) * x[::-1])


def polynomial_hessian(x):
    n = len(x)
    h = np.zeros((n, n))
    h[0, 0] += 12.0 * x[0] ** 2
    h[0, 1:] += 3.0 * x[1:] ** 2
    h[1:, 0] += 3.0 * x[1:] ** 2
    h[np.arange(1, n), np.arange(1, n)] += 6.0 * x[0] * x[1:]
    h[1, 2] += 1.0
    h[2, 1] += 1.0
    r = x[::-1]
    h[np.arange(n), np.arange(n)] += -np.sin(x) * r
    h[np.arange(n), np.arange(n)[::-1]] += np.cos(x) + np.cos(r)
    return h


POINTS = _RNG.normal(size=(30, 2))


def kmeans_cost(c):
    """Sum over the points of the squared distance to the nearest of 3 centroids (a min)."""
    centroids = c.reshape(3, 2)
    d2 = np.sum((POINTS[:, None, :] - centroids[None, :, :]) ** 2, axis=2)
    return np.sum(np.min(d2, axis=1))


def kmeans_hessian(c):
    # each centroid's block: 2 I per point nearest to it
    centroids = c.reshape(3, 2)
    d2 = np.sum((POINTS[:, None, :] - centroids[None, :, :]) ** 2, axis=2)
    counts = np.bincount(np.argmin(d2, axis=1), minlength=3)
    return np.diag(np.repeat(2.0 * counts, 2))


def matrix_quadratic(x):
    m = x.reshape(2, 2)
    return np.trace(m @ m @ m.T) + np.sum(np.exp(1j * x).real)


def state_norm(x):
    psi = np.exp(1j * x) * np.cos(x[::-1])
    return np.sum(np.abs(psi * psi[0]) ** 2)


@pytest.mark.parametrize("engine", sorted(HESSIANS))
@pytest.mark.parametrize("f, analytic, n", [
    (polynomial, polynomial_hessian, 4), (kmeans_cost, kmeans_hessian, 6),
    (problems.ackley_loop, None, 5), (problems.ackley, None, 5),
    (matrix_quadratic, None, 4), (state_norm, None, 3), (polynomial, polynomial_hessian, 3)])
def test_hessian_matches(engine, f, analytic, n):
    x = _RNG.uniform(0.3, 1.2, n)
    got = HESSIANS[engine](f, x.copy())
    if analytic is not None:
        np.testing.assert_allclose(got, analytic(x), rtol=1e-12, atol=1e-12)
    else:  # central differences of the forward gradient
        want = finite.jacobian(lambda y: forward.gradient(f, y)[0], x.copy())
        np.testing.assert_allclose(got, want, rtol=1e-6, atol=1e-7)
    np.testing.assert_allclose(got, forward.hessian(f, x.copy()), rtol=1e-12, atol=1e-12)


@pytest.mark.parametrize("engine", ["reverse", "source"])
def test_hessian_of_a_matrix_argument(engine):
    x = _RNG.uniform(-1, 1, (2, 3))
    got = HESSIANS[engine](lambda m: np.sum((m @ m.T) ** 2), x)
    want = forward.jacobian(lambda y: reverse.gradient(
        lambda m: np.sum((m @ m.T) ** 2), y)[0], x)
    assert got.shape == (2, 3, 2, 3)
    np.testing.assert_allclose(got, want, rtol=1e-13, atol=1e-13)


@pytest.mark.parametrize("inner", [reverse, source], ids=["reverse", "source"])
def test_forward_over_a_jacobian_closing_over_the_outer_dual(inner):
    z, w = np.array([1.0, 2.0, 3.0]), _RNG.uniform(-1, 1, 3)
    # d/dy J_v(v * v * y) = d/dy diag(2 v y): [i, j, k] = 2 v_i where i == j == k
    got = forward.jacobian(lambda y: inner.jacobian(lambda v: v * v * y, z), w)
    want = np.zeros((3, 3, 3))
    want[np.arange(3), np.arange(3), np.arange(3)] = 2.0 * z
    np.testing.assert_allclose(got, want, rtol=1e-15)


def test_forward_over_reverse_written_out_and_through_a_closure():
    x, w = _RNG.uniform(-1, 1, 4), _RNG.uniform(-1, 1, 4)
    got = forward.jacobian(lambda y: reverse.gradient(polynomial, y)[0], x)
    np.testing.assert_allclose(got, polynomial_hessian(x), rtol=1e-12, atol=1e-12)
    # the inner gradient closes over the outer Dual y: d/dy grad_z sum(z^2 y) = diag(2 z)
    z = _RNG.uniform(-1, 1, 4)
    for inner in (reverse, source):
        got = forward.jacobian(
            lambda y, inner=inner: inner.gradient(lambda v: np.sum(v * v * y), z)[0], w)
        np.testing.assert_allclose(got, np.diag(2.0 * z), rtol=1e-14)


@pytest.mark.parametrize("inner", [forward, reverse, source])
def test_central_differences_over_an_exact_gradient(inner):
    # finite differences only call f: any engine inside them is plain code
    x = _RNG.uniform(0.3, 1.2, 4)
    got = finite.jacobian(lambda y: inner.gradient(polynomial, y)[0], x)
    np.testing.assert_allclose(got, polynomial_hessian(x), rtol=1e-7, atol=1e-8)


def _sin_times_first(y):
    return np.sin(y) * y[0]


@pytest.mark.parametrize("inner", [reverse, source], ids=["reverse", "source"])
def test_forward_over_a_jacobian(inner):
    x = _RNG.uniform(-1, 1, 3)
    g = _sin_times_first
    got = forward.jacobian(lambda y: inner.jacobian(g, y), x)
    want = finite.jacobian(lambda y: forward.jacobian(g, y), x)
    assert got.shape == (3, 3, 3)
    np.testing.assert_allclose(got, want, rtol=1e-7, atol=1e-9)


# -- refusals -----------------------------------------------------------------------------

def _inner(x):
    return np.sum(np.sin(x) ** 2)


X = np.array([0.3, 0.7, 1.1])


def reverse_over_reverse():
    return reverse.gradient(lambda x: np.sum(reverse.gradient(_inner, x)[0]), X)


def reverse_over_reverse_closure():
    z = np.array([0.5, -0.5, 2.0])
    return reverse.gradient(
        lambda x: np.sum(reverse.gradient(lambda v: np.sum(v * v * x), z)[0]), X)


def reverse_jacobian_over_reverse():
    return reverse.jacobian(lambda x: reverse.gradient(_inner, x)[0], X)


def reverse_over_forward():
    return reverse.gradient(lambda x: np.sum(forward.gradient(_inner, x)[0]), X)


def reverse_over_forward_closure():
    return reverse.gradient(lambda x: forward.derivative(lambda t: np.sum(x * t * t), 1.0), X)


def reverse_over_forward_jacobian_closure():
    return reverse.gradient(
        lambda x: np.sum(forward.jacobian(lambda t: x * t, np.array([1.0, 2.0]))), X[:2])


def reverse_over_source():
    return reverse.gradient(lambda x: np.sum(source.gradient(_inner, x)[0]), X)


def reverse_over_source_closure():
    z = np.array([0.5, -0.5, 2.0])
    return reverse.gradient(
        lambda x: np.sum(source.gradient(lambda v: np.sum(v * v * x), z)[0]), X)


def _source_outer(x):
    return np.sum(source.gradient(_inner, x)[0])


def _source_outer_forward(x):
    return np.sum(forward.gradient(_inner, x)[0])


def _source_outer_reverse(x):
    return np.sum(reverse.gradient(_inner, x)[0])


def source_over_reverse():
    return source.gradient(_source_outer_reverse, X)


def source_over_source():
    return source.gradient(_source_outer, X)


def source_over_forward():
    return source.gradient(_source_outer_forward, X)


def finite_inside_forward():
    return forward.jacobian(lambda y: finite.gradient(_inner, y)[0], X)


def inplace_in_forward_over_reverse():
    def f(x):
        u = x * 1.0
        u += x ** 2
        return np.sum(u)
    return reverse.hessian(f, X)


@pytest.mark.parametrize("case, kind, words", [
    (reverse_over_reverse, TypeError, "nesting reverse mode inside reverse mode"),
    (reverse_over_reverse_closure, TypeError, "nesting reverse mode inside reverse mode"),
    (reverse_jacobian_over_reverse, TypeError, "nesting reverse mode inside reverse mode"),
    (reverse_over_forward, TypeError, "nesting forward mode inside reverse mode"),
    (reverse_over_forward_closure, TypeError, "nesting forward mode inside reverse mode"),
    (reverse_over_forward_jacobian_closure, TypeError,
     "nesting forward mode inside reverse mode"),
    (reverse_over_source, TypeError, "nesting the source engine inside reverse mode"),
    (reverse_over_source_closure, TypeError, "nesting the source engine inside reverse mode"),
    (source_over_source, NotImplementedError, "inside the source engine is not supported"),
    (source_over_forward, NotImplementedError, "inside the source engine is not supported"),
    (source_over_reverse, NotImplementedError, "inside the source engine is not supported"),
    (finite_inside_forward, TypeError, "nesting central differences inside forward mode"),
    (inplace_in_forward_over_reverse, EscapeError, "nested differentiation"),
], ids=lambda c: getattr(c, "__name__", None))
def test_unsupported_nesting_is_refused_by_name(case, kind, words):
    with pytest.raises(kind, match=words):
        case()


# -- found by running the corpus through every Hessian (forward over each engine) -----------

def test_hessian_of_a_2d_argument_through_forward_gradient():
    # forward.gradient of an array Dual (nested) kept only its first element
    x = _RNG.uniform(-1, 1, (3, 2))
    got = forward.jacobian(lambda y: forward.gradient(lambda m: np.sum(np.sin(m) * m), y)[0], x)
    want = np.diag((2.0 * np.cos(x) - x * np.sin(x)).ravel()).reshape(3, 2, 3, 2)
    np.testing.assert_allclose(got, want, rtol=1e-14, atol=1e-15)


SOLVE_A = _RNG.normal(size=(3, 3)) + 3.0 * np.eye(3)
SOLVE_B, SOLVE_W = _RNG.normal(size=(3, 2)), _RNG.normal(size=(3, 2))


def solve_matrix_rhs(a):
    return np.sum(SOLVE_W * np.linalg.solve(a.reshape(3, 3), SOLVE_B) ** 2)


@pytest.mark.parametrize("engine", sorted(HESSIANS))
def test_hessian_through_solve_with_a_matrix_rhs(engine):
    # forward's solve jvp aligned the chunk axis with the rhs's columns when nested
    x = SOLVE_A.ravel()
    want = finite.jacobian(lambda y: reverse.gradient(solve_matrix_rhs, y)[0], x)
    np.testing.assert_allclose(HESSIANS[engine](solve_matrix_rhs, x), want, rtol=1e-6,
                               atol=1e-7)


@pytest.mark.parametrize("stacked", ["a", "b"])
def test_forward_solve_of_stacks_whose_size_is_the_chunk(stacked):
    # 4 stacked systems and 4 directions: the tangents must not pair them up. A generator
    # of its own: drawn from the module's, the matrices hung on the tests' order (xdist),
    # and one order made a system near-singular, where central differences lose 1e-5
    rng = np.random.default_rng(20261129)
    a, b = rng.normal(size=(2, 2)) + 3.0 * np.eye(2), rng.normal(size=(2, 3))
    if stacked == "a":
        a = np.stack([a + 0.1 * k for k in range(4)])
        f = lambda y: np.sum(np.sin(np.linalg.solve(a, y)))  # noqa: E731
        x = b
    else:
        b = rng.normal(size=(4, 2, 3))
        f = lambda y: np.sum(np.sin(np.linalg.solve(y, b)))  # noqa: E731
        x = a
    np.testing.assert_allclose(forward.gradient(f, x)[0], finite.gradient(f, x)[0],
                               rtol=1e-8, atol=1e-9)


def concatenated(x):
    return np.sum(np.r_[x, 2.0] ** 2 * np.concatenate([x, x ** 2])[: len(x) + 1])


def test_source_transformed_while_forward_traces_sees_numpys_names():
    # forward mode swaps np.r_ for a wrapper while it traces: a source transform made then
    # (source.hessian) took np.r_[x] for a constant, and cached that
    x = _RNG.uniform(0.5, 1.5, 3)

    def f(y):
        return np.sum(np.r_[y, 1.0] ** 3)
    got = source.hessian(f, x)
    np.testing.assert_allclose(got, np.diag(6.0 * x), rtol=1e-14)
    np.testing.assert_allclose(source.gradient(f, x)[0], 3.0 * x ** 2, rtol=1e-14)
    np.testing.assert_allclose(source.hessian(concatenated, x),
                               forward.hessian(concatenated, x), rtol=1e-12, atol=1e-12)


WRITING_VJPS = {  # vjps that write their cotangent into an array (each_direction)
    "sort": lambda x: np.sum(np.sort(x) ** 3 * np.arange(1.0, 6.0)),
    "diag": lambda x: np.sum(np.diag(np.outer(x, x)) ** 2),
    "diff": lambda x: np.sum(np.diff(x ** 2) ** 2),
    "repeat": lambda x: np.sum(np.repeat(x, [1, 2, 0, 3, 1]) ** 3),
    "partition": lambda x: np.sum(np.partition(x, 2)[:3] ** 3),
    "trace": lambda x: np.trace(np.outer(x, x ** 2), offset=1),
}


@pytest.mark.parametrize("name", sorted(WRITING_VJPS))
def test_forward_over_reverse_through_vjps_that_write_into_arrays(name):
    """Their vjps run once per direction of a Dual cotangent (once refused: a Dual cannot
    be written into an array); forward mode over forward mode is the reference."""
    f, x = WRITING_VJPS[name], np.array([0.3, -1.2, 2.0, 0.7, 1.1])
    want = forward.jacobian(lambda y: forward.gradient(f, y)[0], x)
    np.testing.assert_allclose(reverse.hessian(f, x), want, rtol=1e-12, atol=1e-12)
