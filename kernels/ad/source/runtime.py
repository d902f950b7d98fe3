"""What the source engine's generated code calls at run time.

* ``call(fn, *args, **kwargs) -> (ans, back)``: dispatch on the callee object. A function
  with a rule is called and its :class:`rules.Rule` is the pullback record; a plain Python
  function is transformed (cached) and its adjoint chained; a function known to have no
  derivative (``len``, ``np.shape``) or receiving nothing differentiable is just called.
* ``pull(back, g, ans, which, *args, **kwargs)``: the cotangents of the arguments
  ``which``, each of its argument's shape.
* ``acc(acc, ct, value)``: ``rules.accumulate`` for arrays and floats, element-wise for
  lists and tuples (whose cotangents are lists).
* ``map_`` and ``sum_``: the builtins, differentiated element by element.
* ``like(value)`` and ``like_unless(value, *readers)``: what the primal keeps of a value
  whose adjoint reads only its type and shape, so that the value itself can be freed.
"""

import builtins
import functools
import operator
import types

import numpy as np

from .. import _arrays, _keywords, rules
from .._arrays import Traced, original
from ..checkpoint import CheckpointError
from ..rules import Rule, accumulate, densify
from ..rules import reads as _reads
from .parse import SourceTransformError

#: id(function) -> its source.Transformed; ``BUILD`` makes one (kernels.ad.source sets it)
TRANSFORMS = {}
BUILD = None

#: builtins whose results carry no derivative: called as written, even on active values
PLAIN = {len, range, int, bool, isinstance, type, print, round, str, repr, hasattr, callable}
#: packages whose Python functions are library code, never differentiated by transformation
_LIBRARIES = {"numpy", "scipy", "jax", "jaxlib", "torch", "autograd", "numba", "cupy"}
_rule_of = rules.RULES.get


def differentiable(v):
    """Whether ``v`` can carry a derivative: floats, complex, float arrays, lists of them."""
    t = type(v)
    if t is list or t is tuple:
        return any(map(differentiable, v))
    if t is np.ndarray:
        return v.dtype.kind in "fc"
    # a forward Dual (forward over source) carries derivatives of its own level
    return isinstance(v, (float, complex, np.inexact, Traced))


#: the AD engines' own modules: their functions are not user code to transform
_ENGINES = ("kernels.ad.forward", "kernels.ad.reverse", "kernels.ad.finite",
            "kernels.ad.source")


def _is_user_function(fn):
    if type(fn) is not types.FunctionType or hasattr(fn, "__ad_primitive__"):
        return False
    module = fn.__module__ or ""
    if module.startswith(_ENGINES):
        raise SourceTransformError(
            f"{module}.{fn.__name__} called inside a function the source engine "
            f"differentiates: nesting an AD engine inside the source engine is not "
            f"supported (supported: forward over source, source.hessian)")
    return module.partition(".")[0] not in _LIBRARIES


def call(fn, /, *args, **kwargs):
    fn = original(fn)  # numpy's np.array, not forward mode's wrapper of it (nested)
    try:
        rule = _rule_of(fn)
    except TypeError:  # an unhashable callable has no rule
        rule = None
    if rule is not None:
        if fn in rules.CANONICAL:  # np.einsum's interleaved form: its string form first
            return _canonical_call(fn, args, kwargs)
        if kwargs:  # out=, where=, dtype=, ...: dropped where a no-op, else refused
            plain = _keywords.checked(rule, fn, args, kwargs)
            if plain is not kwargs:
                return _call_with(fn, rule, args, kwargs, plain)
        ans = fn(*args, **kwargs)
        if isinstance(ans, tuple) and type(ans) is not tuple:
            ans = tuple(ans)  # several outputs (a named tuple: eigh): cotangents are lists
        return ans, rule
    return _call_without_rule(fn, args, kwargs)


