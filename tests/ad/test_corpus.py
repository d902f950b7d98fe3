"""Every engine on the corpus of real functions (tests/ad/corpus.py), judged against an
independent reference (tests/ad/reference.py).

An engine may refuse a case (raise): that passes here and is counted (``python -m
tests.ad.corpus_table`` lists them). It must never answer wrongly: a wrong value, shape or
type fails the case's test. The coverage tests then require each engine to answer a share
``TARGET`` of the corpus correctly.
"""

import inspect

import numpy as np
import pytest

from kernels.ad import ENGINES

from . import corpus
from .corpus import CASES
from .reference import (
    REFERENCE_RTOL,
    SCALE_FLOOR,
    case_args,
    case_reference,
    engine_outcome,
    judge,
)

#: The share of the corpus each engine must differentiate correctly.
#: compiled: what it compiled when it was added (38.6%, refusing the rest by name: lists,
#: complex values and np.linalg are not compiled yet), kept as a floor
TARGET = {"forward": 0.95, "reverse": 0.95, "source": 0.95, "compiled": 0.38, "finite": 1.0}

IDS = [c.name for c in CASES]


def test_the_corpus_is_well_formed():
    assert len(CASES) >= 250
    assert len(set(IDS)) == len(IDS), "case names must be unique"
    for c in CASES:
        # the source engine reads each function's definition from the corpus file, and the
        # reference rebinds the module's globals: so a module-level function of that file
        assert c.f.__module__ == corpus.__name__ and c.f.__qualname__ == c.f.__name__, c.name
        assert inspect.getsourcefile(c.f) == inspect.getsourcefile(corpus), c.name
        assert c.origin, c.name


@pytest.mark.parametrize("case", CASES, ids=IDS)
def test_the_case_is_a_real_scalar_of_floats_and_float_arrays(case):
    args = case_args(case)
    for a in args:
        assert type(a) is float or (isinstance(a, np.ndarray) and a.dtype == np.float64), a
    with np.errstate(all="raise"):  # no overflow, invalid or divide at the point itself
        value = case.f(*args)
    assert np.ndim(value) == 0 and not np.iscomplexobj(value) and np.isfinite(value)


@pytest.mark.parametrize("case", CASES, ids=IDS)
def test_the_reference_is_consistent(case):
    """Ridders' extrapolation must be sure of itself (a small error estimate means f is
    smooth over its steps), and autograd, where it differentiates the case, must agree."""
    ref = case_reference(case)
    scale = max(max(float(np.max(np.abs(g), initial=0.0)) for g in ref.ridders), SCALE_FLOOR)
    assert ref.ridders_error / scale <= REFERENCE_RTOL, \
        f"Ridders' error estimate {ref.ridders_error:.2g} (scale {scale:.2g})"
    if ref.autograd is None:
        pytest.skip(f"autograd does not differentiate this case ({ref.autograd_failure}); "
                    f"Ridders' reference stands alone")
    assert ref.disagreement <= REFERENCE_RTOL, \
        f"autograd and Ridders disagree: normwise {ref.disagreement:.2g}"


def test_the_judge_tells_right_from_refused_from_wrong():
    case = next(c for c in CASES if c.name == "ufunc_sin")
    right = case_reference(case).grads

    def refuse(f, *args):
        raise NotImplementedError("no rule")

    assert judge(lambda f, *args: right, case).status == "ok"
    assert judge(refuse, case).status == "refused"
    assert judge(lambda f, *args: (np.zeros((3, 2)),), case).status == "wrong"
    assert judge(lambda f, *args: (right[0] * (1 + 1e-5),), case).status == "wrong"
    assert judge(lambda f, *args: (right[0].T,), case).status == "wrong"  # the shape
    assert judge(lambda f, *args: (right[0] + 0j,), case).status == "wrong"  # the dtype
    assert judge(lambda f, *args: right[0], case).status == "wrong"  # not a tuple
    scalar = next(c for c in CASES if c.name == "scalar_sin")
    as_array = (np.array(case_reference(scalar).grads[0]),)
    assert judge(lambda f, *args: as_array, scalar).status == "wrong"  # a float is due


@pytest.mark.parametrize("case", CASES, ids=IDS)
@pytest.mark.parametrize("engine", list(ENGINES))
def test_engine_is_never_wrong(engine, case, record_property):
    outcome = engine_outcome(engine, case)
    record_property("outcome", outcome.status)
    assert outcome.status != "wrong", f"{engine} on {case.name} ({case.origin}): {outcome.detail}"


@pytest.mark.parametrize("engine", list(ENGINES))
def test_engine_covers_the_corpus(engine):
    outcomes = [engine_outcome(engine, c).status for c in CASES]
    share = outcomes.count("ok") / len(outcomes)
    assert share >= TARGET[engine], (
        f"{engine}: {share:.1%} of the corpus right, target {TARGET[engine]:.0%} "
        f"({outcomes.count('refused')} refused, {outcomes.count('wrong')} wrong)")
