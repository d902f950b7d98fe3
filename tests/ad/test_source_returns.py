"""The source engine's ``return`` inside a loop (``for`` and ``while``, under an ``if``, in
a nested loop): lowered to a flag and a ``break``, checked against central differences
with the return taken at each iteration, at the first, and not at all (the loop falls
through to the code after it)."""

import numpy as np
import pytest

from kernels.ad import finite, source

_RNG = np.random.default_rng(2022)


def for_return(x, k):
    s = x * 1.0
    for i in range(5):
        s = s * np.cos(x) + 0.1
        if i == k:
            return np.sum(s ** 2)
        s = s + x[i]
    return np.sum(s)


def while_return(x, k):
    i = 0
    s = np.sin(x)
    while i < 4:
        s = s * x + 1.0
        if i >= k:
            if s[0] > -100.0:
                return np.sum(np.exp(-s))
        else:
            s = s - x[i]
        i += 1
    return np.sum(s) * 2.0


def nested_return(x, k):
    total = 0.0
    for i in range(3):
        for j in range(3):
            total = total + x[i] * x[j] * np.sin(x[i + j])
            if 3 * i + j == k:
                return total * np.sum(x)
        total = total * 0.5
    return total


def unconditional_return(x, k):
    for xi in x:
        y = xi * np.exp(xi) + k
        return y * y  # always in the first iteration
    return 0.0


def element_return(x, k):
    threshold = 0.1 + 0.2 * k  # k = 0: the first element is above it; k = 9: none is
    for xi in x:
        if xi > threshold:
            return xi * np.sum(x)
    return np.sum(x) ** 2


def _calls_a_returning_loop(x, k):
    return for_return(x * 2.0, k) + 1.0


CASES = [(f, k) for f in (for_return, while_return, nested_return, element_return)
         for k in (0, 1, 3, 9)] + [(unconditional_return, 0), (_calls_a_returning_loop, 2)]


@pytest.mark.parametrize("f, k", CASES, ids=lambda c: getattr(c, "__name__", str(c)))
def test_a_return_inside_a_loop_matches_central_differences(f, k):
    x = _RNG.uniform(0.2, 0.9, 6)
    got = source.gradient(f, x.copy(), k)[0]
    want = finite.gradient(lambda z: f(z, k), x.copy())[0]
    np.testing.assert_allclose(got, want, rtol=1e-7, atol=1e-9)
    # the primal's value is f's own
    assert source.transform(f).primal(x.copy(), k)[0] == pytest.approx(f(x.copy(), k))


def rows_until(x):
    acc = x * 0.0
    for i in range(len(x)):
        acc = acc + np.roll(x, i) * x
        if np.sum(acc) > 2.0:
            return acc[::-1]
    return acc


def test_jacobian_through_a_loop_return():
    x = _RNG.uniform(0.2, 0.9, 5)
    np.testing.assert_allclose(source.jacobian(rows_until, x), finite.jacobian(rows_until, x),
                               rtol=1e-7, atol=1e-9)


def returns_nothing_in_a_loop(x):
    for xi in x:
        if xi > 0.5:
            return
    return np.sum(x)


def test_a_bare_return_in_a_loop_is_refused_by_the_result_check():
    with pytest.raises((ValueError, TypeError), match="NoneType|scalar"):
        source.gradient(returns_nothing_in_a_loop, np.array([0.1, 0.9]))
