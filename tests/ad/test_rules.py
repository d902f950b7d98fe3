"""The rule table's own machinery: lookup errors, broadcasting, sparse accumulation,
registration, and each rule's two directions agreeing with each other."""

import operator

import numpy as np
import pytest

from kernels.ad import rules


def test_lookup_names_the_missing_function_and_how_to_register():
    with pytest.raises(rules.MissingRuleError,
                       match=r"numpy\.arccos; register one with kernels\.ad\.rules\.defpartials"):
        rules.lookup(np.arccos)


@pytest.mark.parametrize("ct_shape, shape", [((3, 4), (4,)), ((3, 4), (3, 1)), ((3, 4), ()),
                                             ((2, 3, 4), (1, 4)), ((3,), (3,))])
def test_unbroadcast_sums_over_broadcast_axes(ct_shape, shape):
    ct = np.arange(np.prod(ct_shape), dtype=float).reshape(ct_shape)
    got = rules.unbroadcast(ct, shape)
    assert np.shape(got) == shape
    assert np.sum(got) == np.sum(ct)


def test_scatter_accumulation_is_lazy_and_sums_duplicates():
    acc = None
    for i in [0, 2, 2, 4]:
        acc = rules.accumulate(acc, rules.Scatter((5,), i, 1.5), (5,))
    assert isinstance(acc, rules.ScatterSum) and len(acc.parts) == 4
    acc = rules.accumulate(acc, rules.Scatter((5,), slice(1, 3), np.array([1.0, 2.0])), (5,))
    np.testing.assert_array_equal(rules.densify(acc), [1.5, 1.0, 5.0, 0.0, 1.5])
    dense = rules.accumulate(acc, np.ones(5), (5,))
    np.testing.assert_array_equal(dense, [2.5, 2.0, 6.0, 1.0, 2.5])


def test_accumulate_never_writes_into_its_inputs():
    shared = np.ones(3)
    acc = rules.accumulate(None, shared, (3,))
    acc = rules.accumulate(acc, rules.Scatter((3,), 1, 2.0), (3,))
    acc = rules.accumulate(acc, shared, (3,))
    np.testing.assert_array_equal(shared, np.ones(3))
    np.testing.assert_array_equal(acc, [2.0, 4.0, 2.0])


def test_as_output_gives_floats_for_scalars_and_zeros_for_nothing():
    assert rules.as_output(np.float64(2.0), 1.0) == 2.0
    assert type(rules.as_output(np.array(2.0), 1.0)) is float
    np.testing.assert_array_equal(rules.as_output(None, np.ones((2, 2))), np.zeros((2, 2)))


def _vjp_jvp_pairs():
    """Each rule as (name, fn, args): the vjp and the jvp must be adjoint to each other."""
    rng = np.random.default_rng(5)
    m, v = rng.uniform(0.5, 1.5, (3, 4)), rng.uniform(0.5, 1.5, 4)
    unary = [(r.name, fn, (m,)) for fn, r in rules.RULES.items()
             if isinstance(fn, np.ufunc) and fn.nin == 1]
    return unary + [
        ("add", np.add, (m, v)), ("power", np.power, (m, v)), ("divide", np.true_divide, (v, m)),
        ("matmul", np.matmul, (m, v)), ("dot", np.dot, (v, m.T)),
        ("sum", np.sum, (m,)), ("trace", np.trace, (m,)), ("transpose", np.transpose, (m,)),
        ("getitem", operator.getitem, (m, (1, slice(0, 3)))),
    ]


@pytest.mark.parametrize("name, fn, args", _vjp_jvp_pairs(), ids=lambda p: str(p)[:20])
def test_vjp_is_the_adjoint_of_the_jvp(name, fn, args):
    # <g, J t> == <J^T g, t> for every differentiable argument, with a batch of 2 tangents.
    rng = np.random.default_rng(6)
    rule = rules.RULES[fn]
    ans = fn(*args)
    g = rng.standard_normal(np.shape(ans))
    for i, vjp in enumerate(rule.vjps):
        if vjp is None:
            continue
        t = rng.standard_normal((2,) + np.shape(args[i]))
        tangents = [t if j == i else None for j in range(len(args))]
        jt = rule.jvp(tangents, ans, *args)
        ct = rules.densify(rules.accumulate(None, vjp(g, ans, *args), np.shape(args[i])))
        for k in range(2):
            assert np.sum(g * jt[k]) == pytest.approx(np.sum(ct * t[k]), rel=1e-12)
