"""Forward mode: dual numbers whose partials are a chunk (ForwardDiff.jl's chunk mode).

A :class:`Dual` holds a value (a float or an array) and its partial derivatives along
``chunk`` seed directions at once, stacked on a leading axis: ``partials.shape == (chunk,)
+ np.shape(value)``. Every operation is one numpy call on the value and one on the whole
stack of partials, through the batched jvps of the shared rule table, so vectorised user
code runs once per chunk and ``gradient`` needs ``ceil(n / chunk)`` passes over ``f``.

Plain numpy code runs on Duals unchanged: numpy hands ufuncs and functions to
``__array_ufunc__``/``__array_function__``, Python operators are methods, and an array
Dual can be iterated (``for xi in x``), indexed and measured (``len(x)``) like the array,
as the seed's element-loop Ackley needs.

Nesting (``hessian`` is the jacobian of a forward gradient) is kept apart by tags, as in
ForwardDiff: each differentiation gets a fresh tag, an operation differentiates with
respect to the newest tag among its inputs, and a Dual with an older tag is a constant at
that level (its own level is handled when numpy reaches its value).
"""

import functools
import itertools
import operator

import numpy as np

from . import _arrays, _keywords, modes, rules
from . import sparsity as _sparsity
from ._args import check_arguments, check_jacobian_input, check_jacobian_output, nesting_refused
from .backend import ADBackend, Cost, constant
from .errors import NestingError

#: Upper bound on the dense seed partials (chunk x input elements) of one pass, in bytes.
#: Vectorised code makes every intermediate as large as its seed, and those are fastest
#: while they stay small. Two asv runs of ad_chunks (vectorised Ackley, n = 1600) agree:
#: 8.8 ms with 64 directions (0.8 MB arrays), 53 ms with 80 (1.0 MB), 76-81 ms with 128;
#: tr(A @ B) is fastest at 32-64 too (within 12%), 3.5x slower in one pass.
CHUNK_BYTES = 768 * 2 ** 10

#: Fewest directions a pass carries: each pass also recomputes the value and pays the
#: interpreter per operation, so on large inputs, where nothing fits in cache anyway,
#: passes must stay few (Ackley at n = 16000: 7.0 s with 8 directions, 2.7 s with 64,
#: 2.0 s with 517).
MIN_CHUNK = 64

#: Largest chunk for an element loop (a pass that never needed dense seeds, where each
#: scalar operation carries ``chunk`` partials): Python pays its interpreter overhead per
#: operation per pass, so one pass over the whole input is fastest (16000 elements: 1.3 s
#: in one pass against 2.7 s in 31).
LOOP_CHUNK = 2 ** 15

_tags = itertools.count(1)


def default_chunk(n):
    """The chunk of the first pass of ``gradient`` for ``n`` input elements when none is
    given (later passes may use :func:`loop_chunk`).

    ForwardDiff's rule with the threshold set by the cache instead of 12: the largest chunk
    whose dense seed (``chunk * n`` float64) fits :data:`CHUNK_BYTES`, at least
    :data:`MIN_CHUNK`, then balanced so all passes are the same size (1800 elements: 29
    passes of 63; 1600 and 16000: passes of 64).
    """
    return balanced_chunk(n, n)


