"""Small differentiation cases that together reach every rule of the table, shared by the
engine tests so that all engines are checked on the same functions.

Each case is ``(name, f, make_args, uses)``: ``make_args(rng)`` draws arguments at which ``f``
is smooth, ``uses`` names the rule-table functions the case exercises (the coverage test
checks every rule is used by some case).
"""

import operator

import numpy as np

from .constructs import CONSTRUCTS


def _pos(rng, *shape):
    """Values in [0.5, 1.5]: inside every domain (log, sqrt, power, tan, division)."""
    return rng.uniform(0.5, 1.5, shape) if shape else float(rng.uniform(0.5, 1.5))


def _unary(fn, lo_hi=(0.5, 1.5)):
    return (f"{fn.__name__}", lambda x: np.sum(fn(x) * x),
            lambda rng: (rng.uniform(*lo_hi, (3, 4)),), [fn, np.sum, np.multiply])


CASES = [
    *(_unary(fn) for fn in (np.negative, np.positive, np.square, np.reciprocal, np.sqrt,
                             np.exp, np.expm1, np.log, np.log1p, np.sin, np.cos, np.tan,
                             np.sinh, np.cosh, np.tanh, np.arctan)),
    ("abs", lambda x: np.sum(np.abs(x) * x), lambda rng: (rng.uniform(-1.5, 1.5, (5,)),),
     [np.absolute]),
    ("operators", lambda x, y: np.sum(-x * y + x / y - y ** 2 + x ** y - (+x) + abs(y)),
     lambda rng: (_pos(rng, 3, 4), _pos(rng, 3, 4)),
     [operator.add, operator.sub, operator.mul, operator.truediv, operator.pow,
      operator.neg, operator.pos, abs]),
    ("ufunc-binary", lambda x, y: np.sum(np.add(np.subtract(x, y), np.true_divide(
        np.multiply(x, y), np.power(y, 1.5)))),
     lambda rng: (_pos(rng, 3, 4), _pos(rng, 3, 4)),
     [np.add, np.subtract, np.multiply, np.true_divide, np.power]),
    ("broadcast-row", lambda x, y: np.sum(x * y + y), lambda rng: (_pos(rng, 3, 4), _pos(rng, 4)),
     [np.multiply, np.add]),
    ("broadcast-column", lambda x, y: np.sum(x / y - y), lambda rng: (_pos(rng, 3, 4), _pos(rng, 3, 1)),
     [np.true_divide, np.subtract]),
    ("broadcast-scalar", lambda x, s: np.sum(x ** s * s), lambda rng: (_pos(rng, 3, 2), _pos(rng)),
     [np.power, np.multiply]),
    ("scalars", lambda a, b: a / (a + b * b) + np.sin(a) * np.exp(b), lambda rng: (_pos(rng), _pos(rng)),
     [np.sin, np.exp]),
    ("sum-axis", lambda x: np.sum(np.sum(x, axis=0) ** 2) + np.sum(np.sum(x, axis=-1, keepdims=True) * x),
     lambda rng: (_pos(rng, 3, 4),), [np.sum]),
    ("sum-method", lambda x: (x.sum(axis=1) ** 2).sum(), lambda rng: (_pos(rng, 3, 4),), [np.sum]),
    ("mean", lambda x: np.mean(np.mean(x, axis=1) ** 2) + np.mean(x * x),
     lambda rng: (_pos(rng, 3, 4),), [np.mean]),
    ("matmul-2d-2d", lambda a, b: np.sum(np.sin(a @ b)), lambda rng: (_pos(rng, 3, 4), _pos(rng, 4, 2)),
     [np.matmul, operator.matmul]),
    ("matmul-2d-1d", lambda a, v: np.sum(np.sin(np.matmul(a, v))),
     lambda rng: (_pos(rng, 3, 4), _pos(rng, 4)), [np.matmul]),
    ("matmul-1d-2d", lambda v, a: np.sum(np.sin(v @ a)), lambda rng: (_pos(rng, 3), _pos(rng, 3, 4)),
     [np.matmul]),
    ("matmul-1d-1d", lambda u, v: np.sin(u @ v), lambda rng: (_pos(rng, 4), _pos(rng, 4)), [np.matmul]),
    ("dot", lambda a, b, u, v, s: np.sum(np.dot(a, b)) + np.sum(np.dot(a, v)) + np.sum(np.dot(u, a))
     + np.dot(u, u) * np.sum(np.dot(s, v)),
     lambda rng: (_pos(rng, 3, 4), _pos(rng, 4, 2), _pos(rng, 3), _pos(rng, 4), _pos(rng)),
     [np.dot]),
    ("trace", lambda a, b: np.trace(a @ b) * np.trace(a @ a), lambda rng: (_pos(rng, 3, 3), _pos(rng, 3, 3)),
     [np.trace]),
    ("transpose", lambda a, b: np.sum(np.sin(a.T @ b) * np.transpose(a.T @ b))
     + np.sum(np.transpose(np.sin(a)[:, :, None] * b[:, None, :2], (1, 2, 0)) ** 2),
     lambda rng: (_pos(rng, 3, 4), _pos(rng, 3, 4)), [np.transpose, operator.getitem]),
    ("reshape", lambda x: np.sum(np.reshape(x, (4, 3)) @ np.reshape(x, (3, 4))),
     lambda rng: (_pos(rng, 3, 4),), [np.reshape]),
    ("getitem", lambda x: x[0, 1] * x[2, 3] + np.sum(x[1] * x[:, 2][:, None]) + np.sum(x[[0, 0, 2]] ** 2),
     lambda rng: (_pos(rng, 3, 4),), [operator.getitem]),
    ("element-loop", lambda x: element_loop(x), lambda rng: (_pos(rng, 7),), [operator.getitem]),
    ("fan-out", lambda x, y: np.sum(x * x * x + np.sin(x) * y + x * y), lambda rng: (_pos(rng, 5), _pos(rng)),
     [np.multiply]),
    ("nested-functions", lambda x, y: outer(x, y) + outer(y, x), lambda rng: (_pos(rng, 4), _pos(rng, 4)),
     [np.dot]),
    ("index-loop", lambda x: index_loop(x), lambda rng: (_pos(rng, 6),), [operator.getitem]),
]


def element_loop(x):
    total = 0.0
    for xi in x:
        total = total + np.cos(2.0 * xi) * xi
    return total * len(x)


def index_loop(x):
    total = x[0]
    for i in range(1, len(x)):
        total = total * 0.5 + x[i] * x[i - 1]
    return total


def inner(x, y):
    return np.tanh(x) * y + x


def outer(x, y):
    z = inner(x, y)
    return np.dot(z, inner(z, x))


#: the cases of the problems' operations (the torch adapter's numpy namespace covers these)
BASIC_CASES = list(CASES)
BASIC_IDS = [c[0] for c in BASIC_CASES]
CASES += CONSTRUCTS  # every construct of the rule table, tests/ad/constructs.py
IDS = [c[0] for c in CASES]
