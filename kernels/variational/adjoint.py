"""The adjoint method (Jones and Gacon, arXiv:2009.02823): the gradient of <psi|H|psi>
in one forward run and one reverse sweep that uncomputes the gates, with two extra state
vectors whatever the number of parameters.

With psi_j the state after gate j and lambda_j = U_{j+1}^+ ... U_P^+ H psi_P, a gate
U_j = exp(-i t G / 2) contributes dE/dt = 2 Re <lambda_j| dU_j/dt |psi_{j-1}>
= Im <lambda_j| G |psi_j>. The sweep walks j = P .. 1 and undoes U_j on psi and lambda: a
fixed gate with the energy's kernel, on psi and lambda stored as one state of n + 1
qubits; a run of rotations on one qubit (same controls) with :func:`_sweep.run_step`,
which reads every rotation's inner product and undoes the run in one pass. U^+ is the
conjugate transpose; nothing is stored per gate.

The forward run applies the same runs, each multiplied out into one 2x2, with the same
kernel: the state it reaches is the circuit's, with a third of the QCBM's kernel calls.
"""

from functools import lru_cache
from typing import NamedTuple

import numpy as np

from ..statevector import KERNELS, circuits, prepared, states
from . import _sweep, pauli
from .problem import GENERATORS, KERNEL


class _Fixed(NamedTuple):
    apply: object        # the gate prepared with the kernel on n qubits (psi)
    undo: object         # its conjugate transpose on n + 1 qubits (psi and lambda)


class _Run(NamedTuple):
    start: int            # its rotations are rotations[start:stop], in circuit order
    stop: int
    qubit: int
    ctrl_locs: tuple
    ctrl_vals: tuple | None
    cmask: int
    cval: int
    gens: np.ndarray      # (m, 2, 2): each rotation's generator G, P1 for phase


class _Plan(NamedTuple):
    steps: tuple          # _Fixed and _Run, in circuit order
    params: np.ndarray    # theta index of each rotation, in circuit order
    kinds: np.ndarray     # 0..3: X, Y, Z, P1 (see _matrices)
    scale: np.ndarray     # dE/dt = scale * Im <lambda|G|psi>: 1, or -2 for exp(i t P1)


_KINDS = ("X", "Y", "Z", "P1")


def _controls(slot):
    vals = tuple(slot.ctrl_vals or (1,) * len(slot.ctrl_locs))
    cmask = sum(1 << q for q in slot.ctrl_locs)
    cval = sum(v << q for q, v in zip(slot.ctrl_locs, vals))
    return vals, cmask, cval


@lru_cache(maxsize=64)
def _plan(slots, n):
    """The circuit's steps: each fixed gate prepared with the kernel (checked and planned
    once, as the benchmarks' gates are), and each maximal run of consecutive rotations on
    one qubit with the same controls."""
    steps, params, kinds = [], [], []
    for s in slots:
        vals, cmask, cval = _controls(s)
        if s.param is None:
            m = circuits.gate(s.name, *s.locs).matrix
            steps.append(_Fixed(*(prepared.prepare(KERNEL, k, u, s.locs, s.ctrl_locs, vals)
                                  for k, u in ((n, m), (n + 1, m.conj().T)))))
            continue
        last = steps[-1] if steps else None
        if not (isinstance(last, _Run) and last.qubit == s.locs[0]
                and last.ctrl_locs == tuple(s.ctrl_locs) and last.cval == cval):
            last = _Run(len(params), len(params), s.locs[0], tuple(s.ctrl_locs),
                        vals or None, cmask, cval, None)
            steps.append(last)
        steps[-1] = last._replace(stop=last.stop + 1)
        params.append(s.param)
        kinds.append(_KINDS.index(GENERATORS[s.name]))
    kinds = np.array(kinds, dtype=np.intp)
    gens = np.stack([_sweep.GENERATORS[k] for k in _KINDS])
    steps = tuple(st._replace(gens=gens[kinds[st.start:st.stop]]) if isinstance(st, _Run)
                  else st for st in steps)
    return _Plan(steps, np.array(params, dtype=np.intp), kinds,
                 np.where(kinds == _KINDS.index("P1"), -2.0, 1.0))


def _matrices(kinds, angles):
    """Every rotation's 2x2 at once: exp(-i t G / 2) = cos(t/2) 1 - i sin(t/2) G for a
    Pauli G; diag(1, e^{i t}) for phase (the definitions of kernels.statevector.circuits)."""
    c = np.cos(angles / 2)[:, None, None]
    s = np.sin(angles / 2)[:, None, None]
    paulis = np.stack([_sweep.GENERATORS[k] for k in _KINDS[:3]])
    out = c * np.eye(2) - 1j * s * paulis[np.minimum(kinds, 2)]
    phase = kinds == _KINDS.index("P1")
    out[phase] = 0
    out[phase, 0, 0] = 1
    out[phase, 1, 1] = np.exp(1j * angles[phase])
    return out


def gradient(problem, theta):
    """dE/dtheta by the adjoint method, with :data:`problem.KERNEL`."""
    theta = problem.check(theta)
    kernel = KERNELS[KERNEL]
    plan = _plan(problem.slots, problem.n)
    rotations = _matrices(plan.kinds, theta[plan.params])
    n = problem.n
    half = 1 << n
    states.check_fits(n + 1)  # psi and lambda, side by side
    both = np.zeros(2 * half, dtype=np.complex128)
    psi = both[:half]
    psi[0] = 1
    for step in plan.steps:
        if isinstance(step, _Fixed):
            step.apply(psi)
        else:
            kernel(psi, _sweep.product(rotations[step.start:step.stop]), (step.qubit,),
                   step.ctrl_locs, step.ctrl_vals)
    pauli.apply_observable(psi, problem.compiled, out=both[half:])
    accs = np.empty(len(plan.params), dtype=np.complex128)
    for step in reversed(plan.steps):
        if isinstance(step, _Fixed):  # undone on psi and lambda by one kernel call
            step.undo(both)
        else:
            accs[step.start:step.stop] = _sweep.run_step(
                both, step.qubit, rotations[step.start:step.stop], step.gens,
                step.cmask, step.cval)
    return np.bincount(plan.params, weights=plan.scale * accs.imag,
                       minlength=problem.n_params)
