"""What every state-vector suite shares: one-thread pinning before the native libraries
load, the seeded input state, and building a validated program for a backend."""

from harness import threads

threads.pin_env(1)  # before numpy, numba and qulacs start their thread pools

import numpy as np  # noqa: E402

from harness import profiles  # noqa: E402
from harness.statevector import backends, validate  # noqa: E402
from kernels.statevector.states import random_state  # noqa: E402

PROFILE = profiles.current()

#: asv "rounds" (separate processes per benchmark, samples pooled) for this profile.
ROUNDS = PROFILE["rounds"]
SEED = 20191231

#: Backends the suites compare: every kernel and every simulator adapter.
BACKENDS = backends.names()


def prepare(backend_name, n, instructions, n_threads=1, what=""):
    """(backend, program, state) for one parameter set, validated against the reference.
    ``what`` names the case in error messages.

    Raises NotImplementedError (asv skips the combination) when the backend is not
    available here or does not handle the case; raises ValidationError on a wrong result.
    """
    threads.set_threads(n_threads)
    backend = backends.get(backend_name)
    backend.check()
    vec = random_state(n, np.random.default_rng(SEED + n))
    program = validate.validated_program(backend, vec, instructions, what=what)
    return backend, program, backend.load(vec)
