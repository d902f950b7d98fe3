"""gradbench's ``particle`` (Siskind and Pearlmutter's nested-AD example): a charged particle
moving through the potential of two charges, one of which the control w moves, is
simulated by Euler steps until it hits the ground; gradient descent on w minimises the
square of where it lands. The simulation's acceleration is the gradient of the potential
(the inner derivative) and the descent needs the derivative of the whole simulation with
respect to w through that gradient (the outer one): a derivative of a derivative.

    charges (10, 10 - w) and (10, 0);  p(x) = sum_c 1 / |x - c|
    x = (0, 8), v = (0.75, 0), dt = 0.1;  repeat: a = -grad p(x); x' = x + dt v;
        stop if x'_y <= 0, else x = x', v = v + dt a
    land at x + t v with t = -x_y / v_y;  miss(w) = (its x coordinate)^2
    result: argmin over w of miss, by gradbench's descent from w = 0

gradbench runs it with every pairing of forward and reverse mode for the outer and the
inner derivative (ff, fr, rf, rr); here ``f(outer, inner, w0)`` takes the two gradient
functions. Its answer is w = 0.2071918746486116.
"""

import functools

import numpy as np

from .._problem import Problem
from ._descent import argmin, known

DT = 0.1  #: Euler's step


def _potential(x, *, charges):
    total = 0.0
    for c in charges:
        r = x - c
        total = total + 1.0 / np.sqrt(np.sum(r * r))
    return total


def _miss(w, *, gradient):
    charges = (np.array([10.0, 10.0 - w[0]]), np.array([10.0, 0.0]))
    x, v = np.array([0.0, 8.0]), np.array([0.75, 0.0])
    while True:
        (g,) = gradient(functools.partial(_potential, charges=charges), x)
        step = x + DT * v
        if step[1] <= 0.0:
            break
        x, v = step, v - DT * g
    x_final = x - x[1] / v[1] * v
    return x_final[0] * x_final[0]


def particle(outer, inner, w0):
    return argmin(functools.partial(_miss, gradient=inner), w0, outer)[0]


def _miss_derivative(w):
    """d miss / d w by forward mode written out: each quantity's tangent along w beside it
    (the charge (10, 10 - w) moves by (0, -1)); the potential's gradient and its tangent
    from sum_c (x - c) / |x - c|^3."""
    charges = (np.array([10.0, 10.0 - w[0]]), np.array([10.0, 0.0]))
    charge_tangents = (np.array([0.0, -1.0]), np.zeros(2))
    x, v = np.array([0.0, 8.0]), np.array([0.75, 0.0])
    dx, dv = np.zeros(2), np.zeros(2)
    while True:
        acceleration, d_acceleration = np.zeros(2), np.zeros(2)
        for c, dc in zip(charges, charge_tangents):
            r, dr = x - c, dx - dc
            norm = np.sqrt(r @ r)
            acceleration += r / norm ** 3
            d_acceleration += dr / norm ** 3 - 3.0 * r * (r @ dr) / norm ** 5
        step, d_step = x + DT * v, dx + DT * dv
        if step[1] <= 0.0:
            break
        x, v, dx, dv = step, v + DT * acceleration, d_step, dv + DT * d_acceleration
    t = -x[1] / v[1]
    dt = -(dx[1] * v[1] - x[1] * dv[1]) / v[1] ** 2
    land, d_land = x[0] + t * v[0], dx[0] + dt * v[0] + t * dv[0]
    return np.array([2.0 * land * d_land])


def _miss_manual(w):
    return _miss(w, gradient=known(lambda x: -_acceleration(x, w)))


def _acceleration(x, w):
    charges = (np.array([10.0, 10.0 - w[0]]), np.array([10.0, 0.0]))
    return sum((x - c) / np.sqrt((x - c) @ (x - c)) ** 3 for c in charges)


def particle_manual(w0):
    w = argmin(_miss_manual, w0, known(_miss_derivative))[0]
    return float(w), None


def particle_args(size, rng):
    return (np.zeros(1),)  # gradbench's start, w = 0


PROBLEM = Problem(
    "particle", particle, particle_manual, particle_args, (1,), True,
    "gradbench particle: gradient descent on a control through a simulation driven by a "
    "potential's gradient (nested derivatives)", output="nested", origin="gradbench")
