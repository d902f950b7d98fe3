"""The one derivative-rule table every engine reads (a DiffRules/ChainRules analog).

``RULES`` maps a function object (``np.sin``, ``np.matmul``, ``operator.mul``, ...) to a
:class:`Rule` holding both directions of its derivative:

* ``vjps[i](g, ans, *args, **kwargs)``: the cotangent of positional argument ``i`` given the
  output's cotangent ``g`` (reverse mode). It may still have the output's broadcast shape:
  engines pass it through :func:`accumulate`, which reduces it to the argument's shape. An
  entry of None marks an argument that is not differentiable (an index, an axis).
* ``jvp(tangents, ans, *args, **kwargs)``: the output's tangent (forward mode). Tangents are
  *batched*: each is None (a constant argument) or an array of shape ``(chunk,) +
  np.shape(arg)``, one direction per row, so a chunk of partials costs one numpy call per
  operation. The result has shape ``(chunk,) + np.shape(ans)``.

Rules are registered one per line through two helpers:

* :func:`defpartials` for elementwise functions, from each argument's local partial
  derivative ``d(ans, *args)``; both directions are derived from it, so forward and reverse
  mode cannot disagree about the maths;
* :func:`defrule` for everything else (reductions, products, indexing), a vjp per argument
  and a batched jvp.

Users extend the table the same way (see the README, "Adding a rule"); :func:`primitive`
makes a user's own Python function a primitive with its own rule.
"""

import builtins
import functools
import operator

import numpy as np


class MissingRuleError(NotImplementedError):
    """An operation reached an engine without a derivative rule."""


class Rule:
    __slots__ = ("name", "vjps", "jvp")

    def __init__(self, name, vjps, jvp):
        self.name, self.vjps, self.jvp = name, tuple(vjps), jvp

    def __repr__(self):
        return f"Rule({self.name})"


#: function object -> Rule. A plain dict, so engines look rules up with one hash.
RULES = {}


def _name(fn):
    module = getattr(fn, "__module__", None) or ("numpy" if isinstance(fn, np.ufunc) else "")
    qual = getattr(fn, "__qualname__", None) or getattr(fn, "__name__", repr(fn))
    return f"{module}.{qual}" if module else qual


def lookup(fn):
    """The rule of ``fn``; MissingRuleError naming it and saying how to add one."""
    rule = RULES.get(fn)
    if rule is None:
        name = _name(fn)
        raise MissingRuleError(
            f"no derivative rule for {name}; register one with "
            f"kernels.ad.rules.defpartials({name}, lambda ans, x: <d ans/d x>) for an "
            f"elementwise function, or kernels.ad.rules.defrule({name}, vjps=..., jvp=...) "
            f"(README: 'Adding a rule')")
    return rule


# -- broadcasting and cotangent accumulation ---------------------------------------------

def _ndim(x):
    # np.ndim dispatches through __array_function__ (~0.5 us); the rules ask it on every
    # call, and an element loop's scalars are floats and numpy float64s.
    kind = type(x)
    if kind is np.ndarray or kind is np.float64:
        return x.ndim
    if kind is float or kind is int:
        return 0
    return np.ndim(x)


def unbroadcast(ct, shape):
    """Sum ``ct`` down to ``shape``, undoing numpy broadcasting; a float for ``shape == ()``."""
    # np.shape of a Python float detours through a new array (~0.7 us, most of the cost of
    # an element loop's scalar cotangents); floats and numpy values answer directly.
    ct_shape = () if type(ct) is float else getattr(ct, "shape", None)
    if ct_shape is None:
        ct_shape = np.shape(ct)
    if ct_shape != shape:
        extra = len(ct_shape) - len(shape)
        axes = tuple(range(extra)) + tuple(
            extra + i for i, n in enumerate(shape) if n == 1 and ct_shape[extra + i] != 1)
        ct = np.sum(ct, axis=axes)
        if np.shape(ct) != shape:
            ct = np.reshape(ct, shape)
    return ct


class Scatter:
    """The cotangent of ``x[index]``: zeros of ``shape`` with ``values`` added at ``index``.

    Kept sparse so that an element loop (``for xi in x``) costs O(1) per element instead of
    a dense array per element; :func:`densify` materialises it once, when needed.
    """

    __slots__ = ("shape", "index", "values")

    def __init__(self, shape, index, values):
        self.shape, self.index, self.values = shape, index, values


class ScatterSum:
    """Several :class:`Scatter` into the same array, summed lazily (owned by one
    accumulator, so appending to it is safe)."""

    __slots__ = ("shape", "parts")

    def __init__(self, shape, parts):
        self.shape, self.parts = shape, parts


