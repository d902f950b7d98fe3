"""Source-to-source reverse mode: Python that differentiates Python (Zygote, YASSAD,
MicroGrad.jl's primal and reverse passes).

``transform(f)`` reads ``f``'s source (its file, through ``linecache`` and ``ast``),
flattens it into a Wengert list in SSA form and generates two functions as Python text:

* the *primal* computes the value with Python's own operators (floats stay floats), calls
  each callee (numpy's functions bound to their rules from ``rules.RULES`` when ``f`` is
  transformed, :mod:`.calls`; any other callee dispatched at run time: a function with
  a rule, or a plain Python function that is transformed in turn) and records, for each
  call, its pullback: the rule, or the callee's own adjoint;
* the *adjoint*, a closure over the primal's values, replays the pullbacks in reverse,
  accumulating the cotangent of a value used several times (``rules.accumulate``).

Control flow is recorded as it runs: the primal notes which branch of an ``if`` ran and
pushes, once per loop iteration, the values the adjoint needs; the adjoint pops them while
running the loop backwards (``break`` and ``continue`` become flags first, and a ``return``
inside a loop a result, a flag and a ``break``). Element loops
over arrays (``for xi in x``) cost O(1) per element through the sparse cotangents of the
indexing rule. Lists are values too: list displays, ``[w] * n``, ``map(user_fn, ...)`` and
``sum``.

The generated code is cached per function object and printable::

    >>> print(source.transform(f))   # or source.show(f)

Comprehensions become loops and an early ``return`` a result and a flag (:mod:`.parse`).
Constructs the engine does not differentiate (``try``, ``with``, lambdas and defs inside
the function, assignments into arrays, ...) raise :class:`SourceTransformError` naming the
construct, the file and the line.
"""

import builtins
import functools
import linecache
import types
import weakref

import numpy as np

from .. import _cotangents, blocks, forward, modes, rules
from .. import sparsity as _sparsity
from .._args import (
    check_arguments,
    check_jacobian_input,
    check_jacobian_output,
    nesting_refused,
)
from .._arrays import Traced as _Traced
from ..backend import ADBackend, Cost, constant
from ..errors import NestingError
from ..forward import Dual as _Dual
from . import runtime as _rt
from .codegen import generate
from .lowering import lower
from .parse import SourceTransformError

__all__ = ["gradient", "jacobian", "hessian", "transform", "show", "Transformed",
           "SourceTransformError"]


class Transformed:
    """The generated code of one function. ``code``: its Python text; ``primal(*args)``
    returns ``(value, adjoint)`` and ``adjoint(g)`` one cotangent per parameter (it only
    reads what the primal recorded, so it may run again, with another ``g``)."""

    __slots__ = ("name", "code", "primal", "index", "filename")

    def __init__(self, name, code, primal, params, filename=None):
        self.name, self.code, self.primal, self.filename = name, code, primal, filename
        self.index = {p: i for i, p in enumerate(params)}

    def __str__(self):
        return self.code

    def __repr__(self):
        return f"<source transform of {self.name}>"


def _bind(f, fir):
    """Compile the generated factory and build the primal with ``f``'s live globals and
    closure cells (the user's globals are read, never written)."""
    code = generate(fir)
    filename = f"<kernels.ad.source {f.__qualname__} {id(f):#x}>"
    # tracebacks through generated code show its lines
    linecache.cache[filename] = (len(code), None, code.splitlines(True), filename)
    namespace = {"__builtins__": builtins}
    exec(compile(code, filename, "exec"), namespace)
    made = namespace["_make"](*fir.helpers.values(), *(None for _ in fir.freevars))
    cells = dict(zip(f.__code__.co_freevars, f.__closure__ or ()))
    closure = tuple(cells.get(name, cell)
                    for name, cell in zip(made.__code__.co_freevars, made.__closure__ or ()))
    primal = types.FunctionType(made.__code__, f.__globals__, made.__name__, f.__defaults__,
                                closure)
    primal.__kwdefaults__ = f.__kwdefaults__
    return Transformed(f.__qualname__, code, primal, [p.name for p in fir.params], filename)


def _through_rule(f):
    """``f`` has a rule (``rules.primitive``): the rule differentiates it, not its source."""
    def primal(*args):
        ans, back = _rt.call(f, *args)
        return ans, lambda g: _rt.pull(back, g, ans, tuple(range(len(args))), *args)
    code = f"# {f.__qualname__} is a primitive: its rule in kernels.ad.rules differentiates it\n"
    return Transformed(f.__qualname__, code, primal, ())


