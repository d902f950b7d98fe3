"""Arrays built from traced values, and the ways a traced value could escape tracing.

numpy does not dispatch ``np.array``, ``np.asarray`` or ``np.r_[...]`` to the types in their
arguments (only functions with ``__array_function__`` dispatch), so on their own they would
turn a dual number into a plain float and drop its derivative without a word. Two things
stop that:

* while an operator-overloading engine runs ``f`` (:func:`enter`, :func:`leave`), those names in
  the ``numpy`` module are wrappers that hand a call with traced values to the engine, which
  differentiates it through the primitives below (:func:`join`, :func:`asarray`); calls
  without traced values go straight to numpy;
* every other way out (``float(x)``, ``x.__array__()``, assignment into a plain array,
  ``math.sin(x)``, an ``np.array`` imported under another name) raises :class:`EscapeError`
  naming the escape and the user's line (:func:`escape`).
"""

import operator
import os
import sys

import numpy as np

from .errors import EscapeError, MissingRuleError

_HERE = os.path.dirname(os.path.abspath(__file__))
_NUMPY = os.path.dirname(os.path.abspath(np.__file__))


def _user_line():
    """``file, line, text`` of the innermost frame outside this package and numpy."""
    frame = sys._getframe(1)
    while frame is not None:
        path = os.path.abspath(frame.f_code.co_filename)
        if not (path.startswith(_HERE) or path.startswith(_NUMPY)):
            import linecache
            text = linecache.getline(frame.f_code.co_filename, frame.f_lineno).strip()
            return frame.f_code.co_filename, frame.f_lineno, text
        frame = frame.f_back
    return "<unknown>", 0, ""


def escape(what, engine, hint):
    """The EscapeError for ``what`` (``"float() of a traced value"``) at the user's line."""
    filename, line, text = _user_line()
    where = f"{filename}, line {line}" + (f": {text}" if text else "")
    return EscapeError(f"{what} would drop its derivative ({engine}; at {where}); {hint}")


ESCAPE_HINTS = {
    "float": "float(), math.* functions and assignment into a plain array (out[i] = ...) "
             "all convert it: keep the value as it is (numpy functions and operators accept "
             "it) and build arrays with np.array/np.stack of traced values; a branch may "
             "compare it (x > 0)",
    "inplace": "numpy would change the array in place, and the other name or view with it; "
               "write a = a + b (a new value) and use the new value",
    "array": "numpy arrays cannot hold it: build arrays from traced values with np.array, "
             "np.stack or np.concatenate (called as numpy.<name>), not by assigning into an "
             "existing array",
}


class Traced:
    """What an engine's traced value does when asked to become a plain number: raise
    EscapeError naming the escape and the line (``int()`` and indexing by it are allowed:
    an integer is locally constant, so a zero derivative is the right one). Subclasses set
    ``_AD_NAME`` ("a dual number") and ``_AD_ENGINE`` ("forward mode")."""

    __slots__ = ()
    _AD_NAME, _AD_ENGINE = "a traced value", "an AD engine"

    def _escape(self, what, hint):
        return escape(what, self._AD_ENGINE, ESCAPE_HINTS[hint])

    def __float__(self):
        raise self._escape(f"float() of {self._AD_NAME}", "float")

    def __complex__(self):
        raise self._escape(f"complex() of {self._AD_NAME}", "float")

    def __array__(self, dtype=None, copy=None):
        raise self._escape(f"{self._AD_NAME} converted to a plain numpy array", "array")

    def item(self, *args):
        raise self._escape(f".item() of {self._AD_NAME}", "float")

    tolist = item

    def __int__(self):
        return int(self.value)

    def __index__(self):
        return operator.index(self.value)

    @classmethod
    def _ad_scatter_add(cls, shape, parts):
        """Zeros of ``shape`` with each part's values (some of them of this class) added
        at its index, computed by the engine itself; NotImplemented where it cannot, and
        the caller builds the sum from operations the engine differentiates
        (kernels.ad._cotangents.traced_densify)."""
        return NotImplemented

    def _ad_each_direction(self, linear):
        """``linear(self)`` for a function linear in its argument that cannot take a traced
        one (it writes into an array): applied to the value and to each derivative the
        engine carries, reassembled. The default: called as is, to raise what it raises."""
        return linear(self)


