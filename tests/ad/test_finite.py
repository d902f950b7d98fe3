"""Central differences against derivatives known in closed form, the step rule, the cost
(2n evaluations on one perturbed copy) and bad input."""

import numpy as np
import pytest

from kernels.ad import finite
from kernels.ad.errors import EscapeError
from tests.ad.gradcheck import check_shapes

RTOL = 1e-8  # the step rule's error is ~1e-10 relative on these functions; see finite.py


def _matrix(seed, shape):
    return np.random.default_rng(seed).standard_normal(shape)


# (id, f, args, analytic gradient as a function of the args)
CASES = [
    ("sin", np.sin, (0.7,), lambda x: (np.cos(x),)),
    ("exp large x", np.exp, (12.5,), lambda x: (np.exp(x),)),
    ("log", np.log, (3.0,), lambda x: (1.0 / x,)),
    ("cube negative", lambda x: x ** 3, (-1.5,), lambda x: (3 * x * x,)),
    ("sqrt large x", np.sqrt, (4.0e6,), lambda x: (0.5 / np.sqrt(x),)),
    ("tiny x", lambda x: np.tanh(x) + x * x, (1e-9,), lambda x: (1 - np.tanh(x) ** 2 + 2 * x,)),
    ("rational floats", lambda a, b: a / (a + b * b), (1.3, -0.4),
     lambda a, b: (b * b / (a + b * b) ** 2, -2 * a * b / (a + b * b) ** 2)),
    ("sum of squares", lambda x: np.sum(x * x), (_matrix(0, 7),), lambda x: (2 * x,)),
    ("0-d array", lambda x: np.sin(x) * 2.0, (np.array(0.3),), lambda x: (2 * np.cos(x),)),
    ("trace of product", lambda A, B: np.trace(A @ B), (_matrix(1, (4, 3)), _matrix(2, (3, 4))),
     lambda A, B: (B.T, A.T)),
    ("array and float", lambda x, s: s * np.sum(np.sin(x)), (_matrix(3, (2, 5)), 2.5),
     lambda x, s: (s * np.cos(x), float(np.sum(np.sin(x))))),
    ("transposed input", lambda A: np.sum(np.exp(A) * np.arange(6.0).reshape(3, 2)),
     (_matrix(4, (2, 3)).T,), lambda A: (np.exp(A) * np.arange(6.0).reshape(3, 2),)),
]


@pytest.mark.parametrize("case", CASES, ids=[c[0] for c in CASES])
def test_gradient_matches_closed_form(case):
    _, f, args, exact = case
    grads = finite.gradient(f, *args)
    check_shapes(grads, args)
    for got, want in zip(grads, exact(*args)):
        np.testing.assert_allclose(got, want, rtol=RTOL, atol=RTOL * np.max(np.abs(want)))


def test_derivative_of_a_float_function():
    got = finite.derivative(lambda x: np.sqrt(np.sin(x * x)) + x, 1.0)  # the ForwardDiff post's
    want = np.cos(1.0) / np.sqrt(np.sin(1.0)) + 1.0
    assert isinstance(got, float)
    assert got == pytest.approx(want, rel=RTOL)


def test_step_rule():
    x = np.concatenate([[0.0, -0.0, 1e-300, 1.0, -1.0],
                        np.random.default_rng(5).standard_normal(200) * np.logspace(-6, 6, 200)])
    h = finite.step_sizes(x)
    rule = np.cbrt(np.finfo(float).eps) * np.maximum(np.abs(x), 1.0)
    np.testing.assert_allclose(h, rule, rtol=1e-9)  # within an ulp of x of the rule's step
    assert np.all(h > 0)
    # exactly representable: x + h is a float, the step recovered from it is h itself
    np.testing.assert_array_equal((x + h) - x, h)
    np.testing.assert_allclose(finite.step_sizes(x, step=1e-4),
                               1e-4 * np.maximum(np.abs(x), 1.0), rtol=1e-9)


STEP_CASES = [
    # (id, f, f', x): moderate and large |x|, where the step is relative
    ("exp", np.exp, np.exp, 0.3),
    ("sin", np.sin, np.cos, 1.0),
    ("power", lambda t: t ** 3.5, lambda t: 3.5 * t ** 2.5, 250.0),
    ("log", np.log, lambda t: 1.0 / t, 4.0e7),
]


