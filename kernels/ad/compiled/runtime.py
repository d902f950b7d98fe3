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
from numba.np.unsafe.ndarray import to_fixed_tuple


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


@njit(cache=True)
def _reduce3(g, rows, cols, depth):
    """A 3-D ``g`` summed down to (rows, cols, depth), each 1 or g's own: one pass in
    order (the general :func:`_reduce` divides per entry: 29x slower on gmm's (25, 1000,
    20) summed to (25, 1, 20))."""
    out = np.zeros((rows, cols, depth))
    a, b, c = g.shape
    for i in range(a):
        oi = i if rows != 1 else 0
        for j in range(b):
            oj = j if cols != 1 else 0
            if depth == 1:
                out[oi, oj, 0] += np.sum(g[i, j])
            else:
                for k in range(c):
                    out[oi, oj, k] += g[i, j, k]
    return out


@njit(cache=True)
def _sum_stack(cotangent, shape):
    """A 3-D ``cotangent`` summed down to ``shape`` (at most 3 axes, as numpy aligns them:
    from the right)."""
    lead = 3 - len(shape)
    full = np.ones(3, np.int64)
    for d in range(len(shape)):
        full[lead + d] = shape[d]
    for d in range(3):
        if full[d] != 1 and full[d] != cotangent.shape[d]:
            return _reduce(cotangent, shape)  # (no broadcast made it: the general sum)
    return _reduce3(cotangent, full[0], full[1], full[2]).reshape(shape)


def _sum_stack_to(lead):
    """sum_to's implementation for a 3-D cotangent and a shape of ``3 - lead`` axes (of
    three, the cotangent itself where nothing was broadcast)."""
    if lead:
        return lambda cotangent, shape: _sum_stack(cotangent, shape)

    def same_rank(cotangent, shape):
        if cotangent.shape == shape:
            return np.asarray(cotangent)
        return _sum_stack(cotangent, shape)
    return same_rank


def _sum_matrix_to():
    """sum_to's implementation for a matrix cotangent and a matrix's shape."""
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


@overload(sum_to)
def _sum_to(cotangent, shape):
    if isinstance(cotangent, types.Number):
        return lambda cotangent, shape: np.full(shape, cotangent)

    if cotangent.ndim == 3:
        return _sum_stack_to(3 - len(shape))

    if cotangent.ndim == 2 and len(shape) == 2:
        return _sum_matrix_to()
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
    with an axis; vectors and matrices."""
    raise NotImplementedError("extreme_along runs compiled (numba), in the generated code")


@overload(extreme_along)
def _extreme_along(x, axis, smallest):
    if isinstance(x, types.Array) and x.ndim == 1:  # the one axis: a number, as numpy's
        return lambda x, axis, smallest: np.min(x) if smallest else np.max(x)
    if not isinstance(x, types.Array) or x.ndim != 2:
        raise numba.core.errors.TypingError(
            "np.min and np.max with an axis: the compiled engine takes vectors and matrices")

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


def expand_dims(x, axis):
    """``np.expand_dims(x, axis)``, a number's included (numpy's scalar reductions are
    numba's floats)."""
    raise NotImplementedError("expand_dims runs compiled (numba), in the generated code")


@overload(expand_dims)
def _expand_dims(x, axis):
    if isinstance(x, types.Number):
        return lambda x, axis: np.full(1, x)
    return lambda x, axis: np.expand_dims(x, axis)


def matmul(a, b):
    """``a @ b``, which numba compiles for vectors and matrices only: a stack of matrices
    (3-D) times a matrix or a stack of as many, or a matrix times a stack."""
    raise NotImplementedError("matmul runs compiled (numba), in the generated code")


def matmul_nt(a, b):
    """``a @ b`` with each matrix of ``b`` transposed (the cotangent of a product's left
    operand), without copying the transposes."""
    raise NotImplementedError("matmul_nt runs compiled (numba), in the generated code")


def matmul_tn(a, b):
    """``a @ b`` with each matrix of ``a`` transposed (the right operand's cotangent)."""
    raise NotImplementedError("matmul_tn runs compiled (numba), in the generated code")


# a stack's k-th matrix (a matrix: itself) as BLAS takes it, C-ordered, or its transpose
# as the F-ordered view of that: np.dot passes the transpose to BLAS as a flag, no copy
_PLAIN = {3: njit(lambda x, k: np.ascontiguousarray(x[k])),
          2: njit(lambda x, k: np.ascontiguousarray(x))}
_TRANSPOSED = {3: njit(lambda x, k: np.ascontiguousarray(x[k]).T),
               2: njit(lambda x, k: np.ascontiguousarray(x).T)}


