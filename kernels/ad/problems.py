"""The seeds' AD problems, each a plain-numpy objective with a hand-written gradient.

``PROBLEMS`` maps a name to a :class:`Problem`: the objective ``f`` as a user writes it, the
manual baseline (value and gradient by hand, vectorised numpy: the speed every engine is
measured against), the inputs, and the sizes the seeds time.

The objectives reach numpy only through this module's global ``np`` (``np.sin``, ``np.pi``,
...; no ``from numpy import``, no ``math``, no constants computed at import), and the
helpers they call are module-level functions here, so that an adapter can run the same
code on its own numpy (``jax.numpy``, ``autograd.numpy``) by rebuilding the functions with
a globals dict whose ``np`` is that module.
"""

import numpy as np

from ._problem import MANUAL, Problem, size_seed  # noqa: F401 - kernels.ad.problems' API

# -- tr(A @ B) (YAAD and YASSAD) ---------------------------------------------------------

def trmul(A, B):
    return np.trace(A @ B)


def trmul_manual(A, B):
    # the seeds' baseline as they wrote it: the trace's cotangent as a dense identity
    z = A @ B
    gz = np.eye(len(z))
    return float(np.trace(z)), (gz @ B.T, A.T @ gz)


def _square_matrices(count):
    def make_args(n, rng):
        return tuple(rng.standard_normal((n, n)) for _ in range(count))
    return make_args


# -- x^T A x + b.x + c (YAAD's graph) -------------------------------------------------------

def quadratic(x, A, b, c):
    return x @ A @ x + np.dot(b, x) + c


def quadratic_manual(x, A, b, c):
    Ax = A @ x
    value = float(x @ Ax + b @ x + c)
    return value, (Ax + x @ A + b, np.outer(x, x), x.copy(), 1.0)


def quadratic_args(n, rng):
    return (rng.standard_normal(n), rng.standard_normal((n, n)), rng.standard_normal(n),
            float(rng.standard_normal()))


# -- tr(x1 @ x2 @ x3) (YAAD's matrix product state) -------------------------------------------

def mps(x1, x2, x3):
    return np.trace(x1 @ x2 @ x3)


def mps_manual(x1, x2, x3):
    x12 = x1 @ x2
    # tr(x12 @ x3) without forming the product: sum_ij x12[i, j] x3[j, i]
    value = float(np.sum(x12 * x3.T))
    return value, ((x2 @ x3).T, (x3 @ x1).T, x12.T)


# -- a / (a + b*b) (MicroGrad.jl) ---------------------------------------------------------

def rational(a, b):
    return a / (a + b * b)


def rational_manual(a, b):
    d = a + b * b
    dd = d * d
    return a / d, (b * b / dd, -2.0 * a * b / dd)


def rational_args(n, rng):
    # a > 0 keeps a + b*b at least 0.5 from the pole
    return float(rng.uniform(0.5, 2.0)), float(rng.standard_normal())


# -- nested trigonometry (MicroGrad.jl part 1) -------------------------------------------------

def trig(x):
    return np.sin(np.cos(x)) * np.exp(np.sin(x)) + np.tan(x) / x


def trig_manual(x):
    s, c, t = np.sin(x), np.cos(x), np.tan(x)
    u, v = np.sin(c), np.exp(s)
    du = -np.cos(c) * s
    dv = v * c
    dw = ((1.0 + t * t) * x - t) / (x * x)
    return float(u * v + t / x), (float(du * v + u * dv + dw),)


def trig_args(n, rng):
    # away from the pole of tan/x at 0 and of tan at pi/2
    return (float(rng.uniform(0.2, 1.2)),)


# -- Ackley (ForwardDiff.jl) ------------------------------------------------------------

def ackley_loop(x):
    a, b, c = 20.0, -0.2, 2.0 * np.pi
    len_recip = 1.0 / len(x)
    sum_sqrs, sum_cos = 0.0, 0.0
    for xi in x:
        sum_cos += np.cos(c * xi)
        sum_sqrs += xi * xi
    return -a * np.exp(b * np.sqrt(len_recip * sum_sqrs)) - np.exp(len_recip * sum_cos) + a + np.e