def transform(f, constants=frozenset()):
    """The generated primal and adjoint of the Python function ``f`` (cached per function);
    the parameters named in ``constants`` are data (a partial binds them): not active."""
    key = (id(f), constants) if constants else id(f)
    t = _rt.TRANSFORMS.get(key)
    if t is not None:
        return t
    if not isinstance(f, types.FunctionType):
        raise TypeError(f"the source engine differentiates Python functions (def or lambda); "
                        f"got {type(f).__name__}")
    try:
        has_rule = f in rules.RULES
    except TypeError:
        has_rule = False
    t = (_through_rule(f) if has_rule or hasattr(f, "__ad_primitive__")
         else _bind(f, lower(f, constants)))
    _rt.TRANSFORMS[key] = t
    weakref.finalize(f, _forget, key, t.filename)
    return t


def _forget(key, filename):
    _rt.TRANSFORMS.pop(key, None)
    linecache.cache.pop(filename, None)


_rt.BUILD = transform


def show(f):
    """Print the code generated for ``f``."""
    print(transform(f).code)


_transforms_get = _rt.TRANSFORMS.get
_as_output = rules.as_output
_FLOAT64 = np.dtype(np.float64)


class _NotDifferentiable(Exception):
    """An argument the engine does not differentiate reached the end of ``gradient``."""


def _check_arguments(args):
    check_arguments(args, "the source engine", traced=_Dual)


def _output(ct, a):
    """``rules.as_output(ct, a)``, skipped where it would return ``ct`` itself: a float64
    array of ``a``'s shape that owns its writable data (not a view, not ``a``)."""
    if isinstance(ct, _Traced) and not isinstance(ct, _Dual):
        # f closed over a reverse-mode Variable: the adjoint recorded on its tape
        raise NestingError(nesting_refused("the source engine", ct))
    if type(a) is np.ndarray:
        if (type(ct) is np.ndarray and ct.dtype is _FLOAT64 and ct.base is None
                and ct.shape == a.shape and a.dtype is _FLOAT64 and ct is not a
                and ct.flags.writeable):
            return ct
        if a.dtype.kind != "f":
            raise _NotDifferentiable
    elif type(a) is float:
        if type(ct) is float:
            return ct
    elif isinstance(a, _Traced):
        if not isinstance(a, _Dual):
            raise _NotDifferentiable  # a reverse-mode Variable: refused by name
        return _cotangents.traced_as_output(ct, a)  # forward over source
    elif (not isinstance(a, (float, int, np.floating, np.integer))
          or isinstance(a, (bool, np.bool_))):
        raise _NotDifferentiable
    return _as_output(ct, a)


def _check_value(value, t):
    while isinstance(value, _Dual):  # forward over source: the value under the partials
        value = value.value
    if isinstance(value, _Traced):  # a reverse-mode Variable: reverse over source
        raise NestingError(nesting_refused("the source engine", value))
    if np.iscomplexobj(value) and np.ndim(value) == 0:
        raise TypeError(f"gradient needs a real-valued function; {t.name} returned a complex "
                        f"value (take np.real, np.abs or np.abs(...) ** 2 of it)")
    if isinstance(value, np.ndarray):
        if value.ndim == 0 and value.dtype.kind in "fiu":
            return
        what = f"an array of shape {value.shape}"
    elif isinstance(value, (float, int, np.floating, np.integer)):
        return
    else:
        what = f"a {type(value).__name__}"
    raise ValueError(f"gradient needs a scalar-valued function; {t.name} returned {what}")


def gradient(f, *args):
    """The gradient of the scalar-valued ``f`` at ``args``: one entry per argument, of its
    shape (a float for a float argument). ``f`` may be a ``functools.partial`` of a
    function: the arguments it binds (data) are constants, not differentiated."""
    if type(f) is functools.partial:
        return _gradient_bound(f, args)
    # The arguments are checked where f fails and where the cotangents are finished, not
    # in a loop of their own: this path is the engine's overhead that the benchmarks time.
    t = _transforms_get(id(f)) or transform(f)
    try:
        value, adjoint = t.primal(*args)
    except Exception:
        _check_arguments(args)  # a bad argument is the likelier story: name it
        raise
    if type(value) is not np.float64 and type(value) is not float:
        _check_value(value, t)
    try:
        return _cotangents.distinct(map(_output, adjoint(1.0), args))
    except _NotDifferentiable:
        _check_arguments(args)
        raise


