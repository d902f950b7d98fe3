"""The compiled engine (kernels.ad.compiled) against forward mode's dual numbers, an
independent reference, on hand-written and randomly generated functions; the field's evals
it compiles against their hand-written derivatives; every construct it refuses named with
its line; numba's disk cache found by a second process."""

import functools
import importlib.util
import json
import re
import subprocess
import sys
import textwrap

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from kernels.ad import compiled, forward
from kernels.ad.compiled import CompileRefused
from kernels.ad.problems import PROBLEMS

RTOL = 1e-10


def _close(got, want, rtol=RTOL):
    assert len(got) == len(want)
    for g, w in zip(got, want):
        assert np.shape(g) == np.shape(w)
        np.testing.assert_allclose(g, w, rtol=rtol, atol=rtol * max(1.0, np.max(np.abs(w))))


# -- hand-written cases: one construct each -------------------------------------------

def scalar_loop(x, y):
    s = 0.0
    for i in range(len(x)):
        s = s + np.sin(x[i]) * y
        if i % 2 == 0:
            s = s * 1.5
    return s + np.sum(np.exp(x) * x)


def nested_triangle(x):
    # the inner loop's length changes with the outer index: each count is saved
    total = 0.0
    for i in range(len(x)):
        acc = x[i]
        for j in range(i):
            acc = acc * np.cos(x[j]) + x[i] / (1.0 + j)
        total = total + acc * acc
    return total


def carried_arrays(x, w):
    h = x
    c = x * 0.0
    for _ in range(4):
        g = np.tanh(h * w + c)
        c = c * 0.5 + g
        h = g * np.sin(c)
    return np.sum(h * h) + np.sum(c)


def swap(x, y):
    a, b = x, y
    for _ in range(3):
        a, b = b, a * b + 1.0
    return np.sum(a) + np.sum(b)


def branch_values(x):
    # one branch computes an array the other does not: each branch saves its own
    out = 0.0
    for i in range(len(x)):
        if x[i] > 0.5:
            t = np.exp(x * x[i])
            out = out + np.sum(t)
        else:
            out = out - x[i] ** 2
    return out


def _helper(v, scale=2.0):
    return np.tanh(v) * scale


def inlined(x):
    return np.sum(_helper(x) + _helper(x[::-1], scale=0.5)) + _helper(x[0])


def slices_and_joins(x):
    y = np.concatenate((x[:1], x[1:] * x[:-1]))
    z = np.concatenate((y, x[::2]))
    return np.sum(z * z) + y[-1] * x[0]


def matrices(a, b):
    m = np.reshape(a, (3, 4))
    v = m @ b
    w = m.T @ v
    return np.dot(v, v) + np.sum(np.dot(m, m.T)) + np.sum(w * b) + np.sum(m, axis=0)[1]


def broadcasting(a, b):
    m = np.reshape(a, (3, 4))
    col = np.reshape(b, (3, 1))
    return np.sum(m * col + b[0]) + np.sum(np.exp(m - np.max(m)))


def reductions(a):
    m = np.reshape(a, (4, 3))
    return (np.sum(np.min(m, axis=0)) + np.sum(np.max(m, axis=1)) + np.max(a)
            + np.sum(np.sum(m, axis=1) ** 2))


def positional_axes(a):
    # numpy's positional axis is the keyword (it was once dropped: a silent wrong gradient)
    m = np.reshape(a, (4, 3))
    return (np.sum(np.sum(m, 0) ** 2) + np.sum(m.sum(1) ** 3) + np.sum(np.max(m, 0))
            + np.sum(m.min(1)) + np.mean(m, None))


def trace_of_product(a, b):
    # the seeds' tr(A @ B), on rectangular factors
    return np.trace(np.reshape(a, (3, 4)) @ np.reshape(b, (4, 3))) + np.trace(
        np.reshape(a, (4, 3)))


def shared_cotangent(x):
    # a + b passes its cotangent to both; a's is added into again later (by e's adjoint),
    # which must not change b's (the two were once one array: a wrong gradient)
    a = np.sin(x)
    b = np.cos(x)
    e = a * 3.0
    c = a + b
    return np.sum(c * e)


