"""The adjoint method (Jones and Gacon, arXiv:2009.02823): the gradient of <psi|H|psi>
in one forward run and one reverse sweep that uncomputes the gates, with two extra state
vectors whatever the number of parameters.

With psi_j the state after gate j and lambda_j = U_{j+1}^+ ... U_P^+ H psi_P, a gate
U_j = exp(-i t G / 2) contributes dE/dt = 2 Re <lambda_j| dU_j/dt |psi_{j-1}>
= Im <lambda_j| G |psi_j>. The sweep walks j = P .. 1 and undoes U_j on psi and lambda: a
fixed gate with the energy's kernel, on psi and lambda stored as one state of n + 1
qubits; a rotation with :func:`_sweep.rotation_step`, which reads the inner product in
the same pass. U^+ is the conjugate transpose (for a rotation, the rotation by -t);
nothing is stored per gate.
"""

import numpy as np

from ..statevector import KERNELS, circuits, states
from . import _sweep, pauli
from .problem import GENERATORS, KERNEL


def _generator(slot):
    """(kind, control mask, control value) of a parameterised slot."""
    cmask = cval = 0
    for q, v in zip(slot.ctrl_locs, slot.ctrl_vals or (1,) * len(slot.ctrl_locs)):
        cmask |= 1 << q
        cval |= v << q
    return _sweep.KINDS[GENERATORS[slot.name]], cmask, cval


def gradient(problem, theta):
    """dE/dtheta by the adjoint method, with :data:`problem.KERNEL`."""
    theta = problem.check(theta)
    kernel = KERNELS[KERNEL]
    insts = problem.circuit(theta)
    n = problem.n
    half = 1 << n
    states.check_fits(n + 1)  # psi and lambda, side by side
    both = np.zeros(2 * half, dtype=np.complex128)
    psi = both[:half]
    psi[0] = 1
    circuits.run(kernel, psi, insts)
    pauli.apply_observable(psi, problem.compiled, out=both[half:])
    grad = np.zeros(problem.n_params)
    generators = {}
    for slot, inst in zip(reversed(problem.slots), reversed(insts)):
        undo = inst.matrix.conj().T  # exactly the rotation by -theta for a rotation
        if slot.param is None:  # undone on psi and lambda by one call, one qubit more
            kernel(both, undo, inst.locs, inst.ctrl_locs, inst.ctrl_vals or None)
            continue
        gen = generators.get(slot)
        if gen is None:
            gen = generators[slot] = _generator(slot)
        kind, cmask, cval = gen
        (u00, u01), (u10, u11) = undo.tolist()
        acc = _sweep.rotation_step(both, inst.locs[0], u00, u01, u10, u11,
                                   u01 == 0 and u10 == 0, kind, cmask, cval)
        # dE/dt = Im <lam|G|psi> for exp(-i t G/2); -2 Im <lam|P1|psi> for exp(i t P1)
        grad[slot.param] += -2 * acc.imag if kind == _sweep.KINDS["P1"] else acc.imag
    return grad
