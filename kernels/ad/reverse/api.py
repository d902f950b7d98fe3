"""The entry points of reverse mode (kernels.ad.reverse): gradient, jacobian, hessian.

``gradient``: ``f`` runs on fresh leaves, one backward sweep from its scalar result.

``jacobian``: ``f`` runs once on a leaf and its graph is recorded once; the output's rows
are then pulled back through that one graph a block at a time (kernels.ad.blocks: one
backward sweep carries a block of cotangents as a forward Dual's directions).

``hessian``: forward over reverse, the forward-mode jacobian of the reverse-mode gradient
(the tape computes on forward Duals: kernels.ad.reverse.nesting).
"""

import gc
import numbers

import numpy as np

from .. import _arrays, _cotangents, blocks, forward, modes, rules
from .. import sparsity as _sparsity
from .._args import (
    check_argument,
    check_jacobian_input,
    check_jacobian_output,
    nesting_refused,
)
from ..errors import NestingError
from . import nesting as _reverse_nesting
from .backward import backpropagate
from .variable import (
    _F64,
    ArrayVariable,
    RetiredVariable,
    Variable,
    _ndarray,
    _new,
    _next_seq,
    _shape,
    leaf_node,
)

_NOTHING = (None, None)  # (leaf, cotangent) of an argument f does not depend on
_nesting = _reverse_nesting
_backpropagate = backpropagate

_ENGINE = "reverse mode"


def gradient(f, *args):
    """The gradient of the scalar ``f(*args)`` with respect to every positional argument:
    one entry per argument, with its shape (a float for a float argument).

    Each argument becomes a fresh leaf, so calls never accumulate into each other, and no
    other Variable's ``.grad`` changes (the result is computed without ``backward``).

    The cyclic garbage collector is paused while ``f`` runs and its graph is walked: the
    graph holds no cycles, but every pass over its growing set of nodes is paid anyway
    (three quarters of an element loop's time at n = 16000).
    """
    leaves = []
    start = _next_seq()  # every Variable this call makes comes later
    for i, a in enumerate(args):
        t = type(a)
        value = a if t is float or t is _ndarray and a.dtype is _F64 else _leaf_value(i, a)
        leaf = _new(ArrayVariable if type(value) is not float and value.ndim else Variable)
        leaf.value, leaf.grad = value, None
        leaf._node = leaf_node(leaf)
        leaves.append(leaf)
    collecting = gc.isenabled()
    gc.disable()
    running = _nesting.active()
    running.append(start)
    try:
        _arrays.enter()
        try:
            out = f(*leaves)
        finally:
            _arrays.leave()
        if isinstance(out, Variable):
            if type(out) is RetiredVariable:
                out._refuse()
            v = out.value
            if rules.is_complex(v):
                raise TypeError("gradient needs a real-valued f; f returned a complex value "
                                "(take np.real, np.abs or np.abs(...) ** 2 of it)")
            if _shape(out.value) != ():
                raise ValueError(f"gradient needs a scalar-valued f; f returned a Variable of "
                                 f"shape {_shape(out.value)}")
            found = _backpropagate(out, 1.0)
        else:
            if isinstance(out, _arrays.Traced) and np.ndim(out) == 0:
                pass  # a Dual of an enclosing level only: a constant here
            elif not isinstance(out, (numbers.Real, _ndarray)) or isinstance(out, bool):
                raise TypeError(f"gradient needs a scalar-valued f; f returned a "
                                f"{type(out).__name__}")
            if np.ndim(out) != 0:
                raise ValueError(f"gradient needs a scalar-valued f; f returned an array of "
                                 f"shape {np.shape(out)}")
            found = {}  # f does not depend on its arguments
    finally:
        running.pop()
        if collecting:
            gc.enable()
    _nesting.check_leaves(found, start)
    outputs = []
    for leaf, a in zip(leaves, args):
        ct = found.get(leaf._node[0], _NOTHING)[1]
        if (type(ct) is _ndarray and type(a) is _ndarray and ct.dtype is _F64
                and ct.shape == a.shape and ct is not a and ct.flags.writeable):
            outputs.append(ct)  # as_output's first case, without its call (tr(A @ B): 2%)
        elif isinstance(a, _arrays.Traced):
            outputs.append(_cotangents.traced_as_output(ct, a))
        else:
            outputs.append(rules.as_output(ct, a))
    return tuple(outputs)  # each its own array: backpropagate gave each leaf its own


def _leaf_value(i, a):
    """An argument that is not a float or a float64 array: checked, or a forward Dual
    (forward over reverse: the tape computes on its values); a Variable of an enclosing
    gradient is refused (reverse over reverse)."""
    if isinstance(a, _arrays.Traced) and not isinstance(a, Variable):
        return a
    return check_argument(i, a, "reverse mode")