def densify(ct):
    """A dense array (or float) for a cotangent that may be sparse."""
    if isinstance(ct, Scatter):
        ct = ScatterSum(ct.shape, [ct])
    if not isinstance(ct, ScatterSum):
        return ct
    out = np.zeros(ct.shape)
    ints = [p for p in ct.parts if type(p.index) is int]
    if len(ints) > 1:  # the element loop's case: one vectorised scatter
        np.add.at(out, np.array([p.index for p in ints]), np.array([p.values for p in ints]))
    else:
        ints = []
    for p in ct.parts:
        if ints and type(p.index) is int:
            continue
        np.add.at(out, p.index, p.values)
    return out


def accumulate(acc, ct, shape):
    """``acc + ct`` for cotangents of an argument of ``shape`` (``acc`` None at first).

    ``ct`` is reduced to ``shape`` first. Never writes into ``acc`` or ``ct`` unless it
    created them itself, so rules may return views and shared arrays.
    """
    if isinstance(ct, (Scatter, ScatterSum)):
        if acc is None:
            return ct if isinstance(ct, Scatter) else ScatterSum(ct.shape, list(ct.parts))
        new = [ct] if isinstance(ct, Scatter) else ct.parts
        if isinstance(acc, ScatterSum):
            acc.parts.extend(new)
            return acc
        if isinstance(acc, Scatter):
            return ScatterSum(shape, [acc, *new])
        return acc + densify(ct)
    ct = unbroadcast(ct, shape)
    if acc is None:
        return ct
    if isinstance(acc, (Scatter, ScatterSum)):
        return densify(acc) + ct
    return acc + ct


def as_output(ct, like):
    """A finished gradient in the contract's form: a float for a scalar argument, else an
    array of ``like``'s shape (zeros where nothing flowed back)."""
    if ct is None:
        ct = np.zeros(np.shape(like))
    ct = densify(ct)
    if not isinstance(like, np.ndarray) or like.ndim == 0:
        return float(ct)
    out = np.asarray(ct, dtype=float).reshape(like.shape)
    # A rule may hand back a view (a broadcast of the output's cotangent, a transpose) or
    # even an array the caller owns: the user gets a writable array of their own.
    if out.base is not None or not out.flags.writeable or out is like:
        out = out.copy()
    return out


# -- registration ----------------------------------------------------------------------

def _lift(t, ndim):
    """A batched tangent with axes inserted after the batch axis so it broadcasts against
    an output of ``ndim`` dimensions (numpy aligns trailing axes)."""
    missing = ndim - (t.ndim - 1)
    if missing > 0:
        t = t.reshape(t.shape[:1] + (1,) * missing + t.shape[1:])
    return t


def defpartials(fn, *partials, name=None):
    """Register the elementwise ``fn`` from its local partial derivatives, one per argument:
    ``partial(ans, *args)`` is d ans / d arg, broadcastable to ``ans``. None marks an
    argument that is not differentiable."""

    def vjp_of(partial):
        if partial is None:
            return None
        return lambda g, ans, *args: g * partial(ans, *args)

    if len(partials) == 1:
        (partial,) = partials

        def jvp(tangents, ans, x):  # the output has the input's shape: no lifting
            return partial(ans, x) * tangents[0]
    else:
        def jvp(tangents, ans, *args):
            out = None
            ndim = _ndim(ans)
            for t, partial in zip(tangents, partials):
                if t is None:
                    continue
                if t.ndim - 1 < ndim:
                    t = _lift(t, ndim)
                term = partial(ans, *args) * t
                out = term if out is None else out + term
            return out

    RULES[fn] = Rule(name or _name(fn), [vjp_of(p) for p in partials], jvp)
    return fn


def defrule(fn, vjps, jvp, name=None):
    """Register ``fn`` with one vjp per positional argument (None: not differentiable) and a
    batched jvp (see the module docstring for both signatures)."""
    RULES[fn] = Rule(name or _name(fn), vjps, jvp)
    return fn


def alias(fn, existing):
    """``fn`` computes what ``existing`` computes (``operator.add`` and ``np.add``)."""
    RULES[fn] = RULES[existing]


#: Functions whose result does not depend differentiably on their arguments (shapes,
#: signs, comparisons): engines call them on plain values and return plain results.
NONDIFFERENTIABLE = set()


def defnondiff(*fns):
    """Register functions that engines evaluate on values, with no derivative."""
    NONDIFFERENTIABLE.update(fns)


