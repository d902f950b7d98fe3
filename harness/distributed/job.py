"""``harness circuit --ranks R`` inside the job: every rank runs this, rank 0 reports.

Each backend that runs as MPI ranks (``Backend.mpi``) compiles the circuit for this
job's ranks, runs it once from |0...0> (each rank making only its slice) and is checked
against a reference before it is timed:

- up to :data:`REFERENCE_QUBITS` qubits, the single-process reference
  (``harness.statevector.validate``), computed on rank 0 and compared slice by slice
  (each rank receives its part);
- above, our single-process fused backend on rank 0, where the whole state fits there;
- else each rank's slice against a second run planned with another choice of global
  qubits (:data:`kernels.statevector.distributed.plan.EVICTIONS`), and the norm.

The rows are timed in rounds as in one process (``harness.circuit.command``): every
rank times each call between barriers and all take the slowest rank's time, so that all
make the same decisions; rank 0 decides when the budget is spent. Each row adds what its
last call sent (``comm``: exchanges, bytes per rank, seconds in communication, the
slowest rank's) and its peak memory per rank (the slice and the buffers it allocated).
The report also says how fast this job's MPI exchanges a slice's half against one
process copying as many bytes (``exchange``, :func:`kernels.statevector.distributed.
exchange.bandwidth`), both measured in the job.
"""

import sys
import time

import numpy as np

from harness import provenance, ranking, registry
from harness import settings as settings_mod
from harness import threads as threads_mod
from harness.circuit import command, sources
from harness.distributed import launch
from harness.errors import Unavailable
from harness.statevector import backends
from harness.statevector import validate as sv_validate
from kernels.statevector import distributed, fused, states
from kernels.statevector.distributed import exchange
from kernels.statevector.distributed.plan import EVICTIONS

#: Up to this many qubits every distributed run is checked against the single-process
#: reference; above, against the fused backend (the issue's rule).
REFERENCE_QUBITS = 22


class RankClock(command.Clock):
    """Times a call on every rank between barriers; every rank gets the slowest one's
    time, and rank 0's view of the budget."""

    def __init__(self, comm):
        self.comm = comm

    def measure(self, call):
        return exchange.slowest(self.comm, call)

    def agree(self, flag):
        return self.comm.bcast(flag, root=0)


def declarations(spec):
    """The backends asked for that run as MPI ranks (default: every one); BadInput for
    one that does not."""
    if not spec:
        return registry.distributed_backends()
    asked = command._declarations(spec)
    single = [b.name for b in asked if not b.mpi]
    if single:
        known = ", ".join(b.name for b in registry.distributed_backends())
        raise command.BadInput(f"{', '.join(single)} run(s) in one process, not as MPI ranks; "
                               f"with --ranks: {known}")
    return asked


def check(circuit, ranks, precision, hostfile=None, launcher="mpiexec"):
    """BadInput, before any job starts, where the circuit cannot run over ``ranks``: not a
    power of two, slices too small for a gate, or (ranks on this machine) the slices and
    the reference more than its memory holds."""
    try:
        g = distributed.global_qubits(ranks)
    except ValueError as exc:
        raise command.BadInput(f"--ranks: {exc}") from None
    try:
        distributed.plan.plan(circuit.instructions, circuit.n, g)
    except ValueError as exc:
        raise command.BadInput(f"--ranks {ranks}: {exc}") from None
    if launcher == "mpiexec" and hostfile is None:  # every rank on this machine
        slices = ranks * 1.25 / (1 << g)  # of the whole state, with the exchange buffers
        reference = 3 if circuit.n <= REFERENCE_QUBITS else 2  # rank 0: the expected state
        try:
            states.check_fits(circuit.n, precision.dtype, copies=slices + reference)
        except MemoryError as exc:
            raise command.BadInput(f"too many qubits for this machine's memory over "
                                   f"{ranks} ranks: {exc}") from None


