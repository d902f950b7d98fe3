"""Jacobian rows in blocks (kernels/ad/blocks.py): a block of cotangents pulled back in one
backward pass, as a forward Dual's directions, against each row pulled back alone.

Every corpus case (tests/ad/corpus.py) that reverse mode and the source engine
differentiate rightly is pulled back with a block of three cotangents of its scalar output
(1, 2 and -1.5): every vjp on the case's path then runs on a Dual cotangent, and must give
the engine's own gradient times each, with no row-by-row fallback. Then the fallback
itself: a pullback that forward mode cannot follow, or whose rows, combined, disagree with
the plain pullback of their combination, is taken a row at a time and still right.
"""

import numpy as np
import pytest

from kernels.ad import ENGINES, _arrays, blocks, forward, reverse, source
from kernels.ad.evals import ba, ht
from kernels.ad.reverse.backward import backpropagate
from kernels.ad.reverse.variable import Variable

from .corpus import CASES
from .reference import case_args, engine_outcome

#: the block's cotangents of a scalar output, each a row
WEIGHTS = np.array([[1.0], [2.0], [-1.5]])


def _reverse_pullback(f, args, k):
    """pull(ct) -> the cotangent of args[k] through a recorded graph of f (every argument a
    leaf, as in reverse.gradient)."""
    leaves = [Variable(a) for a in args]
    _arrays.enter()
    try:
        out = f(*leaves)
    finally:
        _arrays.leave()
    if not isinstance(out, Variable):
        return lambda ct: None  # f's value is a constant
    return lambda ct: backpropagate(out, ct).get(leaves[k]._node[0], (None, None))[1]


def _source_pullback(f, args, k):
    _, adjoint = source.transform(f).primal(*args)
    return lambda ct: adjoint(ct)[k]


PULLBACKS = {"reverse": _reverse_pullback, "source": _source_pullback}


@pytest.fixture
def no_fallback(monkeypatch):
    def refused(pull, block, shape, x):
        raise AssertionError(f"a block of {len(block)} rows was taken row by row")
    monkeypatch.setattr(blocks, "_row_by_row", refused)


@pytest.mark.usefixtures("no_fallback")
@pytest.mark.parametrize("case", CASES, ids=[c.name for c in CASES])
@pytest.mark.parametrize("engine", sorted(PULLBACKS))
def test_a_block_through_every_corpus_case_is_its_rows(engine, case):
    if engine_outcome(engine, case).status != "ok":
        pytest.skip(f"{engine} does not differentiate {case.name}")
    args = case_args(case)
    want = ENGINES[engine].gradient(case.f, *args)
    for k, a in enumerate(args):
        got = blocks.rows(PULLBACKS[engine](case.f, args, k), (), a, WEIGHTS)
        expected = WEIGHTS * np.ravel(want[k])
        scale = max(np.max(np.abs(expected), initial=0.0), 1e-300)
        assert np.max(np.abs(got - expected), initial=0.0) <= 1e-12 * scale, (k, got, expected)


@pytest.mark.usefixtures("no_fallback")
@pytest.mark.parametrize("engine", [reverse, source])
@pytest.mark.parametrize("problem", [ba.PROBLEM, ht.PROBLEM], ids=["ba", "ht"])
def test_the_evals_jacobians_go_in_blocks(engine, problem):
    f, args = problem.bind(problem.sizes[0], np.random.default_rng(1))
    got = engine.jacobian(f.f, args[0], mode="reverse")
    np.testing.assert_allclose(got, forward.jacobian(f.f, args[0]), rtol=1e-10, atol=1e-12)


