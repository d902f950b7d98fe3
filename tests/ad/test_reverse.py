"""The reverse-mode engine: every rule of the table reached through numpy calls, Python
operators and methods on Variables; the Variable API (accumulating .grad, backward's g,
plain comparisons); deep graphs; and every error message."""

import builtins
import gc
import operator

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from kernels.ad import rules
from kernels.ad.reverse import Variable, gradient

from .constructs import sp
from .gradcheck import check_gradient

UNARY = [fn for fn in rules.RULES if isinstance(fn, np.ufunc) and fn.nin == 1]
BINARY = [fn for fn in rules.RULES if isinstance(fn, np.ufunc) and fn.nin == 2
          and fn is not np.matmul]
OPERATORS = {operator.add: "+", operator.sub: "-", operator.mul: "*",
             operator.truediv: "/", operator.pow: "**", operator.matmul: "@",
             operator.neg: "-x", operator.pos: "+x", builtins.abs: "abs"}
#: where [0.5, 1.5] is not inside a function's smooth domain
_DOMAINS = {np.absolute: (-1.5, 1.5), np.arcsin: (-0.9, 0.9), np.arccos: (-0.9, 0.9),
            np.arctanh: (-0.9, 0.9), np.arccosh: (1.5, 2.5), np.sinc: (0.2, 0.8)}
if sp is not None:  # scipy.special's ufuncs (registered by tests/ad/constructs.py)
    _DOMAINS.update({sp.logit: (0.2, 0.8), sp.erfinv: (-0.8, 0.8)})
BROADCAST = [((3, 4), (4,)), ((3, 4), (3, 1)), ((4,), (3, 4)), ((3, 1), (1, 4)),
             ((3, 4), ()), ((), (3, 4)), ((), ())]


def _positive(rng, shape, low=0.5, high=1.5):
    """In [0.5, 1.5] by default: inside every rule's domain (log, sqrt, power, tan, division);
    a float for the shape ()."""
    return rng.uniform(low, high, shape) if shape else float(rng.uniform(low, high))


def _check(f, *args, seed=0):
    rng = np.random.default_rng(seed)
    return check_gradient(gradient, f, *args, rng=rng)


# -- every rule, reached the ways user code reaches it ---------------------------------------

@pytest.mark.parametrize("shape", [(3, 4), ()], ids=["array", "float"])
@pytest.mark.parametrize("fn", UNARY, ids=lambda fn: fn.__name__)
def test_unary_ufunc(fn, shape):
    rng = np.random.default_rng(1)
    x = _positive(rng, shape, *_DOMAINS.get(fn, (0.5, 1.5)))
    _check(lambda x: np.sum(fn(x) * x), x)


@pytest.mark.parametrize("shapes", BROADCAST, ids=str)
@pytest.mark.parametrize("fn", BINARY, ids=lambda fn: fn.__name__)
def test_binary_ufunc_broadcasts(fn, shapes):
    rng = np.random.default_rng(2)
    _check(lambda x, y: np.sum(fn(x, y) * x), *(_positive(rng, s) for s in shapes))


@pytest.mark.parametrize("shapes", BROADCAST, ids=str)
@pytest.mark.parametrize("op", [operator.add, operator.sub, operator.mul, operator.truediv,
                                operator.pow], ids=OPERATORS.get)
def test_python_operator_broadcasts(op, shapes):
    rng = np.random.default_rng(3)
    _check(lambda x, y: np.sum(op(x, y) * x), *(_positive(rng, s) for s in shapes))


CONSTANTS = [2.5, 3, np.float64(1.5), np.array([0.5, 1.0, 2.0])]


@pytest.mark.parametrize("const", CONSTANTS, ids=lambda c: type(c).__name__)
@pytest.mark.parametrize("op", [operator.add, operator.sub, operator.mul, operator.truediv,
                                operator.pow], ids=OPERATORS.get)
def test_constants_on_either_side(op, const):
    """Reflected methods, and numpy scalars and arrays on the left deferring to Variable."""
    x = _positive(np.random.default_rng(4), (3,))
    assert isinstance(op(const, Variable(x)), Variable)
    assert isinstance(op(Variable(x), const), Variable)
    _check(lambda x: np.sum(op(x, const) + op(const, x)), x)


