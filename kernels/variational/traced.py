"""The project's AD engines (:mod:`kernels.ad`) differentiating the energy.

``forward`` pushes the forward engine's dual numbers through a simulator kernel: the
state is an object array whose amplitudes are dual numbers, each carrying a chunk of
partials (ForwardDiff's chunk mode), and the ``subspace`` kernel, which needs only ``+``
and ``*`` of its elements (the seed's generic element types), applies every gate to it.
One pass per chunk of parameters, each as costly as 2**n Python-level dual operations
per gate: the price of generic element types, measured in the variational suite.

``reverse`` and ``source`` differentiate :func:`plain.energy_function`, the circuit
written in plain vectorised numpy (complex intermediates, a real energy).
"""

import numpy as np

from ..ad import forward as _forward
from ..ad import reverse as _reverse
from ..ad import source as _source
from ..statevector import KERNELS, gates
from . import plain

_SUBSPACE = KERNELS["subspace"]


def _object_matrix(rows):
    out = np.empty((len(rows), len(rows[0])), dtype=object)
    for i, row in enumerate(rows):
        for j, v in enumerate(row):
            out[i, j] = v
    return out


def _dual_rotation(name, t):
    """The rotation's 2x2 matrix as an object array of (dual) numbers."""
    if name == "Rx":
        c, s = np.cos(t / 2), np.sin(t / 2)
        return _object_matrix([[c, -1j * s], [-1j * s, c]])
    if name == "Ry":
        c, s = np.cos(t / 2), np.sin(t / 2)
        return _object_matrix([[c, -s], [s, c]])
    if name == "Rz":
        return _object_matrix([[np.exp(-0.5j * t), 0j], [0j, np.exp(0.5j * t)]])
    if name == "phase":
        return _object_matrix([[1 + 0j, 0j], [0j, np.exp(1j * t)]])
    raise NotImplementedError(f"forward: no dual-number rotation {name!r}")


def _energy_on_duals(problem):
    n = problem.n
    fixed = {s.name: gates.__dict__[s.name].astype(object)
             for s in problem.slots if s.param is None}
    # (P psi)[k] = factor[k] * psi[index[k]], as plain Python numbers per amplitude
    terms = [(c,) + tuple(map(list, plain.pauli_gather(n, m))) for c, m in problem.compiled]

    def energy(theta):
        state = np.zeros(1 << n, dtype=object)
        state[:] = 0j
        state[0] = 1 + 0j
        for s in problem.slots:
            m = fixed[s.name] if s.param is None else _dual_rotation(s.name, theta[s.param])
            _SUBSPACE(state, m, s.locs, s.ctrl_locs, s.ctrl_vals or None)
        conj = [np.conj(a) for a in state]
        total = 0.0
        for c, index, factor in terms:
            acc = 0j
            for k in range(1 << n):
                acc = acc + conj[k] * (factor[k] * state[index[k]])
            total = total + c * np.real(acc)
        return total

    return energy


def forward(problem, theta, chunk=None):
    """Forward mode: dual numbers (a chunk of partials each) through ``subspace``."""
    theta = problem.check(theta)
    return _forward.gradient(_energy_on_duals(problem), theta, chunk=chunk)[0]


def reverse(problem, theta):
    """Reverse mode: the operator-overloading tape over the plain-numpy simulation."""
    theta = problem.check(theta)
    return _reverse.gradient(plain.energy_function(problem), theta)[0]


def source(problem, theta):
    """Source-to-source reverse mode over the plain-numpy simulation."""
    theta = problem.check(theta)
    return _source.gradient(plain.energy_function(problem), theta)[0]