def shared_through_a_chain(x, y):
    # c's cotangent goes to a and b as it is; a's on to x as it is, and x's is added into
    # afterwards (x * 3.0's term): b's must not see that (its own array, or b is wrong)
    b = np.sin(y)
    d = np.sum(x * 3.0)
    a = x + 1.0
    c = a + b
    return np.sum(c * c) + d


def conditional_expression(x):
    total = 0.0
    for j in range(len(x)):
        term = x[j] * x[j - 1]
        total = total + term if j % 2 == 0 else total - term
    return total


def element_loop(x):
    total = 0.0
    for xi in x:
        total = total + np.cos(2.0 * xi) * xi
    return total + np.mean(x * x)


_WEIGHTS = np.linspace(0.5, 1.5, 6)


def global_array(x):
    return np.sum(np.sin(x * _WEIGHTS)) + np.dot(_WEIGHTS, x)


def array_of_numbers(x):
    v = np.array([x[0] * x[1], np.sin(x[2]), 2.0])
    return np.sum(v * v)


def keyword_data(x, *, scale, offset=1.0):
    return np.sum(np.log(x * scale + offset))


def list_state(x, w):
    # lstm's shape: each layer's state in a list, rebuilt every step by appends in an
    # inner loop, read back by index; a list made by a comprehension from data-free rows
    rows = [x * w[k] for k in range(3)]
    state = [x * 0.0 for _ in range(3)]
    total = 0.0
    for t in range(4):
        h = rows[t % 3]
        fresh = []
        for k in range(3):
            h = np.tanh(h * w[k] + state[k])
            fresh.append(h)
        state = fresh
        total = total + np.sum(state[-1] * state[0])
    return total


def list_of_floats(x):
    values = []
    for i in range(len(x)):
        values.append(x[i] * x[i - 1])
    total = 0.0
    for v in values:
        total = total + np.sin(v)
    return total + values[0] * values[len(values) - 1]


def list_placeholders(x):
    # elements no term reaches (the first, the last), one read twice, an appended datum
    parts = [x * 2.0, np.sin(x), np.ones(len(x)), x * x]
    return np.sum(parts[1] * parts[1]) + np.sum(parts[3] * parts[2]) + parts[1][0]


def stacks(x, w):
    # gmm's shapes: a list of matrices stacked on a new axis, its axes permuted, @ of a
    # stack by a stack, by a matrix and of a matrix by a stack, a max along a vector's axis
    cols = []
    for c in range(3):
        cols.append(x[:, c:c + 3] * w[c])
    s = np.stack(cols, axis=-1)  # (2, 3, 3)
    t = np.transpose(np.stack(cols), (1, 2, 0)) @ s
    u = s @ np.transpose(s[0]) + s[1] @ s
    top = np.max(w, axis=0)
    spread = np.sum(np.exp(w - np.expand_dims(top, 0)), axis=0)
    return np.sum(t * u) + np.sum(np.transpose(s, (0, 2, 1)) * u) + top * np.log(spread)


def _returns_early(x):
    if len(x) > 3:
        return np.sum(np.sin(x))
    y = x * 2.0
    if len(x) == 3:
        return np.sum(y * x)
    return np.sum(y)


def early_returns(x):
    return _returns_early(x) + _returns_early(x[:3]) * 2.0 + _returns_early(x[:2]) * 3.0


def sliced_weights(w, x):
    # lstm's weights: rows and slices of a parameter in every step, taken again by the
    # adjoint rather than pushed; a slice of the carried state is pushed (it changes)
    h, total = x, 0.0
    for t in range(4):
        row = w[t % 2]
        h = np.tanh(row[:3] * h + row[3:] * h[::-1])
        total = total + np.sum(h[1:] * row[1:3])
    return total


