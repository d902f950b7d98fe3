"""Central differences: the baseline every AD engine must beat (Calculus.jl's role in the
ForwardDiff.jl benchmark).

``gradient(f, *args)`` perturbs one scalar input element at a time and evaluates ``f`` on
both sides of it::

    g_i = (f(x + h_i e_i) - f(x - h_i e_i)) / (2 h_i)

so the gradient costs two evaluations of ``f`` per scalar input element, 2n in all, and
nothing else that grows faster than n: each array argument is copied once, and the copy is
perturbed in place and restored element by element.

The step rule. The error of a central difference has two parts: truncation,
``h**2 |f'''| / 6``, from the Taylor series, and rounding, about ``eps |f| / h``, from
subtracting two nearly equal values of ``f``. Their sum is smallest at ``h ~ cbrt(eps)``
(about 6e-6) in units of the scale of ``x``, where both parts are of order
``eps**(2/3) ~ 4e-11`` relative; so, per element,

    h_i = cbrt(eps) * max(|x_i|, 1)

(``max(., 1)`` keeps the step from vanishing at and near zero). ``x_i + h_i`` is generally
not a float, and the step actually taken would then differ from ``h_i`` by up to one ulp
of ``x_i``, a relative error of ``eps |x_i| / h_i ~ 4e-11`` in the quotient, as large as the
error the rule balances. So ``h_i`` is replaced by ``(x_i + h_i) - x_i``, which makes
``x_i + h_i`` exact, and the quotient divides by the distance between the two points
actually evaluated, ``fl(x_i + h_i) - fl(x_i - h_i)``, not by ``2 h_i``. On a smooth
function the result is good to about 1e-10 relative, less where ``f`` varies on a scale much
shorter than ``max(|x_i|, 1)``; ``step=`` replaces ``cbrt(eps)`` by a relative factor of the
caller's choosing.
"""

import numpy as np

from ._args import check_argument, check_jacobian_input, check_jacobian_output
from .backend import ADBackend, Cost
from .errors import EscapeError

#: Two evaluations of f per scalar input; nested, differences of differences.
BACKEND = ADBackend(
    name="finite", role="engine", exact=False,
    cost=Cost(loop=lambda N: 2.0 * N + 1, vector=lambda N: 2.0 * N + 1,
              nested=lambda N: (2.0 * N + 1) ** 2))

#: cbrt(eps): the relative step that balances truncation and rounding error.
RELATIVE_STEP = float(np.cbrt(np.finfo(float).eps))


def step_sizes(x, step=None):
    """The steps ``gradient`` takes around the values ``x`` (an array or float): the rule's
    ``step * max(|x|, 1)``, rounded so that ``x + h`` is a float (module docstring)."""
    rel = RELATIVE_STEP if step is None else step
    x = np.asarray(x, dtype=float)
    return (x + rel * np.maximum(np.abs(x), 1.0)) - x


def gradient(f, *args, step=None):
    """The gradient of the scalar ``f`` at ``args`` by central differences, in the engines'
    form: one entry per positional argument, an array of its shape or a float for a float.

    ``step``: the relative step factor, ``cbrt(eps)`` by default (module docstring)."""
    _check_step(step)
    work = [_working_copy(i, a) for i, a in enumerate(args)]
    # f sees read-only views of the working copies, which are perturbed in place one element
    # at a time: an f that wrote into an argument (``a = x; a += 1``) would shift every
    # later evaluation and return a wrong number without an error. The write is refused
    # by name instead, as the other engines refuse it; the views cost nothing per call.
    seen = [_read_only(a) for a in work]
    grads = []
    try:
        for i, a in enumerate(work):
            if isinstance(a, np.ndarray):
                grads.append(_array_gradient(f, work, seen, i, step))
            else:
                grads.append(_float_gradient(f, work, seen, i, step))
    except ValueError as exc:
        raise _refused(exc) from None
    return tuple(grads)


def _refused(exc):
    """numpy's error for a write into a read-only argument as an EscapeError that says what
    to do; any other error as it is."""
    if "read-only" not in str(exc):
        return exc
    return EscapeError(f"central differences: f updates an argument in-place ({exc}); "
                       "differentiate a function that leaves its arguments alone (copy "
                       "first: a = x.copy())")


