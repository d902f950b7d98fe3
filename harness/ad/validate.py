"""Validation before timing for the AD suites: every backend's gradient is compared with
the problem's hand-written one once per parameter set; a wrong gradient fails the
benchmark and it is never timed."""

import numpy as np
from scipy import sparse

from harness.ad import backends
from harness.errors import ValidationError
from kernels.ad.finite import step_sizes

#: Relative error allowed, measured against the norm of the whole reference gradient (all
#: arguments together), so that tiny components of a large gradient are not held to a
#: relative standard they cannot meet in float64. AD is exact up to rounding: reordered
#: sums over at most ~1e4 terms stay far below 1e-8.
RTOL = 1e-8

#: Central differences (kernels/ad/finite.py) are not exact: each component carries the
#: rounding error of subtracting two nearly equal values of f, about eps |f| / h_i for the
#: step h_i, so in norm eps |f| sqrt(sum 1/h_i**2). Where the gradient is small against f,
#: as in Ackley at large n (components ~ 1/n while f ~ 4), that reaches 5e-7 of the
#: gradient's norm at n = 16000, and grows with n. The allowance is this model times
#: FINITE_MARGIN (measured errors on every problem: 0.2 to 1.6 times the model, 15 times
#: once where f is near 0 and the model underestimates) plus FINITE_FLOOR for truncation,
#: O(h**2) (measured below 1e-9). A wrong derivative is off by O(1) and still fails.
FINITE_MARGIN = 100.0
FINITE_FLOOR = 1e-7


#: ADBench's check of a derivative, rho(x, y) = |x - y| / max(1, |x| + |y|) for every
#: entry, held to this bound on the evals by every exact tool (the issue's bound; ADBench
#: uses 1e-8, gradbench 1e-4): absolute below 1, relative above.
RHO = 1e-9


def rho(got, expected):
    """The largest ADBench rho over every entry of two derivatives (tuples of arrays or
    floats of the same shapes)."""
    worst = 0.0
    for g, e in zip(got, expected):
        g, e = np.asarray(g, dtype=float), np.asarray(e, dtype=float)
        if g.size:
            worst = max(worst, float(np.max(np.abs(g - e) / np.maximum(1.0, np.abs(g)
                                                                         + np.abs(e)))))
    return worst


#: finite differences of finite differences on a nested eval: central differences at a
#: step h ~ cbrt(eps) |x| of a gradient that is itself differences carry a rounding error
#: ~ eps / h^2 ~ 6e-6 of the function's scale, and more across a kink (k-means' nearest
#: centroid); measured 7.8e-5 on kmeans_dir (k=10, n=1000, d=8), 0 on saddle (quadratic)
NESTED_FINITE_RTOL = 1e-3


def finite_rounding(value, args, expected):
    """The rounding error model of central differences, relative to the reference norm."""
    eps = np.finfo(float).eps
    inverse_steps = np.sqrt(sum(np.sum(1.0 / np.square(step_sizes(a))) for a in args))
    norm = np.sqrt(sum(np.sum(np.square(e)) for e in expected))
    return float(eps * abs(value) * inverse_steps / norm) if norm > 0 else 0.0


def tolerance(backend_name, problem, args, expected):
    """The relative error (against the reference norm) allowed for ``backend_name``."""
    if backends.exact(backend_name):
        return RTOL
    if problem.output == "nested":  # the result of a descent: no f to model its rounding
        return NESTED_FINITE_RTOL
    # a Jacobian's columns are differences of the whole vector f: its largest entry rounds
    value = np.max(np.abs(problem.f(*args)), initial=0.0)
    return FINITE_FLOOR + FINITE_MARGIN * finite_rounding(value, args, expected)


def error(got, expected):
    """The error of ``got`` against ``expected`` relative to the norm of ``expected``."""
    diff = np.sqrt(sum(np.sum(np.square(np.subtract(g, e))) for g, e in zip(got, expected)))
    norm = np.sqrt(sum(np.sum(np.square(e)) for e in expected))
    return float(diff / norm) if norm > 0 else float(diff)


def compare(name, got, expected, what="", rtol=RTOL, max_rho=None):
    """Raise :class:`ValidationError` naming the backend if the gradient tuple ``got``
    has the wrong form (length, shapes, float for float) or differs from ``expected``
    (by more than ``rtol`` of its norm, or, given ``max_rho``, by more than that rho)."""
    if not isinstance(got, tuple):
        raise ValidationError(f"{name} {what}: gradient must be a tuple, got {type(got).__name__}")
    if len(expected) == 1 and sparse.issparse(expected[0]):
        return _compare_sparse(name, got, expected[0], what, rtol, max_rho)
    if len(got) != len(expected):
        raise ValidationError(f"{name} {what}: {len(got)} gradient entries for "
                              f"{len(expected)} arguments")
    for i, (g, e) in enumerate(zip(got, expected)):
        if isinstance(e, float):
            if not isinstance(g, float):
                raise ValidationError(f"{name} {what}: gradient {i} must be a float, "
                                      f"got {type(g).__name__}")
        elif not isinstance(g, np.ndarray) or g.shape != e.shape:
            raise ValidationError(f"{name} {what}: gradient {i} must be an array of shape "
                                  f"{e.shape}, got {np.shape(g)} ({type(g).__name__})")
    err = error(got, expected)
    if not err <= rtol:  # also catches NaN
        raise ValidationError(f"{name} {what}: gradient error {err:.3g} relative to its "
                              f"norm > {rtol:g}")
    if max_rho is not None:
        worst = rho(got, expected)
        if not worst <= max_rho:
            raise ValidationError(f"{name} {what}: rho {worst:.3g} > {max_rho:g} (ADBench's "
                                  "|x - y| / max(1, |x| + |y|))")
    return err


