"""A plain-numpy state-vector simulator as a qsim-ad-bench plugin: the state is a numpy
array viewed as a tensor with one axis of length 2 per qubit, and a k-qubit gate is one
``np.tensordot`` over its k axes, on the slice where the controls hold.

This module is the whole plugin interface of a simulator (see the project's
docs/plugins.md): NAME, AVAILABLE, REASON, PRECISIONS, SETTINGS, from_numpy, to_numpy,
gate, circuit, run, apply, sync, and the facts the harness reads besides (FUSION_DEFAULT,
PACKAGE).
"""

from numbers import Number

import numpy as np

NAME = "example-numpy"
AVAILABLE = True
REASON = f"example-numpy 0.1.0 (numpy {np.__version__})"
PRECISIONS = ("complex128", "complex64")
PRECISION = PRECISIONS[0]
#: How it fuses at its default: 0 (off: one pass per gate), k (at most k qubits), or None
#: (a rule of its own, which SETTINGS["fusion"] describes); the tables compare on it.
FUSION_DEFAULT = 0
#: The distribution whose version its results name.
PACKAGE = "numpy"
SETTINGS = {"threads": "1 (numpy's tensordot of a 2**k matrix is not threaded by BLAS here)",
            "gates": "every gate as its matrix, one tensordot on the controlled slice",
            # how it fuses, in words, for a reader of the settings
            "fusion": "off (one tensordot per gate)"}

_DTYPES = {np.dtype(np.complex128): "complex128", np.dtype(np.complex64): "complex64"}


def sync():
    """numpy is synchronous."""


# --- the input contract: every argument checked before anything is touched -------------
# (ValueError naming the bad argument; NotImplementedError for what this simulator does
# not run. The project's conformance suite, tests/contract, probes all of it.)

def _qubits(vec):
    """n for a state vector of 2**n amplitudes; ValueError naming the state otherwise."""
    size = vec.shape[0] if vec.ndim == 1 else 0
    if size < 2 or size & (size - 1):
        raise ValueError(f"state must be a 1-D array of length 2**n, got shape {vec.shape}")
    return size.bit_length() - 1


def _precision(vec):
    if vec.dtype not in _DTYPES:
        raise NotImplementedError(f"{NAME} runs {PRECISIONS} states, got dtype {vec.dtype}")


def _indices(name, values, n):
    values = (values,) if np.isscalar(values) else tuple(values)
    try:
        out = tuple(int(q) for q in values)
    except (TypeError, ValueError):
        raise ValueError(f"{name} must be qubit indices, got {values!r}") from None
    if out != values or any(q < 0 or (n is not None and q >= n) for q in out):
        raise ValueError(f"{name} must be integers in 0..{'n-1' if n is None else n - 1}, "
                         f"got {values!r}")
    if len(set(out)) != len(out):
        raise ValueError(f"{name} repeats a qubit: {out}")
    return out


def _check(n, matrix, locs, ctrl_locs, ctrl_vals):
    """The gate's arguments, checked for states of n qubits (None: any large enough) and
    normalised: a complex matrix, tuples of ints."""
    locs, ctrl_locs = _indices("locs", locs, n), _indices("ctrl_locs", ctrl_locs, n)
    if not locs:
        raise ValueError("locs must name at least one qubit")
    if set(locs) & set(ctrl_locs):
        raise ValueError(f"ctrl_locs {ctrl_locs} overlap locs {locs}")
    ctrl_vals = (1,) * len(ctrl_locs) if ctrl_vals is None else tuple(ctrl_vals)
    if len(ctrl_vals) != len(ctrl_locs) or not all(v in (0, 1) for v in ctrl_vals):
        raise ValueError(f"ctrl_vals must be one 0 or 1 per control, got {ctrl_vals}")
    matrix = np.asarray(matrix)
    if matrix.dtype.kind == "O" and all(isinstance(x, Number) for x in matrix.flat):
        matrix = matrix.astype(np.complex128)
    if matrix.dtype.kind not in "biufc":
        raise ValueError(f"matrix must hold numbers, got dtype {matrix.dtype}")
    if matrix.shape != (1 << len(locs),) * 2:
        raise ValueError(f"matrix must be {1 << len(locs)}x{1 << len(locs)} for "
                         f"{len(locs)} target qubit(s), got shape {matrix.shape}")
    return matrix.astype(np.complex128), locs, ctrl_locs, tuple(int(v) for v in ctrl_vals)