@pytest.mark.parametrize("op", [operator.neg, operator.pos, builtins.abs], ids=OPERATORS.get)
def test_unary_operator(op):
    _check(lambda x: np.sum(op(x) * x), np.random.default_rng(5).uniform(-1.5, 1.5, 5))


REDUCTIONS = [(axis, keepdims) for axis in (None, 0, 1, -1, (0, 1)) for keepdims in (False, True)]


@pytest.mark.parametrize("axis, keepdims", REDUCTIONS)
@pytest.mark.parametrize("how", ["np.sum", "np.mean", ".sum", ".mean"])
def test_reduction(how, axis, keepdims):
    fn = {"np.sum": np.sum, "np.mean": np.mean, ".sum": Variable.sum, ".mean": Variable.mean}[how]
    weights = np.random.default_rng(6).standard_normal(np.shape(
        np.sum(np.ones((3, 4)), axis=axis, keepdims=keepdims)))
    _check(lambda x: np.sum(fn(x * x, axis=axis, keepdims=keepdims) * weights),
           _positive(np.random.default_rng(7), (3, 4)))


PRODUCT_SHAPES = [((3, 4), (4, 2)), ((3, 4), (4,)), ((4,), (4, 2)), ((4,), (4,))]


@pytest.mark.parametrize("shapes", PRODUCT_SHAPES, ids=str)
@pytest.mark.parametrize("fn", [np.matmul, np.dot, operator.matmul],
                         ids=["np.matmul", "np.dot", "@"])
def test_products(fn, shapes):
    rng = np.random.default_rng(8)
    _check(lambda a, b: np.sum(np.sin(fn(a, b))), *(_positive(rng, s) for s in shapes))


def test_products_with_constant_operands():
    rng = np.random.default_rng(9)
    m, v = rng.standard_normal((3, 4)), rng.standard_normal(3)
    _check(lambda x: np.sum(np.sin(m @ x)) + np.dot(v, m @ x) + np.sum(np.dot(x, m.T)),
           _positive(rng, (4,)))


def test_dot_of_a_scalar_is_a_product():
    rng = np.random.default_rng(10)
    _check(lambda s, v: np.sum(np.dot(s, v)) + np.sum(np.dot(v, s)), 1.5, _positive(rng, (4,)))


def test_trace():
    rng = np.random.default_rng(11)
    a, b = rng.standard_normal((4, 4)), rng.standard_normal((4, 4))
    ga, gb = _check(lambda a, b: np.trace(a @ b), a, b)
    np.testing.assert_allclose(ga, b.T)
    np.testing.assert_allclose(gb, a.T)


@pytest.mark.parametrize("offset", [-2, 0, 1, 3, 7])
@pytest.mark.parametrize("scale", [1.0, 2.5, np.inf])
def test_trace_cotangent_is_the_scaled_offset_diagonal_and_owns_its_data(offset, scale):
    # a trace as f's result takes a copy of a cached unit diagonal: the gradient must be a
    # fresh writeable array each call, and any other cotangent (inf too) zero off it
    x = np.random.default_rng(12).standard_normal((5, 4))
    expected = np.eye(5, 4, k=offset)
    for _ in range(2):
        with np.errstate(invalid="ignore"):  # inf times an empty diagonal's 0
            g, = gradient(lambda x: scale * np.trace(x, offset), x)
        assert g.flags.writeable and g.base is None
        np.testing.assert_array_equal(g, np.where(expected == 1, scale, 0.0))
        g[...] = 7.0  # writing into one call's gradient changes no later one


@pytest.mark.parametrize("transpose", [
    lambda x: np.transpose(x), lambda x: x.T, lambda x: np.transpose(x, (1, 2, 0)),
    lambda x: np.transpose(x, axes=(2, 0, 1))], ids=["np.transpose", ".T", "axes", "axes="])
