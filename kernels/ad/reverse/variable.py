"""Reverse mode by operator overloading: a PyTorch-like :class:`Variable` records every
operation applied to it, and :meth:`Variable.backward` replays the record backwards
(YAAD and micrograd, on numpy).

Plain numpy code runs unchanged on Variables: ``np.sin(v)`` reaches
:meth:`Variable.__array_ufunc__`, ``np.sum(v)``/``np.dot(a, v)``/``np.trace(v)`` reach
:meth:`Variable.__array_function__`, and the Python operators are methods of their own (no
numpy dispatch on the hottest path). The maths lives in :mod:`kernels.ad.rules`.

The tape is apart from the Variables: each Variable holds its value and its *node*, and a
node holds its parents' nodes, its rule's vjps and only what those vjps read of the
operation (the rule says which: ``Rule.keeps``). So a value that no vjp reads (the sum
inside ``y + h * k``, a product that is only concatenated) is freed as soon as the user's
code lets go of its Variable, as a hand-written adjoint frees it, instead of living on the
tape until the backward pass.

A node is a tuple, ``(seq, links, vjps, args, kwargs, ans, shape, kind)``: its creation
number; ``((i, parent's node), ...)`` for the arguments it depends on; the rule's vjps;
the arguments and the output as far as the vjps read them (None elsewhere); the output's
shape and type, for the cotangent accumulated into it. A leaf's node has no links and, in
the output's place, a weak reference to its Variable (to hand it its ``.grad``).

``backward`` needs no recursion: nodes are numbered as they are created, a node's parents
always exist before it, so popping the highest number first from a heap visits every node
after all of its consumers (a reverse topological order found in one pass).
"""

import itertools
import numbers
import operator
import weakref

import numpy as np

from .. import _arrays, _keywords, rules
from ..rules import RULES, MissingRuleError, lookup
from . import alias as _reverse_alias
from .backward import backpropagate as _backpropagate

_ndarray = np.ndarray
_float64 = np.float64
_F64 = np.dtype(np.float64)
_next_seq = itertools.count().__next__
_new = object.__new__
_weakref = weakref.ref

_REAL_KINDS = frozenset("fiu")
_NUMERIC_KINDS = frozenset("fiucb")