def _stacked_product(a, b, left_t, right_t):
    """The implementation of ``a @ b`` over a stack, a's matrices transposed where
    ``left_t``, b's where ``right_t``."""
    if a.ndim > 3 or b.ndim > 3 or min(a.ndim, b.ndim) < 2:
        raise numba.core.errors.TypingError(
            "a @ b with a vector or more than three axes: the compiled engine multiplies "
            "vectors, matrices and stacks (3-D) of matrices")
    left = (_TRANSPOSED if left_t else _PLAIN)[a.ndim]
    right = (_TRANSPOSED if right_t else _PLAIN)[b.ndim]
    stacked_a = a.ndim == 3

    def stacked(a, b):
        count = a.shape[0] if stacked_a else b.shape[0]
        if a.ndim == 3 and b.ndim == 3 and b.shape[0] != count:
            raise ValueError("a @ b of stacks of different lengths")
        first = np.dot(left(a, 0), right(b, 0))
        out = np.empty((count, first.shape[0], first.shape[1]))
        out[0] = first
        for k in range(1, count):
            out[k] = np.dot(left(a, k), right(b, k))
        return out
    return stacked


@overload(matmul)
def _matmul(a, b):
    if a.ndim <= 2 and b.ndim <= 2:
        return lambda a, b: a @ b
    return _stacked_product(a, b, False, False)


@overload(matmul_nt)
def _matmul_nt(a, b):
    return _stacked_product(a, b, False, True)


@overload(matmul_tn)
def _matmul_tn(a, b):
    return _stacked_product(a, b, True, False)


def stack(items, axis):
    """``np.stack(items, axis)`` for a list (numba's takes a tuple): ``axis`` may be
    negative."""
    raise NotImplementedError("stack runs compiled (numba), in the generated code")


@overload(stack)
def _stack(items, axis):
    if not isinstance(items.dtype, types.Array):
        raise numba.core.errors.TypingError(
            "np.stack of a list of numbers: the compiled engine stacks arrays (np.array "
            "makes a vector of numbers)")
    rank = items.dtype.ndim + 1

    def impl(items, axis):
        if len(items) == 0:
            raise ValueError("np.stack of an empty list")
        at = axis + rank if axis < 0 else axis
        if not 0 <= at < rank:
            raise ValueError("np.stack's axis is out of bounds")
        first = items[0]
        shape = np.empty(rank, np.int64)
        outer = 1
        for d in range(rank - 1):
            shape[d + (d >= at)] = first.shape[d]
            if d < at:
                outer *= first.shape[d]
        shape[at] = len(items)
        inner = first.size // outer if outer else 0
        out = np.empty((outer, len(items), inner))
        for k in range(len(items)):
            if items[k].shape != first.shape:
                raise ValueError("np.stack of arrays of different shapes")
            out[:, k, :] = np.ascontiguousarray(items[k]).reshape((outer, inner))
        return out.reshape(to_fixed_tuple(shape, rank))
    return impl


def unstack(g, axis):
    """The cotangent of ``np.stack(items, axis)``'s items, given its own ``g``: a list of
    ``g``'s slices along ``axis``, each a copy (a list owns its elements)."""
    raise NotImplementedError("unstack runs compiled (numba), in the generated code")


@overload(unstack)
def _unstack(g, axis):
    rank = g.ndim - 1  # (at least 1: _stack takes arrays)

    def impl(g, axis):
        at = axis + g.ndim if axis < 0 else axis
        shape = np.empty(rank, np.int64)
        outer = 1
        for d in range(g.ndim):
            if d < at:
                outer *= g.shape[d]
            if d != at:
                shape[d - (d > at)] = g.shape[d]
        count = g.shape[at]
        inner = g.size // (outer * count) if outer * count else 0
        flat = np.ascontiguousarray(g).reshape((outer, count, inner))
        out = []
        for k in range(count):
            out.append(np.ascontiguousarray(flat[:, k, :]).reshape(
                to_fixed_tuple(shape, rank)))
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


# -- an advanced index (one int array among slices): its adjoint adds each picked entry's
# cotangent where it came from, once per pick (an index that repeats adds twice, which
# ``g[:, idx] += term`` would not)

def add_at(into, axis, index, term):
    """Add ``term`` into ``into`` along ``axis`` at ``index`` (``np.add.at``'s meaning):
    ``into[..., index[t], ...] += term[..., t, ...]`` for every ``t``."""
    raise NotImplementedError("add_at runs compiled (numba), in the generated code")


def _add_at_vector(into, axis, index, term):
    for t in range(len(index)):
        into[index[t]] += term[t]


def _add_at_matrix(into, axis, index, term):
    rows, cols = term.shape
    for i in range(rows):
        for j in range(cols):
            if axis == 0:
                into[index[i], j] += term[i, j]
            else:
                into[i, index[j]] += term[i, j]


def _add_at_stack(into, axis, index, term):
    a, b, c = term.shape
    for i in range(a):
        for j in range(b):
            for k in range(c):
                if axis == 0:
                    into[index[i], j, k] += term[i, j, k]
                elif axis == 1:
                    into[i, index[j], k] += term[i, j, k]
                else:
                    into[i, j, index[k]] += term[i, j, k]


@overload(add_at)
def _add_at(into, axis, index, term):
    # loops of single entries: an assignment of a row costs numba seconds to compile, in
    # every process (a module calling a recursive function is not cached)
    if not isinstance(into, types.Array) or into.ndim > 3:
        raise numba.core.errors.TypingError(
            "an advanced index: the compiled engine differentiates one int array among "
            "the slices of an array of at most three dimensions")
    return (_add_at_vector, _add_at_matrix, _add_at_stack)[into.ndim - 1]