def _transform_bound(p):
    """The transform of a partial's function, its bound parameters inactive (data)."""
    constants = _rt.bound_names(p)
    return _transforms_get((id(p.func), constants)) or transform(p.func, constants)


def _gradient_bound(p, args):
    """:func:`gradient` of ``p = functools.partial(fn, *bound, **keywords)``: ``fn``'s
    transform, made with the bound parameters inactive, runs with the bound values."""
    bound = p.args
    t = _transform_bound(p)
    try:
        value, adjoint = t.primal(*bound, *args, **p.keywords)
    except Exception:
        _check_arguments(args)
        raise
    if type(value) is not np.float64 and type(value) is not float:
        _check_value(value, t)
    cotangents = adjoint(1.0)[len(bound):len(bound) + len(args)]
    try:
        return _cotangents.distinct(map(_output, cotangents, args))
    except _NotDifferentiable:
        _check_arguments(args)
        raise


def jacobian(f, x, sparsity=None, mode=None):
    """The Jacobian of the array-valued ``f`` at the float array ``x`` (any shape, at least
    one dimension): shape ``np.shape(f(x)) + x.shape``. The primal runs once; its adjoint
    is replayed once per block of one-hot cotangents (kernels.ad.blocks), once per row
    when ``x`` is a forward Dual (forward over source). With ``sparsity`` (its pattern,
    kernels.ad.sparsity) a scipy.sparse CSR matrix of ``f(x).size x x.size``: one seed per
    colour of rows, plus the check's. ``mode`` as reverse mode's
    (kernels.ad.reverse.jacobian): None chooses by the shapes, after the primal's run."""
    x = check_jacobian_input(x, "the source engine", traced=_Dual)
    nested = isinstance(x, _Traced)
    if sparsity is not None and nested:
        raise TypeError("the source engine: a sparse Jacobian is taken at a plain float "
                        "array, not nested")
    if modes.check(mode) == modes.FORWARD and not nested:
        return forward.jacobian(f, x, sparsity=sparsity, mode=modes.FORWARD)
    if type(f) is functools.partial:  # data bound: inactive, its cotangents dropped
        bound, keywords = f.args, f.keywords
        t = _transform_bound(f)
    else:
        bound, keywords = (), {}
        t = _transforms_get(id(f)) or transform(f)
    value, adjoint = t.primal(*bound, x, **keywords)
    plain = value
    while isinstance(plain, _Dual):  # f closed over a Dual of an enclosing level
        plain = plain.value
    if isinstance(plain, _Traced):  # a reverse-mode Variable: reverse over source
        raise NestingError(nesting_refused("the source engine", plain))
    shape = check_jacobian_output(plain, "the source engine").shape
    if sparsity is not None:
        sparsity = _sparsity.of(sparsity, plain.size, x.size)
    # (nested, or f closing over an enclosing level's value: reverse mode, as ever)
    if (not nested and value is plain
            and modes.choose(mode, x.size, plain.size, sparsity) == modes.FORWARD):
        return forward.jacobian(f, x, sparsity=sparsity, mode=modes.FORWARD)
    at, seeds = len(bound), None
    if sparsity is not None:
        seeds = np.stack(_sparsity.passes(sparsity, modes.REVERSE))
    # row by row when nested: the cotangents carry the enclosing level
    rows = blocks.rows(lambda ct: adjoint(ct)[at], shape, x, seeds, nested or value is not plain)
    if sparsity is not None:
        return _sparsity.assemble(sparsity, rows, modes.REVERSE, "the source engine")
    return np.reshape(rows, shape + np.shape(x))


def hessian(f, x):
    """The Hessian of the scalar ``f`` at the float array ``x`` (any shape, at least one
    dimension): shape ``x.shape + x.shape``, forward over source (the generated primal and
    adjoint run on forward Duals, whose partials are the Hessian's columns)."""
    check_jacobian_input(x, "the source engine", traced=_Dual)
    return forward.jacobian(lambda y: gradient(f, y)[0], x, mode=modes.FORWARD)


#: As the reverse tape: tens of numpy scalar operations a node, a sweep per block of
#: Jacobian rows (0.5-4.2 evaluations a row on ht at N = 100 and ba at n = 2 .. 10).
BACKEND = ADBackend(name="source", role="engine", nests=True, mode="reverse",
                    cost=Cost(loop=constant(80.0), vector=constant(20.0), jacobian_row=4.0))