def from_numpy(vec):
    vec = np.asarray(vec)
    _qubits(vec)
    _precision(vec)
    return vec.copy()


def to_numpy(state):
    return state.copy()


class _Gate:
    """One gate, planned for any n on first use: which slice the controls select and
    which axes of that slice the matrix contracts (qubit q is axis n-1-q of the tensor,
    as numpy's C order puts the most significant bit first)."""

    def __init__(self, matrix, locs, ctrl_locs, ctrl_vals):
        self.matrix, self.locs = matrix, locs
        self.ctrl_locs, self.ctrl_vals = ctrl_locs, ctrl_vals
        self.min_qubits = max(locs + ctrl_locs) + 1
        self._plans = {}

    def _plan(self, n, dtype):
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


class _Program:
    """Gates and the states they fit: a gate any state with enough qubits, a circuit
    states of exactly the n it was built for."""

    def __init__(self, gates, n=None):
        self.gates, self.n = gates, n
        self.min_qubits = n or max(g.min_qubits for g in gates)


def _instruction(instruction, n):
    try:
        fields = (instruction.matrix, instruction.locs, instruction.ctrl_locs,
                  instruction.ctrl_vals or None)
    except AttributeError:
        raise ValueError(f"instruction must be an Instruction, got "
                         f"{type(instruction).__name__}") from None
    return _Gate(*_check(n, *fields))


def gate(instruction):
    return _Program([_instruction(instruction, None)])


def circuit(instructions, n):
    if isinstance(n, bool) or not isinstance(n, (int, np.integer)) or n < 1:
        raise ValueError(f"n must be a positive number of qubits, got {n!r}")
    try:
        instructions = list(instructions)
    except TypeError:
        raise ValueError(f"instructions must be a sequence of Instructions, got "
                         f"{type(instructions).__name__}") from None
    return _Program([_instruction(i, int(n)) for i in instructions], int(n))


def run(state, program):
    if not isinstance(program, _Program):
        raise ValueError(f"program must come from gate() or circuit(), got "
                         f"{type(program).__name__}")
    if not isinstance(state, np.ndarray):
        raise ValueError(f"state must come from from_numpy(), got {type(state).__name__}")
    n = _qubits(state)
    if n < program.min_qubits or (program.n is not None and n != program.n):
        raise ValueError(f"state has {n} qubits; the program needs "
                         f"{program.n or f'at least {program.min_qubits}'}")
    for g in program.gates:
        g(state)
    return state


def apply(state, matrix, locs, ctrl_locs=(), ctrl_vals=None):
    """The kernel signature: ``state`` (a numpy array) updated in place and returned."""
    if not isinstance(state, np.ndarray):
        raise NotImplementedError(f"{NAME} runs numpy arrays, got {type(state).__name__}")
    n = _qubits(state)
    if not state.flags.c_contiguous or not state.flags.writeable:
        raise ValueError("state must be a contiguous, writeable array (it is updated in "
                         "place)")
    gate = _Gate(*_check(n, matrix, locs, ctrl_locs, ctrl_vals))
    if state.dtype.kind not in "fc" or (state.dtype.kind == "f" and gate.matrix.imag.any()):
        raise ValueError(f"state must hold complex amplitudes, got dtype {state.dtype}")
    _precision(state)  # a real state with a real matrix: not run here
    gate(state)
    return state
