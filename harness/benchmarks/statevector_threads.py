"""Thread scaling: the threaded kernel and every peer that can set its thread count, over
thread counts, against the serial stride kernel as the one-thread baseline."""

# first: _statevector_setup pins the thread counts before numpy and the tools load
from ._statevector_setup import PROFILE, Suite, check_size, thread_backends
from ._once import setup_once


from harness import profiles, registry
from harness.statevector.cases import GATES
from harness.threads import max_threads


class GateThreads(Suite):
    params = (PROFILE.get("thread_gates", ["X", "H", "Rx", "CNOT"]), PROFILE["thread_qubits"],
              thread_backends(),
              list(range(1, max_threads() + 1)))
    param_names = ["gate", "n", "backend", "threads"]
    # Every sample is one call (asv_runner times calls one by one): up to 200 of them or
    # ~0.6 s per process, so the table can show the spread and count the outliers that a
    # 2-thread call on 2 cores meets when the scheduler takes a core away.
    repeat = profiles.sampling(PROFILE, 30, 200, 0.6)

    @setup_once
    def setup(self, gate, n, backend, threads):
        if threads > 1 and registry.simulator(backend).threads == "serial":
            raise NotImplementedError(f"{backend} is serial; it is the one-thread baseline")
        check_size("thread_qubits", n, backend)
        self.load(backend, n, [GATES[gate]], n_threads=threads, what=f"{gate} n={n}")

    def time_gate(self, gate, n, backend, threads):
        self.run()
