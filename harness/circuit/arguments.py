"""The command line of ``python -m harness circuit`` (harness.circuit.command runs it),
apart from the command so that the harness's parser is made without loading the
simulators."""

from harness.recording.arguments import recording_arguments

#: The cache regimes a run can be timed in (a setting of every row):
#: - warm: each timed call follows an untimed call of the same backend on the same state,
#:   so the state is as hot as the caches let it be (what asv's sweep does);
#: - cold: the caches are flushed before each timed call, so it starts from memory.
CACHE_REGIMES = ("warm", "cold")


def circuit_arguments(p):
    """The arguments of ``python -m harness circuit`` on the parser ``p``."""
    p.add_argument("circuit", metavar="SOURCE", help="path to an .qasm file (OpenQASM 2 or "
                   "3), mqt:NAME, lib:NAME or qiskit:NAME")
    p.add_argument("--qubits", type=int, help="circuit size for mqt:, lib: and qiskit:")
    p.add_argument("--backends", help="comma-separated backend names (default: every one "
                   "but the references, which validate the others)")
    p.add_argument("--precision", default="complex128")
    p.add_argument("--threads", type=int, default=1)
    p.add_argument("--rounds", type=int, default=20,
                   help="rounds of timed calls at most (fewer for slow backends; they end "
                        "earlier once the fastest two are told apart)")
    p.add_argument("--budget", type=float, default=30.0,
                   help="seconds of timing after which no new round starts (default 30), once "
                        "every backend has two samples (one where a call takes longer)")
    p.add_argument("--cache", default="cold", choices=CACHE_REGIMES,
                   help="cold: caches flushed before every timed call (default); warm: "
                        "each timed call follows one on the same state")
    p.add_argument("--json", help="write the results as JSON here")
    p.add_argument("--state", help="write the reference's final state here (.npy)")
    p.add_argument("--fusion", default="default",
                   help="default (each backend's own), off (one pass per gate wherever a "
                        "backend allows it), K (at most K qubits per fused gate where "
                        "declared) or all (every setting each backend declares, as rows "
                        "NAME@K besides its default)")
    p.add_argument("--ranks", type=int, help="run as an MPI job of this many ranks (a power "
                   "of two, 1 to 64), every backend that runs distributed (docs/distributed.md)")
    p.add_argument("--hostfile", help="with --ranks: the hosts mpiexec places the ranks on")
    p.add_argument("--launcher", default="mpiexec", choices=("mpiexec", "srun"),
                   help="with --ranks: what starts the job (default mpiexec; srun inside a "
                        "Slurm allocation)")
    return recording_arguments(p)