def _call_with(fn, rule, args, kwargs, plain):
    """``fn(*args, **plain)``, where ``plain`` is the call's keywords less the no-ops (the
    generated code pulls with the keywords as written)."""
    result = fn(*args, **plain)
    if isinstance(result, tuple) and type(result) is not tuple:
        result = tuple(result)
    active = [differentiable(a) for a in args]
    ans, kept = _kept(rule, active, result, args)

    nones = (None,) * len(kwargs)  # (the closure must not hold the call's arguments)

    def pullback(g):
        cts = [pull(rule, g, ans, i, *kept, **plain) if a else None
               for i, a in enumerate(active)]
        return (*cts, *nones)
    return result, pullback


def _call_without_rule(fn, args, kwargs):
    try:
        plain = fn in PLAIN or fn in rules.NONDIFFERENTIABLE
    except TypeError:
        plain = False
    if plain:
        return fn(*args, **kwargs), None
    inner = getattr(fn, "__ad_checkpoint__", None)
    if inner is not None:
        return _checkpointed(inner, args, kwargs)
    if fn is map:
        return map_(*args, active=tuple(range(len(args) - 1)), **kwargs)
    if fn is sum:
        return sum_(*args, **kwargs)
    if fn is max or fn is min:
        return extremum_(fn, *args, **kwargs)
    try:
        canonical = rules.CANONICAL.get(fn)
    except TypeError:
        canonical = None
    if canonical is not None:
        return _canonical_call(fn, args, kwargs)
    if _is_user_function(fn):
        constants = _data(fn, args, kwargs)
        t = (TRANSFORMS.get((id(fn), constants) if constants else id(fn))
             or BUILD(fn, constants))
        ans, back = t.primal(*args, **kwargs)
        if kwargs:
            back = _by_call(back, len(args), list(map(t.index.__getitem__, kwargs)))
        return ans, back
    if type(fn) is functools.partial and _is_user_function(fn.func):
        return _call_bound(fn, args, kwargs)
    if fn is functools.partial and (any(map(differentiable, args))
                                    or any(map(differentiable, kwargs.values()))):
        raise rules.MissingRuleError(
            "functools.partial binding a differentiable value inside a function the source "
            "engine differentiates is not supported (the bound value's derivative would be "
            "lost); bind data only, outside: source.gradient(partial(f, data=...), x)")
    if any(map(differentiable, args)) or any(map(differentiable, kwargs.values())):
        try:
            rules.lookup(fn)  # raises, or finds a rule of a family registered just now
        except TypeError:
            raise rules.MissingRuleError(f"no derivative rule for {fn!r}") from None
        return call(fn, *args, **kwargs)
    return fn(*args, **kwargs), None


def _checkpointed(fn, args, kwargs):
    """A call of ``checkpoint(fn)`` (kernels/ad/checkpoint.py): ``fn`` runs on the values
    as they are, recording nothing; the pullback keeps the arguments and the value, runs
    ``fn``'s transform on the arguments again, checks that it gives the same value, and
    pulls back through it. (The value is kept for that check; in a chain of steps it is
    the next step's argument, kept anyway.)"""
    if not _is_user_function(fn):  # a rule differentiates it: nothing to recompute
        return call(fn, *args, **kwargs)
    ans = fn(*args, **kwargs)

    def pullback(g):
        again, back = call(fn, *args, **kwargs)
        same = _same(again, ans)
        del again  # (not held while the step's adjoint runs)
        if not same:
            raise CheckpointError(
                f"checkpoint({fn.__qualname__}): run again in the backward pass, it gave "
                f"another value than the first time; a checkpointed function must be a "
                f"deterministic function of its arguments")
        return back(g)
    return ans, pullback


def _same(a, b):
    """Whether two runs gave the same value, bit for bit (NaN where NaN was)."""
    if _arrays.is_traced(a) or _arrays.is_traced(b):
        return type(a) is type(b) and _same(a.value, b.value)
    if type(a) is not type(b):
        return False
    if type(a) is list or type(a) is tuple:
        return len(a) == len(b) and all(map(_same, a, b))
    if isinstance(a, np.ndarray):
        return a.shape == b.shape and np.array_equal(a, b, equal_nan=a.dtype.kind in "fc")
    return bool(a == b) or a != a and b != b