class Variable(_arrays.Traced):
    """A value in a differentiable computation: a float or a real float64 ndarray.

    ``Variable(value)`` makes a *leaf* (an input). Operations on Variables return new
    *interior* Variables that remember how they were computed; the graph is built as the
    numpy calls happen (a dynamic graph, as in PyTorch).

    ``.grad`` is None until a :meth:`backward` reaches the leaf. Like PyTorch's ``.grad``, it
    **accumulates**: every ``backward`` adds its gradient to what is already there, so two
    backward calls through ``f`` leave ``2 * df/dx``. Reset it with ``v.zero_grad()`` (or
    ``v.grad = None``) between independent gradients. Only leaves receive ``.grad``.

    Constants mix freely: Python floats and ints, numpy scalars and real ndarrays, on either
    side of an operator. Comparisons (``<``, ``==``, ``np.greater``, ...) return plain,
    non-differentiable values, so ``if x > 0:`` works. ``float(v)`` of a scalar is a plain
    float too: a function of it (``math.sin(float(v))``) is a constant to this engine.
    """

    # _family: the Variables over the same array, for in-place operators (_reverse_alias);
    # unset, and free, for the Variables that share no array
    __slots__ = ("value", "grad", "_node", "_family", "__weakref__")
    _AD_NAME, _AD_ENGINE = "a Variable", "reverse mode"  # for the escape errors (_arrays)

    def __new__(cls, value=None):
        if cls is Variable and isinstance(value, _ndarray) and value.ndim:
            cls = ArrayVariable
        return object.__new__(cls)

    def __init__(self, value):
        self.value = _real_value(value, "the value of a Variable")
        self.grad = None
        self._node = leaf_node(self)

    def zero_grad(self):
        """Forget the accumulated gradient (``.grad = None``)."""
        self.grad = None

    def backward(self, g=None):
        """Add d(sum(g * self))/d(leaf) to ``.grad`` of every leaf this value depends on.

        ``g`` (the cotangent of this output) defaults to 1.0 for a scalar output and must
        have the output's shape otherwise. All gradients are computed before any ``.grad``
        changes, so a backward that fails leaves every ``.grad`` as it was.
        """
        shape = _shape(self.value)
        if g is None:
            if shape != ():
                raise ValueError(
                    f"backward() of a Variable of shape {shape} needs g, the output's cotangent "
                    f"of that shape; only a scalar output defaults to g = 1.0")
            g = 1.0
        else:
            # A copy: a leaf may receive g itself as its gradient, and .grad must not alias it.
            g = np.array(_real_value(g, "backward's g"), dtype=float)
            if g.shape != shape:
                raise ValueError(f"backward's g has shape {g.shape}, but the output it is the "
                                 f"cotangent of has shape {shape}")
            if shape == ():
                g = float(g)
        for leaf, ct in _backpropagate(self, g).values():
            ct = np.real(ct) if rules.is_complex(ct) else ct  # a real leaf's share
            leaf.grad = ct if leaf.grad is None else leaf.grad + ct

    @classmethod
    def _ad_apply(cls, fn, args, kwargs):
        """Record ``fn(*args, **kwargs)`` for a ``rules.primitive`` user function or a numpy
        constructor (``np.array`` of Variables, kernels.ad._arrays)."""
        return _dispatch(fn, args, kwargs)

    # -- numpy interception ---------------------------------------------------------------

    def __array_ufunc__(self, ufunc, method, *inputs, **kwargs):
        if method == "__call__" and not kwargs:
            if len(inputs) == 1:  # np.sin(v), an element loop's most common call
                rule = RULES.get(ufunc)
                if rule is not None:
                    x = self.value
                    return _record(ufunc(x), rule, (x,), None, ((0, self),))
            name = f"numpy.{ufunc.__name__}"
            checked = []
            for a in inputs:
                if not isinstance(a, Variable):
                    a = _constant(a, name)
                    if a is NotImplemented:
                        return a  # another array type: numpy asks it next
                checked.append(a)
            if ufunc in rules.NONDIFFERENTIABLE:
                return ufunc(*[_plain(a) for a in checked])
            return _apply(ufunc, checked, None)
        name = f"numpy.{ufunc.__name__}"
        if method != "__call__":
            raise MissingRuleError(
                f"{name}.{method} has no derivative rule on Variables; only plain calls "
                f"{name}(...) are differentiable (numpy.sum for add.reduce)")
        if "out" in kwargs:
            raise ValueError(
                f"{name}(..., out=...) cannot store a Variable into a plain array (as an "
                f"in-place `a += v` on an ndarray a does); write `a = a + v`")
        checked = []
        for a in inputs:
            if not isinstance(a, Variable):
                a = _constant(a, name)
                if a is NotImplemented:
                    return a
            checked.append(a)
        if ufunc in rules.NONDIFFERENTIABLE:
            return ufunc(*[_plain(a) for a in checked], **kwargs)
        return _apply(ufunc, checked, kwargs)  # where=, dtype=, ...: _keywords decides

    def __array_function__(self, func, types, args, kwargs):
        if not kwargs and len(args) == 1:  # np.trace(v), np.sum(v): the common call
            rule = RULES.get(func)
            if rule is not None and rule.composite is None and rule.vjps[0] is not None:
                x = self.value
                try:
                    # numpy's implementation itself: func(x) would dispatch a second time
                    # (a forward Dual, nested, dispatches: its implementation is forward's)
                    ans = (func if isinstance(x, _arrays.Traced) else
                           getattr(func, "_implementation", func))(x)
                except (ValueError, TypeError, IndexError) as err:
                    raise _operation_error(rule.name, args, err) from err
                return _record(ans, rule, (x,), None, ((0, self),))
        if len(types) > 1:
            for t in types:
                if not issubclass(t, (Variable, _ndarray)):
                    return NotImplemented
        return _dispatch(func, args, kwargs)

    # -- array-like attributes (methods and computed attributes: rules.METHODS, ATTRIBUTES) --

    @property
    def shape(self):
        return _shape(self.value)

    @property
    def ndim(self):
        return len(_shape(self.value))

    @property
    def size(self):
        return np.size(self.value)

    @property
    def dtype(self):
        return np.result_type(self.value)

    def __bool__(self):
        if _shape(self.value) != ():
            raise ValueError(f"the truth value of a Variable of shape {_shape(self.value)} "
                             f"is ambiguous; compare its elements (np.all, np.any) instead")
        return bool(self.value)

    __hash__ = object.__hash__  # identity, as PyTorch tensors: == compares values

    def __repr__(self):
        kind = "" if self._node[1] else ", leaf"
        return f"Variable({self.value!r}{kind})"


