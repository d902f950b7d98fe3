"""The registry of derivative rules and its helpers (the package's docstring says what a
rule is): ``RULES``, ``defpartials``, ``defrule``, ``alias``, ``primitive``,
``defpositional``, ``defrefused``, ``lookup``; the one table of operators, array methods
and attributes every engine builds from (``BINARY_OPERATORS``, ``METHODS``,
``ATTRIBUTES``); canonical forms (``CANONICAL``)."""

import functools
import importlib
import inspect
import operator
import sys
from collections.abc import Hashable

import numpy as np

from .. import _arrays
from .._cotangents import (  # noqa: F401 - the rules' helpers, found here as before
    Scatter,
    ScatterSum,
    _ndim,
    accumulate,
    as_output,
    densify,
    each_direction,
    is_complex,
    real_cotangent,
    unbroadcast,
)
from ..errors import MissingRuleError  # noqa: F401 - rules.MissingRuleError, as before
from . import reads as _reads


class Rule:
    """``vjps``: one per positional argument (or :class:`EveryArgument`); ``jvp``: batched.
    ``composite``: for a function of several outputs (``np.split``, ``slogdet``), the same
    function written with single-output operations, which the operator-overloading engines
    run on their traced values instead of the jvp (the source engine uses the vjps, which
    then receive a list of the outputs' cotangents, None where nothing flowed).
    ``keywords``: the array keywords (``where``, ``initial``; kernels/ad/_keywords.py) its
    vjps and jvp differentiate; engines drop or refuse the others before calling it."""

    __slots__ = ("name", "vjps", "jvp", "composite", "keywords", "family", "kept", "read")

    def __init__(self, name, vjps, jvp, composite=None, keywords=()):
        self.name, self.jvp, self.composite = name, jvp, composite
        self.keywords = frozenset(keywords)
        self.family = _family()
        self.vjps = vjps if isinstance(vjps, EveryArgument) else tuple(vjps)
        self.kept, self.read = {}, {}  # keeps()'s and reads()'s answers, by arguments

    def reads(self, parents):
        """``(reads ans, positions of the positional arguments read)`` by the vjps of the
        differentiated arguments ``parents`` (bit i: positional argument i); the positions
        are a frozenset, or None for all of them. Read off the vjps' code
        (kernels/ad/rules/reads.py) once per set of arguments."""
        found = self.read.get(parents)
        if found is None:
            vjps = self.vjps
            if isinstance(vjps, EveryArgument):
                found = [_reads.reads(vjps.vjp, 2)]  # vjp(i, g, ans, *args)
            else:
                found = [_reads.reads(v, 1) for i, v in enumerate(vjps)
                         if v is not None and parents >> i & 1]
            found = self.read[parents] = _reads.union(found)
        return found

    def keeps(self, parents):
        """``(keeps ans, prune)`` of an operation whose differentiable arguments are the
        bits of ``parents``: whether the vjps of those arguments read the output, and a
        function from the argument tuple to what a recorded node must keep of it (None:
        all of it); found in ``kept`` after the first time."""
        keeps = self.kept.get(parents)
        if keeps is None:
            ans_read, positions = self.reads(parents)
            keeps = self.kept[parents] = (ans_read, _reads.pruner(positions))
        return keeps

    def __repr__(self):
        return f"Rule({self.name})"


class EveryArgument:
    """The vjps of a function of any number of differentiable arguments (a join, einsum):
    ``vjps[i]`` is ``vjp(i, g, ans, *args, **kwargs)`` for ``i >= first``."""

    __slots__ = ("vjp", "first", "_made")

    def __init__(self, vjp, first=0):
        self.vjp, self.first, self._made = vjp, first, {}

    def __len__(self):
        return sys.maxsize  # engines test ``i < len(vjps)``: every position has one

    def __getitem__(self, i):
        if i < self.first:
            return None
        made = self._made.get(i)
        if made is None:
            vjp = self.vjp
            made = self._made[i] = lambda g, ans, *args, **kw: vjp(i, g, ans, *args, **kw)
        return made


def _family():
    """The module registering a rule (``kernels.ad.rules.reduce``, a user's module), for
    the generated coverage table (kernels/ad/coverage.py)."""
    frame = sys._getframe(2)
    while frame is not None and frame.f_globals.get("__name__") == __name__:
        frame = frame.f_back
    return frame.f_globals.get("__name__", "") if frame is not None else ""