def _data(fn, args, kwargs):
    """The parameters of the user function ``fn`` that this call passes a value with no
    derivative (an int, a bool, an int array, None): its transform for this call takes them
    as data, so that nothing is computed or kept for their cotangents (``solve(x, s=10)``
    keeps no stage value for the step size's derivative)."""
    if all(map(differentiable, args)) and all(map(differentiable, kwargs.values())):
        return frozenset()
    code = fn.__code__
    names = code.co_varnames[:code.co_argcount]
    data = [names[i] for i, a in enumerate(args[:len(names)]) if not differentiable(a)]
    data += [k for k, v in kwargs.items() if not differentiable(v)]
    return frozenset(data)


def _canonical_call(fn, args, kwargs):
    """A call whose differentiable values sit in a sequence argument (np.concatenate,
    np.array of a list, np.r_): its primitive's rule, cotangents rebuilt in the call's
    structure (rules.CANONICAL)."""
    prim, flat, kw, unflatten = rules.canonical(fn, args, kwargs)
    rule = rules.lookup(prim)
    result = prim(*flat, **kw)
    active = [differentiable(v) for v in flat]
    ans, kept = _kept(rule, active, result, flat)

    given = len(args) + len(kwargs)  # (the closure must not hold the call's arguments)

    def pullback(g):
        cts = [pull(rule, g, ans, i, *kept, **kw) if a else None for i, a in enumerate(active)]
        out = unflatten(cts)
        return (*out, *(None for _ in range(given - len(out))))
    return result, pullback


def _kept(rule, active, ans, args):
    """What a pullback closure over ``rule`` keeps of its output and arguments: each
    itself where the vjps of the ``active`` arguments read it, else its :func:`like`."""
    vjps = rule.vjps
    # (a join's vjps read the same whatever its arguments: no mask of its many pieces)
    parents = (sum(1 << i for i, a in enumerate(active[:len(vjps)]) if a)
               if type(vjps) is tuple else -1)
    ans_read, positions = rule.reads(parents)
    if not ans_read:
        ans = like(ans)
    if positions is not None:
        # (like()'s size test inline: a join's many small pieces cost no call each)
        args = [like(a) if i not in positions and (type(a) is not np.ndarray
                                                   or a.nbytes >= LIKE_BYTES) else a
                for i, a in enumerate(args)]
    return ans, args


def extremum_(fn, /, *args, **kwargs):
    """The builtins ``max`` and ``min`` (of several values, or of one sequence): the
    cotangent goes to the element they returned."""
    if kwargs:
        raise rules.MissingRuleError(f"{fn.__name__}(..., {', '.join(kwargs)}=) of "
                                     f"differentiable values")
    items = list(args[0]) if len(args) == 1 else list(args)
    ans = fn(items)
    k = next(i for i, v in enumerate(items) if v is ans)

    def pullback(g):
        cts = [None] * len(items)
        cts[k] = g
        return (cts,) if len(args) == 1 else tuple(cts)
    return ans, pullback


def bound_names(p):
    """The parameter names the partial ``p`` binds (its keywords and first positions):
    data, constants of the transform (a partial made inside differentiated code is
    refused, so the values it binds never carry this level's derivative)."""
    code = getattr(p.func, "__code__", None)
    positional = code.co_varnames[:len(p.args)] if code is not None else ()
    return frozenset(p.keywords).union(positional)


def _call_bound(p, args, kwargs):
    """A call of ``p = functools.partial(fn, ...)`` of a user function: ``fn``'s transform
    with the bound parameters constant, and those this call passes no derivative (as for
    any user function: :func:`_data`); cotangents for the call's own arguments."""
    constants = bound_names(p) | _data(p.func, (*p.args, *args), kwargs)
    t = TRANSFORMS.get((id(p.func), constants)) or BUILD(p.func, constants)
    ans, back = t.primal(*p.args, *args, **p.keywords, **kwargs)
    skip, index = len(p.args), [t.index[k] for k in kwargs]

    def pullback(g):
        cts = back(g)
        return (*cts[skip:skip + len(args)], *(cts[i] for i in index))
    return ans, pullback


