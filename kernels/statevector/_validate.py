"""Argument checking shared by every kernel, so that all of them refuse the same inputs
with the same messages and never touch the state before the check has passed."""

from functools import lru_cache
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
    return _qubit_count(getattr(state, "shape", None))


def _qubit_count(shape):
    if shape is None or len(shape) != 1:
        raise ValueError(f"state must be a 1-D array, got shape {shape}")
    size = shape[0]
    if size < 2 or size & (size - 1):
        raise ValueError(f"state length must be a power of two >= 2, got {size}")
    return size.bit_length() - 1


def check_gate(state, matrix, locs, ctrl_locs=(), ctrl_vals=None):
    """Validate one kernel call; returns a :class:`Gate` or raises ValueError naming the
    bad argument. Nothing is modified."""
    shape = getattr(state, "shape", None)
    try:
        # Circuits repeat the same qubit choices; caching the checked tuples keeps a
        # kernel call on a small state from being dominated by Python-side checking.
        n, locs, ctrl_locs, ctrl_vals = _checked_qubits(shape, locs, ctrl_locs, ctrl_vals)
    except TypeError:  # unhashable arguments (lists, arrays): check without the cache
        n, locs, ctrl_locs, ctrl_vals = _checked_qubits.__wrapped__(
            shape, locs, ctrl_locs, ctrl_vals)
    mshape = getattr(matrix, "shape", None)
    if mshape is None:
        matrix = np.asarray(matrix)
        mshape = matrix.shape
    dim = 1 << len(locs)
    if mshape != (dim, dim):
        raise ValueError(
            f"matrix must be ({dim}, {dim}) for {len(locs)} qubit(s) in locs, "
            f"got shape {mshape}")
    # tuple.__new__ skips the NamedTuple constructor's Python frame (hot path)
    return tuple.__new__(Gate, (n, matrix, locs, ctrl_locs, ctrl_vals))


@lru_cache(maxsize=4096)
def _checked_qubits(shape, locs, ctrl_locs, ctrl_vals):
    n = _qubit_count(shape)
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
    return n, locs, ctrl_locs, ctrl_vals