class ArrayVariable(Variable):
    """A Variable whose value is an array: it also indexes, iterates and has a length. (A
    scalar Variable has none of these, so that numpy never takes it for a sequence: storing
    one into an array then reaches ``__float__``, which names the escape.)"""

    __slots__ = ()

    def __len__(self):
        return len(self.value)

    def __getitem__(self, index):
        rule = RULES.get(operator.getitem) or lookup(operator.getitem)
        if isinstance(index, Variable):
            index = index.value  # an index is not differentiable
        elif type(index) is tuple and any(isinstance(i, Variable) for i in index):
            index = tuple(_plain(i) for i in index)
        x = self.value
        try:
            ans = x[index]
        except (IndexError, TypeError, ValueError) as err:
            raise _operation_error(f"indexing ({rule.name})", (self, index), err) from err
        return _record(ans, rule, (x, index), None, ((0, self),))

    def __iter__(self):
        x = self.value
        rule = RULES.get(operator.getitem) or lookup(operator.getitem)
        parents = ((0, self),)  # shared by every element: one tuple for the whole loop
        for i in range(len(x)):
            yield _record(x[i], rule, (x, i), None, parents)


_arrays.install_inplace(ArrayVariable, rules.BINARY_OPERATORS, shared=_reverse_alias.shared,
                        after=_reverse_alias.retire)
#: a Variable an in-place operator retired: its every use raises (_reverse_alias)
RetiredVariable = _reverse_alias.make_retired(ArrayVariable)

# array methods and computed attributes, from the one table in kernels.ad.rules
rules.install_methods(Variable, lambda fn, args, kwargs: _dispatch(fn, args, kwargs))


# -- recording ----------------------------------------------------------------------------

def leaf_node(variable):
    """The node of a leaf (an input): no links; a weak reference to the Variable where an
    interior node keeps its output, so that the tape does not keep the leaf alive."""
    value = variable.value
    t = type(value)
    return (_next_seq(), (), None, None, None, _weakref(variable),
            value.shape if t is _ndarray else () if t is float else np.shape(value), t)