def test_transpose(transpose):
    rng = np.random.default_rng(12)
    weights = rng.standard_normal(np.shape(transpose(np.ones((2, 3, 4)))))
    _check(lambda x: np.sum(transpose(np.sin(x)) * weights), rng.standard_normal((2, 3, 4)))


@pytest.mark.parametrize("reshape", [
    lambda x: np.reshape(x, (4, 3)), lambda x: np.reshape(x, -1), lambda x: x.reshape(2, 6),
    lambda x: x.reshape((6, 2))], ids=["np.reshape", "flat", "method", "method-tuple"])
def test_reshape(reshape):
    rng = np.random.default_rng(13)
    weights = rng.standard_normal(np.shape(reshape(np.ones((3, 4)))))
    _check(lambda x: np.sum(np.exp(reshape(x)) * weights), rng.standard_normal((3, 4)))


INDICES = [1, -1, slice(1, 3), (1, 2), (slice(None), 2), [0, 2, 2], ([0, 2], [1, 3]),
           np.array([True, False, True]), (Ellipsis, 0)]


@pytest.mark.parametrize("index", INDICES, ids=repr)
def test_getitem(index):
    rng = np.random.default_rng(14)
    x = rng.standard_normal((3, 4))
    weights = rng.standard_normal(np.shape(x[index]))
    _check(lambda x: np.sum(np.sin(x[index]) * weights) + np.sum(x[index] * x[index]), x)


# -- programs ---------------------------------------------------------------------------

def _inner(x, y):
    return np.tanh(x) * y + x


def _outer(x, y):
    z = _inner(x, y)
    return np.dot(z, _inner(z, x)) + np.sum(_inner(y, y))


def _ackley_loop(x):
    a, b, c = 20.0, -0.2, 2.0 * np.pi
    sum_sqrs, sum_cos = 0.0, 0.0
    for xi in x:
        sum_cos += np.cos(c * xi)
        sum_sqrs += xi * xi
    n = len(x)
    return -a * np.exp(b * np.sqrt(sum_sqrs / n)) - np.exp(sum_cos / n) + a + np.e


def _rows_loop(m):
    total = 0.0
    for row in m:  # iterating a 2-D Variable yields rows
        total = total + np.sum(np.sin(row)) * row[0]
    return total


def _builtins(x):
    return sum(map(lambda xi: xi * xi, x)) / len(x) + max(x[0], x[1]) * min(x[0], x[1])


def _branching(x):
    return x * x if x > 1.0 else -x  # a comparison is a plain bool


PROGRAMS = [
    ("fan-out", lambda x, y: np.sum(x * x * x + np.sin(x) * y + x * y), ((5,), ())),
    ("nested functions", lambda x, y: _outer(x, y) + _outer(y, x), ((4,), (4,))),
    ("element loop", _ackley_loop, ((16,),)),
    ("row loop", _rows_loop, ((3, 4),)),
    ("builtins", _builtins, ((6,),)),
    ("branch", _branching, ((),)),
    ("scalars", lambda a, b: a / (a + b * b) + np.sin(a) * np.exp(b), ((), ())),
    ("same variable twice", lambda x: np.sum(x * x) + np.dot(x, x) + x @ x, ((4,),)),
]


@pytest.mark.parametrize("f, shapes", [p[1:] for p in PROGRAMS], ids=[p[0] for p in PROGRAMS])
def test_program(f, shapes):
    rng = np.random.default_rng(15)
    _check(f, *(_positive(rng, s) for s in shapes))


def test_element_loop_matches_the_closed_form():
    x = np.random.default_rng(16).standard_normal(40)
    (g,) = gradient(lambda x: sum(xi ** 3 for xi in x), x)
    np.testing.assert_allclose(g, 3 * x * x, rtol=1e-14)


@settings(max_examples=15, deadline=None)
@given(st.lists(st.integers(1, 4), min_size=0, max_size=3), st.floats(-3.0, 3.0))
def test_broadcast_product_has_the_closed_form_gradient(shape, c):
    rng = np.random.default_rng(len(shape))
    x, w = rng.standard_normal(shape), rng.standard_normal(shape[-1:])
    gx, gc_ = gradient(lambda x, c: np.sum(x * x * w * c), x, c)
    np.testing.assert_allclose(gx, 2 * x * w * c, rtol=1e-12, atol=1e-12)
    assert gc_ == pytest.approx(float(np.sum(x * x * w)), rel=1e-12, abs=1e-12)


