"""The AD problems: every manual gradient against central differences, values against the
objective, the engines' output form, deterministic inputs, and objectives that reach numpy
only through the module global ``np`` (so adapters can swap it)."""

import ast
import builtins
import dis
import functools
import inspect
import sys
import types

import numpy as np
import pytest

from kernels.ad import evals, finite, problems
from kernels.ad.evals import _descent
from kernels.ad.problems import PROBLEMS
from tests.ad.gradcheck import check_gradient, check_shapes

NAMES = [name for name, p in PROBLEMS.items() if p.origin == "seeds"]
#: every problem, the evals (tests/ad/test_evals.py) too: what adapters rely on
ALL = list(PROBLEMS)

#: what the objectives may use of numpy: the contract's functions (docs/architecture.md)
#: and constants; the evals add what their definitions need (each peer's namespace has it
#: or the peer skips the eval, naming the function)
CONTRACT_NUMPY = {"sin", "cos", "tan", "exp", "log", "sqrt", "tanh", "abs", "sum", "dot",
                  "trace", "transpose", "pi", "e"}
EVAL_NUMPY = {"linspace", "arange", "sign", "max", "min", "reshape", "concatenate", "zeros",
              "stack", "expand_dims", "cross", "ravel", "array", "einsum", "eye"}


def _args(problem, n, seed=0):
    return problem.make_args(n, np.random.default_rng(seed))


def _all_cases():
    return [(name, n) for name in NAMES for n in PROBLEMS[name].sizes]


def test_registry_names_and_order():
    assert NAMES == ["trmul", "quadratic", "mps", "rational", "trig", "ackley_loop", "ackley",
                     "polynomial"]
    for name, p in PROBLEMS.items():
        assert p.name == name
        # a size is a positive int, or a label naming several (an eval's "d=2,k=5")
        assert p.sizes and all(isinstance(n, int) and n > 0 or isinstance(n, str)
                               for n in p.sizes)
        assert p.summary and "\n" not in p.summary


@pytest.mark.parametrize("name", NAMES)
def test_manual_gradient_matches_central_differences(name):
    p = PROBLEMS[name]
    args = _args(p, min(p.sizes))  # 16 for the loops, 30 for the matrix problems
    value, grads = p.manual(*args)
    check_shapes(grads, args)
    for i, (got, want) in enumerate(zip(grads, finite.gradient(p.f, *args))):
        scale = np.max(np.abs(want))
        np.testing.assert_allclose(got, want, rtol=1e-7, atol=1e-8 * max(scale, 1.0),
                                   err_msg=f"{name}: gradient {i}")


@pytest.mark.parametrize("name, n", _all_cases())
def test_manual_value_and_direction_at_every_size(name, n):
    # one directional difference per size keeps the large sizes cheap (two calls of f)
    p = PROBLEMS[name]
    args = _args(p, n, seed=n)
    value, _ = p.manual(*args)
    assert isinstance(value, float)
    assert value == pytest.approx(float(p.f(*args)), rel=1e-11, abs=1e-11)
    check_gradient(lambda f, *a: p.manual(*a)[1], p.f, *args, rng=np.random.default_rng(n))


@pytest.mark.parametrize("name", NAMES)
def test_make_args_is_deterministic_and_float64(name):
    p = PROBLEMS[name]
    n = min(p.sizes)
    first, again, other = _args(p, n, 7), _args(p, n, 7), _args(p, n, 8)
    assert isinstance(first, tuple) and len(first) == len(inspect.signature(p.f).parameters)
    for a, b in zip(first, again):
        assert isinstance(a, float) or (isinstance(a, np.ndarray) and a.dtype == np.float64)
        np.testing.assert_array_equal(a, b)
    assert any(np.any(a != c) for a, c in zip(first, other))


def test_the_two_ackleys_are_one_function():
    x = _args(PROBLEMS["ackley"], 16)[0]
    assert problems.ackley_loop(x) == pytest.approx(problems.ackley(x), rel=1e-13)
    assert PROBLEMS["ackley_loop"].manual is PROBLEMS["ackley"].manual


# -- the objectives are plain numpy code, reached through the global np -----------------

def _module(fn):
    return sys.modules[fn.__module__]


def _called_functions(fn):
    """``fn`` and the module-level functions of its module it calls, transitively."""
    module = vars(_module(fn))
    found, todo = {}, [fn]
    while todo:
        f = todo.pop()
        if f.__name__ in found:
            continue
        found[f.__name__] = f
        todo += [module[name] for name in _global_names(f)
                 if isinstance(module.get(name), types.FunctionType)]
    return list(found.values())


