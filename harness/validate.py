"""``python -m harness validate``: every backend on every benchmarked gate and circuit,
checked against the reference, and every AD backend on every AD problem, checked against
the hand-written gradient, and every circuit-gradient method and peer on the QCBM energy,
checked against the parameter-shift rule, as tables (ok / skipped with the reason /
WRONG / ERROR: a backend that raised, with its exception). A backend's exception is its
cell's failure, never the end of the run; a WRONG or ERROR cell makes the exit status 1."""

import functools
import time

import numpy as np

from harness import profiles
from harness.ad import backends as ad_backends
from harness.ad import validate as ad_validate
from harness.circuit import sources
from harness.errors import ValidationError
from harness.statevector import backends, validate
from harness.statevector.cases import GATES
from harness.timing import best_seconds
from harness.variational import backends as var_backends
from harness.variational import validate as var_validate
from kernels import variational
from kernels.ad.problems import PROBLEMS, size_seed
from kernels.statevector.settings import PRECISIONS
from kernels.statevector.states import random_state


def cases(n):
    """(name, instructions) of every benchmarked gate and of the default profile's
    circuits (the library's and MQT Bench's) that exist at n qubits."""
    for name, inst in GATES.items():
        if max(inst.locs + inst.ctrl_locs) < n:
            yield name, [inst]
    for name in sources.expand(profiles.PROFILES["default"]["circuits"]):
        try:
            yield name, sources.load(name, n).instructions
        except sources.SourceError:  # a size the circuit does not come in
            continue


def cell(check, *args, show=None, **kwargs):
    """``(mark, reason, failed)`` for one backend on one case: "ok" (or ``show`` of what
    ``check(*args, **kwargs)`` returns), "WRONG" (a result that differs: a failure),
    "skip" (NotImplementedError) or "ERROR" (any other exception, a bug in that backend:
    a failure too). Never raises, so one backend cannot end the run in a traceback."""
    try:
        result = check(*args, **kwargs)
    except ValidationError as exc:
        return "WRONG", str(exc), True
    except NotImplementedError as exc:
        return "skip", str(exc), False
    except Exception as exc:
        return "ERROR", f"{type(exc).__name__}: {exc}", True
    return (show(result) if show else "ok"), None, False


def _validated_program(name, precision, vec, instructions, expected):
    validate.validated_program(backends.get(name, precision), vec, instructions, expected)


#: the longest one AD backend's first derivative may be predicted to take here (the
#: nested evals run minutes on the eager peers: they are checked by the benchmarks' own
#: validation, under the profile's ad_max_seconds)
AD_MAX_SECONDS = 10.0


def _validated_runner(name, problem, args, expected, what, unit_seconds):
    ad_validate.validated_within(ad_backends.get(name), problem, args, expected, what,
                                 unit_seconds, AD_MAX_SECONDS, "the limit")


def _gradient_error(name, problem, what):
    return var_validate.compare(var_backends.prepare(name, problem, problem.theta0), problem,
                              problem.theta0, what=what)


def _print_reasons(reasons, failed):
    for key, why in reasons.items():
        print(f"  {key[0]} {' '.join(map(str, key[1:]))}: {why}")
    print(f"{failed} wrong result(s) or error(s)")


def validate_all(qubits):
    """Both tables; 1 if any result was wrong."""
    wrong = validate_statevector(qubits)
    print()
    wrong += validate_ad()
    print()
    wrong += validate_variational()
    return 1 if wrong else 0


def validate_statevector(qubits):
    """One table per precision (complex128, then complex64); the number wrong."""
    wrong = 0
    for precision in PRECISIONS.values():
        print(f"{precision}:")
        wrong += _validate_precision(qubits, precision)
    return wrong


def _validate_precision(qubits, precision):
    names = backends.names(precision)
    print(f"{'case':<12} {'n':>3}  " + " ".join(f"{b:>11}" for b in names))
    wrong = 0
    reasons = {}
    for n in qubits:
        vec = random_state(n, np.random.default_rng(n)).astype(precision.dtype)
        for case, instructions in cases(n):
            expected = validate.reference(vec.astype(np.complex128), instructions)
            row = []
            for b in names:
                mark, why, failed = cell(_validated_program, b, precision, vec,
                                          instructions, expected)
                row.append(mark)
                wrong += failed
                if failed:
                    reasons[b, case, n] = why
                elif why:
                    reasons.setdefault((b, "skip"), why)
            print(f"{case:<12} {n:>3}  " + " ".join(f"{r:>11}" for r in row))
    _print_reasons(reasons, wrong)
    return wrong


def validate_ad(sizes=None, names=None):
    """Every AD backend (or ``names``) on every problem at its smallest size (or at
    ``sizes[problem]``), against the hand-written gradient; returns the number wrong."""
    names = names or ad_backends.names()
    print(f"{'problem':<12} {'n':>5}  " + " ".join(f"{b:>9}" for b in names))
    wrong = 0
    reasons = {}
    for registered in PROBLEMS.values():
        for n in (sizes or {}).get(registered.name, registered.sizes[:1]):
            problem, args = registered.bind(n, np.random.default_rng(size_seed(n)))
            start = time.perf_counter()
            expected = ad_validate.reference(problem, args)
            # the cost model's unit: one f, or a nested eval's hand-written procedure
            unit = time.perf_counter() - start if problem.output == "nested" else \
                best_seconds(functools.partial(problem.f, *args), repeat=1, max_seconds=0.1)
            row = []
            for b in names:
                mark, why, failed = cell(_validated_runner, b, problem, args, expected,
                                          f"{problem.name} n={n}", unit)
                row.append(mark)
                wrong += failed
                if why:
                    reasons[b, problem.name, n] = why
            print(f"{problem.name:<12} {n:>5}  " + " ".join(f"{r:>9}" for r in row), flush=True)
    _print_reasons(reasons, wrong)
    return wrong


def validate_variational(qubits=(4, 6), names=None):
    """Every circuit-gradient backend (or ``names``) on the QCBM energy at ``qubits``,
    against the reference method at that size (harness.variational.validate): each cell
    is the largest relative error of a gradient within its tolerance; returns the number
    wrong."""
    names = names or var_backends.names()
    width = max(map(len, names)) + 1
    print("circuit gradients: largest error relative to the reference method's "
          f"(allowed {var_validate.DEFAULT_TOLERANCE:g}, inexact methods "
          f"{var_validate.INEXACT_TOLERANCE:g})")
    print(f"{'circuit':<8} {'n':>3}  " + " ".join(f"{b:>{width}}" for b in names))
    wrong = 0
    reasons = {}
    for n in qubits:
        problem = variational.qcbm_energy(n, 9, np.random.default_rng(n))
        row = []
        for b in names:
            mark, why, failed = cell(_gradient_error, b, problem, f"QCBM n={n}",
                                      show="{:.1e}".format)
            row.append(mark)
            wrong += failed
            if failed:
                reasons[b, "QCBM", n] = why
            elif why:
                reasons.setdefault((b, "skip"), why)
        print(f"{'QCBM':<8} {n:>3}  " + " ".join(f"{r:>{width}}" for r in row), flush=True)
    _print_reasons(reasons, wrong)
    return wrong


def command(opts):
    """``python -m harness validate``: the tables at ``opts.qubits``; 1 if any result
    was wrong."""
    return validate_all(opts.qubits)
