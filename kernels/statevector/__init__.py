"""Reference state-vector kernels, all behind one signature::

    kernel(state, matrix, locs, ctrl_locs=(), ctrl_vals=None) -> state

``state`` is updated in place and returned. See docs/architecture.md for the conventions
(qubit q is bit q of the index; bit j of the matrix index is ``locs[j]``).
"""

from . import cuda, loop, naive, stride, subspace, threaded, unrolled

#: name -> kernel, in the order of the seed's progression.
KERNELS = {
    "naive": naive.apply,
    "subspace": subspace.apply,
    "loop": loop.apply,
    "unrolled": unrolled.apply,
    "stride": stride.apply,
    "threaded": threaded.apply,
    "cuda": cuda.apply,
}

#: Kernels that run on a plain numpy complex state on the CPU.
CPU_KERNELS = tuple(k for k in KERNELS if k != "cuda")