def _by_call(back, n, index):
    """A user function's pullback, its cotangents reordered as the call passed arguments."""
    def pullback(g):
        cts = back(g)
        return (*cts[:n], *(cts[i] for i in index))
    return pullback


def zero(value):
    """A zero cotangent for ``value`` (where a pullback gives none, so that the generated
    code can count on a cotangent from every pull)."""
    if type(value) is list or type(value) is tuple:
        return [None] * len(value)
    if isinstance(value, np.ndarray) or isinstance(value, Traced) and np.ndim(value):
        return np.zeros(np.shape(value))
    return 0.0


def pull(back, g, ans, which, /, *args, **kwargs):
    """The cotangent of argument ``which`` (an int), or a list of those of ``which`` (a
    tuple); keyword arguments are numbered after the positional ones. Each is dense and of
    its argument's shape, a zero where no derivative flows (so that generated code can
    count on one)."""
    # (no comprehension or closure in here: in Python 3.11 it would turn the arguments into
    # cells on every call, doubling the cost of this hot function)
    if type(back) is Rule:
        if type(g) is list:  # the cotangents of several outputs (np.linalg.eigh)
            g = [densify(c) for c in g]
        if type(which) is not int:
            return _rule_cotangents(back, g, ans, which, args, kwargs)
        vjps = back.vjps
        if which < len(vjps) and which < len(args) and vjps[which] is not None:
            # the common case inline: one argument of a function with a rule
            ct, value = vjps[which](g, ans, *args, **kwargs), args[which]
            # A vjp gives the argument's shape or the broadcast output's: equal sizes and
            # dimensions mean equal shapes, without building the shape tuples.
            if (type(ct) is np.ndarray and type(value) is np.ndarray
                    and ct.ndim == value.ndim and ct.size == value.size):
                return ct
            return _shaped(ct, value)
        return _no_vjp(back, args, kwargs, which)
    values = (*args, *kwargs.values())
    cts = back(g) if back is not None else (None,) * len(values)
    if type(which) is int:
        return _shaped(cts[which], values[which])
    return _shaped_all(cts, values, which)


def _shaped_all(cts, values, which):
    return [_shaped(cts[i], values[i]) for i in which]


def _rule_cotangents(rule, g, ans, which, args, kwargs):
    return [_rule_cotangent(rule, g, ans, i, args, kwargs) for i in which]


def _rule_cotangent(rule, g, ans, i, args, kwargs):
    vjps = rule.vjps
    vjp = vjps[i] if i < len(vjps) and i < len(args) else None
    if vjp is None:
        return _no_vjp(rule, args, kwargs, i)
    return _shaped(vjp(g, ans, *args, **kwargs), args[i])


def _shaped(ct, value):
    if ct is None:
        return zero(value)
    if (type(ct) is np.ndarray and type(value) is np.ndarray and ct.ndim == value.ndim
            and ct.size == value.size):
        return ct
    return densify(acc(None, ct, value))


def _no_vjp(rule, args, kwargs, i):
    n = len(args)
    value = args[i] if i < n else list(kwargs.values())[i - n]
    if i >= n and differentiable(value):
        raise rules.MissingRuleError(
            f"{rule.name}: keyword argument {list(kwargs)[i - n]}= carries a derivative, but "
            f"rules differentiate positional arguments; pass it positionally")
    return zero(value)


#: The smallest array worth a like: below it, the like's own cost outweighs what it frees.
LIKE_BYTES = 4096
_NAN = {}  # dtype -> a read-only one-element array of NaN, every like's buffer
_LIKES = {}  # (shape, dtype) -> its like