def jacobian(f, x, sparsity=None, mode=None):
    """The Jacobian of the array-valued ``f`` at the float array ``x`` (any shape, at least
    one dimension): shape ``np.shape(f(x)) + x.shape``; ``f`` runs once, its tape pulled
    back once per block of output elements (kernels.ad.blocks). With ``sparsity`` (its
    pattern, kernels.ad.sparsity) a scipy.sparse CSR matrix of ``f(x).size x x.size``: one
    seed per colour of rows, plus the check's.

    ``mode=None`` hands it to forward mode (kernels.ad.forward) where that needs no more
    passes (x has no more elements than f(x), or its columns no more colours than its
    rows), after the tape's run that tells the output's size; ``"reverse"`` always
    reverse, ``"forward"`` always forward."""
    if isinstance(x, Variable):
        raise NestingError(nesting_refused(_ENGINE, x))
    x = check_jacobian_input(x, _ENGINE, traced=_arrays.Traced)
    nested = isinstance(x, _arrays.Traced)
    if sparsity is not None and nested:
        raise TypeError(f"{_ENGINE}: a sparse Jacobian is taken at a plain float array, "
                        "not nested")
    if modes.check(mode) == modes.FORWARD and not nested:
        return forward.jacobian(f, x, sparsity=sparsity, mode=modes.FORWARD)
    start = _next_seq()
    leaf = Variable(x) if not nested else _dual_leaf(x)
    collecting = gc.isenabled()
    gc.disable()  # as in gradient: the graph has no cycles, and its walks are paid anyway
    running = _reverse_nesting.active()
    running.append(start)
    rows = None
    try:
        _arrays.enter()
        try:
            out = f(leaf)
        finally:
            _arrays.leave()
        traced = isinstance(out, Variable)
        if type(out) is RetiredVariable:
            out._refuse()
        value = out.value if traced else out
        plain = value
        while isinstance(plain, _arrays.Traced):  # a Dual's own value, when nested
            plain = plain.value
        shape = check_jacobian_output(plain, _ENGINE).shape
        if sparsity is not None:
            sparsity = _sparsity.of(sparsity, plain.size, x.size)
        # nested, or f closing over an enclosing level's value: reverse mode, as ever
        if (nested or value is not plain
                or modes.choose(mode, x.size, plain.size, sparsity) == modes.REVERSE):
            rows = _pullbacks(out if traced else None, leaf, x, start, shape, sparsity,
                              nested or value is not plain)
    finally:
        running.pop()
        if collecting:
            gc.enable()
    if rows is None:  # forward mode's, chosen by the shapes
        return forward.jacobian(f, x, sparsity=sparsity, mode=modes.FORWARD)
    if sparsity is not None:
        return _sparsity.assemble(sparsity, rows, modes.REVERSE, _ENGINE)
    return np.reshape(rows, shape + np.shape(x))


def _pullbacks(out, leaf, x, start, shape, sparsity, nested):
    """``(k, x.size)``: the x-cotangent of each seed, one-hots of every output element or a
    sparse Jacobian's (kernels.ad.sparsity.passes), in blocks (kernels.ad.blocks); row by
    row when ``nested`` (x or f's value a Dual: the cotangents carry the enclosing level).
    Zeros where ``out`` is None (f does not depend on x)."""
    seeds = None
    if sparsity is not None:
        seeds = np.stack(_sparsity.passes(sparsity, modes.REVERSE))
    if out is None:
        return np.zeros((int(np.prod(shape)) if seeds is None else len(seeds), x.size))

    def pull(ct):
        found = backpropagate(out, ct)
        _reverse_nesting.check_leaves_of(found, start)
        return found.get(leaf._node[0], _NOTHING)[1]

    return blocks.rows(pull, shape, x, seeds, nested)


def _dual_leaf(x):
    leaf = object.__new__(ArrayVariable)
    leaf.value, leaf.grad = x, None
    leaf._node = leaf_node(leaf)
    return leaf


def hessian(f, x):
    """The Hessian of the scalar ``f`` at the float array ``x`` (any shape, at least one
    dimension): shape ``x.shape + x.shape``, forward over reverse (one reverse-mode gradient
    per forward chunk, its tape computing on Duals)."""
    check_jacobian_input(x, _ENGINE, traced=forward.Dual)
    return forward.jacobian(lambda y: gradient(f, y)[0], x, mode=modes.FORWARD)


modes.register(modes.REVERSE, jacobian)
