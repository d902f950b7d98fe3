"""QuEST's distributed mode: the state split over the ranks of an MPI job, each rank
holding the chunk of amplitudes whose top log2(R) index bits are its number (our ``mpi``
backend's layout). A gate on a chunk's qubits runs locally; one on a top qubit makes each
rank swap its whole chunk with a partner's into a second buffer the size of the chunk
(``pairStateVec``), so a rank holds twice its slice, in messages of at most 2**28
amplitudes.

It runs through pyQuEST built against the project's MPI by ``requirements/pyquest_mpi.sh``
(``make setup``): the same sdist as :mod:`.quest_sim`'s build, with its 'distributed'
switch on and its package renamed ``pyquest_mpi`` (library libQuEST_mpi.so) so that both
builds can be installed, and loaded, side by side. The gates are driven as in one process
(:mod:`._quest`).

Only ``harness circuit --ranks R`` runs it, as its job's ranks: importing ``pyquest_mpi``
creates QuEST's environment, which joins MPI and stays until the process ends, so it is
imported when a program or state is first made, never when backends are listed.
"""

import ctypes
import importlib
import os
import sys

from . import _base, _quest

NAME = "quest-mpi"
PACKAGE = "pyquest_mpi-develop"
MPI = True
FUSION_DEFAULT = 0
#: requirements/pyquest_mpi.sh keeps pyQuEST's default precision (QuEST's qreal double)
PRECISIONS = ("complex128",)
PRECISION = PRECISIONS[0]
SETTINGS = {"threads": "1 (QuEST's OpenMP loops; see set_threads)",
            "api": "pyquest_mpi Register and Circuit, as quest's",
            "distribution": "QuEST's pairwise exchange of whole chunks (MPI_Sendrecv, "
                            "at most 2**28 amplitudes a message) into a second buffer "
                            "the chunk's size, for each gate on a top qubit",
            "precision": "QuEST's compile-time qreal: double in this build",
            "fusion": "none (QuEST has none)"}


AVAILABLE, REASON, _load, version = _base.mpi_build(
    NAME, "pyquest_mpi", PACKAGE, "QuEST distributed",
    "requirements/pyquest_mpi.sh builds QuEST's distributed mode against the project's "
    "MPI (make setup)")


def _quiet_import(module):
    """``module`` (pyquest_mpi) and its submodules, imported with stdout shut: QuEST's
    environment, made at import, prints "ERROR: Trying to initialize QuESTEnv multiple
    times" on stdout when MPI is already running (mpi4py started it, as it should):
    harmless, and kept out of the job's output."""
    sys.stdout.flush()
    saved = os.dup(1)
    try:
        with open(os.devnull, "wb") as null:
            os.dup2(null.fileno(), 1)
        try:
            package = importlib.import_module(module)
            for sub in ("core", "unitaries", "operators"):
                importlib.import_module(f"{module}.{sub}")
        finally:
            ctypes.CDLL(None).fflush(None)  # QuEST's printf, out before stdout returns
            os.dup2(saved, 1)
    finally:
        os.close(saved)
    return package


def _package():
    """pyquest_mpi, imported on first use, checked to be the build the adapter drives."""
    package = _load(_quiet_import)
    if not package.mpi or _quest.PRECISIONS.get(package.precision) != PRECISION:
        raise RuntimeError(f"the {NAME} adapter is unavailable: pyquest_mpi is built "
                           f"with MPI {package.mpi}, precision {package.precision}")
    return package


def _require():
    _package()


def sync():
    """Nothing to wait for: QuEST's calls return when every rank's part is done."""


_threads = _base.OpenMPThreads(_require, lambda: _package().core.__file__, REASON)
threads, set_threads = _threads.threads, _threads.set_threads


def from_numpy(vec):
    """A Register holding the full vector ``vec`` (every rank passes it whole and keeps
    its chunk)."""
    return _quest.from_numpy(_package(), NAME, vec, PRECISIONS)


def to_numpy(state):
    """The full vector on every rank (every rank calls it: each amplitude is broadcast
    from its holder)."""
    _require()
    return _quest.to_numpy(state, PRECISION)


def distance(state, expected, comm):
    """The 2-norm of the state minus ``expected`` over every rank (an upper bound of the
    largest amplitude error), ``expected`` being this rank's slice by QuEST's layout (rank
    r holds the r-th of R equal chunks). QuEST computes it: each rank writes its slice
    into a second Register (setAmps keeps a rank's own chunk; no message), and the
    difference's total probability is one reduction. Reading the amplitudes back instead
    broadcasts each one from its holder: minutes over 8 oversubscribed ranks at 10
    qubits. Every rank calls it."""
    package = _package()
    size = expected.size
    other = package.Register(state.n)
    other[comm.Get_rank() * size:(comm.Get_rank() + 1) * size] = expected
    return float(max((state.reg - other).total_prob, 0.0)) ** 0.5  # a property


def norm(state):
    """The state's squared norm, QuEST's calcTotalProb (one reduction over the ranks)."""
    _require()
    return float(state.reg.total_prob)  # a property


def run(state, program):
    """The program on ``state`` in place, every rank calling it: the timed call."""
    return _quest.run(NAME, state, program)


def _build(instructions, n):
    return _quest.circuit(_package(), instructions)


gate, circuit, apply = _base.programs(__name__, _require, _build)
