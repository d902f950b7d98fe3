"""Rules of products: ``matmul`` and ``dot`` in any dimension, ``tensordot``, ``einsum``,
``outer``, ``inner``, ``kron``, ``cross``, ``vdot``.

Every product is bilinear: the jvp is the sum of the product with one factor replaced by its
batched tangent, the vjp of a factor contracts the output's cotangent with the other one.
"""

import operator
import string

import numpy as np

from .table import (
    RULES,
    EveryArgument,
    MissingRuleError,
    _lift,
    _ndim,
    alias,
    defcanonical,
    defrule,
    each_direction,
    unbroadcast,
)


def _swap(a):
    return np.swapaxes(a, -1, -2)


# -- matmul: 1-D and N-D operands, broadcasting stacks ------------------------------------------

def _matmul_vjp_x(g, ans, x, y):
    nx, ny = _ndim(x), _ndim(y)
    if ny == 1:  # x @ y lost y's axis: the cotangent is an outer product per stack
        return g[..., None] * y if nx > 1 else g * y
    if nx == 1:  # x was read as a row: sum its stack
        return np.reshape(y @ g[..., None], np.shape(y)[:-2] + (np.shape(y)[-2],))
    return g @ (y.T if ny == 2 else _swap(y))


def _matmul_vjp_y(g, ans, x, y):
    nx, ny = _ndim(x), _ndim(y)
    if nx == 1:
        return x[:, None] * g[..., None, :] if ny > 1 else g * x
    if ny == 1:
        return (_swap(x) @ g[..., None])[..., 0]
    return (x.T if nx == 2 else _swap(x)) @ g


def _matmul_jvp(ts, ans, x, y):
    tx, ty = ts
    nx, ny = _ndim(x), _ndim(y)
    out = None
    if tx is not None:
        if nx >= 2:
            out = _lift(tx, ny) @ y
        else:  # a batched vector on the left is a matrix: its rows are the batch
            out = tx @ y if ny <= 2 else np.moveaxis(tx @ y, -2, 0)
    if ty is not None:
        if ny == 1:  # a batched vector on the right would be read as a matrix
            term = ty @ x if nx == 1 else ty @ x.T if nx == 2 else \
                np.moveaxis(x @ ty.T, -1, 0)
        else:
            term = x @ _lift(ty, nx) if nx >= 2 else x @ ty
        out = term if out is None else out + term
    return out


def _matmul_vjp(which):
    vjp = _matmul_vjp_x if which == 0 else _matmul_vjp_y

    def f(g, ans, x, y):
        # the 2-D arrays of the usual call take the direct route
        if type(x) is np.ndarray and type(y) is np.ndarray and x.ndim == 2 and y.ndim == 2:
            return g @ y.T if which == 0 else x.T @ g
        # summed over broadcast stacks here, so that every cotangent has its argument's
        # shape (the source engine relies on it)
        return unbroadcast(vjp(g, ans, x, y), np.shape(x if which == 0 else y))
    return f


defrule(np.matmul, [_matmul_vjp(0), _matmul_vjp(1)], _matmul_jvp)
alias(operator.matmul, np.matmul)


# -- tensordot, and dot / inner through it ---------------------------------------------------

def _tensordot_axes(x, y, axes):
    """The contracted axes of ``x`` and ``y`` as two lists of non-negative ints."""
    nx, ny = _ndim(x), _ndim(y)
    if np.ndim(axes) == 0:
        k = int(axes)
        return list(range(nx - k, nx)), list(range(k))
    ax, ay = axes
    ax = [ax] if np.ndim(ax) == 0 else list(ax)
    ay = [ay] if np.ndim(ay) == 0 else list(ay)
    return [a % nx for a in ax], [a % ny for a in ay]


def _tensordot_vjp_x(g, ans, x, y, axes=2):
    ax, ay = _tensordot_axes(x, y, axes)
    free_x = [a for a in range(_ndim(x)) if a not in ax]
    free_y = [a for a in range(_ndim(y)) if a not in ay]
    out = np.tensordot(g, y, (list(range(len(free_x), np.ndim(g))), free_y))
    # out's axes: x's free axes, then y's contracted axes in y's order, i.e. their partners
    order = free_x + [ax[ay.index(a)] for a in sorted(ay)]
    return np.transpose(out, np.argsort(order))


