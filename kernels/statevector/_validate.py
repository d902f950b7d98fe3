"""Argument checking shared by every kernel and every simulator adapter, so that all of
them refuse the same inputs with the same messages and never touch the state before the
check has passed (docs/architecture.md, "Conventions").

Three entry points:

- :func:`check_gate` (the kernel signature): the state and the gate together;
- :func:`check_state`: a state about to be written in place;
- :func:`check_instruction`: one gate against a number of qubits, or against none yet
  (an adapter's ``gate(instruction)`` is built before it meets a state; its ``run``
  compares the state's size with :func:`min_qubits` of the program).
"""

from functools import lru_cache
from numbers import Number
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
    except (TypeError, ValueError, OverflowError):
        raise ValueError(f"{name} must be a sequence of qubit indices, got {values!r}") from None
    if any(int(v) != v for v in values):
        raise ValueError(f"{name} must hold integers, got {values!r}")
    return out


def _qubits(name, values, n):
    out = _int_tuple(name, values)
    for q in out:
        if q < 0 or (n is not None and q >= n):
            span = f"for {n} qubits" if n is not None else "(qubits count from 0)"
            raise ValueError(f"{name} has qubit {q}, out of range {span}")
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


def check_state(state):
    """The number of qubits of ``state``, a state about to be updated in place; ValueError
    naming ``state`` when it is not 1-D, not a power of two long, not contiguous (a kernel
    would write past the view's elements) or read-only."""
    n = state_qubits(state)
    flags = getattr(state, "flags", None)
    if flags is not None:  # numpy and cupy arrays; cupy's have no ``writeable``
        if not flags.c_contiguous:
            raise ValueError("state must be a contiguous array (a strided view is not: "
                             "pass a copy, np.ascontiguousarray(state))")
        if not getattr(flags, "writeable", True):
            raise ValueError("state is read-only; kernels update it in place")
    return n


def _numeric_matrix(matrix):
    """``matrix`` as an array with a numeric or object dtype (ValueError otherwise)."""
    if not hasattr(matrix, "dtype") or not hasattr(matrix, "shape"):
        try:
            matrix = np.asarray(matrix)
        except (TypeError, ValueError) as exc:
            raise ValueError(f"matrix must be a 2-D array of numbers: {exc}") from None
    if matrix.dtype.kind not in "biufcO":
        raise ValueError(f"matrix must hold numbers, got dtype {matrix.dtype}")
    return matrix


def matrix_for(matrix, dtype):
    """``matrix`` in a form a state of ``dtype`` can take without a wrong number: integer
    and real matrices on a complex state become complex; a real state takes only a real
    matrix (its imaginary part would be dropped); other element types (object arrays of
    symbols or dual numbers) are left to the kernel. ValueError naming what is wrong."""
    kind = np.dtype(dtype).kind
    if kind == "O":
        return matrix
    if kind == "c":
        if matrix.dtype.kind == "c":
            return matrix
        return _as_complex(matrix)
    if kind == "f":
        if matrix.dtype.kind == "O":
            matrix = _as_complex(matrix)
        if matrix.dtype.kind == "c":
            if np.any(matrix.imag != 0):
                raise ValueError(
                    f"state is real ({np.dtype(dtype)}) but the matrix is complex: the "
                    "result would lose its imaginary part; pass a complex state")
            matrix = matrix.real
        return matrix
    raise ValueError(f"state must hold complex (or, for a real matrix, real) amplitudes, "
                     f"got dtype {np.dtype(dtype)}")


def _as_complex(matrix):
    # numpy turns None into nan and "1" into 1 when it casts an object array: a number
    # nobody wrote, so every entry must be a number first
    if matrix.dtype.kind == "O" and not all(isinstance(x, Number) for x in matrix.flat):
        raise ValueError("matrix has entries that are not numbers")
    try:
        return matrix.astype(np.complex128)
    except (TypeError, ValueError):
        raise ValueError("matrix has entries that are not numbers") from None


def check_gate(state, matrix, locs, ctrl_locs=(), ctrl_vals=None):
    """Validate one kernel call; returns a :class:`Gate` (the matrix converted for the
    state's dtype, see :func:`matrix_for`) or raises ValueError naming the bad argument.
    Nothing is modified."""
    n = check_state(state)
    return check_gate_on(n, matrix, locs, ctrl_locs, ctrl_vals, state.dtype)


def check_gate_on(n, matrix, locs, ctrl_locs=(), ctrl_vals=None, dtype=None):
    """Validate a gate for states of n qubits (and, given ``dtype``, convert the matrix
    for it) before any state exists: what a prepared gate checks once."""
    try:
        # Circuits repeat the same qubit choices; caching the checked tuples keeps a
        # kernel call on a small state from being dominated by Python-side checking.
        locs, ctrl_locs, ctrl_vals = _checked_qubits(n, locs, ctrl_locs, ctrl_vals)
    except TypeError:  # unhashable arguments (lists, arrays): check without the cache
        locs, ctrl_locs, ctrl_vals = _checked_qubits.__wrapped__(n, locs, ctrl_locs,
                                                                 ctrl_vals)
    matrix = _numeric_matrix(matrix)
    dim = 1 << len(locs)
    if matrix.shape != (dim, dim):
        raise ValueError(
            f"matrix must be ({dim}, {dim}) for {len(locs)} qubit(s) in locs, "
            f"got shape {matrix.shape}")
    if dtype is not None:
        matrix = matrix_for(matrix, dtype)
    # tuple.__new__ skips the NamedTuple constructor's Python frame (hot path)
    return tuple.__new__(Gate, (n, matrix, locs, ctrl_locs, ctrl_vals))


def check_instruction(instruction, n=None):
    """Validate an :class:`~kernels.statevector.circuits.Instruction` (or any object with
    ``matrix``, ``locs``, ``ctrl_locs``, ``ctrl_vals``) for states of n qubits, or, with
    ``n=None``, for any state large enough (see :func:`min_qubits`). Returns the checked
    :class:`Gate` (its ``n`` is the given n, or None); ValueError naming the bad argument."""
    try:
        matrix, locs = instruction.matrix, instruction.locs
        ctrl_locs, ctrl_vals = instruction.ctrl_locs, instruction.ctrl_vals
    except AttributeError:
        raise ValueError(f"instruction must be an Instruction (matrix, locs, ctrl_locs, "
                         f"ctrl_vals), got {type(instruction).__name__}") from None
    if n is not None and (int(n) != n or n < 1):
        raise ValueError(f"n must be a positive number of qubits, got {n!r}")
    return check_gate_on(None if n is None else int(n), matrix, locs, ctrl_locs,
                         ctrl_vals or None)


def min_qubits(gates):
    """The fewest qubits a state needs for every checked :class:`Gate` in ``gates``."""
    return max((max(g.locs + g.ctrl_locs) + 1 for g in gates), default=1)


@lru_cache(maxsize=4096)
def _checked_qubits(n, locs, ctrl_locs, ctrl_vals):
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
    return locs, ctrl_locs, ctrl_vals