#: function object -> Rule. A plain dict, so engines look rules up with one hash.
RULES = {}


def _public_module(fn, name):
    """The public namespace holding ``fn`` as ``name``: numpy's for a numpy ufunc,
    ``scipy.special`` for scipy's (ufuncs have no ``__module__``) and for a function defined
    in a private submodule (``scipy.special._logsumexp``)."""
    module = getattr(fn, "__module__", None)
    if module is None:
        if not isinstance(fn, np.ufunc) or getattr(np, name, None) is fn:
            return "numpy" if isinstance(fn, np.ufunc) else ""
        candidates = [m for m in sys.modules if m.startswith("scipy.special")]
    else:
        parts = module.split(".")
        candidates = [".".join(parts[:k]) for k in range(len(parts), 0, -1)
                      if not parts[k - 1].startswith("_")]
    for candidate in ["scipy.special", *candidates] if module is None else candidates:
        if _arrays.original(getattr(sys.modules.get(candidate), name, None)) is fn:
            return candidate
    return module or ""


def _name(fn):
    # an object without a name (numpy.linalg.test is a PytestTester) by its type's: its
    # repr holds its address, which differs from one process to the next
    qual = (getattr(fn, "__qualname__", None) or getattr(fn, "__name__", None)
            or type(fn).__qualname__)
    module = _public_module(fn, qual)
    return f"{module}.{qual}" if module else qual


#: rule families for other packages' functions: package -> family module. A family is
#: registered the first time a function misses the table while its package is imported
#: (kernels.ad never imports scipy itself).
_LATE = {"scipy.special": ".scipy"}


def register_late():
    """Register the families of :data:`_LATE` whose package has been imported."""
    for package, family in list(_LATE.items()):
        if sys.modules.get(package) is not None:  # (None: an import that was blocked)
            del _LATE[package]
            importlib.import_module(family, __package__)


def find(fn):
    """The rule of ``fn``, or None (registering the families of imported packages first)."""
    rule = RULES.get(fn)
    if rule is None and _LATE:
        register_late()
        rule = RULES.get(fn)
    return rule


#: function -> why it has no rule (kernels/ad/rules/namespace.py: "in-place", "several outputs",
#: "no rule yet: ..."); lookup names the reason.
REFUSED = {}


def defrefused(reason, *fns):
    """Record why ``fns`` have no derivative rule (None entries, absent in this numpy, are
    skipped)."""
    for fn in fns:
        if fn is not None:
            REFUSED[fn] = reason


def lookup(fn):
    """The rule of ``fn``; MissingRuleError naming it (and why it has none, if known) and
    saying how to add one."""
    rule = find(fn)
    if rule is None:
        name = _name(fn)
        why = REFUSED.get(fn) if isinstance(fn, Hashable) else None
        raise MissingRuleError(
            f"no derivative rule for {name}{f' ({why})' if why else ''}; register one with "
            f"kernels.ad.rules.defpartials({name}, lambda ans, x: <d ans/d x>) for an "
            f"elementwise function, or kernels.ad.rules.defrule({name}, vjps=..., jvp=...) "
            f"(docs/ad.md: 'Adding a rule')")
    return rule


# -- registration ----------------------------------------------------------------------

def _lift(t, ndim):
    """A batched tangent with axes inserted after the batch axis so it broadcasts against
    an output of ``ndim`` dimensions (numpy aligns trailing axes)."""
    missing = ndim - (t.ndim - 1)
    if missing > 0:
        t = t.reshape(t.shape[:1] + (1,) * missing + t.shape[1:])
    return t


def _partial_vjp(partial):
    """The vjp of an argument whose local partial derivative is ``partial`` (None: none)."""
    if partial is None:
        return None

    def vjp(g, ans, *args):
        d = partial(ans, *args)
        if type(d) is float and d == 1.0:
            # add's and subtract's first partial: g itself, no pass over it (no engine
            # writes into a cotangent; where two arguments' gradients leave an engine as
            # one array, it is copied apart there)
            return g
        return g * d
    return _reads.through(vjp, partial, 0)


