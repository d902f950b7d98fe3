"""Every way a traced value could leave tracing: each probe either stays traced (and is
right, against Ridders' extrapolation) or raises an error that names the escape. None may
return a number silently: that is the one thing a reference engine must never do.

``EXPECT`` says, for the probes whose outcome is part of the contract, which it is: "ok"
(differentiated) or the exception type and the words its message must contain.
"""

import math

import numpy as np
import pytest

from kernels.ad import ENGINES, source
from kernels.ad._arrays import EscapeError

from .reference import normwise_error, ridders_gradient

_RNG = np.random.default_rng(2024)
X = _RNG.uniform(0.5, 1.5, 4)


def asarray_float(x):
    x = np.asarray(x, dtype=float)
    return np.sum(x ** 2)


def array_of_argument(x):
    return np.sum(np.array(x) * x)


def array_of_float(s):
    return np.sum(np.array(s) * np.ones(3)) * s


def preallocated(x):
    out = np.zeros(len(x))
    for i in range(len(x)):
        out[i] = x[i] ** 2
    return np.sum(out)


def preallocated_slice(x):
    out = np.zeros(len(x))
    out[:2] = x[:2]
    return np.sum(out)


def float_cast(x):
    return float(x[0]) * x[1]


def math_function(x):
    return math.sin(x[0]) + x[1]


def numpy_scalar(x):
    return np.float64(x[0]) * x[1]


def item(x):
    return x[0].item() * x[1]


def tolist(x):
    return sum(x.tolist())


def r_concatenator(x):
    return np.sum(np.r_[x, 2.0] ** 2)


def c_concatenator(x):
    return np.sum(np.c_[x, x ** 2] ** 2)


def mixed_indexing(x):
    y = np.reshape(x, (1, 2, 2))
    return np.sum(y[0, :, [1, 0]] * np.array([[1.0, 2.0], [3.0, 4.0]]))


def complex_constant(x):
    return np.sum(np.abs(x * (1 + 2j)))


def complex_state(x):
    psi = np.exp(1j * x) / 2.0
    return np.sum(np.abs(psi * np.cos(x)) ** 2)


def power_zero_exponent(x):
    return np.sum(np.power(x * 0.0, 0.0)) + np.sum(x ** 2)


def power_zero_base(x):
    return np.sum(np.power(0.0, x))


def isinstance_branch(x):
    if isinstance(x, np.ndarray):
        return np.sum(x ** 2)
    return np.sum(np.asarray(x) ** 2)


def mean_method(x):
    return x.mean() * x.dot(x) + np.sum(x.transpose())


def copyto(x):
    out = np.zeros(len(x))
    np.copyto(out, x)
    return np.sum(out)


def inplace_into_plain(x):
    out = np.ones(len(x))
    out += x
    return np.sum(out * x)


def list_of_traced(x):
    return np.mean([x[0], x[1] * 2.0])


def int_cast(x):
    return int(x[0] * 3.0) * x[1]


def complex_result(x):
    return np.sum(x * 1j)


PROBES = [asarray_float, array_of_argument, array_of_float, preallocated, preallocated_slice,
          float_cast, math_function, numpy_scalar, item, tolist, r_concatenator, c_concatenator,
          mixed_indexing, complex_constant, complex_state, power_zero_exponent,
          power_zero_base, isinstance_branch, mean_method, copyto, inplace_into_plain,
          list_of_traced, int_cast, complex_result]

_TRACED = {"forward", "reverse"}
#: (probe, engine or None for all three) -> "ok" or (exception type, words of its message)
EXPECT = {
    **{(p, None): "ok" for p in (asarray_float, array_of_argument, array_of_float,
                                 r_concatenator,
                                 c_concatenator, mixed_indexing, complex_constant,
                                 complex_state, power_zero_exponent, power_zero_base,
                                 mean_method, int_cast)},
    (float_cast, "forward"): (EscapeError, "float() of a dual number"),
    (float_cast, "reverse"): (EscapeError, "float() of a Variable"),
    (float_cast, "source"): (source.SourceTransformError, "float() of a differentiable value"),
    (preallocated, "forward"): (EscapeError, "test_escapes.py, line"),
    (preallocated, "reverse"): (EscapeError, "test_escapes.py, line"),
    (preallocated, "source"): (source.SourceTransformError, "assignment to a subscript"),
    (math_function, "forward"): (EscapeError, "would drop its derivative"),
    (math_function, "source"): (source.SourceTransformError, "test_escapes.py, line"),
    (numpy_scalar, "source"): (source.SourceTransformError, "float64()"),
    (item, "reverse"): (EscapeError, ".item() of a Variable"),
    (complex_result, None): (TypeError, "complex"),
}


