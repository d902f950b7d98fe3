"""PyTorch's gradient of a variational circuit's energy, for torch_ad (docs/architecture.md,
"Adapters"; the shared layout in :mod:`adapters._gradients`).

The circuit's energy is written in PyTorch, as its users write it to call ``backward``: a
complex128 state tensor, each gate a reshape to (high bits, qubit, low bits) and a matmul
with its 2x2 matrix, controls a ``torch.where`` on a constant mask, the energy a sum of
gathers times weights; the constants come from :mod:`adapters.ad._circuit_plan`.

"backprop": theta a float64 leaf with requires_grad and ``energy.backward()``, what a
torch user writes. Autograd keeps a state per rotation for the backward pass (25n of them
for the QCBM): one gradient at n = 20 took the process to 17.6 GB resident.
"""

import numpy as np
import torch

from . import _circuit_plan


def energy_function(problem):
    """``energy(theta)``: a float64 tensor ``theta`` (``n_params``) to a 0-d float64 tensor,
    differentiable by autograd."""
    p = _circuit_plan.plan(problem)
    n = p.n
    param, freq = torch.from_numpy(p.param), torch.from_numpy(p.freq)
    a, b, c = torch.from_numpy(p.coeffs)
    # (qubit, mask, fixed matrix); a rotation's matrix is None here, taken in turn from u
    steps = [(s.qubit, None if s.mask is None else torch.from_numpy(s.mask),
              None if s.fixed is None else torch.from_numpy(s.fixed)) for s in p.steps]
    terms = [(None if i is None else torch.from_numpy(i), torch.from_numpy(w))
             for i, w in p.terms]
    zero = torch.from_numpy(_circuit_plan.zero_state(n))

    def energy(theta):
        angle = (freq * theta[param])[:, None, None]
        u = iter(a + b * torch.cos(angle) + c * torch.sin(angle))  # all rotations at once
        psi = zero
        for q, mask, fixed in steps:
            blocks = psi.reshape(2 ** (n - q - 1), 2, 2 ** q)
            # out[i, a, j] = sum_b u[a, b] blocks[i, b, j]: matmul broadcasts u over i in
            # the state's own layout. einsum("ab,ibj->iaj") makes permuted copies: its
            # gradient at n = 16 was 20% faster, but at n = 20 it ran out of 23 GB where
            # matmul's peaked at 15 GB (glibc keeps the holes the copies leave)
            new = torch.matmul(next(u) if fixed is None else fixed, blocks).reshape(2 ** n)
            psi = new if mask is None else torch.where(mask, new, psi)
        total = 0.0
        for index, weight in terms:
            moved = psi if index is None else psi[index]  # P psi up to the weight
            total = total + torch.vdot(psi, weight * moved).real
        return total

    return energy


def gradient(problem, method):
    """``grad(theta)``: backward through the torch energy (torch's one method,
    "backprop")."""
    energy = energy_function(problem)

    def grad(theta):
        theta = torch.from_numpy(problem.check(theta)).requires_grad_()
        value = energy(theta)
        if not value.requires_grad:  # a circuit without rotations: no graph to walk back
            return np.zeros(problem.n_params)
        value.backward()
        return theta.grad.numpy()

    return grad


def energy(problem, method):
    """``energy(theta)``: the torch energy, without recording a graph."""
    energy = energy_function(problem)

    def value(theta):
        with torch.no_grad():
            return float(energy(torch.from_numpy(problem.check(theta))))

    return value
