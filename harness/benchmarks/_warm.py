"""Work done once, at import, in asv's forkserver, so that no parameter set repeats it.

``python -m harness bench`` runs asv with ``--launch-method forkserver``: one server
imports every suite, then forks a process per parameter set, and each child finds done
whatever the server did. Two costs were paid per parameter set before (measured with
cProfile in a fresh process): numba's first load of any function from its on-disk cache
builds its typing and target registries (about 1 s here, most of a gate's setup), and
the adjoint sweep's step, uncached on purpose (``kernels/variational/_sweep.py``), is
compiled on first use (5-10 s; the variational suites' reference gradient uses it from
9 qubits). Done here, each costs once per run.

Only serial functions run here: a parallel one would start numba's thread pool in the
server, and a fork does not carry a running pool safely.
"""

import numpy as np

from kernels import variational
from kernels.statevector import gates
from kernels.statevector.compiled import stride


def numba():
    """Load one cached kernel (numba's registries come with the first load)."""
    state = np.zeros(2, dtype=np.complex128)
    state[0] = 1.0
    stride.apply(state, gates.H, (0,))


def adjoint():
    """Compile the adjoint sweep's step (and load numba, as :func:`numba` does)."""
    p = variational.qcbm_energy(2, 1, np.random.default_rng(0))
    variational.adjoint.gradient(p, p.theta0)