def _tensordot_vjp_y(g, ans, x, y, axes=2):
    ax, ay = _tensordot_axes(x, y, axes)
    free_x = [a for a in range(_ndim(x)) if a not in ax]
    free_y = [a for a in range(_ndim(y)) if a not in ay]
    out = np.tensordot(x, g, (free_x, list(range(len(free_x)))))
    order = [ay[ax.index(a)] for a in sorted(ax)] + free_y
    return np.transpose(out, np.argsort(order))


def _tensordot_jvp(ts, ans, x, y, axes=2):
    ax, ay = _tensordot_axes(x, y, axes)
    out = None
    if ts[0] is not None:
        out = np.tensordot(ts[0], y, ([a + 1 for a in ax], ay))
    if ts[1] is not None:
        n_free_x = _ndim(x) - len(ax)
        term = np.moveaxis(np.tensordot(x, ts[1], (ax, [a + 1 for a in ay])), n_free_x, 0)
        out = term if out is None else out + term
    return out


defrule(np.tensordot, [_tensordot_vjp_x, _tensordot_vjp_y, None], _tensordot_jvp)


def _dot_axes(x, y):
    return ([_ndim(x) - 1], [max(_ndim(y) - 2, 0)])


def _dot_rule():
    """dot: a product of scalars, matmul for 1-D and 2-D, a tensordot otherwise."""
    mul, mat, tdot = RULES[np.multiply], RULES[np.matmul], RULES[np.tensordot]

    def pick(x, y):
        nx = x.ndim if type(x) is np.ndarray else _ndim(x)
        ny = y.ndim if type(y) is np.ndarray else _ndim(y)
        if nx == 0 or ny == 0:
            return mul, ()
        if nx <= 2 and ny <= 2:
            return mat, ()
        return tdot, (_dot_axes(x, y),)

    def vjp(i):
        def f(g, ans, x, y):
            rule, extra = pick(x, y)
            return rule.vjps[i](g, ans, x, y, *extra)
        return f

    def jvp(ts, ans, x, y):
        rule, extra = pick(x, y)
        return rule.jvp(ts, ans, x, y, *extra)
    return [vjp(0), vjp(1)], jvp


defrule(np.dot, *_dot_rule())


def _inner_rule():
    tdot = RULES[np.tensordot]

    def axes(x, y):
        return ([_ndim(x) - 1], [_ndim(y) - 1])

    def vjp(i):
        def f(g, ans, x, y):
            if _ndim(x) == 0 or _ndim(y) == 0:
                return RULES[np.multiply].vjps[i](g, ans, x, y)
            return tdot.vjps[i](g, ans, x, y, axes(x, y))
        return f

    def jvp(ts, ans, x, y):
        if _ndim(x) == 0 or _ndim(y) == 0:
            return RULES[np.multiply].jvp(ts, ans, x, y)
        return tdot.jvp(ts, ans, x, y, axes(x, y))
    return [vjp(0), vjp(1)], jvp


defrule(np.inner, *_inner_rule())


def _outer_jvp(ts, ans, x, y):
    out = None
    if ts[0] is not None:
        t = ts[0].reshape(len(ts[0]), -1)
        out = t[:, :, None] * np.ravel(y)[None, None, :]
    if ts[1] is not None:
        t = ts[1].reshape(len(ts[1]), -1)
        term = np.ravel(x)[None, :, None] * t[:, None, :]
        out = term if out is None else out + term
    return out


defrule(np.outer,
        [lambda g, ans, x, y: np.reshape(g @ np.ravel(y), np.shape(x)),
         lambda g, ans, x, y: np.reshape(np.ravel(x) @ g, np.shape(y))],
        _outer_jvp)


# -- kron (1-D and 2-D), cross -----------------------------------------------------------------

def _kron_check(x, y):
    if _ndim(x) != _ndim(y) or _ndim(x) not in (1, 2):
        raise MissingRuleError("the derivative rule of numpy.kron covers two 1-D or two 2-D "
                               "arrays")


def _kron_blocks(g, x, y):
    """g as (x rows, y rows, x cols, y cols) blocks (1-D: (x, y))."""
    if _ndim(x) == 1:
        return np.reshape(g, (np.shape(x)[0], np.shape(y)[0]))
    (m, n), (p, q) = np.shape(x), np.shape(y)
    return np.reshape(g, (m, p, n, q))


