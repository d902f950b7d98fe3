"""The source engine beyond the shared cases (tests/ad/cases.py, run by test_engines.py):
the rule table reached through statements, control flow, lists with map and sum, user
functions, the printed code, the cache and every refusal."""

import gc
import inspect
import math
import sys

import numpy as np
import pytest

from kernels.ad import problems, rules, source

from .cases import element_loop, index_loop, inner, outer
from .gradcheck import check_gradient


def _pos(rng, *shape):
    return rng.uniform(0.5, 1.5, shape) if shape else float(rng.uniform(0.5, 1.5))


# -- the rule table, reached through statements --------------------------------------------

def unary(x):
    y = np.sin(x) * np.cos(x) + np.tan(x) / np.exp(x)
    y = y + np.log(x) * np.sqrt(x) - np.tanh(x) + np.abs(x - 1.0)
    return np.sum(y * x)


def broadcasting(m, row, col, s):
    a = m * row + col / s
    b = (m - row) ** 2 - s ** col
    return np.sum(a * b) + np.sum(-m) + np.sum(+row)


def reductions(m):
    per_column = np.sum(m, axis=0)
    per_row = m.sum(axis=1, keepdims=True)
    return np.sum(per_column ** 2) + np.sum(per_row * m) + np.mean(m, axis=1).sum() + m.mean()


def products(m, n, u, v, s):
    return (np.trace(m @ n.T) + np.sum(np.dot(m, v)) + u @ m @ v + np.dot(u, u) * s
            + np.sum(m.dot(v) * u) + np.sum(np.transpose(m) @ u) + np.dot(s, s))


def reshaping(m):
    flat = m.reshape(12)
    return np.sum(np.reshape(m, (4, 3)) @ m) + flat @ flat + np.sum(m.transpose() * m.T)


def indexing(m):
    first = m[0]
    corner = m[0, 1] * m[-1, -1]
    block = m[1:, :2]
    return (np.sum(first * first) + corner + np.sum(block.T @ block)
            + np.sum(m[:, None, 2] * m[[0, 0, 2]]))


def fan_out(x, s):
    y = x * s
    return np.sum(y * y * x) + np.sum(np.sin(y) * y) + s * s


def reassignment(x, s):
    x = x * 2.0
    s = s + np.sum(x)
    s += np.sum(x * x)
    s *= 0.5
    s -= np.sum(np.sin(x))
    s /= 3.0
    s **= 2
    return s


def constants(x):
    a, b, c = 20.0, -0.2, 2.0 * np.pi
    return np.sum(a * np.exp(b * x) + np.cos(c * x)) + np.e * np.sum(x)


def _pair(x):
    return x * 2.0, np.sin(x)


def unpacking(x):
    a, b = _pair(x)
    a, b = b, a
    (c, d), e = _pair(a), 3.0
    return np.sum(a * b + c * d * e)


def nested_calls(x, y):
    return outer(x, y) + outer(y, x)


def _scaled(x, scale=2.0, *, shift=1.0):
    return np.sum(x * scale + shift * x)


def keywords(x, s):
    return _scaled(x, shift=s) + _scaled(x, s) + _scaled(scale=s, x=x) + _scaled(x)


def _power(x, n):
    return 1.0 if n == 0 else x * _power(x, n - 1)


def recursion(x):
    return np.sum(_power(x, 3) - _power(x, 1))


def branches(x, s):
    if np.sum(x) > s:
        y = x * s
    elif s > 0:
        y = np.sin(x) + s
        z = y * 2.0
        y = z - x
    else:
        y = x
    return np.sum(y * y)


def tail_returns(x, s):
    y = np.sum(x * x)
    if s > 1.0:
        return y * s
    elif s > 0:
        return np.sin(y)
    else:
        return y


def conditional_expression(x):
    y = np.sin(x) if np.sum(x) > 2.5 else np.cos(x) * x
    return np.sum(y * x)


def row_loop(m):
    total = 0.0
    for row in m:
        total = total + inner(row, total) @ row
    return total


def zipped_loop(x, y):
    total = 0.0
    for i, (a, b) in enumerate(zip(x, y)):
        total = total + a * b * i
        last = a
    return total + last


def while_loop(x):
    s = x
    count = 0
    while np.sum(s * s) < 40.0:
        s = s * 1.5 + 0.1
        count += 1
    return np.sum(s) * count


def nested_loops(x):
    s = 0.0
    for i in range(len(x)):
        for j in range(i):
            if x[i] > x[j]:
                s = s + x[i] * x[j]
            else:
                s = s - np.sin(x[j])
    return s


