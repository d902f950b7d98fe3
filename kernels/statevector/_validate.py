"""Argument checking shared by every kernel, so that all of them refuse the same inputs
with the same messages and never touch the state before the check has passed."""

from typing import NamedTuple

import numpy as np


class Gate(NamedTuple):
    """A checked gate application: n qubits, the matrix, and normalised qubit tuples."""

    n: int
    matrix: np.ndarray
    locs: tuple
    ctrl_locs: tuple
    ctrl_vals: tuple


def _int_tuple(name, values):
    try:
        out = tuple(int(v) for v in values)
    except TypeError:
        raise ValueError(f"{name} must be a sequence of qubit indices, got {values!r}") from None
    if any(int(v) != v for v in values):
        raise ValueError(f"{name} must hold integers, got {values!r}")
    return out


def _qubits(name, values, n):
    out = _int_tuple(name, values)
    for q in out:
        if not 0 <= q < n:
            raise ValueError(f"{name} has qubit {q}, out of range for {n} qubits")
    if len(set(out)) != len(out):
        raise ValueError(f"{name} repeats a qubit: {out}")
    return out


def state_qubits(state):
    """Number of qubits of a state vector; ValueError naming ``state`` if it is not one."""
    shape = getattr(state, "shape", None)
    if shape is None or len(shape) != 1:
        raise ValueError(f"state must be a 1-D array, got shape {shape}")
    size = shape[0]
    if size < 2 or size & (size - 1):
        raise ValueError(f"state length must be a power of two >= 2, got {size}")
    return size.bit_length() - 1


def check_gate(state, matrix, locs, ctrl_locs=(), ctrl_vals=None):
    """Validate one kernel call; returns a :class:`Gate` or raises ValueError naming the
    bad argument. Nothing is modified."""
    n = state_qubits(state)
    if np.isscalar(locs):
        locs = (locs,)
    if np.isscalar(ctrl_locs):
        ctrl_locs = (ctrl_locs,)
    locs = _qubits("locs", locs, n)
    if not locs:
        raise ValueError("locs must name at least one qubit")
    ctrl_locs = _qubits("ctrl_locs", ctrl_locs, n)
    overlap = set(locs) & set(ctrl_locs)
    if overlap:
        raise ValueError(f"ctrl_locs overlap locs on qubit(s) {sorted(overlap)}")
    if ctrl_vals is None:
        ctrl_vals = (1,) * len(ctrl_locs)
    else:
        if np.isscalar(ctrl_vals):
            ctrl_vals = (ctrl_vals,)
        ctrl_vals = _int_tuple("ctrl_vals", ctrl_vals)
        if len(ctrl_vals) != len(ctrl_locs):
            raise ValueError(
                f"ctrl_vals has {len(ctrl_vals)} entries for {len(ctrl_locs)} ctrl_locs")
        if any(v not in (0, 1) for v in ctrl_vals):
            raise ValueError(f"ctrl_vals must be 0 or 1 each, got {ctrl_vals}")
    if not hasattr(matrix, "shape"):
        matrix = np.asarray(matrix)
    dim = 1 << len(locs)
    if matrix.shape != (dim, dim):
        raise ValueError(
            f"matrix must be ({dim}, {dim}) for {len(locs)} qubit(s) in locs, "
            f"got shape {matrix.shape}")
    return Gate(n, matrix, locs, ctrl_locs, ctrl_vals)
