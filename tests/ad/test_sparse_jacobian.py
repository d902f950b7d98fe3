"""Sparse Jacobians by colouring (kernels.ad.sparsity) and the mode chosen by the shapes:
every exact engine, every mode, against the dense Jacobian and against functions whose
Jacobian is known entry by entry, over seeded random patterns and the awkward cases (a
row that depends on nothing, a dense pattern, a pattern with extra entries, shapes of
several dimensions); a pattern that leaves out an entry f depends on is an error, never a
wrong matrix."""

import numpy as np
import pytest
import scipy.sparse as sp

from kernels.ad import ENGINES, forward, reverse, source, sparsity
from kernels.ad.evals import ba

EXACT = ("forward", "reverse", "source")
MODES = (None, "forward", "reverse")


def sparse_problem(rng, m, n, density, empty_rows=()):
    """f(x) = sin(A x) * (B x^2) + c for random sparse A and B of one pattern (a row of
    neither depends on nothing, as ``empty_rows`` do), and its Jacobian by hand; the
    pattern."""
    mask = rng.random((m, n)) < density
    mask[list(empty_rows)] = False
    A = np.where(mask, rng.normal(size=(m, n)), 0.0)
    B = np.where(mask, rng.normal(size=(m, n)), 0.0)
    c = rng.normal(size=m)

    def f(x):
        return np.sin(A @ x) * (B @ (x * x)) + c

    def J(x):
        return (np.cos(A @ x) * (B @ (x * x)))[:, None] * A \
            + np.sin(A @ x)[:, None] * B * (2 * x)[None, :]
    return f, J, mask


@pytest.mark.parametrize("engine", EXACT)
@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("seed", range(6))
def test_random_patterns_give_the_jacobian_by_hand(engine, mode, seed):
    rng = np.random.default_rng(seed)
    m, n = int(rng.integers(1, 30)), int(rng.integers(1, 30))
    f, J, mask = sparse_problem(rng, m, n, float(rng.uniform(0.02, 0.6)))
    x = rng.normal(size=n)
    got = ENGINES[engine].jacobian(f, x, sparsity=sp.csr_matrix(mask), mode=mode)
    assert sp.isspmatrix_csr(got) and got.shape == (m, n)
    np.testing.assert_allclose(got.toarray(), J(x), rtol=1e-12, atol=1e-12)
    # every entry of the pattern is stored, zeros included; nothing outside it
    assert set(zip(*got.nonzero())) <= set(zip(*np.nonzero(mask)))
    assert got.nnz == mask.sum()


@pytest.mark.parametrize("engine", EXACT)
def test_awkward_patterns(engine):
    rng = np.random.default_rng(7)
    f, J, mask = sparse_problem(rng, 12, 9, 0.3, empty_rows=(4,))  # row 4: a constant
    x = rng.normal(size=9)
    assert not mask[4].any()
    jacobian = ENGINES[engine].jacobian
    # extra entries in the pattern: stored as zeros, the rest unchanged
    extra = mask | (rng.random(mask.shape) < 0.2)
    np.testing.assert_allclose(jacobian(f, x, sparsity=extra).toarray(), J(x), atol=1e-12)
    # dense pattern: the dense Jacobian
    full = np.ones_like(mask)
    np.testing.assert_allclose(jacobian(f, x, sparsity=full).toarray(), J(x), atol=1e-12)
    # an output that is no function of x at all, appended
    g = lambda y: np.concatenate((f(y), np.zeros(1)))  # noqa: E731
    empty = np.vstack((mask, np.zeros((1, 9), bool)))
    got = jacobian(g, x, sparsity=empty)
    assert got.shape == (13, 9) and got[12].nnz == 0
    np.testing.assert_allclose(got.toarray()[:12], J(x), atol=1e-12)


@pytest.mark.parametrize("engine", EXACT)
@pytest.mark.parametrize("mode", MODES)
def test_shapes_of_several_dimensions_flatten_in_c_order(engine, mode):
    """x of shape (3, 4) and f(x) of shape (2, 3, 2): the pattern given as f(x).shape +
    x.shape, the result f(x).size x x.size, equal to the dense Jacobian reshaped."""
    rng = np.random.default_rng(3)
    x = rng.normal(size=(3, 4))

    def f(y):  # each output reads one row of y
        return np.stack([np.stack([np.sin(y[i, :2]) * y[i, 3], np.cos(y[i, 1:3])])
                         for i in range(3)]).reshape(2, 3, 2)
    dense = forward.jacobian(f, x, mode="forward")
    pattern = dense != 0
    got = ENGINES[engine].jacobian(f, x, sparsity=pattern, mode=mode)
    assert got.shape == (12, 12)
    np.testing.assert_allclose(got.toarray(), dense.reshape(12, 12), atol=1e-14)