def primitive(fn):
    """Decorator: make the user function ``fn`` a primitive that engines do not trace into;
    register its rule with :func:`defpartials` or :func:`defrule` on the returned wrapper.

    The wrapper calls ``fn`` on plain values; on an engine's traced values it hands the call
    to the engine (each traced type has a ``_ad_apply(fn, args, kwargs)`` classmethod).
    """

    @functools.wraps(fn)
    def wrapper(*args, **kwargs):
        for a in args:
            apply = getattr(type(a), "_ad_apply", None)
            if apply is not None:
                return apply(wrapper, args, kwargs)
        return fn(*args, **kwargs)

    wrapper.__ad_primitive__ = fn
    return wrapper


# -- elementwise rules -----------------------------------------------------------------

defpartials(np.add, lambda ans, x, y: 1.0, lambda ans, x, y: 1.0)
defpartials(np.subtract, lambda ans, x, y: 1.0, lambda ans, x, y: -1.0)
defpartials(np.multiply, lambda ans, x, y: y, lambda ans, x, y: x)
defpartials(np.true_divide, lambda ans, x, y: 1.0 / y, lambda ans, x, y: -ans / y)
defpartials(np.power, lambda ans, x, y: y * x ** (y - 1), lambda ans, x, y: ans * np.log(x))
defpartials(np.negative, lambda ans, x: -1.0)
defpartials(np.positive, lambda ans, x: 1.0)
defpartials(np.square, lambda ans, x: 2.0 * x)
defpartials(np.reciprocal, lambda ans, x: -ans * ans)
defpartials(np.sqrt, lambda ans, x: 0.5 / ans)
defpartials(np.exp, lambda ans, x: ans)
defpartials(np.expm1, lambda ans, x: ans + 1.0)
defpartials(np.log, lambda ans, x: 1.0 / x)
defpartials(np.log1p, lambda ans, x: 1.0 / (1.0 + x))
defpartials(np.sin, lambda ans, x: np.cos(x))
defpartials(np.cos, lambda ans, x: -np.sin(x))
defpartials(np.tan, lambda ans, x: 1.0 + ans * ans)
defpartials(np.sinh, lambda ans, x: np.cosh(x))
defpartials(np.cosh, lambda ans, x: np.sinh(x))
defpartials(np.tanh, lambda ans, x: 1.0 - ans * ans)
defpartials(np.arctan, lambda ans, x: 1.0 / (1.0 + x * x))
defpartials(np.absolute, lambda ans, x: np.sign(x))

# Python's operators compute the same functions (the source engine calls them directly,
# keeping Python floats Python floats).
for _op, _ufunc in [(operator.add, np.add), (operator.sub, np.subtract),
                    (operator.mul, np.multiply), (operator.truediv, np.true_divide),
                    (operator.pow, np.power), (operator.neg, np.negative),
                    (operator.pos, np.positive), (builtins.abs, np.absolute)]:
    alias(_op, _ufunc)


# -- reductions, products, reshaping, indexing -------------------------------------------

def _batched_axes(axis, ndim):
    """``axis`` of an unbatched array as axes of its batched tangent (batch axis first)."""
    if axis is None:
        return tuple(range(1, ndim + 1))
    axes = axis if isinstance(axis, tuple) else (axis,)
    return tuple(a % ndim + 1 for a in axes)


def _expand_reduced(g, shape, axis, keepdims):
    """``g`` (the cotangent of a reduction over ``axis``) broadcast back to ``shape``."""
    if axis is not None and not keepdims:
        axes = axis if isinstance(axis, tuple) else (axis,)
        g = np.expand_dims(g, tuple(a % len(shape) for a in axes))
    return np.broadcast_to(g, shape)


def _count(shape, axis):
    if axis is None:
        return int(np.prod(shape))
    axes = axis if isinstance(axis, tuple) else (axis,)
    return int(np.prod([shape[a] for a in axes]))


defrule(np.sum,
        [lambda g, ans, x, axis=None, keepdims=False:
         _expand_reduced(g, np.shape(x), axis, keepdims)],
        lambda ts, ans, x, axis=None, keepdims=False:
        np.sum(ts[0], axis=_batched_axes(axis, _ndim(x)), keepdims=keepdims))
defrule(np.mean,
        [lambda g, ans, x, axis=None, keepdims=False:
         _expand_reduced(g / _count(np.shape(x), axis), np.shape(x), axis, keepdims)],
        lambda ts, ans, x, axis=None, keepdims=False:
        np.mean(ts[0], axis=_batched_axes(axis, _ndim(x)), keepdims=keepdims))


def _matmul_vjp_x(g, ans, x, y):
    if _ndim(y) == 1:  # x @ y lost y's axis: the cotangent is an outer product
        return np.multiply.outer(g, y) if _ndim(x) == 2 else g * y
    return y @ g if _ndim(x) == 1 else g @ y.T


