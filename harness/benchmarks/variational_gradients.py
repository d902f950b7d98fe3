"""Gradients of a variational circuit's energy (the QCBM ansatz, 25n angles, the Ising
ring): every method of ``kernels.variational`` and every adapter's circuit gradient, one
thread, the same problem and angles for all, each validated before it is timed.

Per (n, backend): the gradient's time, its ratio to the same backend's energy sampled in
alternation in one process (the number the adjoint method's "3-4x" and Yao's 4.2x are
stated in), and the peak memory one gradient adds. ``Energy`` times the energies alone.
"""

from harness import threads

threads.pin_env(1)  # before numpy, numba and the tools start their thread pools

import numpy as np  # noqa: E402

from harness import memory, profiles  # noqa: E402
from harness.errors import Unavailable  # noqa: E402
from harness.timing import interleaved_ratio  # noqa: E402
from harness.variational import backends, validate  # noqa: E402
from kernels import variational  # noqa: E402

from . import _warm  # noqa: E402
from ._once import setup_once  # noqa: E402

PROFILE = profiles.current()
_warm.adjoint()  # once in asv's forkserver: the reference gradient from 9 qubits uses it
SEED = 20200909  # Jones and Gacon's adjoint-method preprint
DEPTH = 9
QUBITS = PROFILE["variational_qubits"]
BACKENDS = backends.names()
#: The energies: ours (the stride kernel, shared by all our methods), then each adapter's.
ENERGIES = ["ours", *backends.adapter_names()]


def problem(n):
    """The problem and the angles every backend is timed at, for n qubits."""
    p = variational.qcbm_energy(n, DEPTH, np.random.default_rng(SEED + n))
    return p, p.theta0


def check_size(n, backend):
    """Unavailable (asv's skip) above the profile's largest n for ``backend`` (or for its
    tool, ``lightning`` for ``lightning:qnode``)."""
    limits = PROFILE.get("variational_max_qubits", {})
    limit = limits.get(backend, limits.get(backend.split(":")[0]))
    if limit is not None and n > limit:
        raise Unavailable(f"{backend}: this profile times it up to n = {limit} "
                          "(variational_max_qubits)")


class Suite:
    param_names = ["n", "backend"]
    timeout = 900
    rounds = PROFILE["rounds"]
    repeat = (1, 5, 2.0)  # at most 5 samples or ~2 s: a gradient at 20 qubits takes seconds
    warmup_time = 0.0  # setup's validation has run every call once


class Gradient(Suite):
    params = (QUBITS, BACKENDS)

    @setup_once
    def setup(self, n, backend):
        check_size(n, backend)
        p, theta = problem(n)
        self.runner = backends.prepare(backend, p, theta)
        validate.check(self.runner, p, theta, what=f"QCBM n={n}")

    def time_gradient(self, n, backend):
        self.runner.gradient()

    def track_ratio(self, n, backend):
        """Gradient time over the backend's own energy time, sampled in alternation."""
        return interleaved_ratio(self.runner.gradient, self.runner.energy, rounds=5,
                                 max_seconds=4.0)

    track_ratio.unit = "ratio"

    def track_peak_mib(self, n, backend):
        """MiB the resident set grew at its peak during one gradient."""
        grown = memory.peak_increase(self.runner.gradient)
        if grown is None:
            raise Unavailable("the resident set's high-water mark cannot be reset here")
        return round(grown / 2 ** 20, 2)

    track_peak_mib.unit = "MiB"


class Energy(Suite):
    params = (QUBITS, ENERGIES)

    @setup_once
    def setup(self, n, backend):
        check_size(n, backend)
        p, theta = problem(n)
        self.runner = backends.prepare("adjoint" if backend == "ours" else backend, p, theta)
        validate.check(self.runner, p, theta, what=f"QCBM n={n}")

    def time_energy(self, n, backend):
        self.runner.energy()
