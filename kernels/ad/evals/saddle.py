"""gradbench's ``saddle``: a saddle point of f(p1, p2) = |p1|^2 - |p2|^2 by nested gradient
descent: p1 minimises the maximum over p2, where the maximum is itself found by descent
(on -f) from the start point, so the outer descent differentiates through the inner one.

    r1 = argmin over p1 of f(p1, argmax over p2 of f(p1, p2))
    r2 = argmax over p2 of f(r1, p2)              both from start = (1, 1)

with gradbench's descent (``_descent``); ``f(outer, inner, start)`` takes the outer and the
inner gradient functions and returns (r1, r2). gradbench's answer is 8.246324826140356e-06
in all four entries. The inner maximiser does not depend on p1 (its gradient is -2 p2),
so d/dp1 of the outer cost is 2 p1 exactly: the hand-written derivative's shortcut.
"""

import functools

import numpy as np

from .._problem import Problem
from ._descent import argmax, argmin, known


def _f(p1, p2):
    return np.sum(p1 * p1) - np.sum(p2 * p2)


def _f_of_p2(p2, *, p1):
    return _f(p1, p2)


def _worst_case(p1, *, start, gradient):
    p2 = argmax(functools.partial(_f_of_p2, p1=p1), start, gradient)
    return _f(p1, p2)


def saddle(outer, inner, start):
    r1 = argmin(functools.partial(_worst_case, start=start, gradient=inner), start, outer)
    r2 = argmax(functools.partial(_f_of_p2, p1=r1), start, inner)
    return np.concatenate((r1, r2))


def saddle_manual(start):
    # the descents' objectives by hand: argmax descends -f, whose gradient in p2 is 2 p2;
    # the worst case's gradient in p1 is 2 p1 (its maximiser does not move with p1)
    inner = known(lambda p2: 2.0 * p2)
    r1 = argmin(functools.partial(_worst_case, start=start, gradient=inner), start,
                known(lambda p1: 2.0 * p1))
    r2 = argmax(functools.partial(_f_of_p2, p1=r1), start, inner)
    return np.concatenate((r1, r2)), None


def saddle_args(size, rng):
    return (np.ones(2),)  # gradbench's start


PROBLEM = Problem(
    "saddle", saddle, saddle_manual, saddle_args, (1,), False,
    "gradbench saddle: min over p1 of max over p2 of |p1|^2 - |p2|^2 by nested gradient "
    "descent (nested derivatives)", output="nested", origin="gradbench")