def jumps(x):
    s = 0.0
    for i, xi in enumerate(x):
        if i % 3 == 1:
            continue
        s = s + np.sin(xi) * xi
        if s > 2.0:
            break
    k = 0
    while True:
        k += 1
        if k > 3:
            break
        s = s * x[0]
    return s


def lists(w):
    ws = [w, w * 2.0, np.sin(w)]
    total = 0.0
    for v in ws:
        total = total + np.sum(v * v)
    both = ws + [w * w]
    return total + np.sum(ws[1] * ws[2] * both[3]) + sum(ws[:2])[0]


def mapped(x):
    return sum(map(np.sin, x)) + sum(map(inner, x, x * 2.0)) + sum(x * x)


def _vec(rng, n=4):
    return _pos(rng, n)


CASES = [
    (unary, lambda rng: (_pos(rng, 3, 4),)),
    (broadcasting, lambda rng: (_pos(rng, 3, 4), _pos(rng, 4), _pos(rng, 3, 1), _pos(rng))),
    (reductions, lambda rng: (_pos(rng, 3, 4),)),
    (products, lambda rng: (_pos(rng, 3, 4), _pos(rng, 3, 4), _pos(rng, 3), _pos(rng, 4),
                            _pos(rng))),
    (reshaping, lambda rng: (_pos(rng, 3, 4),)),
    (indexing, lambda rng: (_pos(rng, 3, 4),)),
    (fan_out, lambda rng: (_vec(rng), _pos(rng))),
    (reassignment, lambda rng: (_vec(rng), _pos(rng))),
    (constants, lambda rng: (_vec(rng),)),
    (unpacking, lambda rng: (_vec(rng),)),
    (nested_calls, lambda rng: (_vec(rng), _vec(rng))),
    (keywords, lambda rng: (_vec(rng), _pos(rng))),
    (recursion, lambda rng: (_vec(rng),)),
    *[(branches, lambda rng, k=k, s=s: (k * _vec(rng), s))  # each branch in turn
      for k, s in [(1.0, 0.5), (1.0, 9.0), (-1.0, -0.5)]],
    *[(tail_returns, lambda rng, s=s: (_vec(rng), s)) for s in (2.0, 0.5, -1.0)],
    *[(conditional_expression, lambda rng, k=k: (k * _vec(rng),)) for k in (0.5, 2.0)],
    (element_loop, lambda rng: (_pos(rng, 7),)),
    (row_loop, lambda rng: (_pos(rng, 3, 4) / 4.0,)),
    (index_loop, lambda rng: (_pos(rng, 6),)),
    (zipped_loop, lambda rng: (_vec(rng), _vec(rng))),
    (while_loop, lambda rng: (_vec(rng),)),
    (nested_loops, lambda rng: (rng.uniform(0.0, 1.0, 6),)),
    (jumps, lambda rng: (_pos(rng, 8),)),
    (lists, lambda rng: (_vec(rng),)),
    (mapped, lambda rng: (_vec(rng),)),
]


@pytest.mark.parametrize("f, make_args", CASES, ids=[f.__name__ for f, _ in CASES])
def test_gradcheck(f, make_args):
    rng = np.random.default_rng(sum(map(ord, f.__name__)))
    check_gradient(source.gradient, f, *make_args(rng), rng=rng)


def test_branches_that_ran_are_the_ones_differentiated():
    x = np.array([0.5, 1.0])
    gx, gs = source.gradient(branches, x, 0.5)  # y = x * s
    assert np.allclose(gx, 2 * 0.25 * x) and np.isclose(gs, 2 * 0.5 * np.sum(x * x))
    gx, gs = source.gradient(branches, -x, -0.5)  # y = x
    assert np.allclose(gx, -2 * x) and gs == 0.0


@pytest.mark.parametrize("name", ["ackley_loop", "ackley", "polynomial", "trmul", "quadratic",
                                  "rational", "trig"])
def test_problems_match_their_manual_gradients(name):
    p = problems.PROBLEMS[name]
    args = p.make_args(p.sizes[0], np.random.default_rng(5))
    for got, want in zip(source.gradient(p.f, *args), p.manual(*args)[1]):
        np.testing.assert_allclose(got, want, rtol=1e-10, atol=1e-12)


def test_int_arguments_and_empty_loops():
    grads = source.gradient(lambda x, k: np.sum(x * np.arange(k)) + element_loop(x[:0]),
                            np.ones(3), 3)
    assert np.array_equal(grads[0], [0.0, 1.0, 2.0]) and grads[1] == 0.0


