"""Gradients of a variational circuit's energy (the QCBM ansatz, 25n angles, the Ising
ring): every method of ``kernels.variational`` and every adapter's circuit gradient, one
thread, the same problem and angles for all, each validated before it is timed.

Per (n, backend): the gradient's time, its ratio to the same backend's energy sampled in
alternation in one process (the number the adjoint method's "3-4x" and Yao's 4.2x are
stated in), and the peak memory one gradient adds. ``Energy`` times the energies alone.
"""

# first: it pins one thread before numpy and the tools load
from ._variational_setup import (BACKENDS, BASELINE, ENERGIES, PROFILE, QUBITS,  # noqa: I001
                                 Suite, validated)

from asv_runner.benchmarks.mark import skip_for_params

from harness import memory
from harness.errors import Unavailable
from harness.timing import interleaved_ratio

from ._once import setup_once


#: The backends whose gradient / energy ratio is sampled (the profile's
#: ``variational_ratio_backends``; None: every one).
RATIO_SKIPPED = [(n, b) for n in QUBITS for b in BACKENDS
                 if PROFILE.get("variational_ratio_backends") is not None
                 and b not in PROFILE["variational_ratio_backends"]]


class Gradient(Suite):
    params = (QUBITS, BACKENDS)

    def time_gradient(self, n, backend):
        self.runner.gradient()

    @skip_for_params(RATIO_SKIPPED)
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
        self.runner = validated(n, BASELINE if backend == "ours" else backend)

    def time_energy(self, n, backend):
        self.runner.energy()
