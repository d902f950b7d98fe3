"""The numba helpers the generated code calls: the tape's growth and the copies into it,
and undoing broadcasting in a cotangent.

The tape is two preallocated arrays, ``_ft`` (float64) and ``_it`` (int64), each with a
cursor; a loop's body saves, at the end of each iteration, what the adjoint reads of its
values (floats and float arrays in ``_ft``, ints, flags and shapes in ``_it``), and the
adjoint pops them in reverse. The arrays grow by doubling when a push would not fit, and
the engine keeps the grown ones for the next call: in the steady state no call allocates
a tape.
"""

import numba
import numpy as np
from numba import njit
from numba.core import types
from numba.extending import overload


@njit(cache=True)
def grow(tape, need):
    """``tape``, or a copy at least twice its size when ``need`` entries do not fit."""
    if need <= tape.size:
        return tape
    bigger = np.empty(max(need, 2 * tape.size), tape.dtype)
    bigger[:tape.size] = tape
    return bigger


def put(tape, cursor, values):
    """Copy ``values`` (any shape and layout) into ``tape`` at ``cursor``; the new cursor."""
    raise NotImplementedError("put runs compiled (numba), in the generated code")


@overload(put)
def _put(tape, cursor, values):
    # a loop of its own for a vector or a C-ordered array: np.ravel and a slice's
    # assignment cost several times the copy of a short row (lstm's rows are 14 long)
    if values.ndim == 1:
        def vector(tape, cursor, values):
            for k in range(values.shape[0]):
                tape[cursor + k] = values[k]
            return cursor + values.shape[0]
        return vector
    if values.layout == "C":
        def ordered(tape, cursor, values):
            flat = values.reshape(values.size)
            for k in range(flat.size):
                tape[cursor + k] = flat[k]
            return cursor + flat.size
        return ordered

    def strided(tape, cursor, values):
        flat = np.ravel(values)
        tape[cursor:cursor + flat.size] = flat
        return cursor + flat.size
    return strided


def sum_to(cotangent, shape):
    """``cotangent`` summed over the axes it was broadcast along, down to ``shape``."""
    raise NotImplementedError("sum_to runs compiled (numba), in the generated code")


@njit(cache=True)
def _reduce(g, shape):
    """``g`` summed down to ``shape`` (a suffix of g's axes, with ones where g broadcast)."""
    out = np.zeros(shape)
    flat_out = out.reshape(out.size)
    src = np.ascontiguousarray(g).reshape(g.size)
    rank, lead = g.ndim, g.ndim - len(shape)
    strides = np.zeros(rank, np.int64)
    extent = np.empty(rank, np.int64)
    step = 1
    for k in range(len(shape) - 1, -1, -1):
        if shape[k] != 1:
            strides[k + lead] = step
        step *= shape[k]
    for k in range(rank):
        extent[k] = g.shape[k]
    for f in range(src.size):
        rest, at = f, 0
        for k in range(rank - 1, -1, -1):
            at += (rest % extent[k]) * strides[k]
            rest //= extent[k]
        flat_out[at] += src[f]
    return out


@overload(sum_to)
def _sum_to(cotangent, shape):
    if isinstance(cotangent, types.Number):
        return lambda cotangent, shape: np.full(shape, cotangent)

    if cotangent.ndim == 2 and len(shape) == 2:
        def matrix(cotangent, shape):  # a row or a column broadcast: one pass, in order
            if cotangent.shape == shape:
                return cotangent
            rows, cols = cotangent.shape
            if shape[0] == rows and shape[1] == 1:
                out = np.empty((rows, 1))
                for i in range(rows):
                    out[i, 0] = np.sum(cotangent[i])
                return out
            if shape[0] == 1 and shape[1] == cols:
                out = np.zeros((1, cols))
                for i in range(rows):
                    out[0] += cotangent[i]
                return out
            return _reduce(cotangent, shape)
        return matrix
    if cotangent.ndim == 2 and len(shape) == 1:
        def to_row(cotangent, shape):
            if cotangent.shape[1] != shape[0]:
                return _reduce(cotangent, shape)
            out = np.zeros(shape)
            for i in range(cotangent.shape[0]):
                out += cotangent[i]
            return out
        return to_row

    def impl(cotangent, shape):
        if cotangent.shape == shape:
            return cotangent
        return _reduce(cotangent, shape)
    return impl


def extreme_along(x, axis, smallest):
    """``np.min(x, axis=axis)`` (``smallest``) or ``np.max``, which numba does not take
    with an axis; matrices."""
    raise NotImplementedError("extreme_along runs compiled (numba), in the generated code")


@overload(extreme_along)
def _extreme_along(x, axis, smallest):
    if not isinstance(x, types.Array) or x.ndim != 2:
        raise numba.core.errors.TypingError(
            "np.min and np.max with an axis: the compiled engine takes matrices")

    def impl(x, axis, smallest):
        rows, cols = x.shape
        if axis == 0:
            out = x[0].copy()
            for i in range(1, rows):
                for j in range(cols):
                    v = x[i, j]
                    if (v < out[j]) if smallest else (v > out[j]):
                        out[j] = v
            return out
        out = np.empty(rows)
        for i in range(rows):
            out[i] = np.min(x[i]) if smallest else np.max(x[i])
        return out
    return impl


# -- lists' cotangents: a list of the elements' cotangents, where an element no term has
# reached yet is an empty array (an array's zeros are made only where they are needed)

def accumulate(into, term):
    """``into + term`` for an element of a list's cotangent: ``term`` (a copy: the list
    owns its elements) where ``into`` is still the empty placeholder, else added in place."""
    raise NotImplementedError("accumulate runs compiled (numba), in the generated code")


@overload(accumulate)
def _accumulate(into, term):
    if isinstance(into, types.Number):
        return lambda into, term: into + term

    def impl(into, term):
        if into.shape == term.shape:
            into += term
            return into
        if into.size == 0:  # the placeholder
            return np.asarray(term).copy()
        return into  # the term is (the list added was never reached there)
    return impl


def popped(cotangent, shape):
    """The last element of a list's cotangent, taken off it, as an array of ``shape`` (the
    cotangent of the item appended last)."""
    raise NotImplementedError("popped runs compiled (numba), in the generated code")


@overload(popped)
def _popped(cotangent, shape):
    def impl(cotangent, shape):
        last = cotangent.pop()
        if last.shape != shape:  # the placeholder: no term reached it
            return np.zeros(shape)
        return last
    return impl


@njit(cache=True)
def add_lists(into, terms):
    """Add the list cotangent ``terms`` into ``into``, element by element."""
    if len(into) != len(terms):
        raise ValueError("the compiled engine added list cotangents of different lengths")
    for k in range(len(into)):
        into[k] = accumulate(into[k], terms[k])
