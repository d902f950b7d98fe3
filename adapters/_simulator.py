"""What every simulator adapter shares: the unavailable-tool error, the precision of a
state handed in, an instruction's controls in one form, and the kernel signature
(``apply``) built from the adapter's own from_numpy / gate / run / to_numpy."""

import ctypes
import sys

import numpy as np

from kernels.statevector._validate import check_gate, state_qubits
from kernels.statevector.circuits import Instruction

from ._guard import tool_version

DTYPES = {"complex128": np.dtype(np.complex128), "complex64": np.dtype(np.complex64)}


def require(name, available, reason):
    if not available:
        raise RuntimeError(f"the {name} adapter is unavailable: {reason}")


def basics(name, tool, available, reason):
    """``(_require, version, sync)`` of an adapter: the check every public function makes
    first, the tool's version, and ``sync`` for a tool that returns when its work is done
    (every CPU peer here; a lazy one finishes its work inside ``run``)."""

    def _require():
        require(name, available, reason)

    def version():
        _require()
        return tool_version(tool)

    def sync():
        """Nothing to wait for: the tool's calls return when the work is done."""

    return _require, version, sync


def kernel_signature(module_name):
    """``apply(state, matrix, locs, ctrl_locs=(), ctrl_vals=None)`` for the adapter module
    ``module_name``, through its own from_numpy / gate / run / to_numpy."""

    def apply(state, matrix, locs, ctrl_locs=(), ctrl_vals=None):
        return apply_through(sys.modules[module_name], state, matrix, locs, ctrl_locs,
                             ctrl_vals)
    return apply


class ThreadCount:
    """The thread count of a tool that takes it as an option of each object it creates:
    ``threads()`` and ``set_threads(n)`` for the adapter (one by default)."""

    def __init__(self, require):
        self.require, self.count = require, 1

    def threads(self):
        return self.count

    def set_threads(self, n):
        self.require()
        n = int(n)
        if n < 1:
            raise ValueError(f"n must be at least 1 thread, got {n}")
        self.count = n


class OpenMPThreads:
    """The thread count of a tool whose kernels are plain ``#pragma omp parallel`` loops
    with no option of their own: ``threads()`` and ``set_threads(n)`` call the OpenMP
    runtime that the extension at ``library()`` (a path, looked up when first needed) links
    with, through its handle. omp_set_num_threads applies from the next parallel loop on,
    and OpenMP keeps it per calling thread: set it from the thread that runs the gates."""

    def __init__(self, require, library, reason):
        self.require, self.library, self.reason = require, library, reason

    def _omp(self, name):
        self.require()
        try:
            return getattr(ctypes.CDLL(self.library()), name)
        except (OSError, AttributeError):
            raise RuntimeError(f"{self.reason}: no OpenMP runtime to set threads with") \
                from None

    def threads(self):
        return int(self._omp("omp_get_max_threads")())

    def set_threads(self, n):
        n = int(n)
        if n < 1:
            raise ValueError(f"n must be at least 1 thread, got {n}")
        self._omp("omp_set_num_threads")(n)


def precision_of(vec, name, precisions):
    """The precision name of ``vec``'s dtype; NotImplementedError naming the dtype when the
    tool does not run it, ValueError when ``vec`` is not a state."""
    vec = np.asarray(vec)
    state_qubits(vec)
    for precision in precisions:
        if vec.dtype == DTYPES[precision]:
            return precision
    raise NotImplementedError(f"{name} runs {', '.join(precisions)} states, got {vec.dtype}")


def parts(instruction):
    """(name, locs, ctrl_locs, ctrl_vals, params) with plain ints and every control valued."""
    locs = tuple(int(q) for q in instruction.locs)
    ctrls = tuple(int(q) for q in instruction.ctrl_locs)
    vals = tuple(int(v) for v in instruction.ctrl_vals or ()) or (1,) * len(ctrls)
    return instruction.name, locs, ctrls, vals, tuple(instruction.params)


def apply_through(module, state, matrix, locs, ctrl_locs=(), ctrl_vals=None):
    """The kernel signature on ``module``: check, copy into the tool, run, copy back."""
    require(module.NAME, module.AVAILABLE, module.REASON)
    g = check_gate(state, matrix, locs, ctrl_locs, ctrl_vals)
    if not isinstance(state, np.ndarray):
        raise NotImplementedError(f"{module.NAME} runs numpy states, got {type(state).__name__}")
    native = module.from_numpy(state)  # NotImplementedError for a dtype it does not run
    inst = Instruction("dense", np.asarray(g.matrix, dtype=np.complex128), g.locs, g.ctrl_locs,
                       g.ctrl_vals)
    module.run(native, module.gate(inst))
    module.sync()
    state[:] = module.to_numpy(native)
    return state


class Program:
    """Instructions compiled for a tool whose operations depend on the state they meet
    (big-endian tools renumber qubits by the state's size; some need the matrices in the
    state's dtype): ``build(instructions, *key)`` once per key, on first use, which is the
    validation run that precedes any timing."""

    def __init__(self, build, instructions, n=None):
        self.build, self.instructions = build, list(instructions)
        self.min_qubits = max((max((*i.locs, *i.ctrl_locs)) + 1 for i in self.instructions),
                              default=0)
        if n is not None and n < self.min_qubits:
            raise ValueError(f"the instructions act on {self.min_qubits} qubits, not {n}")
        self.built = {}

    def get(self, n, *key):
        built = self.built.get((n, *key))
        if built is None:
            if n < self.min_qubits:
                raise ValueError(f"the program acts on {self.min_qubits} qubits, the state "
                                 f"has {n}")
            built = self.built[(n, *key)] = self.build(self.instructions, n, *key)
        return built