@pytest.mark.parametrize("engine", EXACT)
@pytest.mark.parametrize("mode", MODES)
def test_a_pattern_that_leaves_out_an_entry_is_an_error(engine, mode):
    rng = np.random.default_rng(11)
    f, J, mask = sparse_problem(rng, 15, 10, 0.3)
    x = rng.normal(size=10)
    for _ in range(3):  # three different entries left out
        short = mask.copy()
        r, c = np.argwhere(mask)[rng.integers(mask.sum())]
        short[r, c] = False
        with pytest.raises(ValueError, match="leaves out an entry f depends on"):
            ENGINES[engine].jacobian(f, x, sparsity=short, mode=mode)


def test_a_prepared_pattern_is_coloured_once_and_reused():
    rng = np.random.default_rng(5)
    f, J, mask = sparse_problem(rng, 20, 16, 0.15)
    S = sparsity.Sparsity(mask)
    x = rng.normal(size=16)
    first = reverse.jacobian(f, x, sparsity=S)
    columns, rows = S.columns, S.rows
    second = source.jacobian(f, x + 1.0, sparsity=S)
    assert S.columns is columns and S.rows is rows
    np.testing.assert_allclose(first.toarray(), J(x), atol=1e-12)
    np.testing.assert_allclose(second.toarray(), J(x + 1.0), atol=1e-12)
    # a colouring is valid: no two columns (rows) of one colour share a row (column)
    for colour, P in ((S.columns[0], mask), (S.rows[0], mask.T)):
        for c in range(colour.max() + 1):
            assert P[:, colour == c].sum(axis=1).max(initial=0) <= 1


@pytest.mark.parametrize("bad, error, message", [
    (np.ones((3, 3), bool), ValueError, "has shape (3, 3); this Jacobian is 4 x 3"),
    (sp.eye(3), ValueError, "has shape (3, 3); this Jacobian is 4 x 3"),
    (np.array([["a"] * 3] * 4), TypeError, "boolean or numeric"),
    (sparsity.Sparsity(np.ones((2, 2))), ValueError, "has shape (2, 2)"),
])
def test_bad_patterns_are_refused_by_name(bad, error, message):
    for engine in EXACT:
        with pytest.raises(error, match=message.replace("(", r"\(").replace(")", r"\)")):
            ENGINES[engine].jacobian(lambda y: np.concatenate((y, y[:1])), np.ones(3),
                                     sparsity=bad)


def test_the_mode_is_chosen_by_the_shapes_unless_told():
    """forward when x has no more elements than f(x), else reverse: seen in whether f ever
    runs on forward mode's Duals."""
    on_duals = []

    def f(y):
        on_duals.append(isinstance(y, forward.Dual))
        return np.sin(y)[:k] * 2.0

    x = np.linspace(0.1, 1.0, 6)
    for k, chosen in ((6, "forward"), (2, "reverse")):
        for engine in EXACT:
            on_duals.clear()
            J = ENGINES[engine].jacobian(f, x)
            np.testing.assert_allclose(J, np.diag(2 * np.cos(x))[:k], atol=1e-15)
            assert any(on_duals) == (chosen == "forward"), (engine, k, on_duals)
    for engine in EXACT:
        for told in ("forward", "reverse"):
            k = 6 if told == "reverse" else 2  # against the shapes' choice
            on_duals.clear()
            J = ENGINES[engine].jacobian(f, x, mode=told)
            np.testing.assert_allclose(J, np.diag(2 * np.cos(x))[:k], atol=1e-15)
            assert any(on_duals) == (told == "forward"), (engine, told, on_duals)
    with pytest.raises(ValueError, match="mode must be one of"):
        reverse.jacobian(f, x, mode="sideways")


def test_sparse_jacobians_are_refused_when_nested():
    with pytest.raises(TypeError, match="not nested"):
        forward.jacobian(lambda y: reverse.jacobian(np.sin, y, sparsity=np.eye(2)).sum(),
                         np.ones(2), mode="forward")


@pytest.mark.parametrize("size", ba.SPARSE_SIZES[:2])
def test_ba_matches_adbenchs_sparse_manual_jacobian(size):
    """ADBench's bundle adjustment: each engine's sparse Jacobian, given the hand-written
    one's pattern, equals it entry by entry; its columns take 15 colours, the least any
    colouring can (a reprojection row holds 15 entries)."""
    problem, (x,) = ba.SPARSE.bind(size, np.random.default_rng(1))
    value, manual = problem.manual(x)
    S = sparsity.Sparsity(manual)
    assert S.columns[1] == 15 == np.diff(S.P.indptr).max()
    for engine in EXACT:
        got = ENGINES[engine].jacobian(problem.f, x, sparsity=S)
        assert abs(got - manual).max() <= 1e-12 * abs(manual).max()
