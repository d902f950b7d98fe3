"""QuEST (the Quantum Exact Simulation Toolkit) behind the kernels' gate instructions,
through pyQuEST, its Cython binding (import name ``pyquest``), in one process; how its
Register and operators are driven is shared with the distributed build (:mod:`._quest`).

Which distribution: the ``pyquest`` 0.0.1 wheel on PyPI is compiled against numpy 1.x and
fails to import with numpy 2 ("numpy.dtype size changed"); ``pyquest-develop``
0.0.1a0.dev1 (an sdist on PyPI, the same import name, QuEST's C sources inside) builds
against numpy 2.4 with Cython < 3 and scikit-build 0.17 without build isolation (~30 s).
``pyquest-cffi`` downloads QuEST's sources from GitHub while it builds.

The precision is QuEST's compile-time ``qreal`` (double by default), so PRECISIONS follows
``pyquest.precision``: one precision per build.
"""

import importlib.metadata

import numpy as np

from .._guard import guarded_import
from . import _base, _quest

NAME = "quest"
_PRECISIONS = _quest.PRECISIONS

pyquest, AVAILABLE, REASON = guarded_import("pyquest", "core", "unitaries", "operators")


def _distribution():
    """Which distribution installed ``pyquest`` ("pyquest", "pyquest-develop") and its
    version; neither sets ``pyquest.__version__``."""
    for dist in importlib.metadata.packages_distributions().get("pyquest", ()):
        try:
            return dist, importlib.metadata.version(dist)
        except importlib.metadata.PackageNotFoundError:
            pass
    return "pyquest", "(version unknown)"


if AVAILABLE and pyquest.precision not in _PRECISIONS:
    AVAILABLE = False
    REASON = (f"pyquest is built with QuEST precision {pyquest.precision} (quad): "
              "not complex128 or complex64")
elif AVAILABLE:
    _DIST = _distribution()
    REASON = (f"{_DIST[0]} {_DIST[1]} (QuEST, {_PRECISIONS[pyquest.precision]}, "
              f"OpenMP {'on' if pyquest.openmp else 'off'})")
elif "dtype size changed" in REASON:
    REASON = (f"{' '.join(_distribution())} is compiled against numpy 1.x and does not "
              f"import with numpy {np.__version__} ({REASON}); build pyquest-develop "
              "0.0.1a0.dev1 from its sdist instead")

PRECISIONS = (_PRECISIONS[pyquest.precision],) if AVAILABLE else ("complex128",)
PACKAGE = "pyquest-develop"
FUSION_DEFAULT = 0
PRECISION = PRECISIONS[0]
SETTINGS = {"threads": "1 (QuEST's OpenMP loops follow the runtime's count: "
                       "omp_set_num_threads of the libgomp it links, see set_threads)",
            "api": "pyquest Register, one operator object per QuEST call, "
                   "Register.apply_circuit(Circuit) for gates and circuits",
            "precision": "QuEST's compile-time qreal: double in pyquest-develop's build",
            "gates": "pauliX/Y/Z, hadamard, sGate, tGate, rotateX/Y/Z, phaseShift, "
                     "swapGate, controlledNot, multiControlledMultiQubitNot, "
                     "(multi)controlledPhaseFlip/PhaseShift, controlledRotate*; "
                     "controls on |0> through multiStateControlledUnitary (1 target) "
                     "or X around; (multiControlled)unitary/twoQubitUnitary/"
                     "multiQubitUnitary, else applyMatrix* for non-unitary matrices",
            "fusion": "none (QuEST has none)"}

_require, _, sync = _base.basics(NAME, pyquest, AVAILABLE, REASON)


def version():
    _require()
    return _distribution()[1]


# --- threads -----------------------------------------------------------------------------
#
# QuEST's CPU kernels are plain `#pragma omp parallel` loops with no thread count of their
# own (pyquest.num_threads is only what OpenMP said at import). The runtime is found
# through pyquest.core's handle: the OpenMP runtime libQuEST.so links (the system libgomp,
# shared with any other tool linking it).
_threads = _base.OpenMPThreads(_require, lambda: pyquest.core.__file__, REASON)
threads, set_threads = _threads.threads, _threads.set_threads


# --- states and gates (shared with the distributed build, ._quest) ------------------------

_release_all = _quest.release_all  # the exit hook that drops every Register first


def from_numpy(vec):
    _require()
    return _quest.from_numpy(pyquest, NAME, vec, PRECISIONS)


def to_numpy(state):
    _require()
    return _quest.to_numpy(state, PRECISION)


def run(state, program):
    """The program on ``state`` in place: the timed call (QuEST applies each gate at
    once; nothing is deferred)."""
    return _quest.run(NAME, state, program)


def _build(instructions, n):
    return _quest.circuit(pyquest, instructions)


gate, circuit, apply = _base.programs(__name__, _require, _build)