def _reference(circuit, comm):
    """(expected complex128 vector on rank 0, None on the others; how it was made, the
    same on every rank: ``slices`` False where no rank could hold the whole state and each
    checks against a second plan): the reference's state, or the fused backend's above
    REFERENCE_QUBITS."""
    n = circuit.n
    how = {"backend": None, "seconds": 0.0, "slices": True}
    fits = True
    if n > REFERENCE_QUBITS:
        try:
            states.check_fits(n, np.complex128, copies=2)
        except MemoryError:
            fits = False
    fits = comm.bcast(fits, root=0)
    if not fits:
        return None, {**how, "slices": False,
                      "backend": "a second plan (another choice of global qubits) and the norm"}
    expected = None
    if comm.Get_rank() == 0:
        started = time.perf_counter()
        zero = states.zero_state(n)
        if n <= REFERENCE_QUBITS:
            ref = sv_validate.reference_backend(n)
            expected = sv_validate.reference(zero, circuit.instructions, ref)
            how["backend"] = ref.name
        else:
            expected = fused.compile(circuit.instructions, n)(zero)
            how["backend"] = fused.BACKEND.name
        how["seconds"] = time.perf_counter() - started
    return expected, comm.bcast(how, root=0)


def _expected_slice(expected, comm, size):
    """This rank's part of rank 0's ``expected`` vector."""
    mine = np.empty(size, np.complex128)
    comm.Scatter(expected, mine, root=0)
    return mine


def _prepare(backend, setting, circuit, precision, n_threads, cache, comm, expected, mpi):
    """(row, runner, program, state) on every rank alike: the row refused or skipped with
    the first failing rank's reason, or checked against the expected slices."""
    ranks = comm.Get_size()
    row = command._row(backend, precision, n_threads, setting, cache)
    row["settings"] = settings_mod.of(backend, precision, n_threads, fusion=setting,
                                      cache=cache, ranks=ranks, mpi=mpi)
    failure, runner, program, state = None, None, None, None
    try:
        runner = backends.get(backend.name, precision, setting)
        runner.require()
        runner.set_threads(n_threads)
        program = runner.program(circuit.instructions, circuit.n)
        state = runner.runner.zero(circuit.n)
        runner.run(state, program)  # compiles and warms up
    except Unavailable as exc:
        failure = ("skipped", str(exc))
    except NotImplementedError as exc:
        failure = ("refused", str(exc))
    except Exception as exc:  # a backend's failure must not stop the others
        failure = ("refused", f"raised {type(exc).__name__}: {exc}")
    failures = comm.allgather(failure)
    failed = next(((r, f) for r, f in enumerate(failures) if f), None)
    if failed:
        rank, (status, reason) = failed
        return {**row, "status": status, "reason": f"rank {rank}: {reason}"}, None, None, None
    try:
        err = _error(runner, state, circuit, precision, comm, expected)
    except Exception as exc:  # every rank alike: a check the backend cannot make
        return ({**row, "status": "refused",
                 "reason": f"its check raised {type(exc).__name__}: {exc}"}, None, None, None)
    if not err <= precision.atol:  # NaN too
        return ({**row, "status": "wrong", "max_error": err if np.isfinite(err) else None,
                 "reason": f"max amplitude error {err:.3g} > {precision.atol:g}"},
                None, None, None)
    row["max_error"] = err
    row["program"] = dict(runner.info)
    return row, runner, program, state


def _error(runner, state, circuit, precision, comm, expected):
    """The largest amplitude error over every rank (a peer's runner may measure a bound
    of it, its 2-norm): against the expected slices (rank 0 holds ``expected`` whole),
    or, where ``expected`` is False, against a second plan's run and the norm."""
    if expected is not False:  # the expected slices exist (rank 0 holds them whole)
        size = (1 << circuit.n) // comm.Get_size()
        return runner.runner.distance(state, _expected_slice(expected, comm, size), comm)
    # our backend at its default fusion, planned with the other eviction: as independent
    # of the row's own settings as a plan can be
    other = distributed.Program(circuit.instructions, circuit.n, precision.dtype, comm,
                                eviction=EVICTIONS[1])
    second = distributed.zero_slice(circuit.n, comm, precision.dtype)
    other(second)
    return max(runner.runner.distance(state, second, comm),
               abs(runner.runner.norm(state, comm) - 1.0))


