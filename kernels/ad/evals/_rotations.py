"""Angle-axis rotations for the hand-written derivatives of ``ba`` and ``ht``: Rodrigues'
matrix and the derivative of a rotated vector with respect to the angle-axis vector."""

import numpy as np


def skew(v):
    """The cross-product matrices [v]x of the rows of ``v`` (..., 3) -> (..., 3, 3)."""
    zero = np.zeros(v.shape[:-1])
    x, y, z = v[..., 0], v[..., 1], v[..., 2]
    return np.stack([np.stack([zero, -z, y], axis=-1), np.stack([z, zero, -x], axis=-1),
                     np.stack([-y, x, zero], axis=-1)], axis=-2)


def rodrigues(r):
    """The rotation matrices of the angle-axis rows of ``r`` (..., 3) -> (..., 3, 3)."""
    theta = np.sqrt(np.sum(r * r, axis=-1))[..., None, None]
    K = skew(r) / theta
    return np.eye(3) + np.sin(theta) * K + (1.0 - np.cos(theta)) * (K @ K)


def rotated_jacobian(R, r, v):
    """d (R(r) v) / d r for rows ``r`` of angle-axis vectors with matrices ``R`` and vectors
    ``v`` (broadcasting): -R [v]x (r r^T + (R^T - I) [r]x) / |r|^2 (Gallego and Yezzi,
    "A compact formula for the derivative of a 3-D rotation in exponential coordinates",
    2015)."""
    theta2 = np.sum(r * r, axis=-1)[..., None, None]
    outer = r[..., :, None] * r[..., None, :]
    return -(R @ skew(v)) @ (outer + (np.swapaxes(R, -1, -2) - np.eye(3)) @ skew(r)) / theta2
