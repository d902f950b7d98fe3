"""``jacobian(f, x)``: one signature in every engine (forward, reverse, source, finite),
shape ``np.shape(f(x)) + x.shape``, checked against analytic Jacobians and against each
other; the awkward shapes (a scalar output, one element, no elements) and the refusals."""

import numpy as np
import pytest

from kernels.ad import finite, forward, reverse, source

ENGINES = {"forward": forward, "reverse": reverse, "source": source, "finite": finite}
EXACT = ("forward", "reverse", "source")
_RNG = np.random.default_rng(22)


def elementwise(x):
    return np.sin(x) * x[::-1]


def matrix_square(x):
    return x.T @ x


def looped(x):
    s = x * 1.0
    for i in range(3):
        s = s * np.sin(x) + x[i]
        if s[0] > 5.0:
            break
    return 2.0 * s[::-1]


def through_complex(x):
    psi = np.exp(1j * x) * np.cos(x)
    return np.real(psi * np.conj(psi[::-1]))


def scalar_out(x):
    return np.sum(x ** 3)


def empty_out(x):
    return x[:0] * 2.0


def outer_product(x):
    return np.outer(x, np.cos(x))


def _elementwise_jacobian(x):
    n = len(x)
    jac = np.diag(np.cos(x) * x[::-1])
    jac[np.arange(n), np.arange(n)[::-1]] += np.sin(x)
    return jac


CASES = [  # (f, x, analytic Jacobian or None)
    (elementwise, _RNG.uniform(-1, 1, 5), _elementwise_jacobian),
    (matrix_square, _RNG.uniform(-1, 1, (3, 2)), None),
    (looped, _RNG.uniform(0.1, 0.5, 4), None),
    (through_complex, _RNG.uniform(-1, 1, 4), None),
    (scalar_out, _RNG.uniform(-1, 1, (2, 3)), lambda x: 3.0 * x ** 2),
    (elementwise, _RNG.uniform(-1, 1, 1), lambda x: np.array([[np.cos(x[0]) * x[0]
                                                               + np.sin(x[0])]])),
    (empty_out, _RNG.uniform(-1, 1, 3), lambda x: np.zeros((0, 3))),
    (outer_product, np.zeros(0), lambda x: np.zeros((0, 0, 0))),
    (outer_product, _RNG.uniform(-1, 1, 3), None),
]


@pytest.mark.parametrize("engine", sorted(ENGINES))
@pytest.mark.parametrize("case", CASES, ids=lambda c: f"{c[0].__name__}-{np.shape(c[1])}")
def test_jacobian_matches_the_analytic_one_or_central_differences(engine, case):
    f, x, analytic = case
    got = ENGINES[engine].jacobian(f, x.copy())
    want = analytic(x) if analytic is not None else finite.jacobian(f, x.copy())
    assert got.shape == np.shape(f(x)) + x.shape
    assert type(got) is np.ndarray and got.dtype == np.float64
    tol = 1e-8 if engine == "finite" or analytic is None else 1e-12
    np.testing.assert_allclose(got, want, rtol=tol, atol=tol)


@pytest.mark.parametrize("engine", EXACT)
def test_exact_engines_agree_to_rounding(engine):
    x = _RNG.uniform(-1, 1, (2, 3))
    np.testing.assert_allclose(ENGINES[engine].jacobian(matrix_square, x),
                               forward.jacobian(matrix_square, x), rtol=1e-13, atol=1e-14)


def test_reverse_records_once_and_source_runs_its_primal_once():
    calls = []

    def f(x):
        calls.append(1)
        return np.tanh(x) * np.sum(x)

    x = _RNG.uniform(-1, 1, 6)
    reverse.jacobian(f, x, mode="reverse")  # (square: left to itself, forward mode's)
    assert len(calls) == 1
    t = source.transform(f)
    runs = []
    primal = t.primal

    def counted(*args):
        runs.append(1)
        return primal(*args)

    t.primal = counted
    try:
        np.testing.assert_allclose(source.jacobian(f, x, mode="reverse"),
                                   finite.jacobian(f, x), rtol=1e-8)
    finally:
        t.primal = primal
    assert runs == [1]


def test_a_source_adjoint_can_be_replayed():
    # its loop stacks are read, not popped: two pullbacks give the same cotangents
    value, adjoint = source.transform(looped).primal(np.array([0.1, 0.2, 0.3]))
    g = np.ones(3)
    np.testing.assert_array_equal(adjoint(g)[0], adjoint(g)[0])


@pytest.mark.parametrize("engine", sorted(ENGINES))
@pytest.mark.parametrize("x, kind, words", [
    (1.5, TypeError, "jacobian takes a float array x; got a float"),
    ([1.0, 2.0], TypeError, "got a list"),
    (np.arange(3), TypeError, "dtype int64"),
    (np.array(1.0), ValueError, "0-d array"),
], ids=["float", "list", "int-array", "0-d"])
def test_jacobian_refuses_an_argument_that_is_not_a_float_array(engine, x, kind, words):
    with pytest.raises(kind, match=words):
        ENGINES[engine].jacobian(np.sin, x)


def _returns_list(x):
    return [x[0], x[1]]


def _returns_complex(x):
    return x * 1j


def _returns_none(x):
    return None


@pytest.mark.parametrize("engine", sorted(ENGINES))
@pytest.mark.parametrize("f, words", [
    (_returns_complex, "complex"), (_returns_none, "NoneType"), (_returns_list, "list")],
    ids=["complex", "None", "list"])
def test_jacobian_refuses_a_result_that_is_not_a_real_array(engine, f, words):
    with pytest.raises(TypeError, match=words):
        ENGINES[engine].jacobian(f, np.array([0.5, 1.5]))