def test_a_chain_of_200000_nodes_needs_no_recursion():
    def chain(x):
        for _ in range(100_000):
            x = x * 1.000001 + 1e-7
        return x
    (g,) = gradient(chain, 0.5)
    assert g == pytest.approx(1.000001 ** 100_000, rel=1e-9)
    v = Variable(0.5)
    chain(v).backward()  # backward on its own, and dropping the graph, recurse neither
    assert v.grad == pytest.approx(g, rel=1e-12)


# -- the Variable API --------------------------------------------------------------------

def test_grad_accumulates_across_backward_calls_until_reset():
    x = Variable(np.array([1.0, 2.0]))
    y = np.sum(x * x)
    assert x.grad is None
    y.backward()
    np.testing.assert_array_equal(x.grad, [2.0, 4.0])
    y.backward()
    np.testing.assert_array_equal(x.grad, [4.0, 8.0])
    x.zero_grad()
    assert x.grad is None
    np.sum(np.sin(x)).backward()
    np.testing.assert_allclose(x.grad, np.cos([1.0, 2.0]))
    assert y.grad is None  # interior values get no .grad


def test_independent_variables_each_get_their_gradient():
    a, b = Variable(2.0), Variable(np.array([1.0, 3.0]))
    (a * b + a).sum().backward()
    assert a.grad == pytest.approx(6.0)
    np.testing.assert_array_equal(b.grad, [2.0, 2.0])


def test_backward_of_a_non_scalar_takes_g():
    x = Variable(np.array([1.0, 2.0, 3.0]))
    g = np.array([1.0, -1.0, 0.5])
    (x * x).backward(g)
    np.testing.assert_array_equal(x.grad, 2 * x.value * g)
    leaf = Variable(np.ones(3))
    leaf.backward(g)  # a leaf's own gradient is g, copied, not aliased
    g[0] = 99.0
    np.testing.assert_array_equal(leaf.grad, [1.0, -1.0, 0.5])


def test_gradients_are_writable_arrays_of_their_own():
    x = Variable(np.ones((2, 3)))
    np.sum(x).backward()  # the sum's cotangent is a read-only broadcast view
    x.grad += 1.0
    (g,) = gradient(lambda x: np.sum(x.T), np.ones((2, 3)))
    g += 1.0
    np.testing.assert_array_equal(g, np.full((2, 3), 2.0))


def test_array_attributes_and_plain_views():
    x = Variable(np.arange(6.0).reshape(2, 3))
    assert (x.shape, x.ndim, x.size, len(x)) == ((2, 3), 2, 6, 2)
    assert np.shape(x) == (2, 3) and np.ndim(x) == 2 and np.size(x) == 6
    np.testing.assert_array_equal(np.zeros_like(x), np.zeros((2, 3)))
    np.testing.assert_array_equal(x > 2.0, x.value > 2.0)
    np.testing.assert_array_equal(np.ones((2, 3)) < x, 1.0 < x.value)
    np.testing.assert_array_equal(np.isfinite(x), np.ones((2, 3), dtype=bool))
    s = Variable(2.5)
    assert int(s) == 2 and bool(s) and s >= 2.5 and s != 3.0 and not s < 1.0
    assert s == 2.5 and s <= Variable(2.5)
    assert len({s, x}) == 2  # hashable by identity, as torch tensors
    assert repr(s) == "Variable(2.5, leaf)"


def test_gradient_uses_fresh_leaves_and_leaves_other_variables_alone():
    w = Variable(3.0)
    f = lambda x: x * w
    assert gradient(f, 2.0) == gradient(f, 2.0) == (3.0,)
    assert w.grad is None


def test_gradient_accepts_ints_and_returns_the_argument_shapes():
    grads = gradient(lambda a, b, c: a * np.sum(b * c), 2, np.array([1.0, 2.0]), np.float32(0.5))
    assert grads[0] == 1.5 and type(grads[0]) is float
    np.testing.assert_array_equal(grads[1], [1.0, 1.0])
    assert type(grads[2]) is float and grads[2] == 6.0