def defpartials(fn, *partials, name=None):
    """Register the elementwise ``fn`` from its local partial derivatives, one per argument:
    ``partial(ans, *args)`` is d ans / d arg, broadcastable to ``ans``. None marks an
    argument that is not differentiable."""

    if len(partials) == 1:
        (partial,) = partials

        def jvp(tangents, ans, x):  # the output has the input's shape: no lifting
            return partial(ans, x) * tangents[0]
    else:
        def jvp(tangents, ans, *args):
            out, owned = None, False  # owned: out is an array made here, free to add into
            ndim = _ndim(ans)
            for t, partial in zip(tangents, partials):
                if t is None or partial is None:  # a constant, or no derivative
                    continue
                if t.ndim - 1 < ndim:
                    t = _lift(t, ndim)
                d = partial(ans, *args)
                # add's and subtract's constant partials: no pass of their own over the
                # tangents (forward mode's Jacobian of ba: a third of its time). A tangent
                # taken as it is may be shared: tangents are never written in place.
                if type(d) is float and (d == 1.0 or d == -1.0 and out is not None):
                    out = t if out is None else out + t if d == 1.0 else out - t
                    owned = False
                    continue
                term = d * t
                if out is None:
                    out, owned = term, True
                elif owned and out.shape == term.shape and out.dtype == term.dtype:
                    out += term  # into the first term's fresh array: one allocation fewer
                else:
                    out, owned = out + term, True
            if out is None:
                width = next(len(t) for t in tangents if t is not None)
                return np.zeros((width,) + np.shape(ans))
            if out.ndim - 1 != ndim or ndim and out.shape[1:] != ans.shape:
                # a constant partial (1.0 for add) leaves a broadcast argument's shape
                out = np.broadcast_to(out, out.shape[:1] + np.shape(ans))
            return out

    RULES[fn] = Rule(name or _name(fn), [_partial_vjp(p) for p in partials], jvp)
    return fn


def defrule(fn, vjps, jvp, name=None, composite=None, keywords=()):
    """Register ``fn`` with one vjp per positional argument (None: not differentiable) and a
    batched jvp (see the module docstring for both signatures); ``composite`` and
    ``keywords``: see Rule."""
    RULES[fn] = Rule(name or _name(fn), vjps, jvp, composite, keywords)
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


# -- canonical forms ----------------------------------------------------------------------

#: function -> ``canonical(*args, **kwargs) -> (primitive, flat_args, kwargs, unflatten)``:
#: calls whose differentiable values sit inside a sequence argument (``np.concatenate([a,
#: b])``, ``np.array([[x, 1.0], [2.0, y]])``) become calls of a primitive taking them as
#: positional arguments; ``unflatten(cts)`` gives back one cotangent per original argument
#: (a list for a list) from those of ``flat_args``.
CANONICAL = {}


def defcanonical(fn, canonical):
    CANONICAL[fn] = canonical
    return fn


def defpositional(fn, original=None, check=None):
    """Make every argument of ``fn`` positional in its canonical form, so that its rule
    differentiates one given by keyword too (``logsumexp(a, b=w)``, ``trapezoid(y,
    x=t)``); the cotangents come back in the call's own order. ``original``: the function
    whose signature binds the call (``fn`` itself unless that is a wrapper); ``check``:
    called with the bound arguments (a dict) first, to refuse an option by name before
    anything runs."""
    signature = inspect.signature(original or fn)

    def canonical_(*args, **kwargs):
        bound = signature.bind(*args, **kwargs)
        bound.apply_defaults()
        if check is not None:
            check(bound.arguments)
        flat, n = bound.args, len(args)
        # numpy's "no value" defaults (keepdims of np.average) stay unset, as numpy reads them
        keywords = {k: v for k, v in bound.kwargs.items() if v is not np._NoValue}
        names = list(signature.parameters)
        return fn, flat, keywords, lambda cts: (
            *cts[:n], *(cts[names.index(k)] for k in kwargs))
    CANONICAL[fn] = canonical_
    return fn


def canonical(fn, args, kwargs):
    """``(fn, args, kwargs)`` in canonical form (unchanged when ``fn`` has none), with the
    unflatten function (None when unchanged)."""
    make = CANONICAL.get(fn)
    if make is None:
        return fn, args, kwargs, None
    return make(*args, **kwargs)


# -- the one table of operators and array methods -------------------------------------------