def test_blocks_are_forward_modes_chunks_over_the_wider_side(monkeypatch):
    widths = []
    original = blocks._block

    def block(pull, rows, shape, x):
        widths.append(len(rows))
        return original(pull, rows, shape, x)

    monkeypatch.setattr(blocks, "_block", block)
    x = np.linspace(0.1, 1.0, 5)
    J = reverse.jacobian(lambda v: np.repeat(np.sin(v), 100), x, mode="reverse")
    chunk = forward.balanced_chunk(500, 500)
    assert 1 < chunk < 500 and max(widths) == chunk and sum(widths) == 500
    assert len(widths) == -(-500 // chunk)
    np.testing.assert_allclose(J, np.repeat(np.diag(np.cos(x)), 100, axis=0))


def test_a_pullback_forward_mode_cannot_follow_goes_row_by_row(monkeypatch):
    """A vjp that makes its cotangent a plain number (an escape, here forced) leaves the
    block to the rows, which are right."""
    calls = []
    original = blocks._row_by_row

    def counted(pull, block, shape, x):
        calls.append(len(block))
        return original(pull, block, shape, x)

    def escaping(ct):
        if isinstance(ct, forward.Dual):
            ct.item()  # EscapeError
        return ct * np.array([1.0, 2.0])

    monkeypatch.setattr(blocks, "_row_by_row", counted)
    got = blocks.rows(escaping, (2,), np.zeros(2))
    np.testing.assert_array_equal(got, np.diag([1.0, 2.0]))
    assert calls == [2]


def test_a_block_that_disagrees_with_its_plain_row_goes_row_by_row(monkeypatch):
    """A pullback that is not linear in its cotangent (no vjp should be; here one is made
    so) disagrees with itself: the block is not trusted."""
    def squaring(ct):
        return ct * ct  # the value: the combination squared; the partials 2 * value * dir

    got = blocks.rows(squaring, (3,), np.zeros(3))
    np.testing.assert_array_equal(got, np.eye(3))  # each one-hot, squared, row by row


def test_a_batch_that_loses_its_later_rows_is_caught():
    """The check combines every row: a batch whose directions all came out as the first's
    (a jvp that mixed up the batch axis) agrees with the first row, never with the
    combination; the rows are then each pulled back alone, and right."""
    def batch_axis_bug(ct):
        if isinstance(ct, forward.Dual):
            return forward.directions(ct.value, np.repeat(ct.partials[:1], len(ct.partials), 0))
        return ct

    got = blocks.rows(lambda ct: _same_level(batch_axis_bug(ct), ct), (3,), np.zeros(3))
    np.testing.assert_array_equal(got, np.eye(3))


def _same_level(out, seed):
    """``out`` as a Dual of ``seed``'s level (the bug above made it a fresh one)."""
    if isinstance(out, forward.Dual):
        return forward._dual(out.value, out.partials, seed.tag)
    return out


def test_a_pullback_that_reaches_nothing_gives_zero_rows():
    got = blocks.rows(lambda ct: None, (4,), np.zeros((2, 3)))
    np.testing.assert_array_equal(got, np.zeros((4, 6)))
    constant = blocks.rows(lambda ct: np.zeros(2), (3,), np.zeros(2))
    np.testing.assert_array_equal(constant, np.zeros((3, 2)))


@pytest.mark.usefixtures("no_fallback")
@pytest.mark.parametrize("engine", [reverse, source])
def test_a_block_keeps_the_infinities_and_nans_of_its_rows(engine):
    """sqrt's derivative at 0 is inf, and inf * 0 nan: where the rows' combination is
    not finite, the plain pullback of it is not either, so the block is trusted, and its
    rows are each row's own."""
    x = np.array([0.0, 1.0, 4.0])
    with np.errstate(divide="ignore", invalid="ignore"):
        got = engine.jacobian(_roots, x, mode="reverse")
        want = np.stack([reverse.gradient(lambda v, i=i: _roots(v)[i], x)[0]
                         for i in range(3)])
    np.testing.assert_array_equal(got, want)
    assert np.isinf(got[0, 0]) and np.isfinite(got[1:, 1:]).all()


def _roots(v):
    return np.sqrt(v) * np.array([1.0, 2.0, 3.0])