#: the reference counts of a traced array and of its value inside an in-place operator
#: method when nothing else holds them: the caller's name, the stack, ``self`` and the
#: argument of getrefcount (measured in tests/ad/test_escapes.py)
_OWN_REFERENCES, _OWN_VALUE_REFERENCES = 5, 3


_INPLACE_SYMBOLS = {"add": "+=", "sub": "-=", "mul": "*=", "truediv": "/=", "pow": "**=",
                    "matmul": "@=", "mod": "%="}


def shared_by_references(self, other):
    """Why numpy's in-place update of the traced array ``self`` could be seen elsewhere, or
    None: forward mode keeps no record of its values, so any reference to the value or to
    ``self`` beyond the caller's own is another name, a view or a container holding it, and
    a value that is itself a view (its ``base``) would write through to the array it views."""
    if sys.getrefcount(self) > _OWN_REFERENCES:
        return "that another name or a container shares"
    value = self.value
    if sys.getrefcount(value) > _OWN_VALUE_REFERENCES:
        return "that a view or another name shares"
    if isinstance(value, np.ndarray) and value.base is not None:
        return "that is a view of another array (numpy would write into that array)"
    return None


def same_array(self, out, symbol):
    """numpy's own refusals of ``a op= y``: the result must keep ``a``'s shape (``y`` may
    not broadcast ``a`` larger) and a real ``a`` cannot take a complex result."""
    old, new = self.value, getattr(out, "value", out)
    if np.shape(new) != np.shape(old):
        raise ValueError(f"in-place {symbol}: non-broadcastable output operand with shape "
                         f"{np.shape(old)} doesn't match the broadcast shape {np.shape(new)}")
    if np.iscomplexobj(new) and not np.iscomplexobj(old):
        raise TypeError(f"in-place {symbol}: cannot cast a complex result into a real "
                        f"array (numpy's casting rule 'same_kind')")


def install_inplace(cls, operators, shared=shared_by_references, after=None):
    """``a += y`` (and ``-= *= /= **= @= %=``) on a traced array: numpy would update the
    array in place, so another name bound to it, or a view of it, would change too. A
    traced value cannot change in place; where nothing else can see the array, ``a = a +
    y`` is the same program, so that is what happens; where something can,
    ``shared(self, other)`` says why (EscapeError). ``after(self)``, if given, runs once the
    new value exists (reverse mode retires the old one, kernels.ad.reverse.alias)."""
    for name, fn in operators.items():
        if name == "floordiv":
            continue  # a plain result: Python's fallback rebinding is numpy's answer too

        def inplace(self, other, fn=fn, name=name):
            symbol = _INPLACE_SYMBOLS.get(name, name)
            why = shared(self, other)
            if why is not None:
                raise escape(f"an in-place {symbol} on {self._AD_NAME} {why}",
                             self._AD_ENGINE, ESCAPE_HINTS["inplace"])
            out = fn(self, other)
            if out is not NotImplemented:
                same_array(self, out, symbol)
                if after is not None:
                    after(self)
            return out
        setattr(cls, f"__i{name}__", inplace)


def is_traced(x):
    """Whether ``x`` is an engine's traced value (a :class:`Traced`, with an ``_ad_apply``
    classmethod). An isinstance test: a getattr on a plain type would raise and catch an
    AttributeError, on every np.array call while an engine traces."""
    return isinstance(x, Traced)