def _compare_sparse(name, got, expected, what, rtol, max_rho):
    """:func:`compare` of a sparse Jacobian (a scipy.sparse matrix) with the reference's,
    over the union of their entries (never made dense: ADBench's ba1 would be 42 GB)."""
    if len(got) != 1 or not sparse.issparse(got[0]) or got[0].shape != expected.shape:
        form = [f"{type(g).__name__} {np.shape(g)}" for g in got]
        raise ValidationError(f"{name} {what}: expected one scipy.sparse Jacobian of shape "
                              f"{expected.shape}, got {form}")
    got, expected = sparse.csr_matrix(got[0]), sparse.csr_matrix(expected)
    diff = (got - expected).tocoo()
    norm = np.sqrt(np.sum(np.square(expected.data)))
    err = float(np.sqrt(np.sum(np.square(diff.data))) / (norm if norm > 0 else 1.0))
    if not err <= rtol:
        raise ValidationError(f"{name} {what}: Jacobian error {err:.3g} relative to its "
                              f"norm > {rtol:g}")
    if max_rho is not None and diff.nnz:
        scale = np.asarray(abs(got)[diff.row, diff.col] + abs(expected)[diff.row, diff.col])
        worst = float(np.max(np.abs(diff.data) / np.maximum(1.0, scale.ravel())))
        if not worst <= max_rho:
            raise ValidationError(f"{name} {what}: rho {worst:.3g} > {max_rho:g} (ADBench's "
                                  "|x - y| / max(1, |x| + |y|))")
    return err


def check_value(name, value, expected, what=""):
    """Raise :class:`ValidationError` if an objective's value (a float, or a tool's
    0-d tensor or array; an array for a Jacobian eval) differs from the plain ``f``'s
    ``expected``."""
    if np.ndim(expected):
        got = np.asarray(value, dtype=float)
        if got.shape != np.shape(expected) or not np.allclose(
                got, expected, rtol=RTOL, atol=RTOL * max(1.0, np.max(np.abs(expected)))):
            raise ValidationError(f"{name} {what}: the objective's values differ from f's")
        return got
    try:
        got = float(value)
    except (TypeError, ValueError):
        raise ValidationError(f"{name} {what}: the objective returned "
                              f"{type(value).__name__}, not a scalar") from None
    if not abs(got - expected) <= RTOL * max(1.0, abs(expected)):
        raise ValidationError(f"{name} {what}: objective {got!r}, expected {expected!r}")
    return got


def reference(problem, args):
    """The hand-written derivative of ``problem`` at ``args``, in the engines' form: the
    gradient's tuple, ``(J,)`` for a Jacobian eval, ``(result,)`` for a nested one."""
    value, derivative = problem.manual(*args)
    if problem.output == "nested":  # the procedure's result: its derivatives are inside
        return (np.asarray(value, dtype=float),)
    return (derivative,) if problem.output in ("jacobian", "sparse") else tuple(derivative)


def validated_runner(backend, problem, args, expected=None, what=""):
    """``backend`` prepared on ``problem`` at ``args`` (this also compiles and warms up
    JIT code), its gradient and objective checked once against the reference (the
    hand-written gradient, the plain ``f``); returns the runner.

    NotImplementedError (unavailable backend, case not handled) passes through: a skip.
    """
    backend.require()
    runner = backend.prepare(problem, args)
    if expected is None:
        expected = reference(problem, args)
    exact_eval = problem.origin != "seeds" and backends.exact(backend.name)
    compare(backend.name, runner.grads(), expected, what,
          tolerance(backend.name, problem, args, expected), RHO if exact_eval else None)
    if problem.output != "nested":  # a nested eval has no objective apart
        value = problem.f(*args)
        check_value(backend.name, runner.objective(),
                    value if np.ndim(value) else float(value), what)
    return runner


def validated_within(backend, problem, args, expected, what, unit_seconds, max_seconds,
                     limit):
    """:func:`validated_runner`, refused first (NotImplementedError, a skip) where the
    cost the backend declares predicts its first derivative past ``max_seconds`` given
    that one unit (an f, or a nested eval's hand-written procedure) takes
    ``unit_seconds``; ``limit`` names the limit in the reason. ``unit_seconds`` None: no
    prediction (a backend that declares no cost, such as a gradbench tool)."""
    if unit_seconds is not None:
        seconds = backends.first_call_seconds(backend.name, problem, args, unit_seconds)
        if seconds > max_seconds:
            raise NotImplementedError(f"{backend.name} on {what}: predicted to take "
                                      f"{seconds:.3g} s, over {limit} {max_seconds:g} s")
    return validated_runner(backend, problem, args, expected, what=what)