def _kron_vjp(which):
    def vjp(g, ans, x, y):
        _kron_check(x, y)
        blocks = _kron_blocks(g, x, y)
        if _ndim(x) == 1:
            return blocks @ y if which == 0 else x @ blocks
        return (np.einsum("ipjq,pq->ij", blocks, y) if which == 0
                else np.einsum("ipjq,ij->pq", blocks, x))
    return vjp


def _kron_jvp(ts, ans, x, y):
    _kron_check(x, y)
    out = None
    for t, other, first in ((ts[0], y, True), (ts[1], x, False)):
        if t is None:
            continue
        if _ndim(x) == 1:
            term = t[:, :, None] * other[None, None, :] if first else \
                other[None, :, None] * t[:, None, :]
        else:
            term = np.einsum("cij,pq->cipjq", t, other) if first else \
                np.einsum("ij,cpq->cipjq", other, t)
        term = term.reshape((len(t),) + np.shape(ans))
        out = term if out is None else out + term
    return out


defrule(np.kron, [_kron_vjp(0), _kron_vjp(1)], _kron_jvp)


def _cross_axes(kw):
    """(axisa, axisb, axisc): where the 3-vectors of a, b and the result lie."""
    axis = kw.get("axis")
    if axis is not None:
        return axis, axis, axis
    return kw.get("axisa", -1), kw.get("axisb", -1), kw.get("axisc", -1)


def _cross_vjp(which):
    def vjp(g, ans, x, y, **kw):
        ax, ay, ac = _cross_axes(kw)
        if _ndim(x) and np.shape(x)[ax] != 3 or _ndim(y) and np.shape(y)[ay] != 3:
            raise MissingRuleError("the derivative rule of numpy.cross covers 3-vectors")
        gl = np.moveaxis(g, ac, -1)
        if which == 0:  # d<g, x × y>/dx = y × g
            return np.moveaxis(np.cross(np.moveaxis(y, ay, -1), gl), -1, ax)
        return np.moveaxis(np.cross(gl, np.moveaxis(x, ax, -1)), -1, ay)
    return vjp


def _cross_jvp(ts, ans, x, y, **kw):
    ax, ay, ac = _cross_axes(kw)
    xl, yl = np.moveaxis(x, ax, -1), np.moveaxis(y, ay, -1)
    ndim = _ndim(ans)
    out = None
    for t, arg, first in ((ts[0], x, True), (ts[1], y, False)):
        if t is None:
            continue
        tl = _lift(np.moveaxis(t, (ax if first else ay) % _ndim(arg) + 1, -1), ndim)
        term = np.cross(tl, yl) if first else np.cross(xl, tl)
        out = term if out is None else out + term
    return np.moveaxis(out, -1, ac % ndim + 1)


defrule(np.cross, [_cross_vjp(0), _cross_vjp(1)], _cross_jvp)


# -- einsum -------------------------------------------------------------------------------

def _einsum_canonical(*args, **kwargs):
    """np.einsum in the interleaved form (a, [0, 1], b, [1, 2], [0, 2]) as a subscripts
    string; the string form as it is."""
    if not args or isinstance(args[0], str):
        return np.einsum, args, kwargs, lambda cts: tuple(cts)
    pairs, out = (args[:-1], args[-1]) if len(args) % 2 else (args, None)
    operands, sublists = list(pairs[0::2]), list(pairs[1::2])

    def letters(sub):
        return "".join("..." if k is Ellipsis else string.ascii_letters[k] for k in sub)
    spec = ",".join(map(letters, sublists)) + ("" if out is None else "->" + letters(out))

    def unflatten(cts):
        back = [None] * len(args)
        for k, ct in enumerate(cts[1:]):
            back[2 * k] = ct
        return tuple(back)
    return np.einsum, (spec, *operands), kwargs, unflatten