def _leaves(obj):
    """The leaves of a nested list/tuple (an array or a number is a leaf) and its outer
    shape; ValueError for a ragged nesting."""
    if type(obj) is not list and type(obj) is not tuple:
        return [obj], ()
    if not obj:
        return [], (0,)
    parts = [_leaves(o) for o in obj]
    inner = parts[0][1]
    if any(p[1] != inner for p in parts):
        raise ValueError("np.array of a ragged nested sequence of traced values")
    return [leaf for p in parts for leaf in p[0]], (len(obj),) + inner


def _contains_traced(obj):
    return _first_traced(obj) is not None


def lists_as_arrays(args, dispatch):
    """``args`` with each list or tuple that holds traced values made an array through the
    engine's ``dispatch`` of ``np.array`` (as numpy reads array-likes: ``np.mean([x, y])``)."""
    if not any((type(a) is list or type(a) is tuple) and _contains_traced(a) for a in args):
        return args
    return tuple(dispatch(_ORIGINAL_ARRAY, (a,), {})
                 if (type(a) is list or type(a) is tuple) and _contains_traced(a) else a
                 for a in args)


_ORIGINAL_ARRAY = np.array


def _piece_as_array(piece, dispatch):
    if (type(piece) is list or type(piece) is tuple) and _contains_traced(piece):
        return dispatch(_ORIGINAL_ARRAY, (piece,), {})
    return piece


def pieces_as_arrays(fn, args, dispatch):
    """The arguments of a join (``np.concatenate((a, [s, 0.0]))``, ``np.append(u, [s])``,
    ``np.r_[x, [s, 1.0]]``)
    with each piece that is a list holding traced values made an array through the
    engine's ``dispatch`` of ``np.array``; pieces of plain numbers stay constants."""
    if fn is np.append:
        return tuple(_piece_as_array(a, dispatch) for a in args[:2]) + tuple(args[2:])
    if fn is _ORIGINALS["r_"] or fn is _ORIGINALS["c_"]:  # np.r_[x, [s, 1.0]]: one key
        key = args[0]
        if type(key) is tuple:
            return (tuple(_piece_as_array(p, dispatch) for p in key),)
        return (_piece_as_array(key, dispatch),)
    if args and (type(args[0]) is list or type(args[0]) is tuple):
        return (type(args[0])(_piece_as_array(p, dispatch) for p in args[0]), *args[1:])
    return args


# -- the primitives (their rules are in rules.join and rules.shape) -----------------------

def join(*elements, layout):
    """Every element reshaped to its shape in ``layout.shapes`` and concatenated along
    ``layout.axis``, then reshaped to ``layout.final`` (if not None): the one primitive of
    np.concatenate, np.stack, the *stack family, np.r_, np.c_ and np.array of a list."""
    parts = [np.reshape(e, s) for e, s in zip(elements, layout.shapes)]
    out = np.concatenate(parts, axis=layout.axis)
    return out if layout.final is None else out.reshape(layout.final)


def asarray(x, dtype=None):
    """``np.asarray(x, dtype)`` of one value: the identity, or a cast between float and
    complex (a cast to an integer or bool type has no derivative)."""
    return np.asarray(x, dtype=dtype)


def astype(x, dtype, **kwargs):
    """``x.astype(dtype)``: a copy, cast (the method's differentiable form)."""
    return np.array(x, dtype=dtype)


class Layout:
    """How :func:`join` assembles its elements: each one's shape as joined, the axis, the
    final shape (or None), each one's extent along the axis, and each one's shape as given
    (what its cotangent is reshaped to: a vjp needs no element itself, so the reverse
    engine's tape need not keep them)."""

    __slots__ = ("shapes", "axis", "final", "sizes", "given")

    def __init__(self, shapes, axis, final=None, *, given):
        self.shapes, self.axis, self.final = tuple(shapes), axis, final
        self.sizes = [s[axis] for s in self.shapes]
        self.given = tuple(given)


