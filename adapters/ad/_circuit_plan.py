"""A variational problem as the constant arrays an array-language simulation needs, built
once in numpy for :mod:`adapters.ad._torch_gradients` and :mod:`adapters.ad._jax_gradients`.

The per-evaluation code those modules write is :func:`kernels.variational.plain.energy_function`
again (reshape, 2x2 contraction, ``where`` on a control mask, gathers and signs); what is
constant (masks, gathers, the gates' coefficient matrices) is made here with plain's
helpers, so the conventions (qubit q is bit q; plain's :func:`~plain.rotation`) are plain's.

A rotation's matrix is ``A + B cos(f t) + C sin(f t)`` with ``t = theta[p]``: plain's
rotations are linear in the cosine and sine of ``f t`` (f = 1/2 for Rx, Ry, Rz, whose
entries are cos(t/2), sin(t/2); f = 1 for phase, whose entry is e^{it}). So one vectorised
expression gives all the rotations' matrices at once, differentiated through the
frameworks' own cos and sin. A fixed gate's matrix stays a constant, so that autograd
neither differentiates it nor keeps the state it acts on.
"""

from typing import NamedTuple

import numpy as np

from kernels.statevector import gates
from kernels.variational import plain

#: f in cos(f t), sin(f t) for each of plain's rotations.
FREQUENCIES = {"Rx": 0.5, "Ry": 0.5, "Rz": 0.5, "phase": 1.0}
assert set(FREQUENCIES) == set(plain.ROTATIONS)


class Step(NamedTuple):
    qubit: int
    mask: np.ndarray | None  # bool (2**n,): the amplitudes the controls select; None: all
    fixed: np.ndarray | None  # a fixed gate's matrix, or None for the next rotation's


class Plan(NamedTuple):
    n: int
    steps: tuple
    # the rotations, in circuit order: angle f * theta[param], matrix A + B cos + C sin
    param: np.ndarray  # (rotations,) int
    freq: np.ndarray   # (rotations,) f
    coeffs: np.ndarray  # (3, rotations, 2, 2) complex: A, B, C
    terms: tuple       # ((index or None, weight)): energy = sum Re <psi| weight * psi[index]>


def _coefficients(name):
    """(A, B, C) of plain's rotation ``name``, from three of its values: at f t = 0,
    pi/2, pi it is A + B, A + C, A - B."""
    f = FREQUENCIES[name]
    u0, u1, u2 = (np.asarray(plain.rotation(name, phi / f), dtype=np.complex128)
                  for phi in (0.0, np.pi / 2, np.pi))
    a = (u0 + u2) / 2
    return a, (u0 - u2) / 2, u1 - a


def _observable(problem):
    """The Pauli terms grouped by their X mask: the terms sharing it share one gather
    (``psi[k ^ x]``, None for x = 0), and their signs and coefficients add into one
    weight per amplitude (the Ising ring's n ZZ terms become one diagonal)."""
    groups = {}
    for c, m in problem.compiled:
        index, factor = plain.pauli_gather(problem.n, m)
        _, weight = groups.get(m.x, (index, 0))
        groups[m.x] = (index, weight + c * factor)
    return tuple((None if x == 0 else index, np.asarray(weight, dtype=np.complex128))
                 for x, (index, weight) in groups.items())


def plan(problem):
    """The :class:`Plan` of ``problem``; NotImplementedError naming a gate that is not a
    one-qubit gate (possibly controlled) of plain's."""
    n = problem.n
    steps, param, freq, coeffs = [], [], [], []
    for s in problem.slots:
        if len(s.locs) != 1:
            raise NotImplementedError(f"{s.name} on {len(s.locs)} qubits: only one-qubit "
                                      "gates (with any controls) are simulated")
        fixed = None
        if s.param is None:
            fixed = getattr(gates, s.name, None)
            if not (isinstance(fixed, np.ndarray) and fixed.shape == (2, 2)):
                raise NotImplementedError(f"no one-qubit matrix for the fixed gate {s.name!r}")
        elif s.name in FREQUENCIES:
            param.append(s.param)
            freq.append(FREQUENCIES[s.name])
            coeffs.append(_coefficients(s.name))
        else:
            raise NotImplementedError(f"no rotation {s.name!r}")
        mask = (plain.controls_mask(n, s.ctrl_locs, s.ctrl_vals or (1,) * len(s.ctrl_locs))
                if s.ctrl_locs else None)
        steps.append(Step(int(s.locs[0]), mask, fixed))
    coeffs = np.array(coeffs, dtype=np.complex128).reshape(len(param), 3, 2, 2)
    return Plan(n, tuple(steps), np.array(param, dtype=np.int64), np.array(freq, dtype=float),
                coeffs.transpose(1, 0, 2, 3), _observable(problem))


def zero_state(n):
    psi = np.zeros(2 ** n, dtype=np.complex128)
    psi[0] = 1
    return psi
