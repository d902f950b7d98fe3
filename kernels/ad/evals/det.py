"""gradbench's ``det``: the determinant of an ell x ell matrix by expansion by minors along
the first row, recursively (ell! products: the point is a deep, branching computation, not
linear algebra). The input is the matrix flattened row by row, drawn uniformly from
[0, 1); the gradient is the cofactor matrix, flattened.
"""

import numpy as np

from .._problem import Problem


def _minor_det(M):
    k = len(M)
    if k == 1:
        return M[0, 0]
    total = 0.0
    for j in range(k):
        rest = [c for c in range(k) if c != j]
        term = M[0, j] * _minor_det(M[1:, rest])
        total = total + term if j % 2 == 0 else total - term
    return total


def det(A, *, ell):
    return _minor_det(np.reshape(A, (ell, ell)))


def _minor_det_manual(M):
    """The determinant and its gradient, by hand: the recursion, run forward for each
    term's sub-determinant, sends each term's cotangent to the first row's entry and,
    scaled by that entry, into the sub-minor's own gradient."""
    k = len(M)
    if k == 1:
        return M[0, 0], np.ones((1, 1))
    total, grad = 0.0, np.zeros((k, k))
    for j in range(k):
        rest = [c for c in range(k) if c != j]
        sign = 1.0 if j % 2 == 0 else -1.0
        sub, sub_grad = _minor_det_manual(M[1:, rest])
        total += sign * M[0, j] * sub
        grad[0, j] = sign * sub
        grad[1:, rest] += (sign * M[0, j]) * sub_grad
    return total, grad


def det_manual(A, *, ell):
    value, grad = _minor_det_manual(np.reshape(A, (ell, ell)))
    return float(value), (grad.ravel(),)


def det_args(size, rng, **data):
    return (rng.random(size * size),)


def det_data(size, rng):
    return {"ell": size}


PROBLEM = Problem(
    "det", det, det_manual, det_args, (5, 6, 7, 8, 9, 10, 11), True,
    "gradbench det: determinant of an ell x ell matrix by expansion by minors",
    make_data=det_data, origin="gradbench")
