"""The circuit's energy written in PyTorch, as its users write it to call ``backward``:
a complex128 state tensor, each gate a reshape to (high bits, qubit, low bits) and a
matmul with its 2x2 matrix, controls a ``torch.where`` on a constant mask, the energy a
sum of gathers times weights. :mod:`adapters.torch_ad` wraps it in the circuit-gradient
contract; the constants come from :mod:`adapters._circuit_plan`.
"""

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
