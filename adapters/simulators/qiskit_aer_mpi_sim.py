"""qiskit-aer's MPI mode: an ``AerSimulator`` run by every rank of the job, its state
split into chunks over the ranks by Aer's cache blocking (``blocking_enable``,
``blocking_qubits``). Rank r holds the r-th of R equal chunks, the amplitudes whose top
log2(R) index bits are r: our ``mpi`` backend's layout. A gate on a chunk's qubits runs
locally; Aer's cache-blocking pass inserts chunk swaps (MPI exchanges of whole chunks)
to bring a top qubit into the chunk and back.

It runs through the MPI build of the pinned qiskit-aer (``make aer-mpi``, about 4
minutes, so not part of ``make setup``), renamed ``qiskit_aer_mpi`` so that it sits beside
the single-process build (requirements/qiskit_aer_mpi.sh). The package is imported on
first use, never when backends are listed, so that only a job's ranks load its MPI.

Why AerSimulator and not ``AerState`` (what :mod:`.qiskit_aer_sim` uses to keep a state
between calls): AerState never splits its state (its state class does not support
multi-chunk distribution, 0.18.2: every rank would hold the whole vector). So a run is
a whole Aer experiment: it allocates and zeroes the rank's chunk (or loads a start
vector), fuses and cache-blocks the circuit, and applies it; nothing is kept between
runs. The timed call is that run, as Aer's users time it; a state handed to ``run`` only
says where the run starts, and the amplitudes are read through a second run with
``save_statevector``, which Aer gathers whole onto every rank (MPI_Allgatherv), so a
check needs the whole state on each rank: refused, before anything runs, where the ranks
on this machine cannot hold it.

The circuit is translated into qiskit gates once (named gates as qiskit's, with
``ctrl_state`` for controls on |0>; other matrices as ``UnitaryGate``) and transpiled to
Aer's basis outside the timed run.
"""

import numpy as np

from kernels.statevector import states
from kernels.statevector.distributed import exchange

from . import _base

NAME = "qiskit-aer-mpi"
PACKAGE = "qiskit-aer-mpi"
MPI = True
FUSION_DEFAULT = None  # Aer's own rule, as in one process: fused from 15 qubits
PRECISIONS = ("complex128",)
PRECISION = PRECISIONS[0]
SETTINGS = {"threads": "1 (AerSimulator max_parallel_threads, see set_threads)",
            "api": "qiskit_aer_mpi AerSimulator(method='statevector'), one run per call "
                   "from |0> or a start vector (Aer keeps no distributed state between "
                   "runs): the chunk's allocation, fusion and cache blocking are timed "
                   "with the gates; a state remembers the programs run on it, and a "
                   "read runs them again from its start, once; the circuit transpiled "
                   "to Aer's basis beforehand; "
                   "enable_truncation off (a run that saves nothing would simulate no "
                   "qubit), and each run checked to have simulated all of them",
            "distribution": "Aer's cache blocking over the ranks: blocking_qubits = "
                            "n - log2(R), one chunk a rank; chunk swaps (MPI) for gates "
                            "on the top qubits, inserted by Aer's cache-blocking pass",
            "precision": "complex128 (precision 'double')",
            "fusion": "Aer's default, on (fused from 15 qubits)"}

#: more qubits than this in one unnamed gate's block (controls included): qiskit's own
#: controlled gate (synthesised), not one dense unitary
DENSE_QUBITS = 6


AVAILABLE, REASON, _load, version = _base.mpi_build(
    NAME, "qiskit_aer_mpi", PACKAGE, "Aer with MPI",
    "make aer-mpi builds qiskit-aer's MPI mode from its sdist (about 4 minutes)")
_package = _require = _load


def sync():
    """Nothing to wait for: a run returns its result when every rank's part is done."""


_threads = _base.ThreadCount(_require)
threads, set_threads = _threads.threads, _threads.set_threads


