"""The source engine's primal keeps only what its adjoint reads (kernels/ad/source/codegen.py,
runtime.like): a zero-stride stand-in where the adjoint reads a value's type and shape,
nothing where it does not name the value, and the value itself where a vjp reads it.

The stand-ins are NaN, so that a value the analysis wrongly judged unread gives NaN, never
a plausible number; every corpus case is run with a stand-in for every float array (in
normal use only arrays of ``LIKE_BYTES`` or more get one)."""

import functools
import types

import numpy as np
import pytest

from kernels.ad import source
from kernels.ad.problems import PROBLEMS
from kernels.ad.source import codegen
from kernels.ad.source import runtime as rt

from .corpus import CASES
from .reference import engine_outcome, judge


@pytest.fixture
def likes_everywhere(monkeypatch):
    """Every float array the adjoint reads only for its shape becomes a like."""
    monkeypatch.setattr(rt, "LIKE_BYTES", 0)
    monkeypatch.setattr(rt, "TRANSFORMS", {})  # generated code is the same; the cache is not


def _held(adjoint):
    """Bytes of the distinct array buffers an adjoint's closures hold (a like holds one
    element), following closures, lists and tuples."""
    buffers, stack, seen = {}, [adjoint], set()
    while stack:
        o = stack.pop()
        if id(o) in seen:
            continue
        seen.add(id(o))
        if isinstance(o, np.ndarray):
            while isinstance(o.base, np.ndarray):
                o = o.base
            buffers[id(o)] = o.nbytes
        elif isinstance(o, (list, tuple)):
            stack.extend(o)
        elif isinstance(o, types.FunctionType):
            for cell in o.__closure__ or ():
                try:
                    stack.append(cell.cell_contents)
                except ValueError:  # an empty cell: a name deleted after its last use
                    pass
    return sum(buffers.values())


@pytest.mark.usefixtures("likes_everywhere")
@pytest.mark.parametrize("case", CASES, ids=[c.name for c in CASES])
def test_every_corpus_case_is_right_with_likes_for_every_array(case):
    if engine_outcome("source", case).status != "ok":
        pytest.skip("the source engine does not differentiate this case")
    outcome = judge(source.gradient, case)
    assert outcome.status == "ok", outcome.detail


def test_a_like_has_the_shape_and_type_and_no_memory():
    x = np.arange(1024.0).reshape(32, 32)
    stand_in = rt.like(x)
    assert type(stand_in) is np.ndarray and stand_in.shape == x.shape
    assert stand_in.dtype == x.dtype and stand_in.strides == (0, 0)
    assert np.isnan(stand_in).all() and not stand_in.flags.writeable
    assert stand_in.base is not None and stand_in.base.nbytes <= 16
    z = rt.like(x.astype(np.complex64))
    assert z.dtype == np.complex64 and np.isnan(z).all()
    # what it is not worth doing for, or must not be done to: kept as they are
    small, ints = np.ones(3), np.arange(1024)
    assert rt.like(small) is small and rt.like(ints) is ints and rt.like(2.5) == 2.5
    pair = rt.like((x, small))
    assert type(pair) is tuple and pair[0].strides == (0, 0) and pair[1] is small
    scalars = [1.0, 2.0]
    assert rt.like(scalars) is scalars


@pytest.mark.usefixtures("likes_everywhere")
def test_a_missed_read_gives_nan_never_a_plausible_number(monkeypatch):
    """If the analysis said a vjp reads nothing, a product's gradient would read likes."""
    # (codegen's view of the analysis only: the rules cache what the module answers)
    blind = types.SimpleNamespace(reads=lambda fn, lead: (False, frozenset()))
    monkeypatch.setattr(codegen, "_reads", blind)

    def f(x):
        return np.sum(x * np.sin(x))
    (g,) = source.gradient(f, np.linspace(0.1, 1.0, 5))
    assert np.isnan(g).all()


