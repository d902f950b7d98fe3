"""Hessians on a sample of the corpus (tests/ad/corpus.py): forward mode over forward, over
reverse and over the source engine, each against central differences of the reverse-mode
gradient. Each may refuse a case; none may answer it wrongly. (The whole corpus, run once
this way, found the nesting bugs tests/ad/test_nesting.py now pins down.)"""

import warnings

import numpy as np
import pytest

from kernels.ad import finite, forward, reverse, source

from .corpus import CASES
from .reference import case_args

SAMPLE = CASES[::8]


def _first_argument(case):
    """The first argument as an array x, how the case reads it back, the other arguments."""
    args = case_args(case)
    if isinstance(args[0], float):
        x, unpack = np.array([args[0]]), lambda y: y[0]
    else:
        x, unpack = args[0].copy(), lambda y: y
    return x, unpack, args[1:]


def _hessian(engine, case, x, unpack, rest):
    def grad(y):
        if engine == "source":
            g = source.gradient(case.f, unpack(y), *rest)[0]
        else:
            g = ENGINES[engine].gradient(lambda z: case.f(unpack(z), *rest), y)[0]
        return np.reshape(g, np.shape(y))
    return forward.jacobian(grad, x.copy())


ENGINES = {"forward": forward, "reverse": reverse}


@pytest.mark.parametrize("engine", ["forward", "reverse", "source"])
@pytest.mark.parametrize("case", SAMPLE, ids=[c.name for c in SAMPLE])
def test_forward_over_each_engine_is_right_or_refuses(engine, case):
    x, unpack, rest = _first_argument(case)
    if x.size > 30:
        pytest.skip("large argument: a Hessian per element pair")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            want = finite.jacobian(
                lambda y: np.reshape(reverse.gradient(lambda z: case.f(unpack(z), *rest), y)[0],
                                     np.shape(y)), x.copy())
        except Exception as err:  # no reference: nothing to judge
            pytest.skip(f"reference: {type(err).__name__}")
        try:
            got = _hessian(engine, case, x, unpack, rest)
        except Exception:
            return  # refused: allowed
    scale = max(float(np.max(np.abs(want), initial=0.0)), 1.0)
    assert got.shape == want.shape
    np.testing.assert_allclose(got, want, rtol=0, atol=1e-5 * scale)
