"""The field's AD evals (gradbench's llsq, lse, det, ode, kmeans, gmm, ... and ADBench's
problems, ``kernels/ad/evals``) on every AD backend: the hand-written derivative, our
engines and the peers, one thread, float64, the same data and arguments for all, each
validated first (exact tools to ADBench's rho <= 1e-9).

A case is an (eval, size) pair; the profile's ``ad_eval_sizes`` says how many of each
eval's sizes run, ``ad_eval_skip`` which evals it leaves out, and ``ad_eval_max_seconds``
the longest a tool's first call may be predicted to take (past it, the combination is
skipped with the prediction as its reason). The report divides each gradient time by the
hand-written one and by the plain objective's (``EvalObjective``, "numpy");
``EvalRatios`` samples the same two ratios in alternation, in one process, on the
gradient evals, for the backends the targets are stated for. ``EvalMemory`` and
``EvalObjectiveMemory``: the peak memory one derivative and one objective add."""

from ._ad_setup import (ADAPTERS, BACKENDS, MANUAL, PROBLEMS, PROFILE, ObjectiveSuite, Suite, cases,
                        validated)

from harness import memory
from harness.ad.backends import PLAIN_OBJECTIVE, jacobian_names, nested_names, own_objectives
from harness.errors import Unavailable
from harness.timing import interleaved_ratio

CASES = cases("ad_eval_sizes", origin="evals")
GRADIENT_CASES = [c for c in CASES if PROBLEMS[c[0]].output == "gradient"]
JACOBIAN_CASES = [c for c in CASES if PROBLEMS[c[0]].output in ("jacobian", "sparse")]
NESTED_CASES = [c for c in CASES if PROBLEMS[c[0]].output == "nested"]
#: what has an objective of its own to time and divide by
OBJECTIVE_CASES = GRADIENT_CASES + JACOBIAN_CASES
RATIO_BACKENDS = [b for b in BACKENDS if PROFILE["ad_eval_ratio_backends"] is None
                  or b in PROFILE["ad_eval_ratio_backends"]]
#: the profile's key for this suite's limit on a first call's predicted seconds
LIMIT = "ad_eval_max_seconds"


class _Eval(Suite):
    limit = LIMIT


class EvalGradient(_Eval):
    """One gradient per call."""

    params = (GRADIENT_CASES, BACKENDS)

    def time_gradient(self, case, backend):
        self.runner.gradient()


class EvalJacobian(_Eval):
    """One Jacobian per call: our engines' ``jacobian``, the peers' default Jacobian
    (reverse mode where they have both) and their other method (``torch:jacfwd``)."""

    params = (JACOBIAN_CASES, BACKENDS + jacobian_names())

    def time_jacobian(self, case, backend):
        self.runner.gradient()


class EvalNested(_Eval):
    """A nested eval's whole procedure per call (its descents and the derivatives inside
    them): an engine at both levels, our engines paired outer/inner (``forward/reverse``,
    gradbench's "fr"), the peers' own nesting gradients; a pairing that cannot nest is
    refused by name and skipped."""

    params = (NESTED_CASES, BACKENDS + nested_names())

    def time_nested(self, case, backend):
        self.runner.gradient()


class EvalObjective(ObjectiveSuite):
    """The objective alone (as in ad_problems.Objective)."""

    params = (OBJECTIVE_CASES, [b for b in [PLAIN_OBJECTIVE, *own_objectives(), *ADAPTERS]
                                if PROFILE["ad_eval_objectives"] is None
                                or b in PROFILE["ad_eval_objectives"]])
    limit = LIMIT

    def time_objective(self, case, backend):
        self.runner.objective()


class EvalRatios(_Eval):
    """Derivative time over the objective's and over the hand-written derivative's, each
    pair sampled alternately in this process (the targets' ratios, unmoved by load
    changing between benchmarks)."""

    params = (GRADIENT_CASES, RATIO_BACKENDS)

    def track_vs_objective(self, case, backend):
        return interleaved_ratio(self.runner.gradient, self.runner.objective)

    track_vs_objective.unit = "ratio"

    def track_vs_manual(self, case, backend):
        manual = validated(case, MANUAL, limit=LIMIT)
        return interleaved_ratio(self.runner.gradient, manual.gradient)

    track_vs_manual.unit = "ratio"


def _peak_mib(call):
    """MiB the resident set grew at its peak during one ``call()`` (harness.memory)."""
    grown = memory.peak_increase(call)
    if grown is None:
        raise Unavailable("the resident set's high-water mark cannot be reset here")
    return round(grown / 2 ** 20, 3)


class EvalMemory(_Eval):
    """Peak memory one derivative adds (what a tape keeps, and the backward pass's
    cotangents), beside the objective's own (``EvalObjectiveMemory``)."""

    params = (OBJECTIVE_CASES, BACKENDS)

    def track_peak_mib(self, case, backend):
        return _peak_mib(self.runner.gradient)

    track_peak_mib.unit = "MiB"


class EvalObjectiveMemory(ObjectiveSuite):
    """Peak memory one plain objective adds: what each derivative's is divided by."""

    params = (OBJECTIVE_CASES, [PLAIN_OBJECTIVE])
    limit = LIMIT

    def track_peak_mib(self, case, backend):
        return _peak_mib(self.runner.objective)

    track_peak_mib.unit = "MiB"
