"""ADBench's ``ba`` (bundle adjustment; gradbench keeps it): the reprojection residuals of
p observations of m points by n cameras, and the weight term, as a Jacobian.

A camera is 11 numbers: an angle-axis rotation r, the centre C, the focal length f, the
principal point (u0, v0) and two radial distortion coefficients k1, k2. Observation i sees
point X of camera c (``cam_index[i]``, ``point_index[i]``) at the feature position
``features[i]``, with a weight w_i. With R the rotation of r (Rodrigues' formula), Y =
R (X - C), q = (Y_0, Y_1) / Y_2, s = |q|^2:

    reprojection_i = w_i (f q (1 + k1 s + k2 s^2) + (u0, v0) - features[i])   (2 values)
    weight_i = 1 - w_i^2                                                      (1 value)

The differentiated input x is every camera (11n), then every point (3m), then every weight
(p); f(x) is the 2p reprojection residuals, observation by observation, then the p weight
residuals: ADBench's row and column layout. Its Jacobian is block sparse (15 entries per
reprojection row, 1 per weight row); ADBench's tools compute the blocks observation by
observation and store them sparse. ``ba`` asks for the dense ``jacobian(f, x)``, so its
problems are smaller than ADBench's (ba1 is n = 49, m = 7776, p = 31843, a dense Jacobian of
42 GB); ``ba_sparse`` asks for ``jacobian(f, x, sparsity=...)`` and goes on to ba1's size
(:func:`ba_sparsity`: the pattern and its colouring from the observations alone). Both are
generated with its structure (observation i sees camera i mod n and point i mod m,
ADBench's and gradbench's layout), with distinct random cameras, points and weights.
Rodrigues' formula is the general one: a random rotation is never exactly 0, where ADBench
switches to the first-order form.
"""

import numpy as np

from .._problem import Problem
from ..sparsity import Sparsity, matrix
from ._rotations import rodrigues, rotated_jacobian
from ._sizes import label, parse

#: ADBench's camera layout
ROT, CENTRE, FOCAL, PRINCIPAL, RADIAL = slice(0, 3), slice(3, 6), 6, slice(7, 9), slice(9, 11)


def _rotate(r, v):
    """Rodrigues' formula: each row of ``v`` rotated by the angle-axis row of ``r``."""
    theta = np.sqrt(np.sum(r * r, axis=1))
    axis = r / theta[:, None]
    cos, sin = np.cos(theta)[:, None], np.sin(theta)[:, None]
    return (v * cos + np.cross(axis, v) * sin
            + axis * (np.sum(axis * v, axis=1)[:, None] * (1.0 - cos)))


def ba(x, *, n, m, cam_index, point_index, features):
    cams = np.reshape(x[:11 * n], (n, 11))
    points = np.reshape(x[11 * n:11 * n + 3 * m], (m, 3))
    w = x[11 * n + 3 * m:]
    cam = cams[cam_index]
    Y = _rotate(cam[:, 0:3], points[point_index] - cam[:, 3:6])
    q = Y[:, :2] / Y[:, 2:3]
    s = np.sum(q * q, axis=1)[:, None]
    distorted = q * (1.0 + cam[:, 9:10] * s + cam[:, 10:11] * s * s)
    projected = cam[:, 6:7] * distorted + cam[:, 7:9]
    reprojection = w[:, None] * (projected - features)
    return np.concatenate((np.ravel(reprojection), 1.0 - w * w))


def ba_blocks(cams, points, w, cam_index, point_index, features):
    """The residuals and each observation's 2 x 15 Jacobian block by hand: columns its
    camera's 11, its point's 3, its weight."""
    cam, X = cams[cam_index], points[point_index]
    r, v = cam[:, ROT], X - cam[:, CENTRE]
    R = rodrigues(r)
    Y = np.einsum("pij,pj->pi", R, v)
    q = Y[:, :2] / Y[:, 2:3]
    s = np.sum(q * q, axis=1)
    k1, k2 = cam[:, 9], cam[:, 10]
    L = 1.0 + k1 * s + k2 * s * s
    distorted = q * L[:, None]
    focal = cam[:, FOCAL]
    projected = focal[:, None] * distorted + cam[:, PRINCIPAL]
    residual = w[:, None] * (projected - features)
    # d distorted / d q = L I + (2 k1 + 4 k2 s) q q^T;  d q / d Y = [I | -q] / Y_2
    dd_dq = (L[:, None, None] * np.eye(2)
             + (2.0 * k1 + 4.0 * k2 * s)[:, None, None] * q[:, :, None] * q[:, None, :])
    dq_dY = np.concatenate((np.broadcast_to(np.eye(2), (len(q), 2, 2)), -q[:, :, None]),
                           axis=2) / Y[:, 2, None, None]
    M = (w * focal)[:, None, None] * (dd_dq @ dq_dY)  # d residual / d Y: (p, 2, 3)
    dY_dr = rotated_jacobian(R, r, v)
    block = np.empty((len(w), 2, 15))
    block[:, :, ROT] = M @ dY_dr
    block[:, :, CENTRE] = -(M @ R)
    block[:, :, FOCAL] = w[:, None] * distorted
    block[:, :, PRINCIPAL] = w[:, None, None] * np.eye(2)
    block[:, :, 9] = (w * focal)[:, None] * q * s[:, None]
    block[:, :, 10] = (w * focal)[:, None] * q * (s * s)[:, None]
    block[:, :, 11:14] = M @ R
    block[:, :, 14] = projected - features
    return residual, block