def run(source, qubits=None, backend_spec=None, precision="complex128", n_threads=1,
        rounds=20, fusion="default", cache="cold", budget=30.0, comm=None):
    """The report (rank 0; None on the others) of one circuit on the distributed
    backends, run by every rank of ``comm``."""
    comm = comm or distributed.world()
    precision = command.options(precision, cache, rounds, budget)
    try:
        threads_mod.set_threads(n_threads)
    except ValueError as exc:
        raise command.BadInput(f"--threads: {exc}") from None
    declared = declarations(backend_spec)
    rows_asked = command.variants(declared, fusion, precision)
    circuit = sources.load(source, qubits)
    ranks = comm.Get_size()
    mpi = distributed.implementation()
    expected, reference = _reference(circuit, comm)
    link = exchange.bandwidth(comm, precision.dtype)  # before the rows' slices exist
    if not reference.pop("slices"):
        expected = False  # every rank checks against a second plan
    rows, prepared, held = {}, {}, {}
    for row_name, backend, setting in rows_asked:
        row, runner, program, state = _prepare(backend, setting, circuit, precision,
                                               n_threads, cache, comm, expected, mpi)
        rows[row_name] = row
        if runner is not None:
            prepared[row_name] = (runner, program)
            held[row_name] = state
    del expected
    samples, rounds_run, settled = command._time(prepared, None, cache, rounds, budget,
                                                 clock=RankClock(comm), held=held)
    for name, (runner, _) in prepared.items():
        # what was sent and the peak memory, where the backend counts them (a peer's
        # tool does not): None otherwise
        comm_stats = runner.info.get("comm")
        if comm_stats is not None:
            comm_stats = dict(comm_stats)
            for key in ("seconds", "wait_seconds"):  # the slowest rank's, each
                comm_stats[key] = comm.allreduce(comm_stats[key], op=exchange.max_op())
        rows[name]["comm"] = comm_stats
        rows[name]["peak_bytes_per_rank"] = runner.info.get("peak_bytes_per_rank")
    if comm.Get_rank() != 0:
        return None
    for name, times in samples.items():
        rows[name].update(seconds=min(times), interval=list(ranking.interval(times)),
                          samples=len(times))
    return {
        "circuit": circuit.label, "qubits": circuit.n, "gates": len(circuit.instructions),
        "precision": precision.name, "threads": n_threads, "fusion": fusion, "cache": cache,
        "ranks": ranks, settings_mod.MPI_FIELD: mpi,
        "digest": sources.digest(circuit.instructions),
        "oversubscribed": launch.oversubscribed(ranks), "exchange": link,
        "settings_hash": settings_mod.short_hash(
            {"circuit": sources.digest(circuit.instructions), "precision": precision.name,
             "threads": n_threads, "fusion": fusion, "cache": cache, "ranks": ranks,
             settings_mod.MPI_FIELD: mpi}),
        "reference": {**reference, "agreed_by": sorted(
            name.partition("@")[0] for name, r in rows.items() if r["status"] == "ok"),
            "cross_check": None},
        "rounds": {"run": rounds_run, "settled": settled, "budget_seconds": budget},
        "notes": circuit.notes, "backends": rows,
    }


def main(opts):
    """A rank's part of ``harness circuit --ranks``; every rank returns rank 0's exit
    status (2 bad input, 1 a wrong state, 0 otherwise)."""
    started = provenance.now()
    comm = distributed.world()
    try:
        report = run(opts.circuit, opts.qubits, opts.backends, opts.precision, opts.threads,
                     opts.rounds, fusion=opts.fusion, cache=opts.cache, budget=opts.budget,
                     comm=comm)
        failure = None
    except (sources.SourceError, command.BadInput) as exc:
        report, failure = None, str(exc)
    # every rank found the same bad input: rank 0 says it once
    if failure is not None:
        if comm.Get_rank() == 0:
            print(f"circuit: {failure}", file=sys.stderr)
        return 2
    code = 0
    if comm.Get_rank() == 0:
        print(command.table(report))
        code = 1 if any(r["status"] == "wrong" for r in report["backends"].values()) else 0
        command.finish(report, opts, started)
    return comm.bcast(code, root=0)