class _State:
    """A state Aer does not keep: where every run starts, |0...0> (``start`` None, Aer's
    own initial state) or a whole vector every rank passes (Aer's set_statevector keeps
    each rank's chunks), and the programs run on it since (``applied``), which a read
    runs from the start in one go. A run costs what it would on the evolved state: Aer's
    work does not depend on the amplitudes."""

    def __init__(self, n, start=None):
        self.n, self.start, self.applied = n, start, []


def from_numpy(vec):
    _require()
    _base.precision_of(vec, NAME, PRECISIONS)
    vec = np.asarray(vec)
    n = vec.shape[0].bit_length() - 1
    if vec[0] == 1 and np.count_nonzero(vec) == 1:  # |0...0>: Aer makes it in place
        return _State(n)
    return _State(n, np.array(vec, np.complex128))


def _gate(instruction):
    """(qiskit gate, its qubits) of one checked instruction."""
    from qiskit.circuit import library
    name, locs, ctrls, vals, params = _base.parts(instruction)
    named = {"X": library.XGate, "Y": library.YGate, "Z": library.ZGate,
             "H": library.HGate, "S": library.SGate, "T": library.TGate,
             "SWAP": library.SwapGate}
    rotations = {"Rx": library.RXGate, "Ry": library.RYGate, "Rz": library.RZGate,
                 "phase": library.PhaseGate}
    base = None
    if name in named and not params:
        base = named[name]()
    elif name in rotations and len(params) == 1:
        base = rotations[name](params[0])
    matrix = np.asarray(instruction.matrix, np.complex128)
    # qiskit's UnitaryGate checks to 1e-8: refused here first, by name
    if not np.allclose(matrix @ matrix.conj().T, np.eye(len(matrix)), atol=1e-8):
        raise NotImplementedError(f"{NAME} applies unitary matrices only (a circuit of "
                                  f"qiskit gates): {name} on {list(locs)} is not unitary")
    # a name is only trusted where qiskit's gate has the instruction's matrix (qubit j of
    # a gate is bit j of its matrix's index in both)
    if base is None or base.num_qubits != len(locs) or not np.allclose(
            base.to_matrix(), matrix, atol=1e-12):
        if ctrls and len(ctrls) + len(locs) <= DENSE_QUBITS:
            return library.UnitaryGate(_controlled(matrix, len(locs), vals)), [*locs, *ctrls]
        base = library.UnitaryGate(matrix)
    if not ctrls:
        return base, list(locs)
    state = sum(v << j for j, v in enumerate(vals))
    return base.control(len(ctrls), ctrl_state=state), [*ctrls, *locs]


def _controlled(matrix, t, vals):
    """The dense matrix, over the targets (low bits) then the controls, that applies
    ``matrix`` where the controls read ``vals`` and the identity elsewhere."""
    size = 1 << (t + len(vals))
    out = np.eye(size, dtype=np.complex128)
    block = sum(v << j for j, v in enumerate(vals)) << t
    out[block:block + (1 << t), block:block + (1 << t)] = matrix
    return out


class _Native:
    """A circuit as Aer runs it: transpiled to its basis."""

    def __init__(self, instructions, n):
        from qiskit import QuantumCircuit, transpile
        package = _package()
        qc = QuantumCircuit(n)
        for instruction in instructions:
            gate, qubits = _gate(instruction)
            qc.append(gate, qubits)
        self.n = n
        self.simulator = package.AerSimulator(method="statevector", precision="double")
        self.circuit = transpile(qc, self.simulator, optimization_level=0)


# built per state size, on the first (validation) run: a gate's circuit needs the state's
# qubit count, and a circuit is transpiled once, outside the timed runs
gate, circuit, apply = _base.programs(__name__, _require, _Native, per_size=True)


def _options(n):
    """The run options of this job: one chunk a rank (blocking over the top log2(R)
    qubits) where there is more than one rank. Smaller chunks, several a rank, were
    slower: qv on 22 qubits over 2 ranks took 4.47 s with 21-qubit chunks against 5.33 s
    with 18-qubit ones (one run, measured; 7.31 s on one rank)."""
    from mpi4py import MPI
    ranks = MPI.COMM_WORLD.Get_size()
    # enable_truncation off: Aer drops the qubits no saved result depends on, and a run
    # that saves nothing then simulates no qubit at all (17.8 ms for qft on 24 qubits
    # over 2 ranks, against 2.4 s for 22 qubits untruncated, measured)
    options = {"max_parallel_threads": _threads.count, "max_parallel_experiments": 1,
               "max_parallel_shots": 1, "shots": 1, "enable_truncation": False}
    if ranks > 1:
        g = ranks.bit_length() - 1
        options.update(blocking_enable=True, blocking_qubits=n - g)
    return options, ranks