def ackley(x):
    a, b, c = 20.0, -0.2, 2.0 * np.pi
    len_recip = 1.0 / len(x)
    sum_sqrs = np.sum(x * x)
    sum_cos = np.sum(np.cos(c * x))
    return -a * np.exp(b * np.sqrt(len_recip * sum_sqrs)) - np.exp(len_recip * sum_cos) + a + np.e


def ackley_manual(x):
    a, b, c = 20.0, -0.2, 2.0 * np.pi
    k = 1.0 / len(x)
    r = np.sqrt(k * np.dot(x, x))
    cx = c * x
    e_r = np.exp(b * r)
    e_cos = np.exp(k * np.sum(np.cos(cx)))
    value = float(-a * e_r - e_cos + a + np.e)
    # d r / d x = k x / r, and d (k sum cos(c x)) / d x = -k c sin(c x)
    return value, ((-a * b * k / r) * e_r * x + (k * c) * e_cos * np.sin(cx),)


def ackley_args(n, rng):
    # f is not smooth where x = 0 (the sqrt of the sum of squares); a random normal vector
    # stays well away from it
    return (rng.standard_normal(n),)


# -- a cubic fitted with map (MicroGrad.jl, where the expression-based version fails) ---------

def _square_error(w, xi, yi):
    pred = w[0] + w[1] * xi + w[2] * xi ** 2 + w[3] * xi ** 3
    return (pred - yi) ** 2


def polynomial(w, x, y):
    errors = map(_square_error, [w] * len(x), x, y)
    return sum(errors) / len(x)


def polynomial_manual(w, x, y):
    x2 = x * x
    residual = w[0] + w[1] * x + w[2] * x2 + w[3] * x2 * x - y
    scale = 2.0 / len(x)
    r = scale * residual
    gw = np.array([np.sum(r), np.dot(r, x), np.dot(r, x2), np.dot(r, x2 * x)])
    gx = r * (w[1] + 2.0 * w[2] * x + 3.0 * w[3] * x2)
    return float(np.dot(residual, residual) / len(x)), (gw, gx, -r)


def polynomial_args(n, rng):
    x = rng.uniform(-1.0, 1.0, n)
    y = 1.0 - 2.0 * x + 0.5 * x ** 3 + 0.1 * rng.standard_normal(n)
    return rng.standard_normal(4), x, y


PROBLEMS = {p.name: p for p in [
    Problem("trmul", trmul, trmul_manual, _square_matrices(2), (30,), False,
            "tr(A @ B) for (n, n) matrices (YAAD and YASSAD)"),
    Problem("quadratic", quadratic, quadratic_manual, quadratic_args, (30,), False,
            "x^T A x + b.x + c, the graph example of YAAD"),
    Problem("mps", mps, mps_manual, _square_matrices(3), (30,), False,
            "tr(x1 @ x2 @ x3), the matrix product state example of YAAD"),
    Problem("rational", rational, rational_manual, rational_args, (1,), False,
            "a / (a + b*b) on two floats (MicroGrad.jl part 2)"),
    Problem("trig", trig, trig_manual, trig_args, (1,), False,
            "sin(cos(x)) * exp(sin(x)) + tan(x) / x on a float (MicroGrad.jl part 1)"),
    Problem("ackley_loop", ackley_loop, ackley_manual, ackley_args, (16, 1600, 16000), True,
            "Ackley as the element loop ForwardDiff.jl's benchmark times"),
    Problem("ackley", ackley, ackley_manual, ackley_args, (16, 1600, 16000), False,
            "Ackley vectorised with np.sum (ForwardDiff.jl's benchmark function)"),
    Problem("polynomial", polynomial, polynomial_manual, polynomial_args, (16, 100), True,
            "cubic least squares through map and sum (MicroGrad.jl part 2, where it fails)"),
]}

# The field's evals (gradbench's names) follow the seeds' problems.
from . import evals  # noqa: E402 - after Problem, which the evals import

PROBLEMS.update((p.name, p) for p in evals.PROBLEMS)
