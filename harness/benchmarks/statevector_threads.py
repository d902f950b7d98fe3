"""Thread scaling: the threaded kernel and every peer that can set its thread count, over
thread counts, against the serial stride kernel as the one-thread baseline."""

from ._setup import PROFILE, Suite, check_size, thread_backends  # first: pins threads
from .statevector_gates import GATES

from harness.threads import max_threads


class GateThreads(Suite):
    params = (["X", "H", "CNOT"], PROFILE["thread_qubits"], thread_backends(),
              list(range(1, max_threads() + 1)))
    param_names = ["gate", "n", "backend", "threads"]

    def setup(self, gate, n, backend, threads):
        if backend == "stride" and threads > 1:
            raise NotImplementedError("stride is serial; it is the one-thread baseline")
        check_size("thread_qubits", n, backend)
        self.prepare(backend, n, [GATES[gate]], n_threads=threads, what=f"{gate} n={n}")

    def time_gate(self, gate, n, backend, threads):
        self.run()