def test_constant_function_has_zero_gradients():
    assert gradient(lambda x, y: 3.0, 1.0, np.ones(2))[0] == 0.0
    np.testing.assert_array_equal(gradient(lambda x: np.float64(1.0), np.ones(2))[0], [0, 0])


def test_primitive_with_keyword_and_constant_arguments():
    @rules.primitive
    def scaled_square(x, y, scale=1.0):
        return scale * x * x * y

    rules.defrule(scaled_square, [lambda g, ans, x, y, scale=1.0: g * 2.0 * scale * x * y,
                                  lambda g, ans, x, y, scale=1.0: g * scale * x * x],
                  jvp=None)  # reverse mode only
    try:
        x, y = Variable(np.array([1.0, 2.0])), np.array([3.0, 4.0])
        np.sum(scaled_square(x, y, scale=0.5)).backward()
        np.testing.assert_allclose(x.grad, x.value * y)
        _check(lambda x, y: np.sum(scaled_square(x, y, scale=2.0)), np.ones(2), np.ones(2))
    finally:
        del rules.RULES[scaled_square]


def test_collector_is_restored_even_when_f_fails():
    def broken(x):
        raise RuntimeError("inside f")
    assert gc.isenabled()
    with pytest.raises(RuntimeError):
        gradient(broken, 1.0)
    assert gc.isenabled()


# -- errors ------------------------------------------------------------------------------

def _vec(n):
    return Variable(np.ones(n))


