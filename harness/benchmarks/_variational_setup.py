"""What the variational suites share (as ``_ad_setup`` and ``_statevector_setup`` for
theirs): one-thread pinning before numpy, numba and the tools load, the QCBM problem and
angles of each size, the profile's sizes and per-backend limits, and the ``Suite`` base
(asv's settings and a validated runner in setup)."""

from harness import threads

threads.pin_env(1)  # before numpy, numba and the tools start their thread pools

import numpy as np  # noqa: E402

from harness import profiles  # noqa: E402
from harness.errors import Unavailable  # noqa: E402
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
#: the method the tables draw every other against; "ours" is its energy, which every
#: method of ours shares (the stride kernel's)
BASELINE = next(m.name for m in variational.METHODS if m.baseline)


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


def validated(n, backend):
    """``backend``'s runner on the problem of n qubits, its gradient and energy checked."""
    check_size(n, backend)
    p, theta = problem(n)
    runner = backends.prepare(backend, p, theta)
    validate.compare(runner, p, theta, what=f"QCBM n={n}")
    return runner


class Suite:
    """asv's settings, and a validated runner of (n, backend) built once per process."""

    param_names = ["n", "backend"]
    timeout = 900
    rounds = PROFILE["rounds"]
    repeat = (1, 5, 2.0)  # at most 5 samples or ~2 s: a gradient at 20 qubits takes seconds
    warmup_time = 0.0  # setup's validation has run every call once

    @setup_once
    def setup(self, n, backend):
        self.runner = validated(n, backend)
