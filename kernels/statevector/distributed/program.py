"""The distributed backend ``mpi``: a state split over MPI ranks, each running the fused
machinery on its slice, with the exchanges :mod:`.plan` chose in between.

``compile(instructions, n, dtype, comm=...)`` plans the circuit for the communicator's
ranks (a power of two, at most :data:`MAX_RANKS`), makes this rank's gates from each
stretch (a control or diagonal on a global qubit resolved by the rank's own bits,
:func:`plan.restrict`), compiles each stretch with the fused backend on the slice's
qubits, and returns a program that runs them in place on this rank's slice, every rank
together. Outside an MPI job the world is one rank and the program is the fused one.
"""

import importlib.util

import numpy as np

from .. import states, subnormals
from .._validate import check_gate_on
from ..backend import Backend, FusionFacts
from ..compiled._plan import NUMBA_DTYPES
from ..fused import program as fused
from ..runner import KernelRunner, kernel_runner
from . import plan as planning
from . import window as windows
from .exchange import MESSAGE_BYTES, Exchanger, max_op

#: The most ranks a state is split over (the issue's range; 2**6 global qubits).
MAX_RANKS = 64


def world():
    """MPI's world communicator (mpi4py, an optional dependency: ``make setup`` installs
    it with an MPI from the package registry). Importing it starts MPI, as a job of one
    rank outside ``mpiexec``."""
    from mpi4py import MPI
    return MPI.COMM_WORLD


def global_qubits(ranks, most=MAX_RANKS):
    """log2 of ``ranks``; ValueError unless a power of two from 1 to ``most``."""
    if isinstance(ranks, bool) or not isinstance(ranks, (int, np.integer)) or not (
            1 <= ranks <= most) or ranks & (ranks - 1):
        raise ValueError(f"the ranks must be a power of two from 1 to {most}, got "
                         f"{ranks!r}")
    return int(ranks).bit_length() - 1


def implementation():
    """{"implementation", "version"} of the MPI mpi4py runs on, for results' settings."""
    from mpi4py import MPI
    name, version = MPI.get_vendor()
    return {"implementation": name, "version": ".".join(map(str, version))}


class Program:
    """``program(slice)`` runs the circuit on this rank's slice in place, every rank of
    ``comm`` calling it together; ``info`` says what it planned and what the last call
    sent."""

    def __init__(self, instructions, n, dtype, comm, max_qubits=fused.DEFAULT_MAX_QUBITS,
                 eviction=planning.EVICTIONS[0], most_ranks=MAX_RANKS):
        self.comm, self.n, self.dtype = comm, fused.check_n(n), np.dtype(dtype)
        if self.dtype.char not in NUMBA_DTYPES:
            raise NotImplementedError(f"mpi runs complex128 and complex64, not {self.dtype}")
        self.g = global_qubits(comm.Get_size(), most_ranks)
        self.local = self.n - self.g
        checked = []
        for inst in instructions:  # ValueError naming the argument, before any work
            g = check_gate_on(self.n, inst.matrix, inst.locs, inst.ctrl_locs,
                              inst.ctrl_vals or None, self.dtype)
            checked.append(inst._replace(matrix=g.matrix, locs=g.locs, ctrl_locs=g.ctrl_locs,
                                         ctrl_vals=g.ctrl_vals))
        self.real = not any(np.any(g.matrix.imag) for g in checked)
        # ValueError where the slices are too small for a gate
        self.plan = planning.plan(checked, self.n, self.g, eviction)
        rank = comm.Get_rank()
        fixed = {self.local + j: (rank >> j) & 1 for j in range(self.g)}
        self.steps = []
        compiled = []
        for step in self.plan.steps:
            if isinstance(step, planning.Exchange):
                self.steps.append(step)
                continue
            mine = [g for g in (planning.restrict(i, fixed) for i in step.gates) if g]
            if mine:
                program = fused.compile(mine, self.local, self.dtype, max_qubits=max_qubits)
                compiled.append(program)
                self.steps.append(program)
        self.exchanger = Exchanger(comm, 1 << self.local, self.dtype)
        slice_bytes = self.dtype.itemsize << self.local
        self.info = {
            "ranks": 1 << self.g, "global_qubits": self.g, "local_qubits": self.local,
            "max_qubits": max_qubits, "gates": len(instructions),
            "exchanges": self.plan.exchanges,
            "stretches": sum(isinstance(s, planning.Local) for s in self.plan.steps),
            "fused_gates": sum(p.info["fused_gates"] for p in compiled),
            "passes": sum(p.info["passes"] for p in compiled),
            "modelled_cost": sum(p.info["modelled_cost"] for p in compiled),
            "slice_bytes": slice_bytes,
            # the slice, the exchange's two buffers, the fused stages' chunk buffers
            "peak_bytes_per_rank": slice_bytes + self.exchanger.buffer_bytes + max(
                (sum(b.nbytes for b in p.buffers(1)) for p in compiled), default=0),
            "comm": dict(self.exchanger.stats),
        }

    def __call__(self, state):
        # the state is this rank's slice: 2**local amplitudes
        fused.check_state(state, self.local, self.dtype, self.real, "mpi")
        self.exchanger.reset()
        for step in self.steps:
            if isinstance(step, planning.Exchange):
                self.exchanger.swap(state, step.local, tuple(G - self.local for G in step.glob))
            else:
                step(state)
        self.info["comm"] = dict(self.exchanger.stats)
        return state


    def compute(self, state):
        """The rank's arithmetic alone: the stretches run on ``state`` (a slice), the
        exchanges left out. What the rank computes, for a prediction (harness
        predict); the state it leaves is not the circuit's."""
        fused.check_state(state, self.local, self.dtype, self.real, "mpi")
        for step in self.steps:
            if not isinstance(step, planning.Exchange):
                step(state)
        return state


