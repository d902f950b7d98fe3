"""The energy of a problem as a user writes it in plain numpy: reshape the state so the
gate's qubit is an axis, contract the 2x2 matrix into it with einsum, pick the controlled
amplitudes with ``np.where``, measure each Pauli term with a gather and a sign. No kernel,
no in-place update: this is the code the reverse and source AD engines differentiate, and
the model the PyTorch and JAX adapters write again in their own array languages.

:func:`energy_function` returns ``f(theta)`` with the circuit's index arrays (gathers,
signs, control masks) computed once, as plain constants of the closure.
"""

import numpy as np

from ..statevector import gates  # fixed gates' matrices are constants

ROTATIONS = ("Rx", "Ry", "Rz", "phase")


def rotation(name, t):
    """The 2x2 matrix of rotation ``name`` (one of :data:`ROTATIONS`) at angle ``t``, a
    float or a traced value."""
    c, s = np.cos(t / 2), np.sin(t / 2)
    if name == "Rx":
        u = np.array([[c, -1j * s], [-1j * s, c]])
    elif name == "Ry":
        u = np.array([[c, -s], [s, c]])
    elif name == "Rz":
        u = np.array([[c - 1j * s, 0], [0, c + 1j * s]])
    else:
        u = np.array([[1, 0], [0, (c + 1j * s) ** 2]])
    return u


def apply_1q(psi, u, q, n):
    """U on qubit q: the state as (high bits, qubit q, low bits), U contracted into axis 1."""
    blocks = psi.reshape(2 ** (n - q - 1), 2, 2 ** q)
    return np.einsum("ab,ibj->iaj", u, blocks).reshape(2 ** n)


def controls_mask(n, ctrl_locs, ctrl_vals):
    k = np.arange(2 ** n)
    mask = np.ones(2 ** n, dtype=bool)
    for q, v in zip(ctrl_locs, ctrl_vals):
        mask &= ((k >> q) & 1) == v
    return mask


def pauli_gather(n, masks):
    """(indices, factors): (P psi)[k] = factors[k] * psi[indices[k]]."""
    k = np.arange(2 ** n)
    j = k ^ masks.x
    parity = np.zeros(2 ** n, dtype=np.int64)
    bits = j & masks.z
    while np.any(bits):
        parity ^= bits & 1
        bits = bits >> 1
    return j, masks.phase * (1 - 2 * parity)


def energy_function(problem):
    """``f(theta) -> float``: the problem's energy in plain numpy, for AD engines."""
    n = problem.n
    steps = []
    for s in problem.slots:
        fixed = None if s.param is not None else getattr(gates, s.name)
        mask = (controls_mask(n, s.ctrl_locs, s.ctrl_vals or (1,) * len(s.ctrl_locs))
                if s.ctrl_locs else None)
        if s.param is not None and s.name not in ROTATIONS:
            raise NotImplementedError(f"no plain-numpy rotation {s.name!r}")
        if len(s.locs) != 1:
            raise NotImplementedError(f"plain simulation of {s.name} on {len(s.locs)} qubits")
        steps.append((s.name, s.locs[0], s.param, fixed, mask))
    terms = [(c,) + pauli_gather(n, m) for c, m in problem.compiled]
    zero = np.zeros(2 ** n, dtype=complex)
    zero[0] = 1

    def energy(theta):
        psi = zero
        for name, q, param, fixed, mask in steps:
            u = fixed if param is None else rotation(name, theta[param])
            new = apply_1q(psi, u, q, n)
            psi = new if mask is None else np.where(mask, new, psi)
        total = 0.0
        for c, index, factor in terms:
            total = total + c * np.real(np.sum(np.conj(psi) * factor * psi[index]))
        return total

    return energy