@pytest.mark.usefixtures("likes_everywhere")
def test_values_the_adjoint_does_not_read_are_not_held():
    x = np.linspace(0.0, 1.0, 1000)

    def f(x):
        s = x + 1.0                         # add's vjps read nothing
        t = np.concatenate((s, 2.0 * s))    # a join reads only the shapes
        u = t * 3.0                         # mul reads the constant, not t
        return np.sum(np.exp(u))            # exp reads its output; sum a shape

    value, adjoint = source.transform(f).primal(x)
    # x (the caller's), exp's output (2000 numbers) and no more
    assert _held(adjoint) <= x.nbytes + 2 * x.nbytes + 1024
    (g,) = adjoint(1.0)
    expected = 3.0 * np.exp(3.0 * (x + 1.0)) + 6.0 * np.exp(6.0 * (x + 1.0))
    np.testing.assert_allclose(g, expected, rtol=1e-13)


@pytest.mark.usefixtures("likes_everywhere")
def test_values_a_vjp_reads_are_held_and_used():
    x = np.linspace(-1.0, 1.0, 1000)

    def f(x):
        p = np.sin(x) * np.exp(x)           # each factor read by the other's vjp
        return np.sum(p)

    value, adjoint = source.transform(f).primal(x)
    assert _held(adjoint) >= 3 * x.nbytes
    np.testing.assert_allclose(adjoint(1.0)[0], (np.cos(x) + np.sin(x)) * np.exp(x),
                               rtol=1e-13)


def test_ode_adjoint_holds_what_the_hand_written_adjoint_keeps():
    """gradbench's ode at n = 2000: the hand-written adjoint keeps the 4 stage inputs of
    each of the 10 steps (40 arrays). The source engine's adjoint held 5 times that before
    its primal kept only what the adjoint reads."""
    problem, (x,) = PROBLEMS["ode"].bind(2000, np.random.default_rng(0))
    value, adjoint = rt.call(problem.f, x)
    assert _held(adjoint) <= 1.1 * 4 * 10 * x.nbytes + x.nbytes
    np.testing.assert_allclose(rt.pull(adjoint, 1.0, value, 0, x), problem.manual(x)[1][0],
                               rtol=1e-12)


def test_a_user_function_takes_the_arguments_without_derivatives_as_data():
    """ode's solve(x, s=10): with s data, no step-size derivative is computed or kept for."""
    def scaled(x, k):
        return np.sum(x * (k / 2))

    def f(x):
        return scaled(x, 4) + scaled(x, x[0])

    x = np.linspace(1.0, 2.0, 4)
    (g,) = source.gradient(f, x)
    np.testing.assert_allclose(g, 2.0 + x[0] / 2 + np.eye(4)[0] * np.sum(x) / 2, rtol=1e-14)
    assert rt.TRANSFORMS.get((id(scaled), frozenset({"k"}))) is not None  # k = 4: data
    assert rt.TRANSFORMS.get(id(scaled)) is not None  # k = x[0]: differentiated

    def shifted(x, k, c):
        return np.sum(x * (k / 2) + c)
    value, back = rt.call(functools.partial(shifted, c=1.0), x, 4)  # a partial: c bound
    assert rt.TRANSFORMS.get((id(shifted), frozenset({"c", "k"}))) is not None
    np.testing.assert_allclose(rt.pull(back, 1.0, value, 0, x, 4), np.full(4, 2.0))


def test_a_value_assigned_on_some_paths_is_not_freed_where_it_may_be_unbound():
    def f(x, flag):
        if flag > 0:
            z = x * 2.0
        if flag > 1:
            x = x + z
        return np.sum(x * x)

    x = np.linspace(1.0, 2.0, 600)
    for flag, factor in [(0, 1.0), (1, 1.0), (2, 3.0)]:
        (g, _) = source.gradient(f, x, flag)
        np.testing.assert_allclose(g, 2 * factor**2 * x, rtol=1e-14)
