"""A problem's circuit as the kernel runs it: fixed gates prepared once (checked and planned,
as the benchmarks' gates are) and each run of consecutive rotations on one qubit with the
same controls (the QCBM's Rz Rx Rz) multiplied out into one 2x2 per evaluation. The
energy runs it forward; the adjoint sweep walks the same steps back.
"""

from functools import lru_cache
from typing import NamedTuple

import numpy as np

from ..statevector import KERNELS, circuits, prepared
from . import _sweep

#: Gates whose angle is a parameter, and the generator G of U(t) = exp(-i t G / 2) (phase
#: is exp(i t |1><1|): the projector, written "P1").
GENERATORS = {"Rx": "X", "Ry": "Y", "Rz": "Z", "phase": "P1"}
_KINDS = ("X", "Y", "Z", "P1")


class Fixed(NamedTuple):
    apply: object        # the gate prepared with the kernel on n qubits
    undo: object         # its conjugate transpose on n + 1 qubits (the adjoint's psi, lambda)


class Run(NamedTuple):
    start: int            # its rotations are rotations[start:stop], in circuit order
    stop: int
    qubit: int
    ctrl_locs: tuple
    ctrl_vals: tuple | None
    cmask: int            # control bits, and their values, as index masks
    cval: int
    gens: np.ndarray      # (m, 2, 2): each rotation's generator G, P1 for phase


class Plan(NamedTuple):
    steps: tuple          # Fixed and Run, in circuit order
    params: np.ndarray    # theta index of each rotation, in circuit order
    kinds: np.ndarray     # index into _KINDS of each rotation's generator
    scale: np.ndarray     # dE/dt = scale * Im <lambda|G|psi>: 1, or -2 for exp(i t P1)
    kernel: object        # the kernel function of KERNELS the gates were prepared with


def _controls(slot):
    vals = tuple(slot.ctrl_vals or (1,) * len(slot.ctrl_locs))
    cmask = sum(1 << q for q in slot.ctrl_locs)
    cval = sum(v << q for q, v in zip(slot.ctrl_locs, vals))
    return vals, cmask, cval


@lru_cache(maxsize=64)
def plan(slots, n, kernel, dtype="complex128"):
    """The steps of ``slots`` on ``n`` qubits with kernel ``kernel``: each fixed gate
    prepared, each maximal run of rotations on one qubit with the same controls."""
    steps, params, kinds = [], [], []
    for s in slots:
        vals, cmask, cval = _controls(s)
        if s.param is None:
            m = circuits.gate(s.name, *s.locs).matrix
            steps.append(Fixed(*(prepared.prepare(kernel, k, u, s.locs, s.ctrl_locs, vals,
                                                  dtype=dtype)
                                 for k, u in ((n, m), (n + 1, m.conj().T)))))
            continue
        last = steps[-1] if steps else None
        if not (isinstance(last, Run) and last.qubit == s.locs[0]
                and last.ctrl_locs == tuple(s.ctrl_locs) and last.cval == cval):
            last = Run(len(params), len(params), s.locs[0], tuple(s.ctrl_locs),
                       vals or None, cmask, cval, None)
            steps.append(last)
        steps[-1] = last._replace(stop=last.stop + 1)
        params.append(s.param)
        kinds.append(_KINDS.index(GENERATORS[s.name]))
    kinds = np.array(kinds, dtype=np.intp)
    gens = np.stack([_sweep.GENERATORS[k] for k in _KINDS])
    steps = tuple(st._replace(gens=gens[kinds[st.start:st.stop]]) if isinstance(st, Run)
                  else st for st in steps)
    return Plan(steps, np.array(params, dtype=np.intp), kinds,
                np.where(kinds == _KINDS.index("P1"), -2.0, 1.0), KERNELS[kernel])


def rotations(plan, theta):
    """Every rotation's 2x2 at ``theta`` at once: exp(-i t G / 2) = cos(t/2) 1 - i sin(t/2) G
    for a Pauli G, diag(1, e^{i t}) for phase (kernels.statevector.circuits' gates)."""
    angles, kinds = theta[plan.params], plan.kinds
    c = np.cos(angles / 2)[:, None, None]
    s = np.sin(angles / 2)[:, None, None]
    paulis = np.stack([_sweep.GENERATORS[k] for k in _KINDS[:3]])
    out = c * np.eye(2) - 1j * s * paulis[np.minimum(kinds, 2)]
    phase = kinds == _KINDS.index("P1")
    out[phase] = 0
    out[phase, 0, 0] = 1
    out[phase, 1, 1] = np.exp(1j * angles[phase])
    return out


def run(plan, rotations, psi):
    """The circuit on ``psi`` in place: each fixed gate prepared, each run one 2x2 call of
    the plan's kernel."""
    kernel = plan.kernel
    for step in plan.steps:
        if isinstance(step, Fixed):
            step.apply(psi)
        else:
            kernel(psi, _sweep.product(rotations[step.start:step.stop]), (step.qubit,),
                   step.ctrl_locs, step.ctrl_vals)
    return psi
