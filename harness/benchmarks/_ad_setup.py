"""What every AD suite shares: one-thread pinning before numpy and the tools load, the
profile's problems and sizes, the seeded arguments, skipping what would take far too
long, and a validated runner per parameter set."""

from harness import threads

threads.pin_env(1)  # before numpy, torch and JAX start their thread pools

import numpy as np  # noqa: E402

from harness import profiles, registry  # noqa: E402
from harness.ad import backends as ad_backends, validate as ad_validate  # noqa: E402
from harness.timing import best_seconds  # noqa: E402
from ._once import setup_once  # noqa: E402
from kernels.ad.problems import PROBLEMS, size_seed  # noqa: E402

PROFILE = profiles.current()
ROUNDS = PROFILE["rounds"]
SEED = 20151116  # the date of the ForwardDiff.jl seed's post

#: Backends the suites compare, adapters imported here, once, in asv's forkserver.
BACKENDS = ad_backends.names()
#: the hand-written derivative: the objective "numpy" is its plain f
MANUAL = registry.ad_baseline().name
ADAPTERS = ad_backends.adapter_names()

#: asv's warm-up before timing: none needed, setup's validation call has run the code
#: (and asv's choice of calls per sample runs it again).
WARMUP = 0.0


def sizes(problem, table="ad_sizes"):
    """The sizes the profile runs ``problem`` at (``table``: ``ad_sizes``, where a problem
    not named runs at all its sizes, ``ad_chunk_sizes``, where it is not swept, or
    ``ad_eval_sizes``, the count of an eval's smallest sizes)."""
    if table == "ad_eval_sizes":
        return list(PROBLEMS[problem].sizes[:PROFILE[table]])
    chosen = PROFILE[table].get(problem)
    if chosen is None:
        return list(PROBLEMS[problem].sizes) if table == "ad_sizes" else []
    return list(chosen)


def cases(table="ad_sizes", origin="seeds"):
    """The (problem, n) pairs the profile runs of the problems from ``origin`` ("seeds",
    or "evals": gradbench's and ADBench's, less the profile's ``ad_eval_skip``), in the
    registry's order. One parameter rather than problem x n: the problems' sizes differ,
    and every skipped combination of a cross product would cost asv a process."""
    left_out = PROFILE.get("ad_eval_skip", ()) if origin == "evals" else ()
    return [(p, n) for p in PROBLEMS if _origin(PROBLEMS[p]) == origin and p not in left_out
            for n in sizes(p, table)]


def _origin(problem):
    return "seeds" if problem.origin == "seeds" else "evals"


def problem_args(case):
    """(Problem, args) for ``case`` = (problem, n), the problem's data bound: the same
    arguments for every backend."""
    problem, n = case
    return PROBLEMS[problem].bind(n, np.random.default_rng(SEED + size_seed(n)))


def validated(case, backend, limit="ad_max_seconds", **options):
    """A validated runner of ``backend`` on ``case`` = (problem, n) (``options``: engine
    options, forward's chunk).

    Raises NotImplementedError (asv skips the combination) when the backend is unavailable
    or does not handle the case, or its first gradient is predicted to take longer than
    the profile's ``limit`` (a key: ``ad_max_seconds``, or the eval suite's
    ``ad_eval_max_seconds``); raises ValidationError on a wrong gradient.
    """
    p, args = problem_args(case)
    engine = ad_backends.get(backend, **options)
    engine.require()
    # the cost model's unit: one plain f, or a nested eval's hand-written procedure
    unit = (lambda: p.manual(*args)) if p.output == "nested" else (lambda: p.f(*args))
    seconds = ad_backends.first_call_seconds(
        backend, p, args, best_seconds(unit, repeat=2, max_seconds=0.1), options.get("chunk"))
    key = limit if PROFILE.get(limit) is not None else "ad_max_seconds"
    most = PROFILE[key]
    own = PROFILE.get(f"{key}_of") or {}
    if case[0] in own:  # a problem with a limit of its own (the field's standard evals)
        key, most = f"{key}_of[{case[0]!r}]", own[case[0]]
    what = f"{case[0]} {case[1]}" if isinstance(case[1], str) else f"{case[0]} n={case[1]}"
    if seconds > most:
        raise NotImplementedError(f"{backend} on {what}: its first gradient is predicted to "
                                  f"take {seconds:.3g} s, over this profile's "
                                  f"{key} = {most:g}")
    return ad_validate.validated_runner(engine, p, args, what=what)


class Suite:
    """What every AD suite shares: asv's timing settings (read as class attributes) and a
    validated runner of the (case, backend) parameters, skipped past the profile's
    ``limit`` (a key, see :func:`validated`)."""

    param_names = ["case", "backend"]
    timeout = 600
    rounds = ROUNDS
    # one call per sample: up to 50 or ~0.25 s per combination
    repeat = profiles.sampling(PROFILE, 1, 50, 0.25)
    warmup_time = WARMUP
    limit = "ad_max_seconds"

    @setup_once
    def setup(self, case, backend):
        self.runner = validated(case, backend, limit=self.limit)


class ObjectiveSuite(Suite):
    """The objective alone: "numpy" is the plain f that the hand-written derivative and
    our engines evaluate; each peer evaluates its own translation of it. (No timed method
    here: asv would find it again in every module that imports this one.)"""

    @setup_once
    def setup(self, case, backend):
        self.runner = validated(case, MANUAL if backend == ad_backends.PLAIN_OBJECTIVE else backend,
                                limit=self.limit)
