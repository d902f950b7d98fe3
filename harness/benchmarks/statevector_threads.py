"""Thread scaling: the threaded kernel and the thread-capable peers over thread counts,
against the serial stride kernel as the one-thread baseline."""

from ._setup import PROFILE, ROUNDS, prepare  # first: pins threads
from .statevector_gates import GATES

from harness.threads import max_threads

THREAD_BACKENDS = ["stride", "threaded", "qulacs"]


class GateThreads:
    params = (["X", "H", "CNOT"], PROFILE["thread_qubits"], THREAD_BACKENDS,
              list(range(1, max_threads() + 1)))
    param_names = ["gate", "n", "backend", "threads"]
    timeout = 300
    rounds = ROUNDS
    repeat = (1, 10, 4.0)

    def setup(self, gate, n, backend, threads):
        if backend == "stride" and threads > 1:
            raise NotImplementedError("stride is serial; it is the one-thread baseline")
        self.backend, self.program, self.state = prepare(
            backend, n, [GATES[gate]], n_threads=threads, what=f"{gate} n={n}")

    def time_gate(self, gate, n, backend, threads):
        self.backend.run(self.state, self.program)
        self.backend.sync()