class Placement:
    """A rank's place in a job that is not running: its number and the job's size, all a
    program needs to be planned and compiled for that rank (no message is sent)."""

    def __init__(self, rank, size):
        self.rank, self.size = rank, size

    def Get_rank(self):  # noqa: N802 - mpi4py's communicator method names
        return self.rank

    def Get_size(self):  # noqa: N802
        return self.size


def compile(instructions, n, dtype=np.complex128, comm=None,
            max_qubits=fused.DEFAULT_MAX_QUBITS):
    """The program that runs ``instructions`` on an n-qubit state split over ``comm``'s
    ranks (MPI's world by default)."""
    return Program(instructions, n, dtype, world() if comm is None else comm, max_qubits)


def local_slice(vec, comm, dtype):
    """This rank's slice of the full vector ``vec``, a 64-byte aligned copy."""
    n = int(vec.shape[0]).bit_length() - 1
    size = 1 << (n - global_qubits(comm.Get_size()))
    rank = comm.Get_rank()
    return states.aligned(vec[rank * size:(rank + 1) * size], dtype)


def zero_slice(n, comm, dtype, shared=False):
    """This rank's slice of |0...0>, made on the rank (no full vector anywhere); with
    ``shared``, in a node window where one can be made (window.py)."""
    size = 1 << (n - global_qubits(comm.Get_size()))
    out = windows.shared_slice(comm, size, dtype) if shared else None
    if out is None:
        out = states.aligned(np.zeros(size, dtype), dtype)
    if comm.Get_rank() == 0:
        out[0] = 1
    return out


def gather(state, comm):
    """The full vector on every rank from each rank's slice (for checks at small n)."""
    out = np.empty(state.size * comm.Get_size(), state.dtype)
    comm.Allgather(np.ascontiguousarray(state), out)
    return out


class MpiRunner(KernelRunner):
    """The distributed backend as a backend (kernels.statevector.backend) on MPI's world:
    ``load`` takes this rank's slice of a full vector, ``result`` gathers the whole state
    on every rank; ``zero(n)`` makes a rank's slice of |0...0> alone, for states no rank
    could hold whole."""

    def __init__(self, module, precision, fusion=None):
        super().__init__(module, precision)
        self.max_qubits = BACKEND.resolve(fusion)
        self.comm = world()

    def load(self, vec):
        return local_slice(np.asarray(vec), self.comm, self.dtype)

    def zero(self, n):
        # in a node window, where the exchanges then swap in place (window.py)
        return zero_slice(n, self.comm, self.dtype, shared=True)

    def program(self, instructions, n):
        program = Program(instructions, n, self.dtype, self.comm, self.max_qubits)
        self.info = program.info
        return program

    def result(self, state):
        return gather(state, self.comm)

    def distance(self, state, expected, comm):
        """The largest amplitude error of the slices against ``expected`` (this rank's
        slice), over every rank."""
        err = float(np.max(np.abs(state.astype(np.complex128) - expected)))
        return comm.allreduce(err, op=max_op())

    def norm(self, state, comm):
        """The squared norm of the state, summed over the ranks."""
        return comm.allreduce(float(np.vdot(state, state).real))


def _available():
    if importlib.util.find_spec("mpi4py") is None:
        return False, "mpi4py is not installed (make setup installs it with Open MPI)"
    return True, ""


BACKEND = Backend(
    name="mpi", role="distributed", precisions=("complex128", "complex64"),
    runner=kernel_runner(__name__, MpiRunner), threads="numba", one_gate=False, mpi=True,
    mpi_environment=windows.ENVIRONMENT, flushes_subnormals=subnormals.OURS,
    available=_available,
    fusion=FusionFacts(settings=fused.FUSION, default=fused.DEFAULT_MAX_QUBITS,
                       rule="the fused backend on each rank's slice, between exchanges that "
                            "bring the global qubits a stretch mixes local, all at once"),
    describe={"driven": "kernels.statevector.distributed.compile, once; every rank calls "
                        "the program on its slice",
              "exchange": "k global bits at once: a block of 2**-k slice swapped with each "
                          "of 2**k - 1 partners (MPI Sendrecv), chunks of at most 1/8 slice "
                          f"or {MESSAGE_BYTES >> 10} KiB"})