def _layout(n, m, cam_index, point_index):
    """The rows and columns of the Jacobian's entries (ADBench's layout): each
    observation's 2 x 15 block (its camera's 11 columns, its point's 3, its weight's),
    row by row, then each weight row's one entry."""
    p = len(cam_index)
    block = (p, 2, 15)
    rows = np.broadcast_to(np.arange(2 * p).reshape(p, 2)[:, :, None], block)
    cam_cols = 11 * cam_index[:, None] + np.arange(11)
    point_cols = 11 * n + 3 * point_index[:, None] + np.arange(3)
    weight_cols = (11 * n + 3 * m + np.arange(p))[:, None]
    cols = np.broadcast_to(np.concatenate((cam_cols, point_cols, weight_cols),
                                          axis=1)[:, None, :], block)
    return (np.concatenate((rows.ravel(), 2 * p + np.arange(p))),
            np.concatenate((cols.ravel(), 11 * n + 3 * m + np.arange(p))))


def ba_sparsity(n, m, cam_index, point_index):
    """The Jacobian's pattern from the observations alone, with the colouring its
    structure gives: parameter j of every camera one colour (no row sees two cameras),
    each point coordinate one, the weights one; 15, the least possible."""
    rows, cols = _layout(n, m, cam_index, point_index)
    p = len(cam_index)
    colour = np.concatenate((np.tile(np.arange(11), n), np.tile(11 + np.arange(3), m),
                             np.full(p, 14)))
    pattern = matrix(np.ones(rows.size, dtype=bool), rows, cols, (3 * p, colour.size))
    return Sparsity(pattern, columns=colour)


def _entries(x, n, m, cam_index, point_index, features):
    """The residuals, and the Jacobian's entries by hand in :func:`_layout`'s order."""
    cams = x[:11 * n].reshape(n, 11)
    points = x[11 * n:11 * n + 3 * m].reshape(m, 3)
    w = x[11 * n + 3 * m:]
    residual, block = ba_blocks(cams, points, w, cam_index, point_index, features)
    return (np.concatenate((residual.ravel(), 1.0 - w * w)),
            np.concatenate((block.ravel(), -2.0 * w)),
            *_layout(n, m, cam_index, point_index))


def ba_manual(x, *, n, m, cam_index, point_index, features):
    value, entries, rows, cols = _entries(x, n, m, cam_index, point_index, features)
    J = np.zeros((value.size, x.size))
    J[rows, cols] = entries
    return value, J


def ba_sparse_manual(x, *, n, m, cam_index, point_index, features):
    """ADBench's manual tool's form: the Jacobian's blocks by hand, stored sparse (CSR)."""
    value, entries, rows, cols = _entries(x, n, m, cam_index, point_index, features)
    return value, matrix(entries, rows, cols, (value.size, x.size))


def ba_data(size, rng):
    dims = parse(size)
    n, m, p = dims["n"], dims["m"], dims["p"]
    return {"n": n, "m": m, "cam_index": np.arange(p) % n, "point_index": np.arange(p) % m,
            "features": rng.uniform(-1.0, 1.0, (p, 2))}


def ba_args(size, rng, *, n, m, cam_index, point_index, features):
    """Cameras looking down their z axis at points 3-5 units in front of them: rotations
    of up to 0.3 rad, focal length near 1, small distortion (ADBench's scale is pixels;
    only the structure is kept)."""
    cams = np.empty((n, 11))
    cams[:, ROT] = rng.uniform(-0.3, 0.3, (n, 3))
    cams[:, CENTRE] = rng.uniform(-0.5, 0.5, (n, 3))
    cams[:, FOCAL] = rng.uniform(0.8, 1.2, n)
    cams[:, PRINCIPAL] = rng.uniform(-0.1, 0.1, (n, 2))
    cams[:, RADIAL] = rng.uniform(-0.05, 0.05, (n, 2))
    points = np.column_stack((rng.uniform(-1.0, 1.0, (m, 2)), rng.uniform(3.0, 5.0, m)))
    weights = rng.uniform(0.5, 1.0, len(cam_index))
    return (np.concatenate((cams.ravel(), points.ravel(), weights)),)


#: ADBench's structure at sizes whose dense Jacobian fits (ba1's would not)
SIZES = tuple(label(n=n, m=m, p=p) for n, m, p in
              ((2, 10, 40), (5, 40, 160), (10, 160, 640), (20, 640, 2560)))

PROBLEM = Problem(
    "ba", ba, ba_manual, ba_args, SIZES, False,
    "ADBench ba: bundle adjustment residuals of p observations (n cameras, m points), "
    "dense Jacobian", output="jacobian", make_data=ba_data, origin="adbench")

#: the dense sizes, then ADBench's ba1 (its first data file's dimensions, with the
#: generated layout above): what a sparse Jacobian makes possible
SPARSE_SIZES = SIZES + (label(n=49, m=7776, p=31843),)

SPARSE = Problem(
    "ba_sparse", ba, ba_sparse_manual, ba_args, SPARSE_SIZES, False,
    "ADBench ba: bundle adjustment residuals, sparse Jacobian (its pattern the hand-written "
    "one's, as ADBench's tools know it)", output="sparse", make_data=ba_data,
    origin="adbench")
