"""gradbench's ``ode`` (from Brad Bell's cmpad): a chain of n linear ODEs

    y_0' = x_0,    y_i' = x_i y_{i-1}    (i > 0),    y(0) = 0,

integrated over [0, 2] with s steps of classical fourth-order Runge-Kutta. gradbench's
primal returns y(2); its gradient is that of the last component, y_{n-1}(2), with respect
to x (drawn uniformly from [0, 1)). gradbench sweeps n over 1000, 10000, 100000 and s over
1, 10, 100; here the size is n and s is fixed at the middle value, 10.
"""

import numpy as np

from .._problem import Problem

STEPS = 10  #: gradbench's middle step count
END = 2.0  #: the integration interval is [0, END]


def _rhs(x, y):
    return np.concatenate((x[:1], x[1:] * y[:-1]))


def solve(x, *, s):
    """The state at the end of [0, END]: gradbench's ``primal`` output."""
    h = END / s
    y = np.zeros(len(x))
    for _ in range(s):
        k1 = _rhs(x, y)
        k2 = _rhs(x, y + h / 2 * k1)
        k3 = _rhs(x, y + h / 2 * k2)
        k4 = _rhs(x, y + h * k3)
        y = y + h / 6 * (k1 + 2 * k2 + 2 * k3 + k4)
    return y


def ode(x, *, s):
    return solve(x, s=s)[-1]


def _rhs_adjoint(g, x, y):
    """Cotangents of x and y from the cotangent g of _rhs(x, y)."""
    gx = np.empty_like(x)
    gx[0] = g[0]
    gx[1:] = g[1:] * y[:-1]
    gy = np.zeros_like(y)
    gy[:-1] = g[1:] * x[1:]
    return gx, gy


def ode_manual(x, *, s):
    """The Runge-Kutta steps forward, keeping each step's stage inputs, then the adjoint
    steps backward from the cotangent e_{n-1} of y(2)."""
    h = END / s
    y = np.zeros(len(x))
    stages = []
    for _ in range(s):
        y1 = y
        k1 = _rhs(x, y1)
        y2 = y + h / 2 * k1
        k2 = _rhs(x, y2)
        y3 = y + h / 2 * k2
        k3 = _rhs(x, y3)
        y4 = y + h * k3
        k4 = _rhs(x, y4)
        stages.append((y1, y2, y3, y4))
        y = y + h / 6 * (k1 + 2 * k2 + 2 * k3 + k4)
    value = float(y[-1])
    gy = np.zeros(len(x))
    gy[-1] = 1.0
    gx = np.zeros(len(x))
    for y1, y2, y3, y4 in reversed(stages):
        # y' = y + h/6 (k1 + 2 k2 + 2 k3 + k4), each k a _rhs of a stage input built from y
        g4 = h / 6 * gy
        gx4, gy4 = _rhs_adjoint(g4, x, y4)
        g3 = 2 * h / 6 * gy + h * gy4
        gx3, gy3 = _rhs_adjoint(g3, x, y3)
        g2 = 2 * h / 6 * gy + h / 2 * gy3
        gx2, gy2 = _rhs_adjoint(g2, x, y2)
        g1 = h / 6 * gy + h / 2 * gy2
        gx1, gy1 = _rhs_adjoint(g1, x, y1)
        gx += gx1 + gx2 + gx3 + gx4
        gy = gy + gy1 + gy2 + gy3 + gy4
    return value, (gx,)


def ode_args(size, rng, **data):
    return (rng.random(size),)


def ode_data(size, rng):
    return {"s": STEPS}


PROBLEM = Problem(
    "ode", ode, ode_manual, ode_args, (1000, 10000, 100000), False,
    "gradbench ode: n chained linear ODEs, 10 Runge-Kutta steps over [0, 2], last component",
    make_data=ode_data, origin="gradbench")