#: Python's binary operators on traced values: dunder name -> the function it computes
#: (``__add__`` and ``__radd__`` compute ``operator.add``). Every engine defines its
#: operators from this table, and so accepts exactly these.
BINARY_OPERATORS = {
    "add": operator.add, "sub": operator.sub, "mul": operator.mul,
    "truediv": operator.truediv, "pow": operator.pow, "matmul": operator.matmul,
    "mod": operator.mod, "floordiv": operator.floordiv,
}
UNARY_OPERATORS = {"neg": operator.neg, "pos": operator.pos, "abs": abs}
#: comparisons see values and give plain answers: ``if x > 0:`` is not differentiable
COMPARISONS = ("lt", "le", "gt", "ge", "eq", "ne")

#: Array methods of traced values: ``x.name(*args, **kwargs)`` is ``fn(x, *args, **kwargs)``;
#: for the names in PACKED, ``x.reshape(3, 4)`` is ``fn(x, (3, 4))``.
METHODS = {
    "sum": np.sum, "mean": np.mean, "prod": np.prod, "max": np.max, "min": np.min,
    "std": np.std, "var": np.var, "cumsum": np.cumsum, "dot": np.dot, "trace": np.trace,
    "reshape": np.reshape, "transpose": np.transpose, "ravel": np.ravel, "flatten": np.ravel,
    "squeeze": np.squeeze, "swapaxes": np.swapaxes, "clip": np.clip,
    "diagonal": np.diagonal, "repeat": np.repeat, "take": np.take, "conj": np.conj,
    "conjugate": np.conj, "copy": np.copy, "astype": _arrays.astype, "round": np.round,
    "argmax": np.argmax, "argmin": np.argmin, "argsort": np.argsort, "nonzero": np.nonzero,
    "any": np.any, "all": np.all,
}
PACKED = frozenset({"reshape", "transpose"})
#: attributes computed by a function (``x.T`` is ``np.transpose(x)``)
ATTRIBUTES = {"T": np.transpose, "real": np.real, "imag": np.imag}
#: attributes with no derivative, read from the value
QUERIES = frozenset({"shape", "ndim", "size", "dtype"})


def method_call(name, x, args, kwargs):
    """``(fn, args)`` of the method call ``x.name(*args)`` (AttributeError if the table
    lacks it, naming what is supported)."""
    fn = METHODS.get(name)
    if fn is None:
        raise AttributeError(
            f"method .{name}() of a traced value is not differentiable (supported: "
            f"{', '.join(sorted(METHODS))}; in-place methods such as .sort() are not)")
    if name in PACKED and len(args) > 1:
        args = (args,)
    elif name == "transpose" and not args:
        args = (None,)
    return fn, (x, *args)


def dispatcher(plain, apply):
    """The numpy-call entry of an operator-overloading engine: ``dispatch(fn, args,
    kwargs)`` calls a function without a derivative on plain values (``plain(x)``), puts a
    call in its canonical form (joins, np.array of a list) or runs its composite (several
    outputs), makes lists of traced values arrays, and hands the rest to the engine's
    ``apply(fn, args, kwargs)``."""
    def dispatch(fn, args, kwargs):
        if fn in NONDIFFERENTIABLE:
            if kwargs:
                return fn(*map(plain, args), **{k: plain(v) for k, v in kwargs.items()})
            return fn(*map(plain, args))
        if fn in CANONICAL:
            if fn in _arrays.PIECEWISE:
                args = _arrays.pieces_as_arrays(fn, args, dispatch)
            fn, args, kwargs, _ = canonical(fn, args, kwargs or {})
        else:
            for a in args:
                if type(a) is list or type(a) is tuple:
                    args = _arrays.lists_as_arrays(args, dispatch)
                    break
        rule = RULES.get(fn)
        if rule is not None and rule.composite is not None:
            return rule.composite(*args, **(kwargs or {}))
        return apply(fn, args, kwargs)
    return dispatch


def install_methods(cls, dispatch):
    """Give an engine's traced type ``cls`` the array methods and computed attributes of
    the table, each calling ``dispatch(fn, args, kwargs)``, the engine's numpy call."""
    for name in METHODS:
        def method(self, *args, _name=name, **kwargs):
            fn, args = method_call(_name, self, args, kwargs)
            return dispatch(fn, args, kwargs)
        method.__name__ = name
        setattr(cls, name, method)
    for name, fn in ATTRIBUTES.items():
        setattr(cls, name, property(lambda self, fn=fn: dispatch(fn, (self,), {})))