def test_element_loop_accumulates_sparsely(monkeypatch):
    dense = []
    from kernels.ad import _cotangents
    original = _cotangents.densify
    monkeypatch.setattr(_cotangents, "densify",
                        lambda ct: dense.append(type(ct)) or original(ct))
    (g,) = source.gradient(problems.ackley_loop, np.linspace(0.1, 1.0, 200))
    assert dense.count(rules.ScatterSum) == 1  # the 200 element cotangents, densified once
    np.testing.assert_allclose(g, problems.ackley_manual(np.linspace(0.1, 1.0, 200))[1][0])


def test_a_primitive_is_differentiated_by_its_rule_not_its_source():
    calls = []

    @rules.primitive
    def square(x):
        return np.array([v * v for v in x])  # a comprehension: the engine could not read it

    rules.defrule(square, [lambda g, ans, x: calls.append(x) or 2.0 * g * x],
                  lambda ts, ans, x: 2.0 * x * ts[0])
    try:
        x = np.array([1.0, 2.0])
        assert np.array_equal(source.gradient(lambda x: np.sum(square(x) * 3.0), x)[0], 6 * x)
        assert np.array_equal(source.gradient(lambda x: square(x)[1], x)[0], [0.0, 4.0])
        assert len(calls) == 2
    finally:
        del rules.RULES[square]


_GAIN = 2.0


def _gained(x):
    return np.sum(x) * _GAIN


def test_globals_and_closures_are_read_live_and_never_written(monkeypatch):
    scale = 2.0

    def f(x):
        return np.sum(x) * scale

    before = set(f.__globals__)
    assert source.gradient(f, np.ones(2))[0][0] == 2.0
    scale = 5.0
    assert source.gradient(f, np.ones(2))[0][0] == 5.0
    monkeypatch.setattr(sys.modules[__name__], "_GAIN", 3.0)
    assert source.gradient(_gained, np.ones(2))[0][0] == 3.0
    assert set(f.__globals__) == before


def test_transform_is_cached_per_function_and_dropped_with_it(monkeypatch):
    def f(x):
        return np.sum(x * x)

    lowered = []
    lower = source.lower
    monkeypatch.setattr(source, "lower", lambda fn, *rest: lowered.append(fn) or lower(fn, *rest))
    source.gradient(f, np.ones(2))
    source.gradient(f, np.ones(2))
    assert lowered == [f] and source.transform(f) is source.transform(f)
    key = id(f)
    del f, lowered[:]
    gc.collect()
    assert key not in source.runtime.TRANSFORMS


def test_printed_code_shows_pullbacks_and_source_lines(capsys):
    f = problems.ackley_loop
    lines, first = inspect.getsourcelines(f)
    line = first + next(i for i, text in enumerate(lines) if "sum_cos +=" in text)
    code = source.transform(f).code
    assert f"# line {line}: sum_cos += np.cos(c * xi)" in code
    # np.cos is bound when f is transformed: called directly, its vjp named after it
    assert "_np_cos(_t" in code and "_np_cos_d0(" in code and "_acc_item(" in code
    # the adjoint reads the stacks through iterators (it can be replayed: jacobian)
    assert "def _adjoint(" in code and "= reversed(_st" in code and ".append(" in code
    source.show(f)
    assert capsys.readouterr().out == code + "\n" and str(source.transform(f)) == code


# -- refusals ---------------------------------------------------------------------------

def r_try(x):
    try:  # <- try statement
        y = x
    except ValueError:
        y = x
    return np.sum(y)


def r_with(x):
    with open(x):  # <- with statement
        pass
    return 1.0


def r_lambda(x):
    g = lambda t: t  # <- lambda  # noqa: E731
    return np.sum(g(x))


def r_comprehension(x):
    while np.sum([xi for xi in x]) > 9.0:  # <- list comprehension evaluated conditionally
        x = x / 2.0
    return np.sum(x)


def r_generator(x):
    return x[0] > 0 and sum(xi for xi in x)  # <- generator expression evaluated conditionally


def r_def(x):
    def g(t):  # <- nested def
        return t
    return np.sum(g(x))


def r_class(x):
    class C:  # <- class definition
        pass
    return np.sum(x)


def r_global(x):
    global _GAIN  # <- global statement
    return np.sum(x)


def _make_nonlocal():
    k = 1.0

    def r_nonlocal(x):
        nonlocal k  # <- nonlocal statement
        return np.sum(x) * k
    return r_nonlocal