def like(value):
    """A stand-in for ``value`` in an adjoint that reads only its type and shape (``acc``'s
    third argument, an argument its vjp never reads), so that the value can be freed as
    soon as the primal is done with it. A float or complex array of LIKE_BYTES or more
    becomes a read-only array of its shape and dtype whose every element is one NaN (zero
    strides: no memory), so that a read of its numbers that the analysis missed gives NaN
    and a test fails, never a plausible number. Lists and tuples of arrays are taken
    element by element; anything else is kept as it is."""
    t = type(value)
    if t is np.ndarray:
        if value.nbytes < LIKE_BYTES or value.dtype.kind not in "fc":
            return value
        key = (value.shape, value.dtype)
        made = _LIKES.get(key)
        if made is None:
            made = _like(*key)
        return made
    if (t is list or t is tuple) and value and type(value[0]) is np.ndarray:
        if all(type(v) is not np.ndarray or v.nbytes < LIKE_BYTES for v in value):
            return value  # (a join's many small pieces: nothing to free)
        out = [like(v) for v in value]
        return out if t is list else tuple(out)
    return value


def _like(shape, dtype):
    """A new like, shared by every value of its shape and dtype (it is read-only)."""
    if len(_LIKES) >= 4096:  # a bound: a long run of ever new shapes
        _LIKES.clear()
    buffer = _NAN.get(dtype)
    if buffer is None:
        buffer = _NAN[dtype] = np.full(1, np.nan, dtype)
        buffer.flags.writeable = False
    made = _LIKES[shape, dtype] = np.ndarray(shape, dtype, buffer, 0, (0,) * len(shape))
    return made


def like_unless(value, *readers):
    """``value`` where one of ``readers`` reads it, else its :func:`like`. A reader is
    ``(back, position, parents)``: the pullback a call recorded, the value's position in
    the call (-1: its output) and the call's differentiated arguments (bit i: argument i).
    Only a rule reads what the generated code hands it (a user function's adjoint, map's
    and sum's pullbacks keep what they need themselves). The generated code calls it only
    for a value whose type is in LIKED."""
    for back, position, parents in readers:
        if type(back) is Rule:
            ans_read, positions = back.reads(parents)
            if ans_read if position < 0 else positions is None or position in positions:
                return value
    return like(value)


def acc(total, ct, value):
    """``total + ct`` as cotangents of ``value`` (``total`` None at first, ``ct`` None adds
    nothing)."""
    if ct is None:
        return total
    t, tc = type(value), type(ct)
    if t is np.ndarray:
        if total is None and tc is np.ndarray and ct.shape == value.shape:
            return ct  # what accumulate does, without its checks (the common case)
        return accumulate(total, ct, value.shape)
    if t is float or t is np.float64:
        if tc is float or tc is np.float64:
            return ct if total is None else total + ct
        return accumulate(total, ct, ())
    if t is list or t is tuple:
        out = [None] * len(value) if total is None else list(total)
        for k, (c, v) in enumerate(zip(ct, value)):
            if c is not None:
                out[k] = acc(out[k], c, v)
        return out
    return accumulate(total, ct, np.shape(value))


_getitem_vjp = rules.RULES[operator.getitem].vjps[0]


def acc_item(total, seq, k, ct):
    """Add ``ct``, the cotangent of ``seq[k]``, to ``total``, a cotangent of ``seq`` that
    this call owns: a list for a list, else a sparse Scatter (O(1) per element)."""
    if ct is None:
        return total
    if type(seq) is list or type(seq) is tuple:
        if total is None:
            total = [None] * len(seq)
        total[k] = acc(total[k], ct, seq[k])
        return total
    return accumulate(total, _getitem_vjp(densify(ct), None, seq, k), np.shape(seq))


def pack(value, cts):
    """The cotangent of ``value`` from those of its elements (``a, b = value``)."""
    if type(value) is list or type(value) is tuple:
        return list(cts)
    total = None
    for k, ct in enumerate(cts):
        total = acc_item(total, value, k, ct)
    return total


