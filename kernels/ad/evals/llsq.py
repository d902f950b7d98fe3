"""gradbench's ``llsq``: least squares fit of a polynomial of degree m - 1 to the sign
function, sampled at n points evenly spaced over [-1, 1].

    f(x) = 1/2 sum_i (sign(t_i) - sum_j x_j t_i**j)**2,    t_i = -1 + 2 i / (n - 1)

gradbench draws x (m = 128 coefficients) uniformly from [0, 1) and sweeps n; the
gradient is taken with respect to x. The objective is the vectorised form a numpy user
writes: the Vandermonde matrix of the t_i, a product and a sum of squares.
"""

import numpy as np

from .._problem import Problem

#: gradbench's coefficient count (its only default)
DEGREES = 128


def llsq(x, *, n):
    t = np.linspace(-1.0, 1.0, n)
    powers = t[:, None] ** np.arange(len(x))
    r = np.sign(t) - powers @ x
    return 0.5 * np.sum(r * r)


def llsq_manual(x, *, n):
    t = np.linspace(-1.0, 1.0, n)
    powers = t[:, None] ** np.arange(len(x))
    r = np.sign(t) - powers @ x
    # d/dx of |s - V x|^2 / 2 is -V^T r
    return 0.5 * float(r @ r), (-(r @ powers),)


def llsq_args(size, rng, **data):
    return (rng.random(DEGREES),)


def llsq_data(size, rng):
    return {"n": size}


PROBLEM = Problem(
    "llsq", llsq, llsq_manual, llsq_args,
    (16, 32, 64, 128, 256, 512, 1024, 2048, 4096, 8196, 16392), False,
    "gradbench llsq: polynomial least squares fit of sign(t), m = 128 coefficients, n points",
    make_data=llsq_data, origin="gradbench")