def _atleast(shape, k):
    if len(shape) >= k:
        return shape
    if k == 1:
        return (1,)
    if k == 2:
        return (1,) * (2 - len(shape)) + shape
    return {0: (1, 1, 1), 1: (1,) + shape + (1,), 2: shape + (1,)}[len(shape)]


def layout(kind, shapes, axis=0, final=None):
    """The Layout of a join of elements of ``shapes`` (see :data:`JOINS`)."""
    given = [tuple(s) for s in shapes]
    if not given:
        raise ValueError(f"{kind} needs at least one array")
    joined, axis = _joined(kind, given, axis)
    return Layout(joined, axis, final if kind == "array" else None, given=given)


def _joined(kind, shapes, axis):
    """Each element's shape as ``kind`` joins it, and the axis it joins along."""
    if kind == "concatenate":
        if axis is None:
            return [(int(np.prod(s)),) for s in shapes], 0
        return shapes, axis % len(shapes[0])
    if kind == "stack":
        axis = axis % (len(shapes[0]) + 1)
        return [s[:axis] + (1,) + s[axis:] for s in shapes], axis
    if kind == "vstack":
        return [_atleast(s, 2) for s in shapes], 0
    if kind == "hstack":
        shapes = [_atleast(s, 1) for s in shapes]
        return shapes, 0 if len(shapes[0]) == 1 else 1
    if kind == "dstack":
        return [_atleast(s, 3) for s in shapes], 2
    if kind == "column_stack":
        return [(s[0], 1) if len(s) == 1 else _atleast(s, 2) for s in shapes], 1
    if kind == "array":
        return [(1,) + s for s in shapes], 0
    raise ValueError(f"unknown join {kind!r}")


def _shape(x):
    return np.shape(x.value) if is_traced(x) else np.shape(x)


def _join_call(kind, elements, axis=0, final=None):
    elements = tuple(elements)
    lay = layout(kind, [_shape(e) for e in elements], axis, final)
    # A piece that is a list of numbers is a constant of its array's shape (its cotangent,
    # in the source engine, a list); the operator-overloading engines make a list holding
    # traced values an array first (pieces_as_arrays), so one reaching here is a bug.
    if kind != "array" and any(_contains_traced(e) for e in elements
                               if type(e) is list or type(e) is tuple):
        raise MissingRuleError(f"numpy.{kind} of a list piece holding traced values that "
                               f"was not made an array")
    return join, elements, {"layout": lay}


def _unflatten_first(cts):
    return (list(cts),)


def _sequence_canonical(kind, default_axis=0):
    def canonical(seq, axis=default_axis, *, dtype=None, casting=None, out=None):
        if out is not None:
            raise ValueError(f"np.{kind}(..., out=...) cannot store traced values")
        prim, elements, kwargs = _join_call(kind, seq, axis)
        return prim, elements, kwargs, _unflatten_first
    return canonical


#: keywords of np.array and friends that do not change the values (memory layout, copies)
_LAYOUT_KEYWORDS = frozenset({"copy", "order", "subok", "device"})


def _array_canonical(obj, dtype=None, *args, **kwargs):
    """np.array / np.asarray of a traced value or of a nested list holding some."""
    extra = set(kwargs) - _LAYOUT_KEYWORDS
    if args or (extra and not (extra == {"ndmin"} and kwargs["ndmin"] <= 1 + (
            type(obj) is list or type(obj) is tuple))):
        # ndmin= would prepend axes (np.atleast_2d has a rule); like=, positional options
        what = ", ".join(sorted(extra)) or "positional options"
        raise MissingRuleError(f"numpy.array(..., {what}) of traced values has no "
                               f"derivative rule; use np.atleast_2d/np.reshape after it")
    if type(obj) is not list and type(obj) is not tuple:
        return asarray, (obj,), {"dtype": dtype}, lambda cts: (cts[0],)
    leaves, outer = _leaves(obj)
    shapes = {_shape(leaf) for leaf in leaves}
    if len(shapes) > 1:
        raise ValueError(f"np.array of traced values of different shapes {sorted(shapes)}")
    leaf_shape = shapes.pop()
    prim, elements, kw = _join_call("array", leaves, 0, outer + leaf_shape)

    def unflatten(cts):
        it = iter(cts)

        def rebuild(o):
            if type(o) is list or type(o) is tuple:
                return [rebuild(e) for e in o]
            return next(it)
        return (rebuild(obj),)
    if dtype is not None and np.dtype(dtype).kind not in "fc":
        raise TypeError(f"np.array(..., dtype={np.dtype(dtype)}) of traced values: an "
                        f"integer or bool array carries no derivative; use float")
    return prim, elements, kw, unflatten