def _matmul_vjp_y(g, ans, x, y):
    if _ndim(x) == 1:
        return np.multiply.outer(x, g) if _ndim(y) == 2 else g * x
    return x.T @ g


def _matmul_jvp(ts, ans, x, y):
    tx, ty = ts
    out = None
    if tx is not None:
        out = tx @ y
    if ty is not None:
        # A batched vector on the right would be read as a matrix: contract from its side.
        term = (ty @ (x.T if _ndim(x) == 2 else x)) if _ndim(y) == 1 else x @ ty
        out = term if out is None else out + term
    return out


def _check_matmul_dims(*arrays):
    if any(_ndim(a) > 2 for a in arrays):
        raise MissingRuleError("the derivative rules of matmul and dot cover 1-D and 2-D "
                               "arrays only; register a rule for stacked products")


def _matmul_rule(check_scalars):
    def vjp(which):
        cotangent = _matmul_vjp_x if which == 0 else _matmul_vjp_y

        def f(g, ans, x, y):
            # the 2-D arrays of the usual call answer their ndim directly
            nx = x.ndim if type(x) is np.ndarray else np.ndim(x)
            ny = y.ndim if type(y) is np.ndarray else np.ndim(y)
            if check_scalars and (nx == 0 or ny == 0):
                return g * (y if which == 0 else x)
            if nx > 2 or ny > 2:
                _check_matmul_dims(x, y)
            return cotangent(g, ans, x, y)
        return f

    def jvp(ts, ans, x, y):
        if check_scalars and (_ndim(x) == 0 or _ndim(y) == 0):
            return RULES[np.multiply].jvp(ts, ans, x, y)
        _check_matmul_dims(x, y)
        return _matmul_jvp(ts, ans, x, y)
    return [vjp(0), vjp(1)], jvp


defrule(np.matmul, *_matmul_rule(check_scalars=False))
defrule(np.dot, *_matmul_rule(check_scalars=True))  # dot of a scalar is a product
alias(operator.matmul, np.matmul)


def _check_trace(x, offset, axis1, axis2):
    if _ndim(x) != 2 or (axis1, axis2) != (0, 1):
        raise MissingRuleError("the derivative rule of trace covers 2-D arrays only")


def _trace_vjp(g, ans, x, offset=0, axis1=0, axis2=1):
    _check_trace(x, offset, axis1, axis2)
    n, m = x.shape if type(x) is np.ndarray else np.shape(x)
    # g on the offset diagonal of zeros, written through a strided view (np.eye builds the
    # identity the same way, then a product would scale it)
    out = np.zeros(n * m, dtype=float if type(g) is float else np.result_type(g, 1.0))
    first = -offset if offset < 0 else 0
    count = min(n, m - offset) - first
    if count > 0:
        start = first * (m + 1) + offset
        out[start:start + count * (m + 1):m + 1] = g
    return out.reshape(n, m)


def _trace_jvp(ts, ans, x, offset=0, axis1=0, axis2=1):
    _check_trace(x, offset, axis1, axis2)
    return np.trace(ts[0], offset, axis1=1, axis2=2)


defrule(np.trace, [_trace_vjp], _trace_jvp)


def _transpose_vjp(g, ans, x, axes=None):
    return np.transpose(g, None if axes is None else np.argsort(axes))


def _transpose_jvp(ts, ans, x, axes=None):
    ndim = _ndim(x)
    order = range(ndim - 1, -1, -1) if axes is None else (a % ndim for a in axes)
    return np.transpose(ts[0], (0, *(a + 1 for a in order)))


defrule(np.transpose, [_transpose_vjp], _transpose_jvp)


defrule(np.reshape,
        [lambda g, ans, x, shape, **kw: np.reshape(g, np.shape(x)), None],
        lambda ts, ans, x, shape, **kw: np.reshape(ts[0], (len(ts[0]),) + np.shape(ans)))


def _getitem_jvp(ts, ans, x, index):
    return ts[0][(slice(None), *index) if type(index) is tuple else (slice(None), index)]


defrule(operator.getitem,
        [lambda g, ans, x, index: Scatter(np.shape(x), index, g), None],
        _getitem_jvp)


defnondiff(np.shape, np.ndim, np.size, np.zeros_like, np.ones_like, np.sign, np.floor,
           np.ceil, np.round, np.isfinite, np.isinf, np.isnan, np.signbit, np.argmax,
           np.argmin, np.equal, np.not_equal, np.less, np.less_equal, np.greater,
           np.greater_equal)
