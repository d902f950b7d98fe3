"""What every state-vector suite shares: one-thread pinning before the native libraries
load, the seeded input state, the profile's sizes for kernels and for peers, and the
``Suite`` base (asv's settings, a validated program in setup, and the timed run + sync)."""

from harness import threads

threads.pin_env(1)  # before numpy, numba and the simulators start their thread pools

import numpy as np  # noqa: E402

from harness import profiles, registry  # noqa: E402
from harness.statevector import backends, validate  # noqa: E402
from kernels.statevector.backend import ROLES  # noqa: E402
from kernels.statevector.states import random_state  # noqa: E402

from . import _warm  # noqa: E402

PROFILE = profiles.current()
_warm.numba()  # once in asv's forkserver, not in every parameter set's process

#: asv "rounds" (separate processes per benchmark, samples pooled) for this profile.
ROUNDS = PROFILE["rounds"]
SEED = 20191231

#: What the suites time: every backend but the references, which are there to be right
#: (they validate the others) and whose times answer no comparison. Backends that run as
#: MPI ranks are timed as MPI jobs by their own suite (statevector_distributed).
TIMED = tuple(role for role in ROLES if role != "reference")
#: Backends the circuit suites compare: every kernel, the fused backend, then every
#: simulator adapter and plugin.
BACKENDS = registry.names(roles=TIMED, mpi=False)
#: Backends the gate suites compare: those with the one-gate signature (one gate is one
#: pass, so not the fused backend).
GATE_BACKENDS = registry.names(roles=TIMED, one_gate=True, mpi=False)
#: The peers timed at the profile's ``peer_<key>`` sizes: all but the baseline peer, which
#: is timed at the kernels' sizes.
PEERS = [b.name for b in registry.single_process() if not b.own and b.baseline != "peer"]


def qubits(key):
    """Every n the profile runs under ``key`` (``gate_qubits``, ``circuit_qubits``, ...):
    the kernels' sizes and the peers' (``peer_<key>``, where the profile has fewer)."""
    return sorted(set(PROFILE[key]) | set(PROFILE.get(f"peer_{key}", ())))


def check_size(key, n, backend):
    """NotImplementedError (asv's skip) for a peer at an n its profile leaves out: the
    default profile times peers at fewer sizes, so that ``make bench`` stays short."""
    if backend in PEERS and n not in PROFILE.get(f"peer_{key}", PROFILE[key]):
        raise NotImplementedError(f"the profile times peers at {key} "
                                  f"{PROFILE.get(f'peer_{key}', PROFILE[key])} only")


def validated(backend_name, n, instructions, n_threads=1, what="", precision="complex128",
              fusion=None):
    """(backend, program, state) for one parameter set, validated against the reference.
    ``what`` names the case in error messages; ``fusion`` is the backend's setting (None:
    its default).

    Raises NotImplementedError (asv skips the combination) when the backend is not
    available here or does not handle the case; raises ValidationError on a wrong result.
    """
    threads.set_threads(n_threads)
    backend = backends.get(backend_name, precision, fusion)
    backend.require()
    backend.set_threads(n_threads)
    vec = random_state(n, np.random.default_rng(SEED + n))
    program = validate.validated_program(backend, vec, instructions, what=what)
    return backend, program, backend.load(vec)


def thread_backends():
    """Every one-gate backend with a thread control (numba's, or the tool's own), after
    our unfused kernel as the one-thread baseline."""
    unfused = registry.baseline("unfused")
    return [unfused.name, *(b.name for b in registry.simulators().values()
                            if b.one_gate and b.threads in ("numba", "own"))]


def complex64_backends(gates=False):
    """The kernels and peers that declare complex64 (``gates``: those the gate suites
    time)."""
    return registry.names("complex64", roles=TIMED, one_gate=True if gates else None,
                          mpi=False)



class Suite:
    """What every state-vector suite shares: asv's settings (read as class attributes),
    a validated program in setup (``self.load``), and the one timed call, ``run``,
    which applies the program and waits for the device."""

    timeout = 300
    rounds = ROUNDS
    # asv_runner times one call per sample: up to 100 calls or ~0.5 s per combination
    repeat = profiles.sampling(PROFILE, 1, 100, 0.5)

    def load(self, backend, n, instructions, **options):
        self.backend, self.program, self.state = validated(backend, n, instructions, **options)

    def run(self):
        self.backend.run(self.state, self.program)
        self.backend.sync()
