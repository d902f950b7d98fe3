"""Cotangents as the rules and engines pass them: numpy broadcasting undone
(:func:`unbroadcast`), sparse scatters of indexing summed lazily (:class:`Scatter`),
accumulation that never writes into its inputs (:func:`accumulate`) and a finished gradient
in the contract's form (:func:`as_output`). Re-exported by :mod:`kernels.ad.rules`, where
the rules find them.
"""

import numpy as np

from . import _arrays

_F64 = np.dtype(np.float64)


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
    # (loops, not comprehensions: in Python 3.11 a comprehension reading a local of this
    # function would make that local a cell on every call)
    ints, rest = [], []
    for p in ct.parts:
        if isinstance(p.values, _arrays.Traced):  # forward Duals: no np.add.at of theirs
            return traced_densify(ct)
        (ints if type(p.index) is int else rest).append(p)
    if len(ints) > 1:  # the element loop's case: one vectorised scatter
        index, values = np.array([p.index for p in ints]), np.array([p.values for p in ints])
    else:
        rest, ints = ct.parts, []
    # complex only if some part is (a state vector's amplitudes): checked per part by type,
    # not by np.result_type over every part
    complex_ = bool(ints) and values.dtype.kind == "c"
    for p in rest:
        if is_complex(p.values):
            complex_ = True
            break
    out = np.zeros(ct.shape, dtype=complex if complex_ else float)
    if ints:
        np.add.at(out, index, values)
    for p in rest:
        if _basic(p.index):  # no position twice: a sliced add, ~10x np.add.at's speed
            out[p.index] += p.values
        else:
            np.add.at(out, p.index, p.values)
    return out


def _basic(index):
    """Whether ``index`` is basic indexing (ints, slices, None, Ellipsis), which selects
    each position at most once, so ``out[index] += v`` adds as ``np.add.at`` does."""
    if type(index) is not tuple:
        index = (index,)
    for i in index:
        if not (i is None or i is Ellipsis or type(i) is slice or type(i) is int
                or isinstance(i, np.integer)):
            return False
    return True


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


def distinct(outputs):
    """``outputs`` (gradients about to be handed to a user), an array that appears more than
    once copied: a vjp may give two arguments the same cotangent (``x + y``), and each
    gradient must be an array of its own."""
    out = tuple(outputs)
    if len(out) < 2 or len(set(map(id, out))) == len(out):
        return out  # the usual case, found without a loop of Python's own
    seen, out = set(), list(out)
    for k, o in enumerate(out):
        if type(o) is np.ndarray:
            if id(o) in seen:
                out[k] = o.copy()
            else:
                seen.add(id(o))
    return tuple(out)


def as_output(ct, like):
    """A finished gradient in the contract's form: a float for a scalar argument, else an
    array of ``like``'s shape (zeros where nothing flowed back)."""
    t = type(ct)
    if type(like) is np.ndarray:
        # the usual case, checked first: a float64 array of like's shape that owns its data
        if (t is np.ndarray and ct.dtype is _F64 and ct.shape == like.shape
                and ct.base is None and ct is not like and ct.flags.writeable):
            return ct
    elif t is float or t is np.float64:  # a scalar argument's real cotangent
        return float(ct)
    if ct is None:
        ct = np.zeros(np.shape(like))
    if isinstance(ct, _arrays.Traced) or traced_parts(ct):
        # f closed over a traced value of an enclosing level (a forward Dual): the
        # cotangent carries its derivative
        return traced_as_output(ct, like)
    ct = densify(ct)
    if type(ct) is np.ndarray and ct.dtype.kind == "c" or isinstance(
            ct, (complex, np.complexfloating)):
        # A real argument's cotangent is the real part of what flowed back through complex
        # intermediates (JAX's and autograd's convention: the imaginary part is the
        # derivative along i*x, a direction a real argument cannot move in).
        ct = np.real(ct)
    if not isinstance(like, np.ndarray) or like.ndim == 0:
        return float(ct)
    out = np.asarray(ct, dtype=float).reshape(like.shape)
    # A rule may hand back a view (a broadcast of the output's cotangent, a transpose) or
    # even an array the caller owns: the user gets a writable array of their own.
    if out.base is not None or not out.flags.writeable or out is like:
        out = out.copy()
    return out


def real_cotangent(g):
    """The cotangent of a real value computed from complex ones (``abs``, ``real``): its
    real part. Cotangents of real values may pick up imaginary parts on the way (``x * c``
    with a complex ``c`` sends ``g * c`` back to ``x``); they would feed the imaginary
    direction of a non-holomorphic rule, so such rules take the real part first."""
    return np.real(g) if is_complex(g) else g


def is_complex(x):
    """np.iscomplexobj without its cost on the floats of an element loop (on a float it
    raises and catches an AttributeError)."""
    t = type(x)
    if t is float or t is np.float64 or t is int:
        return False
    if t is np.ndarray:
        return x.dtype.kind == "c"
    return np.iscomplexobj(x)


# -- cotangents that hold traced values ---------------------------------------------------
# An engine differentiated inside forward mode (forward over reverse, forward over source)
# runs its vjps on forward Duals: their cotangents are traced too.

def traced_parts(ct):
    """Whether the sparse cotangent ``ct`` holds traced values."""
    if isinstance(ct, Scatter):
        return isinstance(ct.values, _arrays.Traced)
    if isinstance(ct, ScatterSum):
        return any(isinstance(p.values, _arrays.Traced) for p in ct.parts)
    return False


def traced_as_output(ct, like):
    """as_output for an argument ``like`` that is a traced value of an enclosing level
    (a forward Dual: forward over reverse, forward over source): the cotangent, itself
    traced, densified, real and of ``like``'s shape (zeros where nothing flowed back)."""
    if ct is None:
        return np.zeros(np.shape(like)) if np.ndim(like) else 0.0
    ct = densify(ct)
    if is_complex(ct):
        ct = np.real(ct)
    return np.reshape(ct, np.shape(like)) if np.ndim(like) else ct


def each_direction(vjp, g):
    """``vjp(g)`` for a vjp that writes its cotangent into an array (a diagonal, a
    permutation's places), which a traced cotangent cannot be written into: given a forward
    Dual ``g`` (a block of Jacobian rows, kernels.ad.blocks; forward over reverse) it runs
    on the value and once per direction. Right for a vjp linear in its cotangent that reads
    the other arguments only for their shapes or their order (piecewise constant), as its
    callers' do: then the directions carry all of the derivative, nested or not."""
    if isinstance(g, _arrays.Traced):
        return g._ad_each_direction(vjp)
    return vjp(g)


def traced_densify(ct):
    """densify of a sparse cotangent whose values are traced (forward Duals: forward over
    reverse, a block of Jacobian rows), added by the engine of its values where it can
    (``Traced._ad_scatter_add``); else by operations an engine differentiates (np.add.at is
    none): each part is a 0/1 matrix, placing its values at their flat positions, times its
    values (a matrix of the array's size by the part's: quadratic)."""
    for p in ct.parts:
        if isinstance(p.values, _arrays.Traced):
            out = type(p.values)._ad_scatter_add(ct.shape, ct.parts)
            if out is not NotImplemented:
                return out
            break
    positions = np.arange(int(np.prod(ct.shape))).reshape(ct.shape)
    out = 0.0
    for p in ct.parts:
        where = np.ravel(positions[p.index])
        place = np.zeros((positions.size, where.size))
        place[where, np.arange(where.size)] = 1.0
        values = np.ravel(np.broadcast_to(p.values, positions[p.index].shape))
        out = out + np.reshape(place @ values, ct.shape)
    return out
