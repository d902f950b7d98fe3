"""gradbench's ``kmeans``: the k-means cost of n points in d dimensions,

    f(C) = sum_i min_j |p_i - c_j|^2,

written as gradbench's vectorised tools write it (squared distances of all pairs from
norms and one product), differentiated with respect to the centroids C (k, d). gradbench
draws the points uniformly from [0, 1) and takes the last k of them as the centroids, so
that no cluster is empty; it sweeps k over 10, 100, 1000, n over 1000, 10000 and d over 8,
16. Its second function, the Newton direction (the gradient over the Hessian's diagonal,
2 |cluster j| for each coordinate of c_j), needs a second derivative: the nested problem
``kmeans_dir``. gradbench's tools take the diagonal as a Hessian-vector product with ones
(the Hessian is diagonal); here it is the gradient of the gradient's sum, the same vector
through two gradient calls (the outer one differentiating through the inner).
"""

import functools

import numpy as np

from .._problem import Problem
from ._sizes import grid, parse


def kmeans(centroids, *, points):
    d2 = (np.sum(centroids * centroids, axis=1)[:, None] + np.sum(points * points, axis=1)
          - 2.0 * centroids @ points.T)  # (k, n)
    return np.sum(np.min(d2, axis=0))


def kmeans_manual(centroids, *, points):
    d2 = (np.sum(centroids * centroids, axis=1)[:, None] + np.sum(points * points, axis=1)
          - 2.0 * centroids @ points.T)
    nearest = np.argmin(d2, axis=0)
    k = len(centroids)
    # d/dc_j of |p_i - c_j|^2 summed over the points nearest to c_j: 2 (count_j c_j - sum p_i)
    counts = np.bincount(nearest, minlength=k)
    sums = np.zeros_like(centroids)
    np.add.at(sums, nearest, points)
    return float(np.sum(d2[nearest, np.arange(d2.shape[1])])), \
        (2.0 * (counts[:, None] * centroids - sums),)


def kmeans_data(size, rng):
    dims = parse(size)
    return {"points": rng.random((dims["n"], dims["d"]))}


def kmeans_args(size, rng, *, points):
    # the last k points, as in gradbench: every cluster keeps at least its own point
    return (points[-parse(size)["k"]:].copy(),)


def _gradient_sum(centroids, *, points, gradient):
    (g,) = gradient(functools.partial(kmeans, points=points), centroids)
    return np.sum(g)


def kmeans_dir(outer, inner, centroids, *, points):
    (g,) = inner(functools.partial(kmeans, points=points), centroids)
    (h,) = outer(functools.partial(_gradient_sum, points=points, gradient=inner), centroids)
    return g / h


def kmeans_dir_manual(centroids, *, points):
    # gradient 2 (count_j c_j - sum p_i), Hessian diagonal 2 count_j: c_j - mean of cluster j
    _, (g,) = kmeans_manual(centroids, points=points)
    nearest = np.argmin(np.sum(centroids * centroids, axis=1)[:, None]
                        - 2.0 * centroids @ points.T, axis=0)
    counts = np.bincount(nearest, minlength=len(centroids))
    return g / (2.0 * counts[:, None]), None


PROBLEM = Problem(
    "kmeans", kmeans, kmeans_manual, kmeans_args,
    grid(k=(10, 100, 1000), n=(1000, 10000), d=(8, 16)), False,
    "gradbench kmeans: k-means cost of n points in d dimensions, gradient in the centroids",
    make_data=kmeans_data, origin="gradbench")

DIRECTION = Problem(
    "kmeans_dir", kmeans_dir, kmeans_dir_manual, kmeans_args, PROBLEM.sizes, False,
    "gradbench kmeans dir: the Newton direction, gradient over the Hessian's diagonal "
    "(nested derivatives)", output="nested", make_data=kmeans_data, origin="gradbench")
