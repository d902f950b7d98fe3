"""Complex-step differentiation as a qsim-ad-bench AD plugin: the derivative of a real
analytic f along x_i is Im f(x + i h e_i) / h, with no subtractive cancellation, so h can
be tiny and the result is exact to rounding. One evaluation per input element, as forward
mode without chunks.

The function must be real analytic where it is evaluated and written with operations
that carry a complex argument through (numpy's ufuncs do; ``abs``, comparisons and
``np.real`` do not, and give a wrong derivative without an error). A function whose
complex evaluation fails or is not a real scalar is refused with NotImplementedError;
the rest is what the harness's validation is for: every gradient is checked against
the hand-written one before it is timed.

The interface of an AD plugin: NAME, AVAILABLE, REASON, sync, gradient(f, *args) -> a
tuple with one gradient per argument (a float for a float argument, an array shaped like
an array argument), and prepare(f, *args) -> an object whose objective() and gradient()
are the calls a benchmark times, to_numpy(gradient()) gives the tuple, and
compile_seconds is 0.0 for an engine that does not compile.
"""

from types import SimpleNamespace

import numpy as np

NAME = "example-complex-step"
AVAILABLE = True
REASON = f"example-complex-step 0.1.0 (numpy {np.__version__})"
STEP = 1e-100  # far below rounding: the imaginary part is f' h exactly in floating point


def sync():
    """numpy is synchronous."""


def _arguments(args):
    if not args:
        raise TypeError("f needs at least one argument to differentiate")
    out = []
    for i, a in enumerate(args):
        if isinstance(a, bool) or not isinstance(a, (float, int, np.floating, np.ndarray)):
            raise TypeError(f"argument {i} must be a float or a float array, "
                            f"got {type(a).__name__}")
        if isinstance(a, np.ndarray) and a.dtype != np.float64:
            raise TypeError(f"argument {i} must be float64, got {a.dtype}")
        out.append(a)
    return out


def prepare(f, *args):
    args = _arguments(args)
    scalar = [not isinstance(a, np.ndarray) for a in args]
    base = [np.asarray(a, dtype=np.complex128) for a in args]

    def objective():
        return f(*args)

    def partial(i, flat_index):
        shifted = list(args)
        x = base[i].copy()
        x.reshape(-1)[flat_index] += 1j * STEP
        shifted[i] = complex(x) if scalar[i] else x
        return f(*shifted)

    def gradient():
        grads = []
        for i, b in enumerate(base):
            g = np.empty(b.shape)
            flat = g.reshape(-1)
            for j in range(b.size):
                value = complex(np.asarray(partial(i, j)).reshape(()))
                flat[j] = value.imag / STEP
            grads.append(g)
        return grads

    try:
        value = f(*[complex(b) if s else b for b, s in zip(base, scalar)])
        if np.asarray(value).shape != () or not np.isfinite(value) \
                or abs(np.imag(value)) > 0.0:
            raise NotImplementedError(f"f's value at a real point is {value!r}: complex "
                                      "step needs a real scalar function")
    except NotImplementedError:
        raise
    except Exception as exc:
        raise NotImplementedError(f"f cannot be evaluated at a complex point: "
                                  f"{type(exc).__name__}: {exc}") from exc

    def to_numpy(grads):
        return tuple(float(g) if s else g for g, s in zip(grads, scalar))

    return SimpleNamespace(objective=objective, gradient=gradient, to_numpy=to_numpy,
                           compile_seconds=0.0)


def gradient(f, *args):
    prepared = prepare(f, *args)
    return prepared.to_numpy(prepared.gradient())