def r_yield(x):
    yield x  # <- yield


async def r_async(x):  # <- async def
    return x


def r_augmented_subscript(x):
    x[0] += 1.0  # <- augmented assignment to a subscript \(x\[i\] \+= \.\.\.
    return np.sum(x)


def r_subscript(x):
    x[0] = 1.0  # <- assignment to a subscript \(x\[i\] = \.\.\.
    return np.sum(x)


def r_walrus(x):
    if (n := len(x)) > 0:  # <- assignment expression \(:=\)
        return np.sum(x) * n
    else:
        return 0.0


def r_no_return(x):
    y = x  # <- a function that does not end with a return statement  # noqa: F841


def r_if_without_else(x):
    if np.sum(x) > 0:  # <- a final if without else
        return np.sum(x)


def r_variadic(*xs):  # <- variadic parameters
    return 1.0


def r_attribute(x):
    return np.sum(x.flat)  # <- attribute \.flat on a differentiable value


def r_method(x):
    return np.sum(x.tolist())  # <- method \.tolist\(\) on a differentiable value


def r_zip(x):
    return sum(zip(x, x))  # <- zip\(\.\.\.\) of differentiable values outside a for


def r_boolean(x):
    return np.sum(x) or 1.0  # <- and/or on a differentiable value


def r_floor_division(x):
    return np.sum(x << 2)  # <- operator '<<' on a differentiable value


def r_del(x):
    y = x
    del y  # <- del statement
    return np.sum(x)


def r_for_else(x):
    for xi in x:  # <- for \.\.\. else
        pass
    else:
        pass
    return np.sum(x)


def r_import(x):
    import math  # <- import inside the function
    return math.pi * np.sum(x)


def r_unassigned(x):
    z = y * 2.0  # <- local variable 'y' used where it may be unassigned
    y = x
    return np.sum(z)


def r_starred(x):
    return np.sum(np.stack([*x]))  # <- starred expression


REFUSED = [r_try, r_with, r_lambda, r_comprehension, r_generator, r_def, r_class, r_global,
           _make_nonlocal(), r_yield, r_async, r_augmented_subscript, r_subscript, r_walrus,
           r_no_return, r_if_without_else, r_variadic, r_attribute, r_method,
           r_zip, r_boolean, r_floor_division, r_del, r_for_else, r_import, r_unassigned,
           r_starred]


@pytest.mark.parametrize("f", REFUSED, ids=[f.__name__ for f in REFUSED])
def test_refused_constructs_are_named_with_file_and_line(f):
    lines, first = inspect.getsourcelines(f)
    at = next(i for i, text in enumerate(lines) if "# <- " in text)
    what = lines[at].split("# <- ")[1].split("  # noqa")[0].strip()
    pattern = rf"{what}.* \(.*test_source\.py, line {first + at}, in {f.__qualname__}\)"
    with pytest.raises(source.SourceTransformError, match=pattern):
        source.gradient(f, np.ones(3))


def test_other_errors_name_what_is_wrong():
    namespace = {}
    exec("def f(x):\n    return x * 2.0\n", {"np": np}, namespace)
    with pytest.raises(source.SourceTransformError, match=r"cannot read the source of f"):
        source.gradient(namespace["f"], 1.0)
    with pytest.raises(TypeError, match=r"Python functions .* got ufunc"):
        source.gradient(np.sin, 1.0)
    with pytest.raises(TypeError, match=r"argument 0 is an array of dtype int64"):
        source.gradient(lambda x: np.sum(x * 1.0), np.arange(3))
    with pytest.raises(ValueError, match=r"scalar-valued.*returned a tuple"):
        source.gradient(_pair, 1.0)
    with pytest.raises(source.SourceTransformError, match=r"math\.fsum\(\) of a differentiable"):
        source.gradient(lambda x: math.fsum([x[0], x[1]]), np.ones(2))
    with pytest.raises(rules.MissingRuleError, match=r"numpy\.linalg\.eig.*defpartials"):
        source.gradient(lambda x: np.sum(np.linalg.eig(np.outer(x, x))[0]), np.ones(2))
    with pytest.raises(rules.MissingRuleError, match=r"numpy\.spacing"):
        source.gradient(lambda x: _scaled(np.spacing(x)), np.ones(2))
    with pytest.raises(rules.MissingRuleError, match=r"out="):
        source.gradient(lambda x: np.sum(np.sin(x, out=x)), np.ones(2))
