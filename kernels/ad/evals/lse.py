"""gradbench's ``lse``: log-sum-exp of a vector, with the maximum taken out first so that
the exponentials cannot overflow.

    f(x) = log(sum_i exp(x_i - A)) + A,    A = max_i x_i

The gradient is softmax(x): the maximum's own derivative cancels (it enters once inside
the logarithm and once outside), so an engine's choice of subgradient at ties does not
matter. gradbench draws x uniformly from [0, 1).
"""

import numpy as np

from .._problem import Problem


def lse(x):
    A = np.max(x)
    return np.log(np.sum(np.exp(x - A))) + A


def lse_manual(x):
    A = np.max(x)
    e = np.exp(x - A)
    s = np.sum(e)
    return float(np.log(s) + A), (e / s,)


def lse_args(n, rng):
    return (rng.random(n),)


PROBLEM = Problem(
    "lse", lse, lse_manual, lse_args,
    (2500, 5000, 10000, 20000, 40000, 80000, 160000, 320000, 640000, 1280000), False,
    "gradbench lse: log-sum-exp of n values, the maximum subtracted first",
    origin="gradbench")