def _power(x, n):
    # x ** n by halving n: a recursion log n deep, through a branch
    if n == 0:
        return x * 0.0 + 1.0
    half = _power(x, n // 2)
    return half * half * x if n % 2 == 1 else half * half


def recursive_power(x):
    return np.sum(_power(x, 5) + _power(np.sin(x), 2))


def _swapped(v, w, depth):
    # the first call differentiates v only; the recursive one passes v * 2 as w: the
    # function is lowered again with both differentiated
    if depth == 0:
        return np.sum(v * w)
    return _swapped(w, v * 2.0, depth - 1) + np.sum(np.cos(v))


def widened_recursion(x):
    return _swapped(x, np.ones(len(x)), 3)


def _even(x, k):
    return x if k == 0 else _odd(x * 0.5, k - 1) + x


def _odd(x, k):
    return np.sin(x) if k == 0 else _even(x, k - 1) * x


def mutual_recursion(x):
    return np.sum(_even(x, 5))


def advanced_indices(x):
    m = np.reshape(x, (3, 4))
    rows = [2, 0, 2]  # a repeated index adds its cotangent twice
    cols = [c for c in range(4) if c != 1]
    t = np.reshape(x, (2, 3, 2))
    middle = np.arange(2) + 1
    return (np.sum(m[rows, 1:] ** 2) + np.sum(np.sin(m[1:, cols]))
            + np.sum(t[:, middle, :] * t[:, middle, :]) + np.sum(x[rows] * x[cols]))


def views_beside_their_base(x):
    # a cotangent shared with the output's is read by the next adjoint without a copy;
    # a view of an operand (x[::-1] beside x) still gets its own, or the reversed add
    # would read entries it has already overwritten
    y = x + x[::-1]
    z = np.exp(x) + x[1:3].sum() + x[::-1] * 2.0
    return np.sum(np.sin(y) * np.arange(len(x))) + np.sum(z * z)


CASES = [
    (scalar_loop, lambda rng: (rng.random(7), 0.7)),
    (nested_triangle, lambda rng: (rng.random(6),)),
    (carried_arrays, lambda rng: (rng.random(5), rng.random(5))),
    (swap, lambda rng: (rng.random(4), rng.random(4))),
    (branch_values, lambda rng: (rng.random(8),)),
    (inlined, lambda rng: (rng.random(5),)),
    (slices_and_joins, lambda rng: (rng.random(6),)),
    (matrices, lambda rng: (rng.random(12), rng.random(4))),
    (broadcasting, lambda rng: (rng.random(12), rng.random(3))),
    (reductions, lambda rng: (rng.random(12),)),
    (positional_axes, lambda rng: (rng.random(12),)),
    (trace_of_product, lambda rng: (rng.random(12), rng.random(12))),
    (shared_cotangent, lambda rng: (rng.random(6),)),
    (shared_through_a_chain, lambda rng: (rng.random(5), rng.random(5))),
    (conditional_expression, lambda rng: (rng.random(6),)),
    (element_loop, lambda rng: (rng.random(6),)),
    (global_array, lambda rng: (rng.random(6),)),
    (array_of_numbers, lambda rng: (rng.random(3),)),
    (list_state, lambda rng: (rng.random(4), rng.random(3))),
    (list_of_floats, lambda rng: (rng.random(5),)),
    (list_placeholders, lambda rng: (rng.random(4),)),
    (stacks, lambda rng: (rng.random((2, 6)), rng.random(3))),
    (early_returns, lambda rng: (rng.random(5),)),
    (sliced_weights, lambda rng: (rng.random((2, 6)), rng.random(3))),
    (recursive_power, lambda rng: (rng.random(4),)),
    (widened_recursion, lambda rng: (rng.random(3),)),
    (mutual_recursion, lambda rng: (rng.random(3),)),
    (advanced_indices, lambda rng: (rng.random(12),)),
    (views_beside_their_base, lambda rng: (rng.random(7),)),
]


def test_a_module_calling_a_recursive_function_is_not_cached():
    # numba's cached copy of a self-calling function crashes when loaded (numba #6061)
    source = compiled.show(recursive_power, np.ones(3))
    assert "jit = njit  # not cached" in source and "cache=True" not in source
    assert "cache=True" in compiled.show(scalar_loop, np.ones(3), 0.5)


def test_views_of_parameters_are_taken_again_not_pushed():
    w, x = np.ones((2, 6)), np.ones(3)
    source = compiled.show(sliced_weights, w, x)
    gradient = source[source.index("def gradient("):]
    again = re.findall(r"(\w+) = .*# again:", gradient)
    pushed = re.findall(r"_rt\.put\(_ft, _fc, (\w+)\)", gradient)
    # the row, its two slices and row[1:3] are taken again; pushed: the head h, h[::-1],
    # tanh's result (its partial reads it) and h[1:] (views of values the loop changes)
    assert len(again) == 4 and not set(again) & set(pushed), (again, pushed)
    assert len(pushed) == 4, pushed


def residuals(x):
    return np.concatenate((np.sin(x * x[0]), np.array([x[0] ** 2 - x[1]]), x[::-1] * 2.0))


@pytest.mark.parametrize("mode", [None, "reverse"])
def test_jacobian_matches_forward_mode(mode):
    x = np.random.default_rng(5).random(4)
    np.testing.assert_allclose(compiled.jacobian(residuals, x, mode=mode),
                               forward.jacobian(residuals, x), rtol=1e-12)
    with pytest.raises(ValueError, match="array-valued"):
        compiled.jacobian(lambda y: np.sum(y), x, mode="reverse")
    with pytest.raises(ValueError, match=r"scalar-valued.*\(7,\)"):
        compiled.gradient(residuals, x[:3])


@pytest.mark.parametrize("f, make", CASES, ids=[f.__name__ for f, _ in CASES])
def test_matches_forward_mode(f, make):
    rng = np.random.default_rng(7)
    for _ in range(2):
        args = make(rng)
        _close(compiled.gradient(f, *args), forward.gradient(f, *args))
        assert compiled.objective(f, *args)(*args) == pytest.approx(f(*args), rel=1e-12)


def test_data_by_keyword_is_not_differentiated():
    x = np.random.default_rng(1).random(5) + 0.5
    bound = functools.partial(keyword_data, scale=3.0)
    (g,) = compiled.gradient(bound, x)
    np.testing.assert_allclose(g, 3.0 / (3.0 * x + 1.0), rtol=1e-13)
    (g2,) = compiled.gradient(functools.partial(keyword_data, scale=3.0, offset=2.0), x)
    np.testing.assert_allclose(g2, 3.0 / (3.0 * x + 2.0), rtol=1e-13)


SCALE = 2.0


def _scaled(v):
    return v * SCALE


def rebindable(x):
    return np.sum(_scaled(x) * _WEIGHTS[:3])


def test_a_rebound_global_is_compiled_again():
    # numbers are compiled as literals and helpers inlined: a global rebound after the
    # first call must not leave the old one in the code
    global SCALE, _scaled
    x = np.array([1.0, 2.0, 3.0])
    old_scale, old_helper = SCALE, _scaled
    try:
        np.testing.assert_allclose(compiled.gradient(rebindable, x)[0], 2.0 * _WEIGHTS[:3])
        SCALE = 3.0
        np.testing.assert_allclose(compiled.gradient(rebindable, x)[0], 3.0 * _WEIGHTS[:3])
        _scaled = lambda v: v * v  # noqa: E731
        np.testing.assert_allclose(compiled.gradient(rebindable, x)[0], 2.0 * x * _WEIGHTS[:3])
    finally:
        SCALE, _scaled = old_scale, old_helper


def test_float_argument_gives_a_float():
    grads = compiled.gradient(scalar_loop, np.linspace(0.1, 0.9, 5), 0.3)
    assert isinstance(grads[1], float) and grads[0].shape == (5,)


def test_the_tape_grows_and_is_reused():
    # 20,000 iterations push more than the first tape holds: grown, then kept
    def long_loop(x):
        s = 0.0
        for i in range(20000):
            s = s + np.sin(x[i % 3] * s + 0.001 * i)
        return s

    x = np.array([0.3, 0.5, 0.7])
    want = forward.gradient(long_loop, x)
    _close(compiled.gradient(long_loop, x), want)
    prepared, _ = compiled.prepare(long_loop, x)
    assert prepared.compiled._ft.size >= 20000 * 2
    _close(compiled.gradient(long_loop, x), want)


# -- random programs ------------------------------------------------------------------

_STATEMENTS = [
    "a = np.sin(a) * b + s",
    "b = np.tanh(a * b) - np.cos(s)",
    "s = s * 0.9 + np.sum(a * a) / (1.0 + np.sum(b * b))",
    "a = np.concatenate((a[:1], a[1:] * b[:-1]))",
    "s = s + a[i % 4] * b[(i + 1) % 4]",
    "b = b * np.exp(-s * s) + a[::-1]",
    "s = np.sqrt(s * s + 1.0) + np.max(a)",
    "a = a / (1.0 + b * b)",
    "b = np.sin(a) * (a + b) * 0.5",
    "a = [np.sin(a), a * b, b][i % 4 % 3] * 0.5",
]


@st.composite
def _programs(draw):
    lines, depth = ["def program(a, b, s):"], 1
    count = draw(st.integers(2, 6))
    for _ in range(count):
        kind = draw(st.sampled_from(["plain", "loop", "branch"]))
        body = [draw(st.sampled_from(_STATEMENTS)) for _ in range(draw(st.integers(1, 3)))]
        if kind == "plain":
            body = [b.replace("i % 4", "1").replace("(i + 1) % 4", "2") for b in body]
            lines += ["    " * depth + b for b in body]
        elif kind == "loop":
            lines.append("    " * depth + f"for i in range({draw(st.integers(0, 4))}):")
            lines += ["    " * (depth + 1) + b for b in body]
        else:
            lines.append("    " * depth + "for i in range(3):")
            lines.append("    " * (depth + 1) + "if i % 2 == 0:")
            lines += ["    " * (depth + 2) + b for b in body]
            lines.append("    " * (depth + 1) + "else:")
            lines.append("    " * (depth + 2) + "s = s * 1.1")
    lines.append("    return np.sum(a * b) + s")
    return "\n".join(lines) + "\n"


_MODULES = []


def _load(tmp_path_factory, source):
    path = tmp_path_factory.mktemp("programs") / f"program_{len(_MODULES)}.py"
    path.write_text("import numpy as np\n\n\n" + source)
    spec = importlib.util.spec_from_file_location(path.stem, path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    _MODULES.append(module)  # alive for linecache while the test runs
    return module.program


@settings(max_examples=8, deadline=None, derandomize=True,
          suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow])
@given(source=_programs(), seed=st.integers(0, 2**16))
def test_random_programs_match_forward_mode(tmp_path_factory, source, seed):
    program = _load(tmp_path_factory, source)
    rng = np.random.default_rng(seed)
    args = (rng.random(4), rng.random(4), float(rng.random()))
    want = forward.gradient(program, *args)
    _close(compiled.gradient(program, *args), want, rtol=1e-9)


# -- the field's evals ----------------------------------------------------------------

@pytest.mark.parametrize("name", ["lse", "llsq", "ode", "kmeans", "lstm", "gmm", "det"])
def test_evals_match_their_hand_written_derivatives(name):
    problem = PROBLEMS[name]
    rng = np.random.default_rng(3)
    size = problem.sizes[0]
    data = problem.make_data(size, rng) if problem.make_data else {}
    args = problem.make_args(size, rng, **data)
    value, want = problem.manual(*args, **data)
    f = functools.partial(problem.f, **data)
    got = compiled.gradient(f, *args)
    for g, w in zip(got, want):
        assert np.max(np.abs(g - w)) <= 1e-8 * np.max(np.abs(w))
    assert compiled.objective(f, *args)(*args) == pytest.approx(value, rel=1e-12)


# -- refusals: the construct and its line ---------------------------------------------

def uses_while(x):
    s = 0.0
    while s < 1.0:
        s = s + x[0]
    return s


def writes_into_array(x):
    y = np.zeros(3)
    y[0] = x[0]
    return np.sum(y)


_THREE = np.array([1.0, 2.0, 3.0])


def _weighted(x, k):
    return np.sum(x * _THREE) if k == 0 else _weighted(x * 0.5, k - 1)


def recursive_global(x):
    return _weighted(x, 2)


def boolean_mask(x):
    return np.sum(x[x > 1.0] ** 2)


def advanced_beside_int(x):
    rows = [0, 1]
    return np.sum(np.reshape(x, (1, 3))[0, rows])


def escapes(x):
    return float(x[0]) * 2.0


def active_bound(x):
    s = 0.0
    for i in range(int(x[0])):
        s = s + x[i]
    return s


def no_partials_rule(x):
    return np.sum(np.cross(x, x))


def matrix_only_axis(x):
    return np.sum(np.max(x[None, :, None], axis=1))


def trace_offset(x):
    return np.trace(np.reshape(x, (1, 3)), 1)


def loop_local_after(x):
    for i in range(3):
        t = x * i
    return np.sum(t)


def aliased_update(x):
    u = x * 1.0
    b = u
    u += 1.0  # numpy updates b too
    return np.sum(b * x)


def list_repeated(x):
    parts = [x * 2.0]
    more = parts * 2  # a list twice as long, not twice each element
    return np.sum(more[1])


def append_in_branch(x):
    parts = [x]
    if len(x) > 2:
        parts.append(x * 2.0)
    return np.sum(parts[-1])


def stale_alias(x):
    parts = [x * 2.0]
    same = parts
    parts.append(x)
    return np.sum(same[-1])


def loop_variable_after(x):
    for i in range(2):  # noqa: B007 (read after the loop: what is refused)
        x = x * 2.0
    return x[i]


REFUSED = [
    (list_repeated, 2, "an operation on a list"),
    (append_in_branch, 3, "an append inside an if"),
    (stale_alias, 4, "a list appended to since"),
    (loop_variable_after, 3, "the variable of the for loop at line"),
    (aliased_update, 3, "in-place"),
    (uses_while, 2, "while loop"),
    (writes_into_array, 2, "assignment into an array"),
    (recursive_global, -4, "a global array read in the recursive function _weighted"),
    (boolean_mask, 1, "a boolean mask"),
    (advanced_beside_int, 2, "an advanced index with other than slices"),
    (escapes, 1, "float() of a differentiated value"),
    (active_bound, 2, "int() of a differentiated value"),
    (no_partials_rule, 1, "numpy.cross"),
    (matrix_only_axis, 1, "takes vectors and matrices"),
    (loop_local_after, 3, "first assigned in the loop"),
    (trace_offset, 1, "np.trace(..., offset=...)"),
]


@pytest.mark.parametrize("f, offset, what", REFUSED, ids=[f.__name__ for f, _, _ in REFUSED])
def test_refused_by_construct_and_line(f, offset, what):
    x = np.array([0.5, 1.5, 2.5])
    with pytest.raises(CompileRefused) as caught:
        compiled.gradient(f, x)
    message = str(caught.value)
    assert what in message
    assert f"line {f.__code__.co_firstlineno + offset}" in message


def test_bad_arguments_are_named():
    with pytest.raises(TypeError, match="str"):
        compiled.gradient(scalar_loop, np.ones(3), "text")
    with pytest.raises(TypeError, match="takes 2 differentiated arguments"):
        compiled.gradient(scalar_loop, np.ones(3))


# -- numba's disk cache ---------------------------------------------------------------

_CHILD = textwrap.dedent("""
    import json, sys
    import numpy as np
    sys.path.insert(0, {root!r})
    from tests.ad.test_compiled import carried_arrays
    from kernels.ad import compiled
    x = np.linspace(0.1, 0.5, 5)
    prepared, args = compiled.prepare(carried_arrays, x, x[::-1].copy())
    value, grads = prepared.gradient(*args)
    stats = [d.stats for d in (prepared.compiled._objective, prepared.compiled._gradient)]
    print(json.dumps({{"hits": [sum(s.cache_hits.values()) for s in stats],
                      "misses": [sum(s.cache_misses.values()) for s in stats],
                      "grad": [list(g) for g in grads]}}))
""")


def test_a_second_process_loads_both_functions_from_numbas_cache(tmp_path):
    root = str(__import__("pathlib").Path(__file__).resolve().parents[2])
    env = {**__import__("os").environ, "QSIM_BENCH_CACHE": str(tmp_path)}
    runs = [json.loads(subprocess.run([sys.executable, "-c", _CHILD.format(root=root)],
                                      env=env, capture_output=True, text=True,
                                      check=True).stdout) for _ in range(2)]
    assert runs[0]["misses"] == [1, 1]
    assert runs[1]["hits"] == [1, 1] and runs[1]["misses"] == [0, 0]
    assert runs[0]["grad"] == runs[1]["grad"]
