"""How our one-gate kernels run as backends: :func:`bind_gate` checks and plans one gate
once for a kernel module (the counterpart of a qulacs gate object, built once), and
:class:`KernelRunner` runs a circuit as such bound gates, so that the timed region applies
gates, the same work on every backend. The fused and cuda backends derive their runners
from it; each kernel's declaration names its runner with :func:`kernel_runner`."""

import sys

import numpy as np

from . import states
from ._validate import check_gate_on
from .compiled._plan import require_numba_dtype_of


def bind_gate(module, n, matrix, locs, ctrl_locs=(), ctrl_vals=None, dtype=np.complex128):
    """``apply(state) -> state`` for one gate on n-qubit states of ``dtype`` with the kernel
    of ``module``. Invalid gates raise ValueError here, once; ``apply`` only checks that the
    state has the bound size and dtype (ValueError, state untouched, otherwise)."""
    dtype = np.dtype(dtype)
    if int(n) != n or n < 1:
        raise ValueError(f"n must be a positive number of qubits, got {n!r}")
    g = check_gate_on(int(n), matrix, locs, ctrl_locs, ctrl_vals, dtype)
    shape = (1 << int(n),)

    def refuse(state):
        raise ValueError(f"state must be a contiguous, writeable array of shape {shape} and "
                         f"dtype {dtype} as prepared, got {_describe(state)}")

    if hasattr(module, "plan"):  # the numba kernels: the loop and its arguments, bound now
        require_numba_dtype_of(module.BACKEND.name, dtype)
        fn, args = module.plan(g, dtype)

        def apply(state):
            # the checks inline: this is the call every gate benchmark times
            try:
                flags = state.flags
                ok = (state.shape == shape and state.dtype == dtype and flags.c_contiguous
                      and flags.writeable)
            except AttributeError:
                ok = False
            if not ok:
                refuse(state)
            fn(state, *args)
            return state
    else:  # naive, subspace, cuda: the kernel signature, which checks the state again
        kernel, m, targets, ctrls, vals = module.apply, g.matrix, g.locs, g.ctrl_locs, g.ctrl_vals

        def apply(state):
            if getattr(state, "shape", None) != shape or getattr(state, "dtype", None) != dtype:
                refuse(state)
            return kernel(state, m, targets, ctrls, vals)
    return apply


def _describe(state):
    shape, dtype = getattr(state, "shape", None), getattr(state, "dtype", None)
    if shape is None or dtype is None:
        return type(state).__name__
    flags = getattr(state, "flags", None)
    extra = [] if flags is None else (
        (["not contiguous"] if not flags.c_contiguous else [])
        + (["read-only"] if not getattr(flags, "writeable", True) else []))
    return " ".join([str(shape), str(dtype), *extra])


class KernelRunner:
    """The kernel of ``module`` on states of ``precision`` (kernels.statevector.backend);
    a one-gate kernel has no fusion setting."""

    def __init__(self, module, precision, fusion=None):
        self.module, self.precision = module, precision
        self.dtype = precision.dtype
        self.info = {}

    def load(self, vec):
        # a copy on a cache line: a kernel's state is allocated by us (states.py), as a
        # peer's is by the peer
        return states.aligned(vec, self.dtype)

    def program(self, instructions, n):
        gates = [bind_gate(self.module, n, i.matrix, i.locs, i.ctrl_locs, i.ctrl_vals or None,
                           dtype=self.dtype) for i in instructions]
        if len(gates) == 1:
            return gates[0]

        def circuit(state):
            for gate in gates:
                gate(state)
        return circuit

    def run(self, state, program):
        program(state)

    def sync(self):
        pass

    def result(self, state):
        return np.asarray(state)


#: How every one-gate kernel runs in a result's settings ("driven").
PREPARED_GATES = {"driven": "prepared gates (kernels.statevector.prepared), one kernel "
                            "call per gate"}


def kernel_runner(module_name, runner=KernelRunner):
    """The ``runner`` of a kernel's declaration, made in the module ``module_name`` while
    it is being imported: the module is looked up when a runner is made."""
    def make(precision, fusion):
        return runner(sys.modules[module_name], precision, fusion)
    return make
