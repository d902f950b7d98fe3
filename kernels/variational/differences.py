"""Gradients from energies alone: the parameter-shift rule and central differences.

Both cost two energies per parameter, each a whole run of the circuit: O(P) circuits of
O(P) gates, the baselines the adjoint method and the AD engines must beat.
"""

import numpy as np

from .problem import GENERATORS


def _shifted(problem, theta, step):
    """(E(theta + step e_k) - E(theta - step e_k)) for every parameter k."""
    out = np.empty(problem.n_params)
    for k in range(problem.n_params):
        plus, minus = theta.copy(), theta.copy()
        plus[k] += step
        minus[k] -= step
        out[k] = problem.energy(plus) - problem.energy(minus)
    return out


def param_shift(problem, theta):
    """The parameter-shift rule: dE/dt = (E(t + pi/2) - E(t - pi/2)) / 2, exact for gates
    exp(-i t G / 2) with G^2 = 1 (Rx, Ry, Rz; phase is Rz up to a global phase). A
    controlled rotation's generator has eigenvalues 0 and +-1, which the two-term rule
    does not cover; a parameter shared by several gates would need one shift per gate."""
    theta = problem.check(theta)
    uses = np.zeros(problem.n_params, dtype=int)
    for s in problem.slots:
        if s.param is None:
            continue
        if s.ctrl_locs:
            raise NotImplementedError(
                f"param_shift: the two-term rule does not hold for the controlled "
                f"{s.name} on {s.locs} (controls {s.ctrl_locs}); use adjoint")
        if s.name not in GENERATORS:
            raise NotImplementedError(f"param_shift has no rule for {s.name}")
        uses[s.param] += 1
    if np.any(uses > 1):
        raise NotImplementedError(
            f"param_shift: parameter {int(np.argmax(uses > 1))} is shared by several "
            "gates; the two-term rule needs one shift per gate (use adjoint)")
    return _shifted(problem, theta, np.pi / 2) / 2


#: Step of the central differences: the cube root of machine epsilon balances truncation
#: (O(h^2)) and rounding (O(eps / h)) for an energy of order one.
STEP = np.finfo(float).eps ** (1 / 3)


def finite(problem, theta, step=STEP):
    """Central differences of the energy, step ``step``: accurate to ~1e-10 here."""
    theta = problem.check(theta)
    return _shifted(problem, theta, step) / (2 * step)
