"""The seeds' AD problems (tr(A @ B), the quadratic form, the matrix product state, the
rational and trigonometric scalars, the cubic fit through map, Ackley as an element loop
and vectorised) on every AD backend: the hand-written gradient, our five engines and the
peers, one thread, float64, the same arguments for all.

A case is a (problem, n) pair of the profile (``_ad_setup.cases``)."""

from ._ad_setup import (ADAPTERS, BACKENDS, MANUAL, PROBLEMS, PROFILE, ObjectiveSuite, Suite,
                        cases, sizes, validated)

from asv_runner.benchmarks.mark import skip_for_params

from harness.ad.backends import PLAIN_OBJECTIVE, compiling_names, own_objectives
from harness.timing import interleaved_ratio

#: The objective suite's backends: the plain f (harness.ad.backends.PLAIN_OBJECTIVE), the
#: objective an engine that compiles compiled, and each peer's own translation of it.
OBJECTIVES = [PLAIN_OBJECTIVE, *own_objectives(), *ADAPTERS]


#: The backends whose gradient / objective and / manual ratios are sampled (the profile's
#: ``ad_ratio_backends``; None: every one): each is a process of its own per case.
RATIO_SKIPPED = [(case, b) for case in cases() for b in BACKENDS
                 if PROFILE.get("ad_ratio_backends") is not None
                 and b not in PROFILE["ad_ratio_backends"]]


class Gradient(Suite):
    """One gradient per call: for our engines the whole ``engine.gradient(f, *args)``,
    for a peer its prepared (traced, compiled) gradient."""

    params = (cases(), BACKENDS)

    def time_gradient(self, case, backend):
        self.runner.gradient()

    @skip_for_params(RATIO_SKIPPED)
    def track_slowdown(self, case, backend):
        """Gradient time over objective time, sampled alternately in this process: the
        seeds' slowdown ratio (lower is better)."""
        return interleaved_ratio(self.runner.gradient, self.runner.objective)

    track_slowdown.unit = "ratio"

    @skip_for_params(RATIO_SKIPPED)
    def track_vs_manual(self, case, backend):
        """Gradient time over the hand-written gradient's, sampled alternately in this
        process: the ratio the targets are stated in, unmoved by load changing between
        benchmarks (manual against itself shows the noise, ~1)."""
        manual = validated(case, MANUAL)
        return interleaved_ratio(self.runner.gradient, manual.gradient)

    track_vs_manual.unit = "ratio"


class GradientMemory(Suite):
    """Peak memory (the whole process's, imported tools included) around one gradient, at
    the profile's largest size of each problem that has several: in smaller cases it is
    the tools' import footprint and nothing else."""

    params = ([(p, n) for p, n in cases() if n == max(sizes(p)) and len(PROBLEMS[p].sizes) > 1],
              BACKENDS)

    def peakmem_gradient(self, case, backend):
        self.runner.gradient()


class Objective(ObjectiveSuite):
    """The objective alone, as each backend evaluates it (see :data:`OBJECTIVES`)."""

    params = (cases(), OBJECTIVES)

    def time_objective(self, case, backend):
        self.runner.objective()


class Compile(Suite):
    """Seconds a compiling peer (jax.jit) spends tracing and compiling in ``prepare``,
    outside every timed region above."""

    params = (cases(), compiling_names())
    unit = "seconds"

    def track_compile_seconds(self, case, backend):
        return self.runner.compile_seconds
