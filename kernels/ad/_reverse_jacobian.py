"""Jacobians in reverse mode (kernels.ad.reverse): ``f`` runs once on a leaf and its graph
is recorded once; each output element is then pulled back through that one graph (one
backward sweep per output row: the rules' vjps take one cotangent of the output's shape, not
a batch of them).
"""

import gc

import numpy as np

from . import _arrays, rules
from ._args import check_jacobian_input, check_jacobian_output
from ._backward import backpropagate

_ENGINE = "reverse mode"


def jacobian(f, x):
    """The Jacobian of the array-valued ``f`` at the float array ``x`` (any shape, at least
    one dimension): shape ``np.shape(f(x)) + x.shape``; ``f`` runs once."""
    from .reverse import RetiredVariable, Variable  # (reverse imports this module last)
    x = check_jacobian_input(x, _ENGINE)
    leaf = Variable(x)
    collecting = gc.isenabled()
    gc.disable()  # as in gradient: the graph has no cycles, and its walks are paid anyway
    try:
        _arrays.enter()
        try:
            out = f(leaf)
        finally:
            _arrays.leave()
        traced = isinstance(out, Variable)
        if type(out) is RetiredVariable:
            out._refuse()
        value = check_jacobian_output(out.value if traced else out, _ENGINE)
        jac = np.zeros(value.shape + x.shape)
        if traced:
            rows = jac.reshape((value.size,) + x.shape)
            for i in range(value.size):
                rows[i] = _row(out, i, value.shape, leaf)
    finally:
        if collecting:
            gc.enable()
    return jac


def _row(out, i, shape, leaf):
    """d out.flat[i] / d x: one backward sweep over the recorded graph with a one-hot
    cotangent (the graph is only read, so every sweep sees the same record)."""
    if shape == ():
        g = 1.0
    else:
        g = np.zeros(shape)
        g.flat[i] = 1.0
    found = backpropagate(out, g)
    return rules.as_output(found.get(leaf._seq, (None, None))[1], leaf.value)