def _expected(probe, engine):
    return EXPECT.get((probe, engine), EXPECT.get((probe, None)))


@pytest.mark.parametrize("engine", ["forward", "reverse", "source"])
@pytest.mark.parametrize("probe", PROBES, ids=lambda p: p.__name__)
def test_an_escape_is_traced_or_named_never_wrong(engine, probe):
    args = (float(X[0]),) if probe is array_of_float else (X.copy(),)
    expected = _expected(probe, engine)
    try:
        got = ENGINES[engine].gradient(probe, *args)
    except Exception as err:
        if expected == "ok":
            raise
        if expected is not None:
            kind, words = expected
            assert isinstance(err, kind) and words in str(err), f"{type(err).__name__}: {err}"
        return
    assert expected is None or expected == "ok", f"{probe.__name__} should have raised"
    want, _ = ridders_gradient(probe, args)
    assert normwise_error(got, want) < 1e-8, f"{engine} returned {got}, want {want}"


def _raises_inside(x):
    np.array([x, x])
    raise ZeroDivisionError("inside f")


@pytest.mark.parametrize("engine", sorted(_TRACED))
def test_the_numpy_constructors_are_numpy_again_after_a_gradient(engine):
    before = (np.array, np.asarray, np.r_, np.c_)
    ENGINES[engine].gradient(array_of_argument, X.copy())
    assert (np.array, np.asarray, np.r_, np.c_) == before
    with pytest.raises(ZeroDivisionError):
        ENGINES[engine].gradient(_raises_inside, X.copy())
    assert (np.array, np.asarray, np.r_, np.c_) == before


def inplace_unshared(x, y):
    a = x * 2.0
    a += y
    a *= x
    return np.sum(a)


def inplace_aliased(x, y):
    a = x * 2.0
    b = a
    a += y
    return np.sum(b * x)


def inplace_view(x, y):
    a = x * 2.0
    v = a[:2]
    a += y
    return np.sum(v * x[:2])


@pytest.mark.parametrize("engine", ["forward", "reverse", "source"])
@pytest.mark.parametrize("probe", [inplace_unshared, inplace_aliased, inplace_view],
                         ids=lambda p: p.__name__)
def test_an_inplace_operator_is_numpys_or_refused(engine, probe):
    # numpy changes a shared array in place: b and v see the += too. A traced value is
    # rebound instead, which is the same program only where nothing else shares it.
    x, y = X.copy(), X[::-1].copy()
    try:
        got = ENGINES[engine].gradient(probe, x, y)
    except Exception as err:
        assert probe is not inplace_unshared, f"{type(err).__name__}: {err}"
        return
    want, _ = ridders_gradient(probe, (x, y))
    assert normwise_error(got, want) < 1e-8, f"{engine} returned {got}, want {want}"


def inplace_into_view_of_argument(x, y):
    a = x[1:]
    a += y[1:]  # numpy writes into x: the sum below sees it
    return np.sum(x ** 2)


def inplace_into_view_of_intermediate(x, y):
    w = x * 2.0
    a = w[1:]
    a += y[1:]  # numpy writes into w
    return np.sum(w ** 2)


def inplace_into_row(x, y):
    m = np.outer(x, y)
    for row in m:
        row *= 2.0  # numpy doubles m row by row
    return np.sum(m)


@pytest.mark.parametrize("engine", ["forward", "reverse", "source"])
@pytest.mark.parametrize("probe", [inplace_into_view_of_argument,
                                   inplace_into_view_of_intermediate, inplace_into_row],
                         ids=lambda p: p.__name__)
def test_an_inplace_operator_on_a_view_is_refused(engine, probe):
    # rebinding the view would leave the array it views unchanged: a wrong number
    kind = source.SourceTransformError if engine == "source" else EscapeError
    with pytest.raises(kind, match="in-place"):
        ENGINES[engine].gradient(probe, X.copy(), X[::-1].copy())


def inplace_broadcasts_larger(x, y):
    a = x[:1] * 1.0
    a += y  # numpy: non-broadcastable output operand
    return np.sum(a)


def inplace_complex_into_real(x, y):
    a = x * 1.0
    a *= np.exp(1j * y)  # numpy: cannot cast complex into float64
    return np.sum(np.abs(a))


@pytest.mark.parametrize("engine", ["forward", "reverse"])
def test_an_inplace_operator_keeps_numpys_shape_and_casting_rules(engine):
    with pytest.raises(ValueError, match="non-broadcastable"):
        ENGINES[engine].gradient(inplace_broadcasts_larger, X.copy(), X.copy())
    with pytest.raises(TypeError, match="complex"):
        ENGINES[engine].gradient(inplace_complex_into_real, X.copy(), X.copy())