ERRORS = [
    ("broadcast +", lambda: _vec(3) + _vec(4), ValueError,
     r"numpy\.add \(\+\) of \[Variable of shape \(3,\), Variable of shape \(4,\)\]"),
    ("broadcast ufunc", lambda: np.multiply(np.ones((2, 3)), _vec(4)), ValueError,
     r"numpy\.multiply of \[ndarray of shape \(2, 3\), Variable of shape \(4,\)\]"),
    ("matmul shapes", lambda: Variable(np.ones((3, 3))) @ _vec(4), ValueError,
     r"numpy\.matmul \(@\) of \[Variable of shape \(3, 3\), Variable of shape \(4,\)\]"),
    ("reshape", lambda: np.reshape(_vec(6), (4, 2)), ValueError,
     r"numpy\.reshape of \[Variable of shape \(6,\), tuple \(4, 2\)\]: cannot reshape"),
    ("string operand", lambda: _vec(3) + "a string", TypeError,
     r"numpy\.add \(\+\): Variable and str"),
    ("reflected string", lambda: "a" * Variable(2.0), TypeError, r"numpy\.multiply.*str"),
    ("string in ufunc", lambda: np.subtract(_vec(3), "a"), TypeError,
     r"numpy\.subtract: Variable and str"),
    ("missing rule", lambda: np.spacing(_vec(3)), rules.MissingRuleError,
     r"numpy\.spacing \(no rule yet\); register one"),
    ("missing function rule", lambda: np.linalg.eig(Variable(np.eye(2))), rules.MissingRuleError,
     r"numpy\.linalg\.eig"),
    ("object operand", lambda: _vec(3) + object(), TypeError, r"Variable and object"),
    ("ufunc reduce", lambda: np.add.reduce(_vec(3)), rules.MissingRuleError,
     r"numpy\.add\.reduce has no derivative rule"),
    ("ufunc accumulate", lambda: np.multiply.accumulate(_vec(3)), rules.MissingRuleError,
     r"numpy\.multiply\.accumulate"),
    ("out=", lambda: np.sin(_vec(3), out=np.ones(3)), ValueError, r"numpy\.sin\(\.\.\., out="),
    ("function out=", lambda: np.sum(_vec(3), out=np.zeros(())), rules.MissingRuleError,
     r"numpy\.sum\(\.\.\., out=\.\.\.\) is not differentiable: it writes"),
    ("ufunc keyword", lambda: np.sin(_vec(3), dtype=np.float32), rules.MissingRuleError,
     r"numpy\.sin\(\.\.\., dtype=\.\.\.\) is not differentiable"),
    ("keyword Variable", lambda: np.dot(_vec(3), b=_vec(3)), rules.MissingRuleError,
     r"keyword argument b= carries a derivative.*pass it positionally"),
    ("index out of range", lambda: _vec(3)[5], IndexError,
     r"indexing .* of \[Variable of shape \(3,\), int 5\]"),
    ("index a float", lambda: Variable(2.0)[0], TypeError, r"not subscriptable"),
    ("len of a scalar", lambda: len(Variable(2.0)), TypeError, r"has no len"),
    ("iterate a scalar", lambda: list(Variable(2.0)), TypeError, r"not iterable"),
    ("float of an array", lambda: float(_vec(3)), TypeError, r"float\(\) of a Variable"),
    ("float of a scalar", lambda: float(Variable(2.0)), TypeError,
     r"float\(\) of a Variable would drop its derivative \(reverse mode; at .*test_reverse"),
    ("array of a Variable", lambda: np.zeros(3) + np.asarray(_vec(3)), TypeError,
     r"Variable converted to a plain numpy array"),
    ("truth of an array", lambda: bool(_vec(3)), ValueError, r"shape \(3,\) is ambiguous"),
    ("string Variable", lambda: Variable("1.0"), TypeError,
     r"value of a Variable is a str; only real float64"),
    ("complex Variable", lambda: Variable(np.ones(2) * 1j), TypeError,
     r"complex128 array; only real float64"),
    ("backward without g", lambda: (_vec(3) * 2.0).backward(), ValueError,
     r"shape \(3,\) needs g"),
    ("backward g shape", lambda: (_vec(3) * 2.0).backward(np.ones(4)), ValueError,
     r"g has shape \(4,\), but the output .* has shape \(3,\)"),
    ("gradient of a vector", lambda: gradient(lambda x: x * 2.0, np.ones(3)), ValueError,
     r"scalar-valued f; f returned a Variable of shape \(3,\)"),
    ("gradient of a constant array", lambda: gradient(lambda x: np.ones(2), 1.0), ValueError,
     r"f returned an array of shape \(2,\)"),
    ("gradient of None", lambda: gradient(lambda x: None, 1.0), TypeError,
     r"f returned a NoneType"),
    ("string argument", lambda: gradient(lambda x, s: x, 1.0, "text"), TypeError,
     r"argument 1 is a str; reverse mode differentiates real floats"),
    ("complex argument", lambda: gradient(np.sum, np.ones(2, complex)), TypeError,
     r"argument 0 is an array of dtype complex128; reverse mode"),
    ("bool argument", lambda: gradient(lambda x: x, True), TypeError, r"argument 0.*bool"),
    ("list argument", lambda: gradient(np.sum, [1.0, 2.0]), TypeError, r"argument 0.*list"),
    ("pad mode backward", lambda: gradient(
        lambda a: np.sum(np.pad(a, 1, mode="edge")), np.ones(3)), rules.MissingRuleError,
     r"mode='edge'"),
]


@pytest.mark.parametrize("call, error, match", [e[1:] for e in ERRORS], ids=[e[0] for e in ERRORS])
def test_error(call, error, match):
    with pytest.raises(error, match=match):
        call()


def test_in_place_update_of_a_plain_array_is_refused():
    total = np.zeros(3)
    with pytest.raises(ValueError, match=r"numpy\.add\(\.\.\., out=.*a = a \+ v"):
        total += _vec(3)


def test_a_failing_backward_changes_no_grad():
    x, m = Variable(np.array([1.0, 2.0])), Variable(np.ones((2, 2, 2)))
    np.sum(x * x).backward()
    before = x.grad.copy()
    y = np.sum(np.pad(m, 1, mode="edge")) + np.sum(x * 3.0)  # x's cotangent is found
    # before the vjp of pad (which has no rule for mode="edge") is met
    with pytest.raises(rules.MissingRuleError):
        y.backward()
    np.testing.assert_array_equal(x.grad, before)
    assert m.grad is None