def _record(value, rule, args, kwargs, parents):
    """A new interior Variable and its node (the module docstring); ``parents``: ``((i,
    Variable), ...)`` for the arguments it depends on. Slots are set directly to skip
    ``__init__``'s checks."""
    # every ndarray value is an ArrayVariable (a 0-d one too: numpy answers its len() and
    # indexing with its own errors), without reading .ndim on the hot path
    t = type(value)
    # scalars first (an element loop's); a forward Dual value (forward over reverse) is an
    # ArrayVariable if it holds an array
    if t is _float64 or t is float:
        v, shape = _new(Variable), ()
    elif t is _ndarray:
        v, shape = _new(ArrayVariable), value.shape
    else:
        v = _new(ArrayVariable if getattr(value, "ndim", 0) else Variable)
        shape = np.shape(value)
    v.value = value
    v.grad = None
    # unpacked by count: a comprehension is a call of its own (a third of a scalar node)
    n = len(parents)
    if n == 1:
        (i, p), = parents
        links = ((i, p._node),)
        mask = 1 << i
    elif n == 2:
        (i, p), (j, q) = parents
        links = ((i, p._node), (j, q._node))
        mask = 1 << i | 1 << j
    else:
        links = tuple([(i, p._node) for i, p in parents])
        mask = sum(1 << i for i, _ in parents)
    keeps_ans, prune = rule.kept.get(mask) or rule.keeps(mask)
    v._node = (_next_seq(), links, rule.vjps, args if prune is None else prune(args), kwargs,
               value if keeps_ans else None, shape, t)
    if t is _ndarray:
        if value.base is not None:  # a view: of a parent's array, most likely
            _reverse_alias.note_view(v, value, parents)
        else:
            for _, p in parents:
                if p.value is value:  # a parent's array itself (np.asarray, np.real)
                    _reverse_alias.note_view(v, value, parents)
                    break
    return v


def _shape(v):
    # np.shape of a float builds an array (~0.7 us); ask floats and numpy values directly
    t = type(v)
    return () if t is float else v.shape if t is _ndarray or t is _float64 else np.shape(v)


def _plain(a):
    if isinstance(a, Variable):
        if type(a) is RetiredVariable:
            a._refuse()
        return a.value
    return a


def _apply(fn, args, kwargs):
    """Record ``fn(*args, **kwargs)``; a plain result when no differentiable argument is a
    Variable (an index or an axis given as a Variable is only a value). A
    ``rules.primitive`` wrapper called on plain values calls its plain function."""
    rule = RULES.get(fn) or lookup(fn)
    vjps = rule.vjps
    values = list(args)
    parents = []
    for i, a in enumerate(args):
        if isinstance(a, Variable):
            if type(a) is RetiredVariable:
                a._refuse()
            values[i] = a.value
            if i < len(vjps) and vjps[i] is not None:
                parents.append((i, a))
    values, parents = tuple(values), tuple(parents)
    if kwargs:  # out=, where=, dtype=, ...: dropped where a no-op, else refused by name
        kwargs = _keywords.checked(rule, fn, values, kwargs) or None
    else:
        kwargs = None
    try:
        if kwargs is None:
            ans = fn(*values)
        else:
            ans = fn(*values, **kwargs)
    except (ValueError, TypeError, IndexError) as err:
        raise _operation_error(rule.name, args, err) from err
    if not parents:
        return ans
    return _record(ans, rule, values, kwargs, parents)


#: numpy calls on Variables (rules.dispatcher): the entry of __array_function__ and the
#: methods
_dispatch = rules.dispatcher(_plain, lambda fn, args, kwargs: _apply(fn, args, kwargs))


def _describe(a):
    kind = "Variable" if isinstance(a, Variable) else type(a).__name__
    v = _plain(a)
    if isinstance(v, _ndarray) or isinstance(a, Variable):
        return f"{kind} of shape {np.shape(v)}"
    text = repr(v)
    return f"{kind} {text}" if len(text) <= 40 else kind


def _operation_error(name, args, err):
    """``err`` again, naming the operation and the shapes and types it was given."""
    kind = ValueError if isinstance(err, ValueError) else type(err)
    if kind not in (ValueError, TypeError, IndexError):
        kind = TypeError  # numpy's UFuncTypeError and friends are TypeErrors
    return kind(f"{name} of [{', '.join(map(_describe, args))}]: {err}")


def _real_value(x, what):
    """``x`` as a float or a float64 ndarray; TypeError for anything that is not real."""
    t = type(x)
    if t is float:
        return x
    if t is _ndarray and x.dtype == np.float64:
        return x
    if isinstance(x, (bool, np.bool_)):
        pass  # a truth value is no point to differentiate at
    elif isinstance(x, numbers.Real) and not isinstance(x, Variable):
        return float(x)
    elif isinstance(x, _ndarray) and x.dtype.kind in _REAL_KINDS:
        return x.astype(np.float64)
    described = f"a {x.dtype} array" if isinstance(x, _ndarray) else f"a {t.__name__}"
    raise TypeError(f"{what} is {described}; only real float64 values (a float, an int or a "
                    f"real ndarray) are supported")


