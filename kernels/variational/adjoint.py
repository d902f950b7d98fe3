"""The adjoint method (Jones and Gacon, arXiv:2009.02823): the gradient of <psi|H|psi>
in one forward run and one reverse sweep that uncomputes the gates, with two extra state
vectors whatever the number of parameters.

With psi_j the state after gate j and lambda_j = U_{j+1}^+ ... U_P^+ H psi_P, a gate
U_j = exp(-i t G / 2) contributes dE/dt = 2 Re <lambda_j| dU_j/dt |psi_{j-1}>
= Im <lambda_j| G |psi_j>. The sweep walks j = P .. 1 and undoes U_j on psi and lambda: a
fixed gate with the energy's kernel, on psi and lambda stored as one state of n + 1
qubits; a run of rotations on one qubit with :func:`_sweep.run_step`, which reads each
rotation's inner product in the same pass. U^+ is the conjugate transpose (for a
rotation, the rotation by -t); nothing is stored per gate.
"""

from functools import lru_cache

import numpy as np

from ..statevector import KERNELS, circuits, states
from . import _sweep, pauli
from .problem import GENERATORS, KERNEL


def _controls(slot):
    cmask = cval = 0
    for q, v in zip(slot.ctrl_locs, slot.ctrl_vals or (1,) * len(slot.ctrl_locs)):
        cmask |= 1 << q
        cval |= v << q
    return cmask, cval


@lru_cache(maxsize=64)
def _plan(slots):
    """The sweep, in order, for a circuit's slots: ``(None, j)`` to undo fixed gate j,
    ``(run, q, kinds, cmask, cval)`` for a run of rotations (slot indices ``run``, last
    gate first) on qubit q undone in one pass; consecutive uncontrolled rotations on one
    qubit share a run."""
    plan = []
    for j in reversed(range(len(slots))):
        s = slots[j]
        if s.param is None:
            plan.append((None, j))
            continue
        last = plan[-1] if plan else None
        if (last and last[0] is not None and not s.ctrl_locs and last[3] == 0
                and last[1] == s.locs[0] and len(last[0]) < _sweep.MAX_RUN):
            plan[-1] = (last[0] + (j,), last[1], last[2] + (GENERATORS[s.name],), 0, 0)
        else:
            plan.append(((j,), s.locs[0], (GENERATORS[s.name],)) + _controls(s))
    return tuple(plan)


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
    slots = problem.slots
    for step in _plan(slots):
        if step[0] is None:  # a fixed gate, undone on psi and lambda by one kernel call
            inst = insts[step[1]]
            kernel(both, inst.matrix.conj().T, inst.locs, inst.ctrl_locs,
                   inst.ctrl_vals or None)
            continue
        run, q, kinds, cmask, cval = step
        # U^+ of a rotation is exactly the rotation by -theta
        undo = np.stack([insts[j].matrix for j in run]).conj().transpose(0, 2, 1)
        accs = _sweep.run_step(both, q, undo, kinds, cmask, cval)
        for j, kind, acc in zip(run, kinds, accs):
            # dE/dt = Im <lam|G|psi> for exp(-i t G/2); -2 Im <lam|P1|psi> for exp(i t P1)
            grad[slots[j].param] += -2 * acc.imag if kind == "P1" else acc.imag
    return grad
