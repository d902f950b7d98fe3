"""Reference state-vector kernels, all behind one signature::

    kernel(state, matrix, locs, ctrl_locs=(), ctrl_vals=None) -> state

``state`` is updated in place and returned. See docs/architecture.md for the conventions
(qubit q is bit q of the index; bit j of the matrix index is ``locs[j]``).
"""

from . import cuda, loop, naive, stride, subspace, threaded, unrolled

#: name -> kernel module, in the order of the seed's progression: the one list every
#: other list of kernels is derived from. Each module has ``apply`` (the kernel),
#: ``PRECISIONS`` and ``DEVICE``.
MODULES = {
    "naive": naive,
    "subspace": subspace,
    "loop": loop,
    "unrolled": unrolled,
    "stride": stride,
    "threaded": threaded,
    "cuda": cuda,
}

#: name -> kernel.
KERNELS = {name: module.apply for name, module in MODULES.items()}

#: Kernels that run on a plain numpy complex state on the CPU.
CPU_KERNELS = tuple(name for name, module in MODULES.items()
                    if getattr(module, "DEVICE", "cpu") == "cpu")
