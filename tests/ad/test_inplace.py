"""In-place operators on traced arrays (``u += dt * lap``): numpy updates the array, the
engines rebind the name. That is the same program wherever nothing else sees the old array,
which must then work in every exact engine even after ``u`` was used (reverse mode's tape
holds it); wherever something does see it (another name, a view, the array ``u`` views, an
argument of ``f``) the engines refuse, by name, instead of returning a wrong number."""

import numpy as np
import pytest

from kernels.ad import ENGINES, compiled, finite, source
from kernels.ad._arrays import EscapeError

EXACT = ("forward", "reverse", "source")
_RNG = np.random.default_rng(7)


def diffusion(x):
    u = x.copy()
    dt = 0.1
    for _ in range(4):
        lap = u[:-2] - 2.0 * u[1:-1] + u[2:]
        u += dt * np.pad(lap, 1)
        u -= dt * u ** 3
        u *= 0.99
        u /= 1.0 + dt * np.sin(x)
    return np.sum(u ** 2) + u[0] * u[-1]


def used_then_updated(x):
    u = np.sin(x)
    s = np.sum(u[1:] * u[:-1])  # the tape keeps u and two views of it
    u += x ** 2
    s = s + np.sum(u.reshape(2, -1))
    u *= s
    return np.sum(u)


def matrix_rows(x):
    m = np.outer(x, x)
    total = 0.0
    for i in range(2):
        total = total + np.sum(m[i] * m[-1])
        m += np.eye(len(x))
        m @= np.eye(len(x)) * 0.5
    return total + np.sum(m)


@pytest.mark.parametrize("engine", EXACT)
@pytest.mark.parametrize("f", [diffusion, used_then_updated, matrix_rows],
                         ids=lambda f: f.__name__)
def test_an_unshared_inplace_update_is_rebound_and_right(engine, f):
    x = _RNG.uniform(-1, 1, 6)
    got = ENGINES[engine].gradient(f, x.copy())[0]
    want = finite.gradient(f, x.copy())[0]
    np.testing.assert_allclose(got, want, rtol=1e-7, atol=1e-8)


def named_view_unused_after(x):
    u = np.sin(x)
    v = u.reshape(2, -1)  # numpy changes v too, but nothing reads v again
    s = np.sum(v ** 2)
    u *= s
    return np.sum(u)


def alias_used_after(x):
    u = x * 1.0
    b = u
    u += 1.0
    return np.sum(b * x)


def view_used_after(x):
    u = x * 1.0
    v = u[1:]
    u += 1.0
    return np.sum(v)


def base_used_after(x):
    w = np.exp(x)
    u = w[1:]
    u += 1.0
    return np.sum(w)


def asarray_used_after(x):
    u = x * 1.0
    b = np.asarray(u)  # the same array object
    u += 1.0
    return np.sum(b * x)


def real_used_after(x):
    u = x * 1.0
    b = np.real(u)  # the same array object for a real u
    u += 1.0
    return np.sum(b * x)


def transpose_used_after(x):
    u = x * 1.0
    b = u.T
    u *= 3.0
    return np.sum(b * x)


def view_of_argument(x):
    u = x[1:]
    u += 1.0
    return np.sum(u)


def argument_itself(x):
    x += 1.0
    return np.sum(x ** 2)


def listed_then_updated(x):
    u = x * 1.0
    history = [u]
    u += 1.0
    history.append(u)
    return np.sum(np.array(history))


def alias_returned(x):
    u = x * 1.0
    b = u
    u *= 2.0
    return np.sum(b) if False else b[0]


def alias_compared(x):
    u = x * 1.0
    b = u
    u += 10.0
    return np.sum(u) if b[0] > 5.0 else -np.sum(u)


def updated_by_its_old_self(x):
    u = x * 1.0
    b = u
    u += 1.0
    u += b
    return np.sum(u)


SHARED = [named_view_unused_after, alias_used_after, view_used_after, base_used_after,
          asarray_used_after, real_used_after, transpose_used_after, view_of_argument,
          argument_itself, listed_then_updated, alias_returned, alias_compared,
          updated_by_its_old_self]


@pytest.mark.parametrize("engine", EXACT + ("compiled",))
@pytest.mark.parametrize("f", SHARED, ids=lambda f: f.__name__)
def test_a_shared_inplace_update_is_refused_or_right(engine, f):
    # numpy's answer (every name sees the update) on a copy, by central differences
    x = _RNG.uniform(0.5, 1.5, 4)
    want = finite.gradient(lambda z: f(z.copy()), x.copy())[0]
    try:
        got = ENGINES[engine].gradient(f, x.copy())[0]
    except (EscapeError, source.SourceTransformError) as err:
        # the compiled engine may refuse an earlier construct (a list, np.real), by name
        if not isinstance(err, compiled.CompileRefused):
            assert "in-place" in str(err), err
        return
    np.testing.assert_allclose(got, want, rtol=1e-7, atol=1e-8)


@pytest.mark.parametrize("f", SHARED[1:], ids=lambda f: f.__name__)
def test_reverse_refuses_every_shared_update_that_is_seen(f):
    # argument_itself: numpy would write into the caller's array
    with pytest.raises(EscapeError, match="in-place"):
        ENGINES["reverse"].gradient(f, _RNG.uniform(0.5, 1.5, 4))


def test_reverse_names_the_retired_use():
    with pytest.raises(EscapeError) as err:
        ENGINES["reverse"].gradient(view_used_after, np.ones(3))
    message = str(err.value)
    assert "a Variable whose array an in-place operator changed" in message
    assert "test_inplace.py, line" in message and "return np.sum(v)" in message


def test_reverse_rebinds_where_a_named_view_is_never_read_again():
    x = _RNG.uniform(-1, 1, 6)
    got = ENGINES["reverse"].gradient(named_view_unused_after, x.copy())[0]
    want = finite.gradient(named_view_unused_after, x.copy())[0]
    np.testing.assert_allclose(got, want, rtol=1e-7, atol=1e-8)