def map_(fn, /, *seqs, active=()):
    """``map(fn, *seqs)`` as a list, each element through :func:`call`; ``active``: the
    positions of the sequences that may carry a derivative."""
    if not seqs:
        raise TypeError("map() must have at least two arguments")
    seqs = [s if type(s) in (list, tuple, np.ndarray, range) else list(s) for s in seqs]
    n = min(len(s) for s in seqs)
    outs, backs = [None] * n, [None] * n
    for k in range(n):
        outs[k], backs[k] = call(fn, *[s[k] for s in seqs])

    def pullback(g):
        cts = [None] * len(seqs)
        for k in range(n - 1, -1, -1):
            if g[k] is None or backs[k] is None:
                continue
            c = pull(backs[k], densify(g[k]), outs[k], active, *[s[k] for s in seqs])
            for j, ct in zip(active, c):
                cts[j] = acc_item(cts[j], seqs[j], k, ct)
        return (None, *cts)
    return outs, pullback


_sum_vjp = rules.RULES[np.sum].vjps[0]


def sum_(seq, start=0):
    """The builtin ``sum`` over a list, tuple or array (rows), with its pullback."""
    if type(seq) not in (list, tuple, np.ndarray):
        raise TypeError(f"sum over a {type(seq).__name__} of differentiable values; the "
                        f"source engine differentiates sums of lists, tuples and arrays")
    ans = builtins.sum(seq, start)

    def pullback(g):
        if type(seq) is np.ndarray:
            return _sum_vjp(g, ans, seq, axis=0), g
        return [g] * len(seq), g
    return ans, pullback


# -- the rules of Python's operators, where they also act on lists ------------------------
# Each reads what its rule's vjp reads (rules/reads.py), and more only for a type, a length
# or acc's shapes, which a like keeps.

def _concatenated(vjp, i):
    def add_vjp(g, ans, x, y):
        if type(ans) is list or type(ans) is tuple:  # x + y joined two sequences
            return list(g[:len(x)]) if i == 0 else list(g[len(x):])
        return vjp(g, ans, x, y)
    return _reads.through(add_vjp, vjp, 1)


def _repeated(vjp, i):
    def mul_vjp(g, ans, x, y):
        if type(ans) is list or type(ans) is tuple:  # [w] * n repeated a sequence
            seq = x if i == 0 else y
            if type(seq) is not list and type(seq) is not tuple:
                return None  # the repeat count
            m = len(seq)
            out = [None] * m
            for j, c in enumerate(g):
                out[j % m] = acc(out[j % m], c, seq[j % m])
            return out
        return vjp(g, ans, x, y)
    return _reads.through(mul_vjp, vjp, 1)


def _indexed(vjp, i):
    def getitem_vjp(g, ans, x, index):
        if type(x) is list or type(x) is tuple:
            out = [None] * len(x)
            out[index] = g
            return out
        return vjp(g, ans, x, index)
    return _reads.through(getitem_vjp, vjp, 1)


_ON_SEQUENCES = {operator.add: _concatenated, operator.mul: _repeated,
                 operator.getitem: _indexed}


def static_vjp(fn, i):
    """The vjp of argument ``i`` of ``fn`` for a call site whose function is known when the
    code is generated (an operator, ``.T``, an array method); None if not differentiable."""
    vjps = rules.lookup(fn).vjps
    vjp = vjps[i] if i < len(vjps) else None
    if vjp is None:
        return None
    wrap = _ON_SEQUENCES.get(fn)
    return wrap(vjp, i) if wrap else vjp


#: the types :func:`like` may stand in for (the generated code tests a value's type first)
LIKED = frozenset({np.ndarray, list, tuple})

HELPERS = {"call": call, "pull": pull, "acc": acc, "acc_item": acc_item, "pack": pack,
           "map": map_, "sum": sum_, "dense": densify, "like": like,
           "like_unless": like_unless, "type": type, "liked": LIKED}
