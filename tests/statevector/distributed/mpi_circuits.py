"""Run under ``mpiexec -n R``: the distributed backend on every library circuit, MQT Bench
circuits and seeded random circuits (gates on global qubits as targets, controls and
diagonals), both precisions, each checked against the single-process reference; the
comm counts against the plan; the exchange buffers within a quarter of the slice. The
complex128 slices sit in a node window (their exchanges swap in place), the complex64
ones in private arrays (their exchanges send messages). The
same cases go through the peers' distributed modes (QuEST's, quest-mpi, and Aer's,
qiskit-aer-mpi; complex128) where they are installed, so that their answers are checked
over the same ranks. Rank 0 prints one line per failure and a summary; every rank exits
1 on any failure.

    mpiexec -n 4 python -m mpi4py -m tests.statevector.distributed.mpi_circuits [N] [SEEDS]
"""

import sys

import numpy as np

from adapters.simulators import qiskit_aer_mpi_sim, quest_mpi_sim
from harness.circuit import sources
from kernels.statevector import KERNELS, circuits, distributed
from kernels.statevector.distributed.exchange import max_op
from kernels.statevector.distributed.window import NodeSlices
from kernels.statevector.states import random_state
from tests.statevector.test_fusion import random_gates

REFERENCE = KERNELS["loop"]
TOLERANCE = {np.complex128: 1e-10, np.complex64: 1e-4}
MQT = ("ghz", "qftentangled", "wstate", "graphstate")
#: the peers' distributed modes, each checked where it is installed
PEERS = (quest_mpi_sim, qiskit_aer_mpi_sim)


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
            window = None
            if np.dtype(dtype) == np.complex128:  # in a node window: swapped in place
                window = NodeSlices(comm, state.size, dtype)
                window.mine[...] = state
                state = window.mine
            program(state)
            size = state.size
            err = float(np.max(np.abs(state - expected[rank * size:(rank + 1) * size])))
            err = comm.allreduce(err, op=max_op())
            info = program.info
            planned = program.plan.sent(state.nbytes)
            problems = []
            if not err <= tol:
                problems.append(f"max error {err:.2e} > {tol}")
            if info["comm"]["exchanges"] != info["exchanges"]:
                problems.append(f"{info['comm']['exchanges']} exchanges sent, "
                                f"{info['exchanges']} planned")
            if info["comm"]["bytes_per_rank"] != planned:
                problems.append(f"{info['comm']['bytes_per_rank']} bytes sent, "
                                f"{planned} planned")
            if not 0 <= info["comm"]["wait_seconds"] <= info["comm"]["seconds"]:
                problems.append(f"waited {info['comm']['wait_seconds']} s of "
                                f"{info['comm']['seconds']} s in exchanges")
            if size >= 8 and program.exchanger.buffer_bytes > state.nbytes // 4:
                problems.append(f"exchange buffers of {program.exchanger.buffer_bytes} "
                                f"bytes for a slice of {state.nbytes}")
            if window is not None:
                # every rank of the job is on this machine: each swap is in place
                if info["comm"]["messages"]:
                    problems.append(f"{info['comm']['messages']} messages where the "
                                    "slices share a window")
                window.free()  # every rank here together
            if problems:
                failures.append(f"{label} {np.dtype(dtype).name}: {'; '.join(problems)}")
            count += 1
        for peer in PEERS:
            if peer.AVAILABLE:
                failures += check_peer(peer, comm, label, instructions, start, expected)
    return failures, count


def check_peer(peer, comm, label, instructions, start, expected):
    """[failure] of a peer's distributed mode on one case (complex128, their one
    precision), by its own ``distance`` over the ranks (QuEST's the 2-norm of the
    error)."""
    state = peer.from_numpy(start)
    peer.run(state, peer.circuit(instructions, state.n))
    size = start.size // comm.Get_size()
    rank = comm.Get_rank()
    mine = expected[rank * size:(rank + 1) * size]
    err = peer.distance(state, mine, comm)
    tol = TOLERANCE[np.complex128]
    failures = [] if err <= tol else [f"{peer.NAME} {label}: error {err:.2e} > {tol}"]
    # the check can fail: one amplitude off by 1e-6 on the last rank shows
    off = mine.copy()
    if rank == comm.Get_size() - 1:
        off[-1] += 1e-6
    caught = peer.distance(state, off, comm)
    if not 0.9e-6 <= caught <= 1.1e-6 + err:
        failures.append(f"{peer.NAME} {label}: an amplitude off by 1e-6 measured {caught:.2e}")
    return failures


def main():
    n = int(sys.argv[1]) if len(sys.argv) > 1 else 9
    seeds = int(sys.argv[2]) if len(sys.argv) > 2 else 10
    comm = distributed.world()
    for peer in PEERS:
        if peer.AVAILABLE:
            # one thread a rank: an OpenMP loop otherwise starts a team per call, every
            # rank's team spinning on the same cores
            peer.set_threads(1)
    failures, count = check(comm, n, seeds)
    if comm.Get_rank() == 0:
        for f in failures:
            print(f"FAILED {f}")
        for peer in PEERS:
            print(f"and {peer.NAME} on each case" if peer.AVAILABLE else
                  f"{peer.NAME} skipped: {peer.REASON}")
        print(f"checked {count} runs of {n} qubits over {comm.Get_size()} ranks: "
              f"{len(failures)} failed")
    sys.exit(1 if failures else 0)


if __name__ == "__main__":
    main()