def _constant(x, name):
    """An operand that is not a Variable, checked to be a numeric constant (a list becomes
    an array, as numpy makes it; complex constants make complex intermediates, whose real
    results are differentiated as JAX and autograd do); NotImplemented for another array
    type, so that Python or numpy asks that type next."""
    t = type(x)
    if t is float or t is int or t is _float64:
        return x
    if isinstance(x, (list, tuple)):
        x = np.asarray(x)
    if isinstance(x, _ndarray):
        if x.dtype.kind in _NUMERIC_KINDS:
            return x
        described = f"a {x.dtype} array"
    elif isinstance(x, numbers.Complex):
        return x
    elif isinstance(x, _arrays.Traced):
        # a forward Dual of an enclosing level (forward over reverse): a constant here,
        # its own level sees through the values computed from it
        return x
    elif getattr(t, "__array_ufunc__", None) is not None:
        return NotImplemented
    else:
        described = t.__name__
    raise TypeError(f"unsupported operand types for {name}: Variable and {described}; "
                    f"constants must be numbers or numeric arrays")


# -- Python operators: each a direct method, no numpy dispatch ------------------------------

def _binary_methods(op, symbol):
    def method(self, other):
        rule = RULES.get(op) or lookup(op)
        x = self.value
        if isinstance(other, Variable):
            y = other.value
            parents = ((0, self), (1, other))
        else:
            y = _constant(other, f"{rule.name} ({symbol})")
            if y is NotImplemented:
                return y
            parents = ((0, self),)
        try:
            ans = op(x, y)
        except (ValueError, TypeError) as err:
            raise _operation_error(f"{rule.name} ({symbol})", (self, other), err) from err
        return _record(ans, rule, (x, y), None, parents)

    def reflected(self, other):  # only reached with a constant on the left
        rule = RULES.get(op) or lookup(op)
        x = _constant(other, f"{rule.name} ({symbol})")
        if x is NotImplemented:
            return x
        y = self.value
        try:
            ans = op(x, y)
        except (ValueError, TypeError) as err:
            raise _operation_error(f"{rule.name} ({symbol})", (other, self), err) from err
        return _record(ans, rule, (x, y), None, ((1, self),))

    return method, reflected


def _unary_method(op):
    def method(self):
        rule = RULES.get(op) or lookup(op)
        x = self.value
        return _record(op(x), rule, (x,), None, ((0, self),))
    return method


_SYMBOLS = {"add": "+", "sub": "-", "mul": "*", "truediv": "/", "pow": "**", "matmul": "@",
            "mod": "%", "floordiv": "//"}
for _dunder, _op in rules.BINARY_OPERATORS.items():
    if _op in rules.NONDIFFERENTIABLE:  # x // y: locally constant, a plain value
        setattr(Variable, f"__{_dunder}__",
                lambda self, other, _op=_op: _op(self.value, _plain(other)))
        setattr(Variable, f"__r{_dunder}__",
                lambda self, other, _op=_op: _op(_plain(other), self.value))
        continue
    _forward, _reflected = _binary_methods(_op, _SYMBOLS.get(_dunder, _dunder))
    setattr(Variable, f"__{_dunder}__", _forward)
    setattr(Variable, f"__r{_dunder}__", _reflected)

for _dunder, _op in rules.UNARY_OPERATORS.items():
    setattr(Variable, f"__{_dunder}__", _unary_method(_op))

for _op in [getattr(operator, name) for name in rules.COMPARISONS]:
    # comparisons see plain values and give plain answers: ``if x > 0:`` just works
    setattr(Variable, f"__{_op.__name__}__",
            lambda self, other, _op=_op: _op(self.value, _plain(other)))