@pytest.mark.parametrize("case", STEP_CASES, ids=[c[0] for c in STEP_CASES])
def test_default_step_beats_larger_and_smaller_steps(case):
    # truncation error dominates at 1e-3, rounding at 1e-10; cbrt(eps) balances the two
    _, f, fprime, x = case
    errors = {step: abs(finite.derivative(f, x, step=step) - fprime(x))
              for step in (1e-3, None, 1e-10)}
    assert errors[None] < errors[1e-3] / 100
    assert errors[None] < errors[1e-10] / 100


def test_two_evaluations_per_element_on_one_perturbed_copy():
    x, s, A = _matrix(6, 9), 1.5, _matrix(7, (2, 3))
    before = (x.copy(), A.copy())
    seen = []

    def f(x, s, A):
        seen.append((id(x), id(A)))
        return s * np.sum(x * x) + np.sum(A)

    finite.gradient(f, x, s, A)
    assert len(seen) == 2 * (x.size + 1 + A.size)
    # one working copy per array, perturbed in place: never the caller's, never a new one
    assert len(set(seen)) == 1 and seen[0] != (id(x), id(A))
    np.testing.assert_array_equal(x, before[0])
    np.testing.assert_array_equal(A, before[1])


def test_float32_input_gives_float64_gradient():
    x = _matrix(8, 5).astype(np.float32)
    (g,) = finite.gradient(lambda x: np.sum(x * x), x)
    assert g.dtype == np.float64 and g.shape == x.shape
    np.testing.assert_allclose(g, 2 * x.astype(float), rtol=RTOL)


BAD = [
    # (id, f, args, options, error, words in the message)
    ("list", np.sum, ([1.0, 2.0],), {}, TypeError, "argument 0 is a list"),
    ("bool", lambda a, b: a * b, (1.0, True), {}, TypeError, "argument 1 is a bool"),
    ("int array", np.sum, (np.arange(3),), {}, TypeError, "argument 0 .* dtype int64"),
    ("complex array", np.sum, (np.ones(2, complex),), {}, TypeError, "dtype complex128"),
    ("nan", np.sin, (float("nan"),), {}, ValueError, "argument 0 is nan"),
    ("inf entry", np.sum, (np.array([1.0, np.inf]),), {}, ValueError, "argument 0 has non-finite"),
    ("vector output", lambda x: x * 2.0, (np.ones(3),), {}, ValueError, r"shape \(3,\)"),
    ("matrix output", lambda x: np.outer(x, x), (np.ones(2),), {}, ValueError, r"shape \(2, 2\)"),
    ("complex output", lambda x: x * 1j, (1.0,), {}, TypeError, "real scalar, got complex"),
    ("None output", lambda x: None, (1.0,), {}, TypeError, "real scalar, got NoneType"),
    ("zero step", np.sin, (1.0,), {"step": 0.0}, ValueError, "step must be"),
    ("step of one", np.sin, (1.0,), {"step": 1.0}, ValueError, "step must be"),
]


@pytest.mark.parametrize("case", BAD, ids=[c[0] for c in BAD])
def test_bad_input(case):
    _, f, args, options, error, words = case
    with pytest.raises(error, match=words):
        finite.gradient(f, *args, **options)


def test_derivative_refuses_arrays():
    with pytest.raises(TypeError, match="derivative needs a float x, got ndarray"):
        finite.derivative(np.sin, np.ones(2))


def test_an_f_that_writes_into_its_argument_is_refused_by_name():
    """Central differences perturb a copy of x in place; an f that also wrote into it
    (a = x; a += 1) would shift every later evaluation: a wrong number without an error.
    It is refused by name, as the other engines refuse it, and x is left alone."""
    def f(x):
        a = x
        a += 1.0
        return np.sum(a * a)
    x = np.ones(3)
    with pytest.raises(EscapeError, match="in-place"):
        finite.gradient(f, x)
    with pytest.raises(EscapeError, match="in-place"):
        finite.jacobian(lambda y: np.add(y, 1.0, out=y), x)
    np.testing.assert_array_equal(x, np.ones(3))