def balanced_chunk(count, width):
    """The chunk for ``count`` directions whose dense seeds are ``width`` elements each:
    as :func:`default_chunk` (``chunk * width`` float64 within :data:`CHUNK_BYTES`, at
    least :data:`MIN_CHUNK`), balanced over ``count``."""
    return _balanced(count, max(MIN_CHUNK, CHUNK_BYTES // (8 * max(width, 1))))


def loop_chunk(n):
    """The chunk of the remaining passes once a pass has shown ``f`` only reads its input
    element by element (no dense seed was needed): one pass up to :data:`LOOP_CHUNK`."""
    return _balanced(n, LOOP_CHUNK)


def _balanced(n, limit):
    if n <= limit:
        return max(n, 1)
    passes = -(-n // limit)
    return -(-n // passes)


class Dual(_arrays.Traced):
    """A value with its partials along a chunk of directions (see the module docstring).
    ``float()``, ``__array__`` and ``.item()`` raise EscapeError (``_arrays.Traced``)."""

    __slots__ = ("value", "partials", "tag")
    _AD_NAME, _AD_ENGINE = "a dual number", "forward mode"
    __array_priority__ = 100

    def __init__(self, value, partials, tag):
        self.value, self.partials, self.tag = value, partials, tag

    def __repr__(self):
        return f"Dual({self.value!r}, partials={self.partials!r})"

    # numpy protocols: every operation goes through _apply and the rule table.
    def __array_ufunc__(self, ufunc, method, *inputs, **kwargs):
        if method != "__call__":
            raise rules.MissingRuleError(
                f"forward mode differentiates numpy.{ufunc.__name__}(...) calls only, "
                f"not numpy.{ufunc.__name__}.{method}")
        if ufunc in rules.NONDIFFERENTIABLE:
            return ufunc(*map(_value, inputs), **kwargs)
        return _apply(ufunc, inputs, kwargs)

    def __array_function__(self, func, types, args, kwargs):
        return _dispatch(func, args, kwargs)

    @classmethod
    def _ad_apply(cls, fn, args, kwargs):
        return _dispatch(fn, args, kwargs)

    # array-like behaviour (the methods and attributes come from rules.METHODS/ATTRIBUTES)
    shape = property(lambda self: np.shape(self.value))
    ndim = property(lambda self: np.ndim(self.value))
    size = property(lambda self: np.size(self.value))
    dtype = property(lambda self: np.result_type(self.value))

    def __bool__(self):
        return bool(self.value)

    __hash__ = object.__hash__

    def _ad_each_direction(self, linear):
        """A vjp linear in its cotangent, run on the value and on each direction's partial
        (kernels.ad._cotangents.each_direction)."""
        def each(v):  # the value and partials may be Duals of older levels (nested)
            return v._ad_each_direction(linear) if isinstance(v, _arrays.Traced) else linear(v)

        return _dual(each(self.value), np.stack([each(p) for p in self.partials]), self.tag)

    @classmethod
    def _ad_scatter_add(cls, shape, parts):
        """A sparse cotangent whose values are Duals of one level (a block of Jacobian
        rows pulled back at once, kernels.ad.blocks) made dense: values and partials each
        added at their flat positions, linear in the parts' sizes. Duals of several
        levels, or of Duals (nested), are left to the caller."""
        tag = width = None
        for p in parts:
            v = p.values
            if isinstance(v, Dual):
                if (tag not in (None, v.tag) or isinstance(v.value, _arrays.Traced)
                        or isinstance(v.partials, _arrays.Traced)):
                    return NotImplemented
                tag, width = v.tag, np.shape(v.partials)[0]
            elif isinstance(v, _arrays.Traced):
                return NotImplemented
        positions = np.arange(int(np.prod(shape))).reshape(shape)
        dtype = complex if any(rules.is_complex(_value(p.values)) or isinstance(p.values, Dual)
                               and rules.is_complex(p.values.partials) for p in parts) else float
        value = np.zeros(positions.size, dtype)
        partials = np.zeros((positions.size, width), dtype)  # a position's directions in a row
        for p in parts:
            where = positions[p.index]
            flat = np.ravel(where)
            np.add.at(value, flat, np.ravel(np.broadcast_to(_value(p.values), where.shape)))
            if isinstance(p.values, Dual):
                block = np.broadcast_to(p.values.partials, (width,) + where.shape)
                _add_rows(partials, flat, block.reshape(width, flat.size).T)
        return _dual(value.reshape(shape), np.ascontiguousarray(partials.T).reshape(
            (width,) + shape), tag)

    # comparisons look at values only: a branch is not differentiable
    def __lt__(self, other): return self.value < _value(other)
    def __le__(self, other): return self.value <= _value(other)
    def __gt__(self, other): return self.value > _value(other)
    def __ge__(self, other): return self.value >= _value(other)
    def __eq__(self, other): return self.value == _value(other)
    def __ne__(self, other): return self.value != _value(other)


class ArrayDual(Dual):
    """A Dual whose value is an array: it also indexes, iterates and has a length. (A
    scalar Dual has none of these, so that numpy never takes it for a sequence: storing one
    into an array then reaches ``__float__``, which names the escape.)"""

    __slots__ = ()

    def __len__(self):
        return len(self.value)

    def __getitem__(self, index):
        return _apply(operator.getitem, (self, _plain_index(index)), {})

    def __iter__(self):
        for i in range(len(self.value)):
            yield self[i]


_arrays.install_inplace(ArrayDual, rules.BINARY_OPERATORS)


def _dual(value, partials, tag):
    """A Dual of the right class for ``value`` (as ``_finish`` chooses, inline)."""
    if type(value) is np.ndarray or isinstance(value, ArrayDual):
        return ArrayDual(value, partials, tag)
    return Dual(value, partials, tag)


def _value(x):
    return x.value if isinstance(x, Dual) else x


def _add_rows(out, at, rows):
    """``out[at[i]] += rows[i]`` for every i, repeated positions summed: sorted, each run
    of one position summed by np.add.reduceat. np.add.at over the directions was half of
    a ba Jacobian's blocks, which this makes 1.2-1.7x faster (reverse and source mode, ba
    at n = 2 and 5, ht at 100; a sparse one-hot product gained less, with its overhead
    per call)."""
    if not at.size:
        return
    order = np.argsort(at, kind="stable")
    at = at[order]
    starts = np.flatnonzero(np.concatenate(([True], at[1:] != at[:-1])))
    out[at[starts]] += np.add.reduceat(rows[order], starts, axis=0)


def directions(value, partials):
    """A Dual of a fresh level: ``value`` with ``partials`` (a leading axis of directions)
    as its derivatives (kernels.ad.blocks: a block of cotangent rows)."""
    return _dual(value, partials, next(_tags))


def along(x, seed):
    """Whether ``x`` is a Dual of ``seed``'s level (carries derivatives along its
    directions)."""
    return isinstance(x, Dual) and x.tag == seed.tag


def _plain_index(index):
    """An index holding dual numbers (``x[i]`` with a traced ``i``) indexes by value."""
    if isinstance(index, Dual):
        return index.value
    if type(index) is tuple and any(isinstance(i, Dual) for i in index):
        return tuple(_value(i) for i in index)
    return index


def _operators():
    """Python's operators, array methods and attributes on Duals, from the one table in
    kernels.ad.rules, each one rule-table operation."""
    for name, fn in rules.BINARY_OPERATORS.items():
        if fn in rules.NONDIFFERENTIABLE:  # x // y: locally constant, a plain value
            setattr(Dual, f"__{name}__", lambda self, other, fn=fn: fn(self.value,
                                                                        _value(other)))
            setattr(Dual, f"__r{name}__", lambda self, other, fn=fn: fn(_value(other),
                                                                         self.value))
            continue
        setattr(Dual, f"__{name}__", lambda self, other, fn=fn: _apply(fn, (self, other), {}))
        setattr(Dual, f"__r{name}__", lambda self, other, fn=fn: _apply(fn, (other, self), {}))
    for name, fn in rules.UNARY_OPERATORS.items():
        setattr(Dual, f"__{name}__", lambda self, fn=fn: _apply(fn, (self,), {}))
    rules.install_methods(Dual, _method_call)


def _method_call(fn, args, kwargs):
    """An array method of a Dual (``x.dot(v)``): no protocol asks the other operand next,
    so a reverse-mode Variable among its arguments is refused here."""
    out = _dispatch(fn, args, kwargs)
    if out is NotImplemented:
        raise TypeError("forward mode: a method of a dual number got a reverse-mode "
                        "Variable; call the numpy function (np.dot(x, v)) instead")
    return out


_operators()


class _Seed(ArrayDual):
    """An input array at the start of a pass, with identity partials for the elements
    ``start .. start + chunk`` of the flattened input.

    Its dense partials (``chunk`` copies of the array's size) are built only when a
    vectorised operation needs them (``__getattr__`` runs when the ``partials`` slot is
    still empty). Element access never builds them: an element inside the chunk is a
    scalar Dual with a one-hot partial, one outside it is a plain float, so an element
    loop pays O(chunk) per element instead of holding chunk * n seeds.
    """

    __slots__ = ("start", "chunk")

    def __init__(self, value, start, chunk, tag):
        self.value, self.start, self.chunk, self.tag = value, start, chunk, tag

    def __getattr__(self, name):
        if name != "partials":
            raise AttributeError(name)
        dense = np.zeros((self.chunk, self.value.size))
        lo, hi = max(self.start, 0), min(self.start + self.chunk, self.value.size)
        dense[np.arange(lo, hi) - self.start, np.arange(lo, hi)] = 1.0
        self.partials = dense.reshape((self.chunk,) + self.value.shape)
        return self.partials

    def __getitem__(self, index):
        if type(index) is int and self.value.ndim == 1:
            k = (index if index >= 0 else index + len(self.value)) - self.start
            if 0 <= k < self.chunk:
                onehot = np.zeros(self.chunk)
                onehot[k] = 1.0
                return Dual(self.value[index], onehot, self.tag)
            return self.value[index]
        return ArrayDual.__getitem__(self, index)


def _apply(fn, args, kwargs):
    """``fn(*args, **kwargs)`` on values, and its batched jvp on the partials of the
    Duals. One pass over the arguments; nested levels meeting go to :func:`_apply_nested`."""
    values, tangents, top = [], [], 0
    for a in args:
        if isinstance(a, Dual):
            if a.tag != top:
                if top:
                    return _apply_nested(fn, args, kwargs)
                top = a.tag
            values.append(a.value)
            tangents.append(a.partials)
        elif isinstance(a, _arrays.Traced):
            # a reverse-mode Variable: it holds Duals (forward over reverse), so it computes
            # this; Python and numpy ask it next
            return NotImplemented
        else:
            values.append(a)
            tangents.append(None)
    return _finish(fn, values, tangents, kwargs, top)


#: numpy calls on Duals (rules.dispatcher): the entry of __array_function__ and the methods
_dispatch = rules.dispatcher(_value, lambda fn, args, kwargs: _apply(fn, args, kwargs))


def _apply_nested(fn, args, kwargs):
    """Duals of several tags: differentiate for the newest, the older ones are constants
    here (their level is handled when numpy reaches their values)."""
    top = max(a.tag for a in args if isinstance(a, Dual))
    values = [a.value if isinstance(a, Dual) and a.tag == top else a for a in args]
    tangents = [a.partials if isinstance(a, Dual) and a.tag == top else None for a in args]
    return _finish(fn, values, tangents, kwargs, top)


def _finish(fn, values, tangents, kwargs, tag):
    rule = rules.RULES.get(fn) or rules.lookup(fn)
    if kwargs:  # out=, where=, dtype=, ...: dropped where a no-op, else refused by name
        kwargs = _keywords.checked(rule, fn, values, kwargs)
    ans = _evaluate(fn, values, kwargs)
    partials = rule.jvp(tangents, ans, *values, **kwargs)
    if type(ans) is np.ndarray:  # (a 0-d array too: numpy answers its len() and indexing)
        return ArrayDual(ans, partials, tag)
    if type(ans) is ArrayDual:  # an array of an outer level (nested): indexable too
        return ArrayDual(ans, partials, tag)
    return Dual(ans, partials, tag)


def _evaluate(fn, values, kwargs):
    try:
        # A rules.primitive wrapper called on plain values calls the plain function.
        return fn(*values, **kwargs)
    except ValueError as exc:
        shapes = ", ".join(str(np.shape(v)) for v in values)
        raise ValueError(f"{rules.RULES[fn].name} of shapes {shapes}: {exc}") from None


# -- the user-facing functions -----------------------------------------------------------

def _check_args(args):
    check_arguments(args, "forward mode", traced=Dual)


def _check_chunk(chunk, n):
    if chunk is None:
        return default_chunk(n)
    if isinstance(chunk, bool) or not isinstance(chunk, (int, np.integer)) or chunk < 1:
        raise ValueError(f"chunk must be a positive int or None, got {chunk!r}")
    return int(min(chunk, max(n, 1)))


def _seeds(args, start, chunk, tag):
    """Each argument as it enters the pass over flat elements ``start .. start+chunk``:
    a seeded Dual, or the plain value when none of its elements is in the chunk."""
    out, offset = [], 0
    for a in args:
        size = int(np.size(a))
        lo = start - offset
        if lo >= size or lo + chunk <= 0:
            out.append(a)
        elif np.ndim(a) > 0:  # an array, or an array Dual of an outer level (hessian)
            out.append(_Seed(a, lo, chunk, tag))
        else:
            onehot = np.zeros(chunk)
            onehot[-lo] = 1.0
            out.append(Dual(a, onehot, tag))
        offset += size
    return out


def _passes(f, args, chunk):
    """Run ``f`` once per chunk; yield (start, size, tag, result) per pass.

    With ``chunk=None`` the first pass uses :func:`default_chunk`; if it never needed a
    dense seed (an element loop), the rest use :func:`loop_chunk`. Chunks may differ
    between passes: each direction's arithmetic is the same whatever its chunk.
    """
    _check_args(args)
    n = sum(int(np.size(a)) for a in args)
    adaptive = chunk is None
    chunk = _check_chunk(chunk, n)
    start = 0
    while start < n:
        size = min(chunk, n - start)
        tag = next(_tags)
        seeds = _seeds(args, start, size, tag)
        yield start, size, tag, f(*seeds)
        start += size
        if adaptive:
            adaptive = False
            if not any(_dense_built(s) for s in seeds):
                chunk = loop_chunk(n - start) if start < n else chunk


def _dense_built(seed):
    try:
        object.__getattribute__(seed, "partials")  # not __getattr__: that would build it
    except AttributeError:
        return False
    return isinstance(seed, _Seed)


def _partials_of(result, tag, size, shape):
    """The partials of ``result`` for the pass with ``tag`` (zeros if it did not depend
    on the inputs); a Dual of an outer tag when nested."""
    if isinstance(result, Dual) and result.tag == tag:
        return result.partials
    if isinstance(result, _arrays.Traced) and not isinstance(result, Dual):
        raise NestingError(nesting_refused("forward mode", result))  # reverse over forward
    return np.zeros((size,) + shape)


def _concat(parts, axis):
    """np.concatenate of partials that may themselves be Duals (nested differentiation)."""
    if not any(isinstance(p, Dual) for p in parts):
        return np.concatenate(parts, axis=axis)
    top = max(p.tag for p in parts if isinstance(p, Dual))
    values = [p.value if isinstance(p, Dual) and p.tag == top else p for p in parts]
    tangents = [p.partials if isinstance(p, Dual) and p.tag == top else None for p in parts]
    width = next(t.shape[0] for t in tangents if t is not None)
    tangents = [np.zeros((width,) + np.shape(v)) if t is None else t
                for t, v in zip(tangents, values)]
    # the tangents carry a leading chunk axis: a negative axis is the same axis of theirs
    return _dual(_concat(values, axis), _concat(tangents, axis if axis < 0 else axis + 1), top)


def _split(flat, args):
    """A flat gradient (last axis) back into one entry per argument."""
    out, offset = [], 0
    for a in args:
        size = int(np.size(a))
        piece = flat[..., offset:offset + size]
        if isinstance(a, (np.ndarray, ArrayDual)):  # (an array Dual of an outer level too)
            out.append(piece.reshape(piece.shape[:-1] + np.shape(a)))
        else:
            out.append(piece[..., 0])
        offset += size
    return out


def _traced(fn):
    """Run ``fn`` with numpy's constructors accepting Duals (kernels.ad._arrays), once for
    all of its passes."""
    @functools.wraps(fn)
    def wrapper(*args, **kwargs):
        _arrays.enter()
        try:
            return fn(*args, **kwargs)
        finally:
            _arrays.leave()
    return wrapper


@_traced
def _gradient_flat(f, args, chunk):
    parts = []
    for _start, size, tag, result in _passes(f, args, chunk):
        if np.ndim(result) != 0:
            raise ValueError(f"gradient needs a scalar-valued function; f returned shape "
                             f"{np.shape(result)}: use jacobian")
        if rules.is_complex(_value(result)):
            raise TypeError("gradient needs a real-valued function; f returned a complex "
                            "value (take np.real, np.abs or np.abs(...) ** 2 of it)")
        parts.append(_partials_of(result, tag, size, ()))
    if not parts:
        return np.zeros(0)
    return _concat(parts, 0)


def gradient(f, *args, chunk=None):
    """The gradient of scalar ``f`` with respect to every positional argument, in
    ``ceil(n / chunk)`` passes over ``f`` (``chunk=None``: :func:`default_chunk`)."""
    flat = _gradient_flat(f, args, chunk)
    # (a Dual argument, nested: its entry is already of its shape, a Dual or a constant)
    return tuple(g if isinstance(g, Dual) or isinstance(a, Dual) else rules.as_output(g, a)
                 for g, a in zip(_split(flat, args), args))


@_traced
def derivative(f, x):
    """df/dx of a function of one float (which may return an array)."""
    _check_args((x,))
    if isinstance(x, np.ndarray):
        raise TypeError("derivative takes a float; use gradient or jacobian for arrays")
    tag = next(_tags)
    result = f(Dual(x, np.ones(1), tag))
    d = _partials_of(result, tag, 1, np.shape(result))[0]
    return float(d) if np.ndim(d) == 0 and not isinstance(d, Dual) else d


@_traced
def jacobian(f, x, chunk=None, sparsity=None, mode=None):
    """The Jacobian of an array-valued ``f`` at the float array ``x`` (any shape, at least
    one dimension): shape ``np.shape(f(x)) + x.shape``, in ``ceil(x.size / chunk)`` passes.
    With ``sparsity`` (its pattern, kernels.ad.sparsity) a scipy.sparse CSR matrix of
    ``f(x).size x x.size``: one direction per colour of columns, plus the check's.

    ``mode=None`` takes it in reverse mode (kernels.ad.reverse) where that needs fewer
    passes (x has more elements than f(x), or its rows fewer colours), which costs one
    plain ``f`` to learn the output's size; ``"forward"`` always forward."""
    check_jacobian_input(x, "forward mode", traced=Dual)
    out = None
    if modes.check(mode) != modes.FORWARD and not isinstance(x, Dual):  # (nested: forward)
        out = f(x)
        if isinstance(out, _arrays.Traced):  # f closes over an enclosing level's value:
            out = None  # forward mode, as ever
        else:
            out = check_jacobian_output(out, "forward mode")
            if sparsity is not None:
                sparsity = _sparsity.of(sparsity, out.size, x.size)
            if modes.choose(mode, x.size, out.size, sparsity) == modes.REVERSE:
                return modes.jacobian_in(modes.REVERSE)(f, x, sparsity=sparsity,
                                                        mode=modes.REVERSE)
    if sparsity is not None:
        return _sparse_jacobian(f, x, chunk, sparsity, out)
    cols, out_shape = [], None
    for _start, size, tag, result in _passes(f, (x,), chunk):
        out_shape = _output_shape(result)
        p = _partials_of(result, tag, size, out_shape)
        cols.append(np.moveaxis(p, 0, -1))  # (a Dual of an outer level when nested)
    if out_shape is None:  # x has no elements: f runs once for the shape of its output
        out_shape = _output_shape(f(x))
        return np.zeros(out_shape + np.shape(x))
    return _concat(cols, -1).reshape(out_shape + np.shape(x))


def _sparse_jacobian(f, x, chunk, sparsity, out):
    """``out``: f(x), where the mode's choice ran it already (the pattern's row count)."""
    if isinstance(x, Dual):
        raise TypeError("forward mode: a sparse Jacobian is taken at a plain float array, "
                        "not nested")
    if out is None:
        out = check_jacobian_output(f(x), "forward mode")
    S = _sparsity.of(sparsity, out.size, x.size)
    directions = _sparsity.passes(S, modes.FORWARD)
    step = min(_check_chunk(chunk, x.size), len(directions))  # chunk: as dense seeds are
    products = []
    for lo in range(0, len(directions), step):
        block = directions[lo:lo + step]
        tag = next(_tags)
        result = f(_dual(x, block.reshape((len(block),) + x.shape), tag))
        shape = _output_shape(result)
        if shape != out.shape:
            raise ValueError(f"forward mode: f returned shape {shape} on a Dual, "
                             f"{out.shape} at x")
        products.append(np.reshape(_partials_of(result, tag, len(block), shape),
                                   (len(block), out.size)))
    return _sparsity.assemble(S, np.concatenate(products), modes.FORWARD, "forward mode")


def _output_shape(result):
    """The shape of what ``f`` returned to jacobian, checked to be a real array (the
    innermost value of a Dual of an outer level, too)."""
    v = result
    while isinstance(v, Dual):
        v = v.value
    check_jacobian_output(v, "forward mode")
    return np.shape(result)


def hessian(f, x, chunk=None):
    """The Hessian of scalar ``f`` at the array ``x``: the forward-mode jacobian of the
    forward-mode gradient (ForwardDiff's approach), tags keeping the levels apart."""
    if not isinstance(x, np.ndarray) or x.ndim != 1:
        raise TypeError("hessian takes a 1-D float array")
    return jacobian(lambda y: _gradient_flat(f, (y,), chunk), x, chunk, mode=modes.FORWARD)


def cost(problem, N, chunk=None):
    """One steady gradient's cost in evaluations of f (kernels.ad.backend.Cost): passes of
    ``chunk`` directions (None: this engine's default, which adapts after its first
    pass)."""
    if chunk is None:
        chunk = loop_chunk(N) if problem.loop else default_chunk(N)
    chunk = min(chunk, N)
    passes = -(-N // chunk)
    if problem.loop:
        # a pass costs 20-70 evaluations, more as the chunk's partials widen (measured 72
        # at one pass of 1600, 14 a pass at 31 passes of 517 over 16000)
        return passes * (20.0 + 50.0 * chunk / N)
    # every numpy call also carries a (chunk, ...) stack of partials: about chunk times
    # f's own work per pass (measured within 3x of this on Ackley, trmul and mps)
    return passes * (10.0 + chunk)


#: Nested: forward at both levels 19x the hand-written procedure on saddle (N = 2), 22x on
#: particle (N = 1), 6000x on kmeans_dir (N = 80: each outer direction runs the inner
#: gradient's passes); as the outer engine over reverse or source, 16x on kmeans_dir.
modes.register(modes.FORWARD, jacobian)

BACKEND = ADBackend(
    name="forward", role="engine", nests=True, options=("chunk",), mode="forward",
    cost=Cost(steady=cost, nested=lambda N: max(25.0, N * N), as_outer=constant(30.0)))