def _index_items(key):
    return key if isinstance(key, tuple) else (key,)


def _concatenator_canonical(kind):
    """np.r_[...] (pieces at least 1-d, joined along axis 0) and np.c_[...] (columns)."""
    def canonical(key):
        items = []
        for item in _index_items(key):
            if isinstance(item, str):
                raise MissingRuleError(f"np.{kind} with a string directive is not "
                                       f"differentiable; use np.concatenate")
            items.append(np.r_[item] if isinstance(item, slice) else item)
        shapes = [_shape(e) for e in items]
        lay = (Layout([_atleast(s, 1) for s in shapes], 0, given=shapes) if kind == "r_"
               else layout("column_stack", shapes))
        return join, tuple(items), {"layout": lay}, lambda cts: (list(cts),)
    return canonical


#: The numpy names wrapped while an engine traces: name -> canonical form.
JOINS = {
    np.concatenate: _sequence_canonical("concatenate"),
    np.stack: _sequence_canonical("stack"),
    np.vstack: _sequence_canonical("vstack"),
    np.hstack: _sequence_canonical("hstack"),
    np.dstack: _sequence_canonical("dstack"),
    np.column_stack: _sequence_canonical("column_stack"),
}
if hasattr(np, "row_stack"):
    JOINS[np.row_stack] = _sequence_canonical("vstack")
CONSTRUCTORS = {
    "array": _array_canonical, "asarray": _array_canonical, "asanyarray": _array_canonical,
    "ascontiguousarray": _array_canonical, "asfortranarray": _array_canonical,
    "asarray_chkfinite": _array_canonical,
}
CONCATENATORS = {"r_": _concatenator_canonical("r_"), "c_": _concatenator_canonical("c_")}
#: the calls whose pieces pieces_as_arrays makes arrays (filled in below, with _ORIGINALS)
PIECEWISE = set(JOINS) | {np.append}


# -- the numpy names that do not dispatch, wrapped while an engine traces --------------------

class _Concatenator:
    """Stands in for np.r_ / np.c_ while tracing."""

    def __init__(self, name, original):
        self.name, self.original = name, original

    def __getitem__(self, key):
        leaf = _first_traced(key)  # in an item, or in a list item (np.r_[1.0, [s, 2.0]])
        if leaf is not None:
            return type(leaf)._ad_apply(self.original, (key,), {})
        return self.original[key]

    def __getattr__(self, name):
        return getattr(self.original, name)


def _wrap_constructor(original):
    def constructor(obj, *args, **kwargs):
        leaf = _first_traced(obj)
        if leaf is not None:
            return type(leaf)._ad_apply(original, (obj, *args), kwargs)
        return original(obj, *args, **kwargs)
    constructor.__wrapped__ = original
    constructor.__name__ = original.__name__
    return constructor


def _first_traced(obj):
    if type(obj) is list or type(obj) is tuple:
        for o in obj:
            found = _first_traced(o)
            if found is not None:
                return found
        return None
    return obj if is_traced(obj) else None


