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
         "gmm": "d=3,k=4", "lstm": "l=2,c=12", "ba": "n=2,m=4,p=10", "ht": 10,
         "ba_sparse": "n=2,m=4,p=10"}
GRADIENT_EVALS = [p.name for p in evals.PROBLEMS if p.output == "gradient"]
JACOBIAN_EVALS = [p.name for p in evals.PROBLEMS if p.output == "jacobian"]
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
    assert names == ["llsq", "lse", "det", "ode", "kmeans", "gmm", "lstm", "ba", "ht",
                     "ba_sparse", "kmeans_dir", "particle", "saddle"]
    for p in evals.PROBLEMS:
        assert PROBLEMS[p.name] is p and p.origin in ("gradbench", "adbench")
        assert p.name in SMALL or p.output == "nested"


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


@pytest.mark.parametrize("name", JACOBIAN_EVALS)
def test_manual_jacobian_against_ridders(name):
    f, manual, (x,) = _instance(name)
    value, J = manual(x)
    np.testing.assert_allclose(value, f(x), rtol=1e-13, atol=1e-13)
    assert J.shape == value.shape + x.shape
    reference_J, error = reference.ridders_jacobian(f, x, first_step=1e-3)
    assert error < 1e-6
    assert rho((J,), (reference_J,)) <= RIDDERS_RHO


@pytest.mark.parametrize("engine", EXACT)
@pytest.mark.parametrize("name", JACOBIAN_EVALS)
def test_exact_engines_jacobians_match_manual(name, engine):
    f, manual, (x,) = _instance(name)
    assert rho((ENGINES[engine].jacobian(f, x),), (manual(x)[1],)) <= RHO


@pytest.mark.parametrize("name", JACOBIAN_EVALS)
def test_finite_jacobian_is_close(name):
    f, manual, (x,) = _instance(name)
    assert rho((ENGINES["finite"].jacobian(f, x),), (manual(x)[1],)) <= 1e-6


def test_ba_sparse_manual_is_the_dense_one_stored_sparse():
    """ba_sparse's hand-written Jacobian holds the dense one's entries, at 15 stored
    entries a reprojection row and 1 a weight row (ADBench's structure)."""
    f, manual, (x,) = _instance("ba_sparse")
    _, dense_manual, _ = _instance("ba")
    value, J = manual(x)
    np.testing.assert_allclose(value, f(x), rtol=1e-14, atol=1e-15)
    np.testing.assert_array_equal(J.toarray(), dense_manual(x)[1])
    p = len(value) // 3
    assert list(np.diff(J.indptr)) == [15] * (2 * p) + [1] * p


def test_ba_blocks_match_gradbench_reference_values():
    # gradbench's golden output for ba1's observation 0 (its manual C++ tool), the one
    # camera, point, weight and feature every ADBench BA file repeats
    from kernels.ad.evals import ba
    cam = np.array([-0.758453, -1.109613, -0.845551, 34.556073, 39.676747, 53.881673,
                    419.194514, 5.864426, -8.518870, 0.087812, 0.002739])
    point, w = np.array([7.203245, 0.001144, 3.023326]), 0.417022
    feature = np.array([271.760969, 834.209256])
    residual, block = ba.ba_blocks(cam[None], point[None], np.array([w]), np.array([0]),
                                   np.array([0]), feature[None])
    np.testing.assert_allclose(residual[0], [0.10133583791446145, -0.06896776592448106],
                               rtol=1e-9)
    row0 = [-461.4463210015994, 178.86792801444557, -19.42391647220627, -3.0615983420410324,
            6.392457556226442, -3.340282281299017, 0.2647602492070315, 0.417022, 0.0,
            243.62824566082992, 676.4867782658685, 3.0615983420410324, -6.392457556226442,
            3.340282281299017, 0.24299878163373023]
    row1 = [-803.7436233648792, -309.59541752344876, 604.7802846625028, -15.049628170340549,
            6.248486312079823, 3.219479951604925, 0.8381960857313306, 0.0, 0.417022,
            771.2949451366331, 2141.6680611599545, 15.049628170340549, -6.248486312079823,
            -3.219479951604925, -0.16538160078960118]
    assert rho((block[0],), (np.array([row0, row1]),)) <= 1e-9


def test_ht_model_has_adbench_bones_and_rest_pose_is_the_base_mesh():
    from kernels.ad.evals import ht
    model = ht.hand_model(np.random.default_rng(0))
    assert model["base_relatives"].shape == (22, 4, 4)
    assert model["base_positions"].shape == (544, 4) and model["weights"].shape == (544, 22)
    np.testing.assert_allclose(model["weights"].sum(axis=1), 1.0)
    # at the rest pose (no rotation at all: an angle of 0 except a tiny global one, since
    # Rodrigues' general formula needs a nonzero angle) the vertices are the base mesh
    rest = np.zeros(26)
    rest[0] = 1e-12
    residual = ht.ht(rest, **model, correspondences=np.arange(544), points=np.zeros((544, 3)))
    np.testing.assert_allclose(-residual.reshape(544, 3), model["base_positions"][:, :3],
                               atol=1e-12)


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