def _global_names(fn):
    return {ins.argval for ins in dis.get_instructions(fn) if ins.opname == "LOAD_GLOBAL"}


@pytest.mark.parametrize("name", ALL)
def test_objective_reaches_numpy_only_through_np(name):
    f = PROBLEMS[name].f
    for fn in _called_functions(f):
        # the nested evals' descent is shared, and reaches no numpy at all
        assert fn.__module__ in (f.__module__, _descent.__name__)
        for g in _global_names(fn) - {"np", "functools"}:  # partial binds a helper's data
            value = vars(_module(fn)).get(g)
            # its own helpers, builtins, plain numbers and tuples of them (END = 2.0, PARENTS)
            own = isinstance(value, (types.FunctionType, int, float, tuple))
            assert own or hasattr(builtins, g), f"{fn.__name__} uses the global {g!r}"


class _RecordingNumpy(types.SimpleNamespace):
    """A stand-in for the numpy module that records which attributes the code reads."""

    def __getattr__(self, attr):
        self.used.add(attr)
        return getattr(np, attr)


def _rebound(fn, namespace):
    """``fn`` rebuilt, with its helpers, on a copy of its module's globals with ``np``
    replaced: what an adapter does to run the objective on its own numpy."""
    g = dict(vars(_module(fn)), np=namespace)
    for helper in _called_functions(fn):
        g[helper.__name__] = types.FunctionType(helper.__code__, g, helper.__name__,
                                                helper.__defaults__, helper.__closure__)
    return g[fn.__name__]


@pytest.mark.parametrize("name", [n for n in ALL if PROBLEMS[n].output != "nested"])
def test_swapping_np_swaps_all_of_numpy(name):
    p = PROBLEMS[name]
    # the smallest size (sizes are listed smallest first): the translation is the same at
    # every size, and det's cost grows as n! (min by string picked det at 10: a minute)
    bound, args = p.bind(p.sizes[0], np.random.default_rng(0))
    data = bound.f.keywords if isinstance(bound.f, functools.partial) else {}
    fake = _RecordingNumpy(used=set())
    assert np.array_equal(_rebound(p.f, fake)(*args, **data), bound.f(*args))
    allowed = CONTRACT_NUMPY if p.origin == "seeds" else CONTRACT_NUMPY | EVAL_NUMPY
    assert fake.used <= allowed
    if name not in ("rational", "polynomial"):  # those two are numpy-free
        assert fake.used


@pytest.mark.parametrize("module", [problems, *(_module(p.f) for p in evals.PROBLEMS)],
                         ids=lambda m: m.__name__)
def test_module_imports_numpy_only_as_np(module):
    # (the nested evals' descent, kernels.ad.evals._descent, imports no numpy at all)
    tree = ast.parse(inspect.getsource(module))
    imports = [(alias.name, alias.asname) for node in ast.walk(tree)
               if isinstance(node, ast.Import) for alias in node.names]
    # numpy as np; functools where an eval binds a function's data (partial)
    assert [i for i in imports if i != ("functools", None)] == [("numpy", "np")]
    froms = {node.module for node in ast.walk(tree) if isinstance(node, ast.ImportFrom)}
    assert froms <= {"typing", "collections.abc", "_problem", "_sizes", "_rotations",
                     "_descent", "sparsity", None}


def _has_element_loop(fn):
    tree = ast.parse(inspect.getsource(fn))
    return any(isinstance(node, ast.For)
               or (isinstance(node, ast.Call) and getattr(node.func, "id", None) == "map")
               for node in ast.walk(tree))


@pytest.mark.parametrize("name", ALL)
def test_loop_flag_marks_python_element_loops(name):
    p = PROBLEMS[name]
    looped = any(_has_element_loop(fn) for fn in _called_functions(p.f))
    if name in FIXED_LOOPS:
        assert looped and not p.loop
    else:
        assert p.loop == looped


#: problems whose Python loop runs a fixed, small number of vectorised steps, not one
#: step per element: their cost is not per element (the flag's meaning)
FIXED_LOOPS = {"ode": "10 Runge-Kutta steps over whole vectors",
               "gmm": "one concatenate per column of the precision factors",
               "ht": "one transform per bone of the hand's 22",
               # (its input is not looped over: the step's operations are on vectors)
               "lstm": "one step per character of the data, on 14-bit vectors"}