def _read_only(a):
    if not isinstance(a, np.ndarray):
        return a
    view = a.view()
    view.flags.writeable = False
    return view


def derivative(f, x, step=None):
    """The derivative of the scalar function ``f`` of the float ``x``, by central
    differences."""
    if not isinstance(x, float):
        raise TypeError(f"derivative needs a float x, got {type(x).__name__}; "
                        f"use gradient for arrays")
    return gradient(f, x, step=step)[0]


def jacobian(f, x, step=None):
    """The Jacobian of the array-valued ``f`` at the float array ``x`` by central
    differences, one column per input element (2 evaluations each, one more for the
    output's shape): shape ``np.shape(f(x)) + x.shape``."""
    _check_step(step)
    x = _working_copy(0, check_jacobian_input(x, "central differences"))
    seen = _read_only(x)  # as in gradient: f may not write into what is perturbed
    flat = x.reshape(-1)  # a view of the copy: f sees every write below
    h = step_sizes(flat, step)
    try:
        out_shape = check_jacobian_output(f(seen), "central differences").shape
        cols = np.empty((flat.size,) + out_shape)
        for j in range(flat.size):
            xj = flat[j]
            flat[j] = up = xj + h[j]
            f_up = _array(f(seen), out_shape)
            flat[j] = down = xj - h[j]
            f_down = _array(f(seen), out_shape)
            flat[j] = xj
            cols[j] = (f_up - f_down) / (up - down)
    except ValueError as exc:
        raise _refused(exc) from None
    return np.moveaxis(cols, 0, -1).reshape(out_shape + x.shape)


def _array(out, shape):
    """``f``'s output at a perturbed point, checked to keep the shape it had at ``x``."""
    out = check_jacobian_output(out, "central differences")
    if out.shape != shape:
        raise ValueError(f"f returned shape {out.shape} at a perturbed point, {shape} at x")
    return out


def _check_step(step):
    if step is not None and not (isinstance(step, (int, float)) and 0.0 < step < 1.0):
        raise ValueError(f"step must be a relative factor between 0 and 1, got {step!r}")


def _working_copy(i, a):
    """A float64 copy of an array argument (ours to perturb), a float for a scalar
    (kernels.ad._args: the check every engine shares), finite in both cases."""
    a = check_argument(i, a, "central differences")
    if isinstance(a, np.ndarray):
        if not np.all(np.isfinite(a)):
            raise ValueError(f"argument {i} has non-finite entries")
        return np.array(a, dtype=float, order="C")
    if not np.isfinite(a):
        raise ValueError(f"argument {i} is {a!r}, not a finite float")
    return a


def _scalar(out):
    """``f``'s output as a float; errors for anything else."""
    if type(out) is float:  # the common case, checked first: it runs 2n times
        return out
    if np.shape(out) != ():
        raise ValueError(f"f must return a scalar, got an output of shape {np.shape(out)}")
    if np.asarray(out).dtype.kind not in "fiu":
        raise TypeError(f"f must return a real scalar, got {type(out).__name__}")
    return float(out)


def _array_gradient(f, work, seen, i, step):
    x = work[i]
    flat = x.reshape(-1)  # a view: x is C-contiguous, so f sees every write below
    h = step_sizes(flat, step)
    grad = np.empty(flat.shape)
    for j in range(flat.size):
        xj = flat[j]
        flat[j] = up = xj + h[j]
        f_up = _scalar(f(*seen))
        flat[j] = down = xj - h[j]
        f_down = _scalar(f(*seen))
        flat[j] = xj
        grad[j] = (f_up - f_down) / (up - down)
    return grad.reshape(x.shape)


def _float_gradient(f, work, seen, i, step):
    x = work[i]
    h = float(step_sizes(x, step))
    up, down = x + h, x - h
    seen[i] = up
    f_up = _scalar(f(*seen))
    seen[i] = down
    f_down = _scalar(f(*seen))
    seen[i] = x
    return (f_up - f_down) / (up - down)
