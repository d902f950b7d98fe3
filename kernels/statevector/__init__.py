"""Reference state-vector kernels, all behind one signature::

    kernel(state, matrix, locs, ctrl_locs=(), ctrl_vals=None) -> state

``state`` is updated in place and returned. See docs/architecture.md for the conventions
(qubit q is bit q of the index; bit j of the matrix index is ``locs[j]``) and for the
packages: ``reference`` (naive, subspace, blocked), ``compiled`` (the numba kernels), ``cuda``,
``fused`` (the whole-circuit backend), ``codegen`` (what the numba kernels are generated
from), ``circuits``.
"""

from . import cuda
from .compiled import loop, stride, threaded, unrolled
from .reference import blocked, naive, subspace

#: name -> kernel module, in the order of the seed's progression: the one list every
#: other list of kernels is derived from. Each module has ``apply`` (the kernel) and
#: ``BACKEND``, its declaration (kernels.statevector.backend), whose name is its key.
MODULES = {module.BACKEND.name: module
           for module in (naive, subspace, blocked, loop, unrolled, stride, threaded, cuda)}

#: name -> kernel.
KERNELS = {name: module.apply for name, module in MODULES.items()}

#: Kernels that run on a plain numpy complex state on the CPU.
CPU_KERNELS = tuple(name for name, module in MODULES.items()
                    if module.BACKEND.device == "cpu")
