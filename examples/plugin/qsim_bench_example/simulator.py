"""A plain-numpy state-vector simulator as a qsim-ad-bench plugin: the state is a numpy
array viewed as a tensor with one axis of length 2 per qubit, and a k-qubit gate is one
``np.tensordot`` over its k axes, on the slice where the controls hold.

This module is the whole plugin interface of a simulator (see the project's README,
"Benchmark your own simulator"): NAME, AVAILABLE, REASON, PRECISIONS, SETTINGS,
from_numpy, to_numpy, gate, circuit, run, apply, sync.
"""

import numpy as np

NAME = "example-numpy"
AVAILABLE = True
REASON = f"example-numpy 0.1.0 (numpy {np.__version__})"
PRECISIONS = ("complex128", "complex64")
PRECISION = PRECISIONS[0]
SETTINGS = {"threads": "1 (numpy's tensordot of a 2**k matrix is not threaded by BLAS here)",
            "gates": "every gate as its matrix, one tensordot on the controlled slice"}

_DTYPES = {np.dtype(np.complex128): "complex128", np.dtype(np.complex64): "complex64"}


def sync():
    """numpy is synchronous."""


def from_numpy(vec):
    vec = np.asarray(vec)
    if vec.dtype not in _DTYPES:
        raise NotImplementedError(f"{NAME} runs {PRECISIONS}, got dtype {vec.dtype}")
    _qubits(vec)
    return vec.copy()


def to_numpy(state):
    return state.copy()


def _qubits(vec):
    size = vec.shape[0] if vec.ndim == 1 else 0
    if size < 2 or size & (size - 1):
        raise ValueError(f"a state must be a 1-D array of length 2**n, got shape {vec.shape}")
    return size.bit_length() - 1


def _check(n, matrix, locs, ctrl_locs, ctrl_vals):
    """ValueError naming the bad argument; nothing is touched before this passes."""
    locs, ctrl_locs = tuple(int(q) for q in locs), tuple(int(q) for q in ctrl_locs)
    ctrl_vals = (1,) * len(ctrl_locs) if ctrl_vals is None else tuple(int(v) for v in ctrl_vals)
    matrix = np.asarray(matrix)
    if not locs or matrix.shape != (1 << len(locs),) * 2:
        raise ValueError(f"matrix must be {1 << len(locs)}x{1 << len(locs)} for "
                         f"{len(locs)} target qubit(s), got shape {matrix.shape}")
    qubits = locs + ctrl_locs
    if len(set(qubits)) != len(qubits) or not all(0 <= q < n for q in qubits):
        raise ValueError(f"locs {locs} and ctrl_locs {ctrl_locs} must be distinct qubits "
                         f"of 0..{n - 1}")
    if len(ctrl_vals) != len(ctrl_locs) or not set(ctrl_vals) <= {0, 1}:
        raise ValueError(f"ctrl_vals must be one 0 or 1 per control, got {ctrl_vals}")
    return matrix, locs, ctrl_locs, ctrl_vals


class _Gate:
    """One gate, planned for any n on first use: which slice the controls select and
    which axes of that slice the matrix contracts (qubit q is axis n-1-q of the tensor,
    as numpy's C order puts the most significant bit first)."""

    def __init__(self, matrix, locs, ctrl_locs, ctrl_vals):
        self.matrix, self.locs = np.asarray(matrix), locs
        self.ctrl_locs, self.ctrl_vals = ctrl_locs, ctrl_vals
        self._plans = {}

    def _plan(self, n, dtype):
        highest = max(self.locs + self.ctrl_locs)
        if highest >= n:
            raise ValueError(f"the gate acts on qubit {highest}, the state has {n} qubits")
        k = len(self.locs)
        # the matrix's row bits, most significant first, are qubits locs[k-1], ..., locs[0]
        tensor = self.matrix.astype(dtype).reshape((2,) * (2 * k))
        index = [slice(None)] * n
        for q, v in zip(self.ctrl_locs, self.ctrl_vals):
            index[n - 1 - q] = v
        kept = [axis for axis in range(n) if not isinstance(index[axis], int)]
        targets = [kept.index(n - 1 - q) for q in reversed(self.locs)]
        return tensor, tuple(index), targets

    def __call__(self, state):
        n = state.shape[0].bit_length() - 1
        key = (n, state.dtype)
        if key not in self._plans:
            self._plans[key] = self._plan(n, state.dtype)
        tensor, index, targets = self._plans[key]
        k = len(targets)
        view = state.reshape((2,) * n)[index]
        out = np.tensordot(tensor, view, axes=(list(range(k, 2 * k)), targets))
        view[...] = np.moveaxis(out, list(range(k)), targets)


def gate(instruction):
    return _Gate(*_check(max((*instruction.locs, *instruction.ctrl_locs)) + 1,
                         instruction.matrix, instruction.locs, instruction.ctrl_locs,
                         instruction.ctrl_vals or None))


def circuit(instructions, n):
    gates = [_Gate(*_check(n, i.matrix, i.locs, i.ctrl_locs, i.ctrl_vals or None))
             for i in instructions]

    def program(state):
        for g in gates:
            g(state)
    return program


def run(state, program):
    program(state)
    return state


def apply(state, matrix, locs, ctrl_locs=(), ctrl_vals=None):
    """The kernel signature: ``state`` (a numpy array) updated in place and returned."""
    if not isinstance(state, np.ndarray) or state.dtype not in _DTYPES:
        raise NotImplementedError(f"{NAME} runs numpy arrays of {PRECISIONS}, got "
                                  f"{type(state).__name__} {getattr(state, 'dtype', '')}")
    n = _qubits(state)
    _Gate(*_check(n, matrix, locs, ctrl_locs, ctrl_vals))(state)
    return state