def _einsum_spec(subscripts, operands):
    """(input subscripts per operand, output subscripts), explicit, with '...' replaced by
    letters of their own."""
    if not isinstance(subscripts, str):
        raise MissingRuleError("numpy.einsum in its interleaved form (operand, sublist, "
                               "...) has no derivative rule; use a subscripts string")
    spec = subscripts.replace(" ", "")
    lhs, arrow, rhs = spec.partition("->")
    inputs = lhs.split(",")
    used = set(spec) - set(".,->")
    spare = [c for c in string.ascii_letters if c not in used]
    ell = max((_ndim(op) - len(s.replace("...", "")) for s, op in zip(inputs, operands)
               if "..." in s), default=0)
    fill = "".join(spare[:ell])
    inputs = [s.replace("...", fill[len(fill) - (_ndim(op) - len(s.replace("...", ""))):])
              for s, op in zip(inputs, operands)]
    if arrow:
        out = rhs.replace("...", fill)
    else:  # implicit mode: the ellipsis axes, then letters seen once, in order
        counts = {c: "".join(inputs).count(c) for c in set("".join(inputs))}
        out = fill + "".join(sorted(c for c, n in counts.items() if n == 1 and c not in fill))
    return inputs, out, spare[ell:]


#: the multiply-adds of a derivative's contraction past which einsum may reorder it (a
#: pairwise order, BLAS where it can): its path search costs ~30 us, and below this a
#: plain einsum is as fast, above it a batched tangent's contraction in plain einsum took
#: 17x the time (ht's skinning, 3.7M multiply-adds: 14.6 ms plain, 0.85 ms reordered)
_REORDER_WORK = 1_000_000


def _contract(spec, *operands):
    """np.einsum(spec, *operands), reordered when the contraction is large."""
    sizes = {}
    for subscripts, op in zip(spec.split("->")[0].split(","), operands):
        sizes.update(zip(subscripts, np.shape(op)))
    work = 1
    for size in sizes.values():
        work *= size
    return np.einsum(spec, *operands, optimize=work >= _REORDER_WORK and len(operands) > 1)


def _einsum_vjp(i, g, ans, subscripts, *operands, **kwargs):
    inputs, out, spare = _einsum_spec(subscripts, operands)
    target = inputs[i - 1]
    others = [(s, op) for k, (s, op) in enumerate(zip(inputs, operands)) if k != i - 1]
    # an index of the operand found in neither the output nor the others was summed away:
    # its cotangent is constant along it (a broadcast, by a vector of ones)
    present = set(out).union(*(set(s) for s, _ in others))
    unique = "".join(dict.fromkeys(target))  # a repeated index (a diagonal) once
    ones = [(c, np.ones(np.shape(operands[i - 1])[target.index(c)])) for c in unique
            if c not in present]
    spec = ",".join([out] + [s for s, _ in others] + [c for c, _ in ones]) + "->" + unique
    ct = _contract(spec, g, *(op for _, op in others), *(o for _, o in ones))
    if unique == target:
        return ct
    return each_direction(lambda t: _on_diagonal(t, target, unique, np.shape(operands[i - 1])),
                          ct)


def _on_diagonal(ct, target, unique, shape):
    """The operand's diagonal (its repeated index) gets the cotangent; einsum's diagonal
    view of a fresh array is writeable."""
    full = np.zeros(shape, dtype=ct.dtype)
    np.einsum(f"{target}->{unique}", full)[...] = ct
    return full


def _einsum_jvp(ts, ans, subscripts, *operands, **kwargs):
    inputs, out, spare = _einsum_spec(subscripts, operands)
    batch = spare[0]
    total = None
    for k, t in enumerate(ts[1:]):
        if t is None:
            continue
        specs = [batch + s if j == k else s for j, s in enumerate(inputs)]
        args = [t if j == k else op for j, op in enumerate(operands)]
        term = _contract(",".join(specs) + "->" + batch + out, *args)
        total = term if total is None else total + term
    return total


defrule(np.einsum, EveryArgument(_einsum_vjp, first=1), _einsum_jvp)
defcanonical(np.einsum, _einsum_canonical)


# -- vdot: both operands flattened, the first conjugated ---------------------------------------

def _flat(t):
    """A batched tangent with its element axes flattened: (chunk, size)."""
    return np.reshape(t, (len(t), -1))


defrule(np.vdot, [
    # sum(conj(a) b): the conjugation's cotangent is conj (np.conjugate's rule)
    lambda g, ans, a, b: np.reshape(np.conj(g * np.ravel(b)), np.shape(a)),
    lambda g, ans, a, b: np.reshape(g * np.conj(np.ravel(a)), np.shape(b))],
    lambda ts, ans, a, b: sum(term for term in (
        None if ts[0] is None else np.sum(np.conj(_flat(ts[0])) * np.ravel(b), axis=1),
        None if ts[1] is None else np.sum(np.conj(np.ravel(a)) * _flat(ts[1]), axis=1))
        if term is not None))
