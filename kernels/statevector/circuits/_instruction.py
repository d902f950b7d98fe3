"""One gate of a circuit, and the builders of named gates.

An instruction carries the kernel arguments (matrix, locs, controls) plus the gate's name
and parameters, so that an adapter can use a tool's own named gate where it has one.
"""

from typing import NamedTuple

import numpy as np

from .. import gates


class Instruction(NamedTuple):
    name: str                 # "X", "H", "Rz", ..., or "dense" for an arbitrary matrix
    matrix: np.ndarray
    locs: tuple
    ctrl_locs: tuple = ()
    ctrl_vals: tuple = ()
    params: tuple = ()

    def apply(self, kernel, state):
        return kernel(state, self.matrix, self.locs, self.ctrl_locs, self.ctrl_vals or None)


_FIXED = {"X": gates.X, "Y": gates.Y, "Z": gates.Z, "H": gates.H, "S": gates.S, "T": gates.T}
_ROTATIONS = {"Rx": gates.Rx, "Ry": gates.Ry, "Rz": gates.Rz, "phase": gates.phase}


def gate(name, *locs, ctrl=(), ctrl_vals=None, theta=None):
    """One named single-qubit gate (optionally controlled), e.g. ``gate("Rz", 3, theta=0.1)``."""
    if name in _FIXED:
        matrix, params = _FIXED[name], ()
    elif name in _ROTATIONS:
        if theta is None:
            raise ValueError(f"gate {name} needs theta")
        matrix, params = _ROTATIONS[name](theta), (float(theta),)
    else:
        raise ValueError(f"unknown gate {name!r}; known: {sorted(_FIXED) + sorted(_ROTATIONS)}")
    ctrl = tuple(ctrl)
    vals = tuple(ctrl_vals) if ctrl_vals is not None else (1,) * len(ctrl)
    return Instruction(name, matrix, tuple(locs), ctrl, vals, params)


def cnot(control, target):
    return gate("X", target, ctrl=(control,))


def cz(control, target):
    return gate("Z", target, ctrl=(control,))


def toffoli(c1, c2, target):
    return gate("X", target, ctrl=(c1, c2))


def swap(a, b):
    return Instruction("SWAP", gates.SWAP, (a, b))


def dense(matrix, *locs):
    return Instruction("dense", np.asarray(matrix, dtype=np.complex128), tuple(locs))


def run(kernel, state, circuit):
    """Apply every instruction of ``circuit`` to ``state`` in place with ``kernel``."""
    for inst in circuit:
        inst.apply(kernel, state)
    return state
