"""The field's evals (kernels/ad/evals): each hand-written derivative against Ridders'
extrapolated differences, each exact engine against the hand-written derivative (ADBench's
rho <= 1e-9), values against the objective, and the inputs' shapes and determinism.

Sizes here are small instances of each eval's structure (a size label need not be one the
benchmarks run), so that Ridders' method, 10-20 evaluations of f per input, stays cheap.
"""

import numpy as np
import pytest

import tests.ad.reference as reference
from harness.ad.validate import RHO, rho
from kernels.ad import ENGINES, evals
from kernels.ad.evals import _sizes
from kernels.ad.problems import PROBLEMS

#: a small instance of each eval
SMALL = {"llsq": 16, "lse": 50, "det": 4, "ode": 10, "kmeans": "k=3,n=40,d=2",
         "gmm": "d=3,k=4"}
GRADIENT_EVALS = [p.name for p in evals.PROBLEMS if p.output == "gradient"]
EXACT = ["forward", "reverse", "source"]

#: Ridders' estimate against the hand-written derivative: its own error estimate is below
#: 1e-8 at the first step chosen, and a wrong derivative is off by O(1)
RIDDERS_RHO = 1e-7
#: first steps tried for Ridders' method, in units of max(|x|, 1): the evals' functions are
#: piecewise smooth (k-means' nearest centroid) or steep (gmm's exp(2q)), where the
#: corpus's 0.02 can cross a kink; the step whose own error estimate is least is kept
FIRST_STEPS = (0.02, 1e-3, 1e-4)


def _instance(name, size=None, seed=1):
    """``(f, manual, args)`` of a small instance of the eval (or one at ``size``)."""
    p, args = PROBLEMS[name].bind(SMALL[name] if size is None else size,
                                  np.random.default_rng(seed))
    return p.f, p.manual, args


def _ridders(f, args, monkeypatch):
    best = None
    for step in FIRST_STEPS:
        monkeypatch.setattr(reference, "FIRST_STEP", step)
        grads, error = reference.ridders_gradient(f, args)
        if best is None or error < best[1]:
            best = grads, error
    return best


def test_registry_lists_the_evals_under_gradbench_names():
    names = [p.name for p in evals.PROBLEMS]
    assert names == ["llsq", "lse", "det", "ode", "kmeans", "gmm"]
    for p in evals.PROBLEMS:
        assert PROBLEMS[p.name] is p and p.origin in ("gradbench", "adbench")
        assert set(SMALL) >= {p.name}


@pytest.mark.parametrize("name", GRADIENT_EVALS)
def test_manual_against_ridders(name, monkeypatch):
    f, manual, args = _instance(name)
    value, grads = manual(*args)
    assert isinstance(value, float) and value == pytest.approx(float(f(*args)), rel=1e-12)
    reference_grads, error = _ridders(f, args, monkeypatch)
    assert error < 1e-6
    assert rho(grads, reference_grads) <= RIDDERS_RHO


@pytest.mark.parametrize("engine", EXACT)
@pytest.mark.parametrize("name", GRADIENT_EVALS)
def test_exact_engines_match_manual(name, engine):
    f, manual, args = _instance(name)
    got = ENGINES[engine].gradient(f, *args)
    assert rho(got, manual(*args)[1]) <= RHO


@pytest.mark.parametrize("name", GRADIENT_EVALS)
def test_reverse_matches_manual_at_the_smallest_benchmark_size(name):
    p = PROBLEMS[name]
    bound, args = p.bind(p.sizes[0], np.random.default_rng(2))
    assert rho(ENGINES["reverse"].gradient(bound.f, *args), bound.manual(*args)[1]) <= RHO


@pytest.mark.parametrize("name", GRADIENT_EVALS)
def test_instances_are_deterministic_float64_and_differ_by_seed(name):
    (f, _, first), (g, _, again), (_, _, other) = (_instance(name, seed=s) for s in (7, 7, 8))
    for a, b in zip(first, again):
        assert isinstance(a, np.ndarray) and a.dtype == np.float64
        np.testing.assert_array_equal(a, b)
    assert any(np.any(a != c) for a, c in zip(first, other))
    assert f(*first) == g(*again)


def test_size_labels_parse_and_sort_by_product():
    labels = _sizes.grid(d=(2, 10), k=(5, 10))
    assert labels == ("d=2,k=5", "d=2,k=10", "d=10,k=5", "d=10,k=10")
    assert _sizes.parse("k=10,n=1000,d=8") == {"k": 10, "n": 1000, "d": 8}
    with pytest.raises(ValueError, match="'d2' is not a label"):
        _sizes.parse("d2")


def test_gmm_normalising_constant_against_scipy():
    special = pytest.importorskip("scipy.special")
    from kernels.ad.evals import gmm
    for a in (0.5, 1.0, 1.5, 2.0, 7.5, 33.0):
        assert gmm._log_gamma_half(a) == pytest.approx(special.gammaln(a), abs=1e-12)
    for a, p in ((1.5, 2), (6.0, 10), (33.0, 64)):
        assert gmm._log_multigamma(a, p) == pytest.approx(special.multigammaln(a, p),
                                                          rel=1e-14)


def test_ode_integrates_the_chain_exactly_enough():
    # y_i(t) = x_0 x_1 ... x_i t^(i+1) / (i+1)!: Runge-Kutta of order 4 is exact for
    # polynomials of degree <= 4 in t, i.e. the first four components
    from kernels.ad.evals import ode
    x = np.array([0.5, 0.7, 0.9, 0.3, 0.8])
    for i in range(4):
        exact = np.prod(x[:i + 1]) * 2.0 ** (i + 1) / np.prod(np.arange(1, i + 2))
        assert ode.ode(x[:i + 1], s=1) == pytest.approx(exact, rel=1e-13)


def test_det_by_minors_is_the_determinant():
    from kernels.ad.evals import det
    A = np.random.default_rng(0).random(25)
    assert det.det(A, ell=5) == pytest.approx(np.linalg.det(A.reshape(5, 5)), rel=1e-12)
    value, (grad,) = det.det_manual(A, ell=5)
    cofactors = np.linalg.det(A.reshape(5, 5)) * np.linalg.inv(A.reshape(5, 5)).T
    np.testing.assert_allclose(grad, cofactors.ravel(), rtol=1e-10)
