"""The adjoint method (Jones and Gacon, arXiv:2009.02823): the gradient of <psi|H|psi>
in one forward run and one reverse sweep that uncomputes the gates, with two extra state
vectors whatever the number of parameters.

With psi_j the state after gate j and lambda_j = U_{j+1}^+ ... U_P^+ H psi_P, a gate
U_j = exp(-i t G / 2) contributes dE/dt = 2 Re <lambda_j| dU_j/dt |psi_{j-1}>
= Im <lambda_j| G |psi_j>. The forward run is the energy's (:mod:`fused`: prepared fixed
gates, each run of rotations on a qubit one 2x2). The sweep walks its steps back and
undoes each on psi and lambda, stored as one state of n + 1 qubits: a fixed gate by one
prepared kernel call, a run of rotations by :func:`_sweep.run_step`, which reads every
rotation's inner product in the same pass. U^+ is the conjugate transpose; nothing is
stored per gate.
"""

import numpy as np

from ..statevector import states
from . import _sweep, fused
from .problem import KERNEL


def gradient(problem, theta):
    """dE/dtheta by the adjoint method, with :data:`problem.KERNEL`."""
    theta = problem.check(theta)
    plan = fused.plan(problem.slots, problem.n, KERNEL)
    rotations = fused.rotations(plan, theta)
    n = problem.n
    half = 1 << n
    states.check_fits(n + 1)  # psi and lambda, side by side
    both = states.zeros(2 * half)
    psi = both[:half]
    psi[0] = 1
    fused.run(plan, rotations, psi)
    problem.measure.apply(psi, out=both[half:])
    accs = np.empty(len(plan.params), dtype=np.complex128)
    for step in reversed(plan.steps):
        if isinstance(step, fused.Fixed):  # undone on psi and lambda by one kernel call
            step.undo(both)
        else:
            accs[step.start:step.stop] = _sweep.run_step(
                both, step.qubit, rotations[step.start:step.stop], step.gens,
                step.cmask, step.cval)
    return np.bincount(plan.params, weights=plan.scale * accs.imag,
                       minlength=problem.n_params)