def _execute(state, native, circuit):
    """Aer's result of ``circuit`` from ``state``'s start, on every rank; RuntimeError
    naming Aer where it fails, did not run over this job's ranks or left out qubits."""
    if state.start is not None:
        from qiskit import QuantumCircuit
        prefix = QuantumCircuit(state.n)
        prefix.set_statevector(state.start)
        circuit = prefix.compose(circuit)
    options, ranks = _options(state.n)
    try:
        result = native.simulator.run(circuit, **options).result()
    except Exception as exc:
        raise _base.tool_failed(NAME, exc) from exc
    if not result.success:
        raise RuntimeError(f"{NAME} failed: {result.status}")
    got = result.metadata.get("num_processes_per_experiments", 1)
    if got != ranks:
        raise RuntimeError(f"{NAME} ran over {got} MPI process(es), not the job's {ranks}: "
                           "is qiskit_aer_mpi built with AER_MPI?")
    simulated = result.results[0].metadata.get("num_qubits", 0)  # the register's size
    if simulated != state.n:  # a run that dropped qubits measured less than the circuit
        raise RuntimeError(f"{NAME} simulated {simulated} of the circuit's {state.n} qubits")
    return result


def run(state, program):
    """The circuit from ``state``'s start, every rank calling it: the timed call. The
    state then holds the program's result (``applied``)."""
    if type(state) is not _State:
        raise _base.not_a_state(NAME, state)
    native = _base.built(program, NAME, state.n)
    _execute(state, native, native.circuit)
    state.applied.append(native)
    return state


def _whole_state_fits(n):
    """MemoryError on every rank alike, before Aer runs, where some rank's machine cannot
    hold the whole gathered state on each of its ranks (and Aer's copy of it): every
    rank asks, so that none is left waiting in Aer's gather."""
    from mpi4py import MPI
    world = MPI.COMM_WORLD
    local = world.Split_type(MPI.COMM_TYPE_SHARED)  # the ranks on this rank's machine
    try:
        states.check_fits(n, np.complex128, copies=2 * local.Get_size())
        reason = None
    except MemoryError as exc:
        reason = str(exc)
    finally:
        local.Free()
    reasons = [r for r in world.allgather(reason) if r]
    if reasons:
        raise MemoryError(f"{NAME} reads its state whole on every rank: {reasons[0]}")


def to_numpy(state):
    """The whole vector, on every rank: the programs run on the state, run again from its
    start in one Aer run that saves the state (Aer gathers it onto every rank)."""
    if type(state) is not _State:
        raise _base.not_a_state(NAME, state)
    if not state.applied:
        return states.zero_state(state.n) if state.start is None else state.start.copy()
    from qiskit import QuantumCircuit
    _whole_state_fits(state.n)
    reading = QuantumCircuit(state.n)
    for native in state.applied:
        reading.compose(native.circuit, inplace=True)
    reading.save_statevector()
    result = _execute(state, state.applied[-1], reading)
    return np.asarray(result.get_statevector(), np.complex128)


def distance(state, expected, comm):
    """The largest amplitude error over every rank, ``expected`` being this rank's slice
    (rank r holds the r-th of R equal chunks). Every rank calls it."""
    size = expected.size
    rank = comm.Get_rank()
    got = to_numpy(state)[rank * size:(rank + 1) * size]
    return comm.allreduce(float(np.max(np.abs(got - expected))), op=exchange.max_op())


def norm(state):
    """The state's squared norm (every rank holds the whole gathered vector)."""
    got = to_numpy(state)
    return float(np.vdot(got, got).real)
