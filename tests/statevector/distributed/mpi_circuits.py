"""Run under ``mpiexec -n R``: the distributed backend on every library circuit, MQT Bench
circuits and seeded random circuits (gates on global qubits as targets, controls and
diagonals), both precisions, each checked against the single-process reference; the
comm counts against the plan; the exchange buffers within a quarter of the slice. The
same cases go through QuEST's distributed mode (the peer quest-mpi, complex128) where it
is installed, so that its answers are checked over the same ranks. Rank 0 prints one
line per failure and a summary; every rank exits 1 on any failure.

    mpiexec -n 4 python -m mpi4py -m tests.statevector.distributed.mpi_circuits [N] [SEEDS]
"""

import sys

import numpy as np

from adapters.simulators import quest_mpi_sim
from harness.circuit import sources
from kernels.statevector import KERNELS, circuits, distributed
from kernels.statevector.distributed.exchange import max_op
from kernels.statevector.states import random_state
from tests.statevector.test_fusion import random_gates

REFERENCE = KERNELS["loop"]
TOLERANCE = {np.complex128: 1e-10, np.complex64: 1e-4}
MQT = ("ghz", "qftentangled", "wstate", "graphstate")


def cases(n, seeds):
    for name in sorted(circuits.LIBRARY):
        try:
            circuit = circuits.LIBRARY[name](n, np.random.default_rng(11))
        except ValueError:
            continue  # no n-qubit form
        yield f"lib:{name}", getattr(circuit, "instructions", circuit)
    for name in MQT:
        try:
            yield f"mqt:{name}", sources.load(f"mqt:{name}", n).instructions
        except sources.SourceError as exc:
            print(f"mqt:{name} skipped: {exc}", file=sys.stderr)
    for seed in range(seeds):
        rng = np.random.default_rng(seed)
        yield f"random seed {seed}", random_gates(n, rng, 40)


def check(comm, n, seeds):
    failures, count = [], 0
    rank = comm.Get_rank()
    for label, instructions in cases(n, seeds):
        start = random_state(n, np.random.default_rng(count))
        expected = circuits.run(REFERENCE, start.copy(), instructions)
        for dtype, tol in TOLERANCE.items():
            program = distributed.compile(instructions, n, dtype, comm)
            state = distributed.local_slice(start, comm, dtype)
            program(state)
            size = state.size
            err = float(np.max(np.abs(state - expected[rank * size:(rank + 1) * size])))
            err = comm.allreduce(err, op=max_op())
            info = program.info
            half = state.nbytes // 2
            problems = []
            if not err <= tol:
                problems.append(f"max error {err:.2e} > {tol}")
            if info["comm"]["exchanges"] != info["exchanges"]:
                problems.append(f"{info['comm']['exchanges']} exchanges sent, "
                                f"{info['exchanges']} planned")
            if info["comm"]["bytes_per_rank"] != info["exchanges"] * half:
                problems.append(f"{info['comm']['bytes_per_rank']} bytes sent, expected "
                                f"{info['exchanges']} half slices")
            if not 0 <= info["comm"]["wait_seconds"] <= info["comm"]["seconds"]:
                problems.append(f"waited {info['comm']['wait_seconds']} s of "
                                f"{info['comm']['seconds']} s in exchanges")
            if size >= 8 and program.exchanger.buffer_bytes > state.nbytes // 4:
                problems.append(f"exchange buffers of {program.exchanger.buffer_bytes} "
                                f"bytes for a slice of {state.nbytes}")
            if problems:
                failures.append(f"{label} {np.dtype(dtype).name}: {'; '.join(problems)}")
            count += 1
        if quest_mpi_sim.AVAILABLE:
            failures += check_quest(comm, label, instructions, start, expected)
    return failures, count


def check_quest(comm, label, instructions, start, expected):
    """[failure] of the peer quest-mpi on one case (complex128, its one precision): the
    2-norm of its error, which QuEST computes over the ranks."""
    state = quest_mpi_sim.from_numpy(start)
    quest_mpi_sim.run(state, quest_mpi_sim.circuit(instructions, state.n))
    size = start.size // comm.Get_size()
    rank = comm.Get_rank()
    mine = expected[rank * size:(rank + 1) * size]
    err = quest_mpi_sim.distance(state, mine, comm)
    tol = TOLERANCE[np.complex128]
    failures = [] if err <= tol else [f"quest-mpi {label}: error {err:.2e} > {tol}"]
    # the check can fail: one amplitude off by 1e-6 on the last rank shows
    off = mine.copy()
    if rank == comm.Get_size() - 1:
        off[-1] += 1e-6
    caught = quest_mpi_sim.distance(state, off, comm)
    if not 0.9e-6 <= caught <= 1.1e-6 + err:
        failures.append(f"quest-mpi {label}: an amplitude off by 1e-6 measured {caught:.2e}")
    return failures


def main():
    n = int(sys.argv[1]) if len(sys.argv) > 1 else 9
    seeds = int(sys.argv[2]) if len(sys.argv) > 2 else 10
    comm = distributed.world()
    if quest_mpi_sim.AVAILABLE:
        # one thread a rank: QuEST's OpenMP loops otherwise start a team per call (its
        # setAmps too), every rank's team spinning on the same cores
        quest_mpi_sim.set_threads(1)
    failures, count = check(comm, n, seeds)
    if comm.Get_rank() == 0:
        for f in failures:
            print(f"FAILED {f}")
        print("and quest-mpi on each case" if quest_mpi_sim.AVAILABLE else
              f"quest-mpi skipped: {quest_mpi_sim.REASON}")
        print(f"checked {count} runs of {n} qubits over {comm.Get_size()} ranks: "
              f"{len(failures)} failed")
    sys.exit(1 if failures else 0)


if __name__ == "__main__":
    main()