_depth = 0
#: the names swapped while tracing: the constructors users write (np.asanyarray and
#: np.ascontiguousarray of a traced value raise EscapeError in these engines; the source
#: engine differentiates them through CONSTRUCTORS)
_FOUR = ("array", "asarray", "r_", "c_")
_ORIGINALS = {name: getattr(np, name) for name in _FOUR}
# built once: entering and leaving are four item stores (a gradient call pays them)
_WRAPPERS = {"array": _wrap_constructor(_ORIGINALS["array"]),
             "asarray": _wrap_constructor(_ORIGINALS["asarray"]),
             "r_": _Concatenator("r_", _ORIGINALS["r_"]),
             "c_": _Concatenator("c_", _ORIGINALS["c_"])}
PIECEWISE.update((_ORIGINALS["r_"], _ORIGINALS["c_"]))
_NUMPY_NAMES = vars(np)
_ORIGINAL_OF = {id(_WRAPPERS[name]): _ORIGINALS[name] for name in _FOUR}


_WRAPPED_FOUR = tuple(_WRAPPERS[name] for name in _FOUR)
_ORIGINAL_FOUR = tuple(_ORIGINALS[name] for name in _FOUR)


#: Python functions of other packages with rules (kernels/ad/rules/scipy.py) that do not
#: dispatch to traced values: while an engine traces, their names in the package are
#: wrappers too, once the package has been imported. (A name imported from the package
#: before, ``from scipy.special import logsumexp``, still reaches the package's own code,
#: which refuses a traced value with EscapeError; the source engine binds either.)
FOREIGN = {"scipy.special": ("logsumexp", "softmax", "log_softmax")}
#: (namespace, name, original, wrapper) of the FOREIGN functions found so far
_foreign = []
_foreign_pending = dict(FOREIGN)
#: how many modules were loaded when the pending packages were last looked for: a package
#: can only have appeared since if that number changed (a dict's len is one load, the
#: search a loop and a list per gradient call)
_modules_seen = 0


def _wrap_function(original):
    def wrapper(*args, **kwargs):
        for a in (*args, *kwargs.values()):
            if is_traced(a):
                return type(a)._ad_apply(original, args, kwargs)
        return original(*args, **kwargs)
    wrapper.__wrapped__ = wrapper.__ad_original__ = original
    wrapper.__name__ = original.__name__
    return wrapper


def original(fn):
    """``fn`` itself, or what a wrapper stands in for: numpy's own constructor for one of
    the four above (the source engine, reading ``np.r_`` or calling ``np.array`` while
    forward mode traces, must see numpy's), the package's own function for a FOREIGN one
    (rules are registered on it, also when that happens while an engine traces)."""
    found = _ORIGINAL_OF.get(id(fn))
    return found if found is not None else getattr(fn, "__ad_original__", fn)


def _find_foreign():
    global _modules_seen
    _modules_seen = len(sys.modules)
    for package, names in list(_foreign_pending.items()):
        module = sys.modules.get(package)
        if module is not None:
            del _foreign_pending[package]
            space = vars(module)
            _foreign.extend((space, n, space[n], _wrap_function(space[n])) for n in names
                            if n in space)


def enter():
    """Wrap numpy's non-dispatching constructors (module docstring); re-entrant. Every
    call must be paired with :func:`leave` (in a ``finally``).

    No lock: it would cost every gradient call more than the swap itself, and a race
    between threads can only leave numpy wrapped (slower) or unwrap it early (an
    EscapeError in the other thread), never give a wrong number."""
    global _depth
    if _depth == 0:
        # four item stores: cheaper than dict.update, which walks its argument
        names = _NUMPY_NAMES
        names["array"], names["asarray"], names["r_"], names["c_"] = _WRAPPED_FOUR
        if _foreign_pending and len(sys.modules) != _modules_seen:
            _find_foreign()
        for space, name, _, wrapper in _foreign:
            space[name] = wrapper
    _depth += 1


def leave():
    global _depth
    _depth -= 1
    if _depth == 0:
        names = _NUMPY_NAMES
        names["array"], names["asarray"], names["r_"], names["c_"] = _ORIGINAL_FOUR
        for space, name, original, _ in _foreign:
            space[name] = original
