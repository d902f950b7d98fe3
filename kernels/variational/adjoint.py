"""The adjoint method (Jones and Gacon, arXiv:2009.02823): the gradient of <psi|H|psi>
in one forward run and one reverse sweep that uncomputes the gates, with two extra state
vectors whatever the number of parameters.

With psi_j the state after gate j and lambda_j = U_{j+1}^+ ... U_P^+ H psi_P, a gate
U_j = exp(-i t G / 2) contributes dE/dt = 2 Re <lambda_j| dU_j/dt |psi_{j-1}>
= Im <lambda_j| G |psi_j>. The sweep walks j = P .. 1: read that inner product (one pass
over both states, no copy: :func:`pauli.braket`), then apply U_j^+ to psi and lambda with
the same kernel as the energy. The inverse of a rotation is the rotation by -t, of a
fixed gate its conjugate transpose; nothing is stored per gate.
"""

import numpy as np

from ..statevector import KERNELS, circuits, states
from . import pauli
from .problem import GENERATORS, KERNEL


def _generator_term(slot, n):
    """(Masks of the Pauli generator, control mask, control value, kind) for a slot."""
    cmask = cval = 0
    for q, v in zip(slot.ctrl_locs, slot.ctrl_vals or (1,) * len(slot.ctrl_locs)):
        cmask |= 1 << q
        cval |= v << q
    g = GENERATORS[slot.name]
    letter = "Z" if g == "P1" else g
    return pauli.masks({slot.locs[0]: letter}, n), cmask, cval, g


def _contribution(lam, psi, term):
    m, cmask, cval, kind = term
    if kind == "P1":  # exp(i t |1><1|): dE/dt = -2 Im <lam| P1 |psi>, P1 = (1 - Z) / 2
        ident = pauli.Masks(0, 0, 1)
        return (pauli.braket(lam, psi, m, cmask, cval).imag
                - pauli.braket(lam, psi, ident, cmask, cval).imag)
    return pauli.braket(lam, psi, m, cmask, cval).imag


def _inverse(inst):
    """The instruction undoing ``inst``: the rotation by minus its angle, or U^+."""
    if inst.params:
        return circuits.gate(inst.name, *inst.locs, ctrl=inst.ctrl_locs,
                             ctrl_vals=inst.ctrl_vals or None, theta=-inst.params[0])
    return inst._replace(matrix=np.ascontiguousarray(inst.matrix.conj().T))


def gradient(problem, theta):
    """dE/dtheta by the adjoint method, with :data:`problem.KERNEL`."""
    theta = problem.check(theta)
    kernel = KERNELS[KERNEL]
    insts = problem.circuit(theta)
    psi = circuits.run(kernel, states.zero_state(problem.n), insts)
    states.check_fits(problem.n, copies=1)  # lambda: the one extra state
    lam = pauli.apply_observable(psi, problem.compiled)
    grad = np.zeros(problem.n_params)
    terms = {}
    for slot, inst in zip(reversed(problem.slots), reversed(insts)):
        if slot.param is not None:
            term = terms.get(slot)
            if term is None:
                term = terms[slot] = _generator_term(slot, problem.n)
            grad[slot.param] += _contribution(lam, psi, term)
        undo = _inverse(inst)
        undo.apply(kernel, psi)
        undo.apply(kernel, lam)
    return grad
