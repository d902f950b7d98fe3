"""What every state-vector suite shares: one-thread pinning before the native libraries
load, the seeded input state, and building a validated program for a backend."""

from harness import threads

threads.pin_env(1)  # before numpy, numba and qulacs start their thread pools

import numpy as np  # noqa: E402

from harness import backends, profiles, validate  # noqa: E402
from kernels.statevector.states import random_state  # noqa: E402

PROFILE = profiles.current()

#: asv "rounds" (separate processes per benchmark, samples pooled) for this profile.
ROUNDS = PROFILE["rounds"]
SEED = 20191231

#: Backends the suites compare: every kernel and every simulator adapter.
BACKENDS = backends.names()


# asv runs every parameter set of a benchmark in one process, backends innermost: the
# input state and the reference result of the last (case, n) are kept, so that the
# reference (seconds at 22 qubits) is computed once per case, not once per backend.
_last = {}


def _input_and_reference(n, instructions, case):
    key = (n, case)
    if _last.get("key") != key:
        _last.clear()
        vec = random_state(n, np.random.default_rng(SEED + n))
        _last.update(key=key, vec=vec, expected=validate.reference(vec, instructions))
    return _last["vec"], _last["expected"]


def prepare(backend_name, n, instructions, n_threads=1, what=""):
    """(backend, program, state) for one parameter set, validated against the reference.
    ``what`` names the case (gate or circuit and its parameters) and keys the cache of
    the reference result, so it must differ between different instruction lists.

    Raises NotImplementedError (asv skips the combination) when the backend is not
    available here or does not handle the case; raises ValidationError on a wrong result.
    """
    threads.set_threads(n_threads)
    backend = backends.get(backend_name)
    backend.check()
    vec, expected = _input_and_reference(n, instructions, what)
    program = validate.validated_program(backend, vec, instructions, expected, what=what)
    return backend, program, backend.load(vec)
