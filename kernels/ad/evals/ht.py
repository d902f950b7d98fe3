"""ADBench's ``ht`` (hand tracking; gradbench keeps it), the simple variant: residuals
between observed 3-D points and the vertices of a skinned hand mesh they correspond to, as
a Jacobian with respect to the 26 pose parameters.

The pose theta: a global angle-axis rotation (0:3) and translation (3:6), then for each of
the five fingers four angles: x and z of its second bone, x of its third and of its fourth.
Each bone's relative transform is its base transform times its pose rotation Rz Rx (the
identity for the wrist, the forearm and each finger's first bone); absolute transforms
compose from the wrist outwards; a vertex is the weighted sum over bones of its base
position moved by (absolute x inverse base absolute); the mesh is then rotated and
translated globally, and

    f(theta) = points - vertices[correspondences]   (3 N values, point by point).

ADBench's model has ADBench's 22 bones (wrist; thumb, index, middle, ring and pinky, four
bones each; forearm) and 544 vertices; its data files are not at hand, so the model here
is generated with the same bones, parents and vertex count (bone lengths and rest rotations
drawn once, each vertex skinned to its bone and that bone's parent), and the points are
the model's vertices at a random pose plus noise, the input pose a perturbation of it.
ADBench and gradbench sweep N, the number of correspondences, over 100 .. 100000. The
global rotation uses Rodrigues' general formula (ADBench switches to the identity below an
angle of 1e-4, which a random pose never reaches).
"""

import numpy as np

from .._problem import Problem
from ..sparsity import Sparsity, matrix
from ._rotations import rodrigues, rotated_jacobian

#: ADBench's hand: each bone's parent, parents first (wrist, 5 x 4 finger bones, forearm)
PARENTS = (-1, 0, 1, 2, 3, 0, 5, 6, 7, 0, 9, 10, 11, 0, 13, 14, 15, 0, 17, 18, 19, 0)
VERTICES = 544  #: ADBench's small model
MODEL_SEED = 544  #: the generated model is the same at every size
#: theta index -> (bone, axis) of each finger angle: the second bone's x and z, the third's
#: and the fourth's x
FINGER_ANGLES = {6 + 4 * f + k: (4 * f + bone, axis)
                 for f in range(5)
                 for k, (bone, axis) in enumerate(((2, "x"), (2, "z"), (3, "x"), (4, "x")))}


def _rotation_x(t):
    c, s = np.cos(t), np.sin(t)
    return np.array([[1.0, 0.0, 0.0, 0.0], [0.0, c, -s, 0.0], [0.0, s, c, 0.0],
                     [0.0, 0.0, 0.0, 1.0]])


def _rotation_z(t):
    c, s = np.cos(t), np.sin(t)
    return np.array([[c, -s, 0.0, 0.0], [s, c, 0.0, 0.0], [0.0, 0.0, 1.0, 0.0],
                     [0.0, 0.0, 0.0, 1.0]])


def _global_rotation(r):
    theta = np.sqrt(np.sum(r * r))
    k = r / theta
    K = np.array([[0.0, -k[2], k[1]], [k[2], 0.0, -k[0]], [-k[1], k[0], 0.0]])
    return np.eye(3) + np.sin(theta) * K + (1.0 - np.cos(theta)) * (K @ K)


def ht(theta, *, base_relatives, inverse_base_absolutes, base_positions, weights,
       correspondences, points):
    vertices = hand_vertices(theta, base_relatives, inverse_base_absolutes, base_positions,
                             weights)
    return np.ravel(points - vertices[correspondences])


def ht_complicated(x, *, base_relatives, inverse_base_absolutes, base_positions, weights,
                   triangles, correspondences, points):
    """ADBench's complicated variant (gradbench's default): point i corresponds to a point
    of the mesh triangle ``triangles[correspondences[i]]``, at barycentric coordinates
    (u0, u1, 1 - u0 - u1) of its corners, themselves differentiated: ``x`` is the us
    (N x 2, point by point) followed by theta (26). Its Jacobian is sparse
    (:func:`ht_complicated_sparsity`)."""
    us = np.reshape(x[:-26], (-1, 2))
    vertices = hand_vertices(x[-26:], base_relatives, inverse_base_absolutes, base_positions,
                             weights)
    corners = vertices[triangles[correspondences]]  # N x 3 corners x 3
    u0, u1 = us[:, :1], us[:, 1:]
    hand = u0 * corners[:, 0] + u1 * corners[:, 1] + (1.0 - u0 - u1) * corners[:, 2]
    return np.ravel(points - hand)


def ht_complicated_sparsity(count):
    """The pattern of ht_complicated's Jacobian for ``count`` points, with the colouring
    its structure gives: residual row 3i + j reads point i's two us and all 26 of theta, so
    every point's u0 is one colour, every u1 another, each theta one: 28 forward
    directions, the least possible (a row holds 28 entries)."""
    rows = np.repeat(np.arange(3 * count), 28)
    own = np.repeat(2 * np.arange(count), 3)[:, None] + np.arange(2)
    cols = np.hstack((own, np.broadcast_to(2 * count + np.arange(26), (3 * count, 26))))
    pattern = matrix(np.ones(rows.size, dtype=bool), rows, np.ravel(cols),
                     (3 * count, 2 * count + 26))
    return Sparsity(pattern, columns=np.concatenate((np.tile([0, 1], count),
                                                     2 + np.arange(26))))


def hand_vertices(theta, base_relatives, inverse_base_absolutes, base_positions, weights):
    """Every vertex of the hand posed by ``theta`` (V x 3): skinned, then moved globally."""
    absolute = []
    for b in range(len(PARENTS)):
        relative = base_relatives[b]
        if b % 4 == 2 and b < 21:  # a finger's second bone: x, then z
            first = 6 + 4 * (b // 4)
            relative = relative @ (_rotation_z(theta[first + 1]) @ _rotation_x(theta[first]))
        elif b % 4 in (3, 0) and 0 < b < 21:  # its third and fourth: x
            relative = relative @ _rotation_x(theta[6 + 4 * ((b - 1) // 4) + (b - 1) % 4])
        absolute.append(relative if PARENTS[b] < 0 else absolute[PARENTS[b]] @ relative)
    transforms = np.stack(absolute) @ inverse_base_absolutes  # (bones, 4, 4)
    # each vertex: the weighted sum over bones of its base position moved by the bone
    moved = np.einsum("bij,vj->vbi", transforms[:, :3, :], base_positions)
    skinned = np.einsum("vb,vbi->vi", weights, moved)
    return skinned @ _global_rotation(theta[:3]).T + theta[3:6]


def _pose(theta):
    """Each bone's relative rotation (4 x 4) and its derivative along each of its angles."""
    rotations = [np.eye(4) for _ in PARENTS]
    derivatives = {}
    for b in range(len(PARENTS)):
        angles = {axis: theta[i] for i, (bone, axis) in FINGER_ANGLES.items() if bone == b}
        if not angles:
            continue
        tx, tz = angles["x"], angles.get("z", 0.0)
        cx, sx, cz, sz = np.cos(tx), np.sin(tx), np.cos(tz), np.sin(tz)
        Rx = np.array([[1, 0, 0, 0], [0, cx, -sx, 0], [0, sx, cx, 0], [0, 0, 0, 1.0]])
        Rz = np.array([[cz, -sz, 0, 0], [sz, cz, 0, 0], [0, 0, 1, 0], [0, 0, 0, 1.0]])
        dRx = np.array([[0, 0, 0, 0], [0, -sx, -cx, 0], [0, cx, -sx, 0], [0, 0, 0, 0.0]])
        dRz = np.array([[-sz, -cz, 0, 0], [cz, -sz, 0, 0], [0, 0, 0, 0], [0, 0, 0, 0.0]])
        rotations[b] = Rz @ Rx
        for i, (bone, axis) in FINGER_ANGLES.items():
            if bone == b:
                derivatives[i] = (b, Rz @ dRx if axis == "x" else dRz @ Rx)
    return rotations, derivatives


def ht_manual(theta, *, base_relatives, inverse_base_absolutes, base_positions, weights,
              correspondences, points):
    """The residuals, and their Jacobian by forward mode written out by hand (ADBench's
    manual tool's approach): for each finger angle the derivative of every absolute
    transform down its bone's subtree, skinned like the vertices."""
    rotations, derivatives = _pose(theta)
    relative = base_relatives @ np.stack(rotations)
    absolute = []
    for b, parent in enumerate(PARENTS):
        absolute.append(relative[b] if parent < 0 else absolute[parent] @ relative[b])
    absolute = np.stack(absolute)
    base = base_positions[correspondences]  # only the vertices the points need
    w = weights[correspondences]
    skinned = np.einsum("nb,bij,nj->ni", w, (absolute @ inverse_base_absolutes)[:, :3], base)
    r = theta[:3]
    R = rodrigues(r)
    vertices = skinned @ R.T + theta[3:6]
    J = np.empty((len(correspondences), 3, 26))
    J[:, :, 0:3] = -rotated_jacobian(R, r, skinned)
    J[:, :, 3:6] = -np.eye(3)
    for i, (bone, d_rotation) in sorted(derivatives.items()):
        d_absolute = np.zeros_like(absolute)
        parent = PARENTS[bone]
        d_absolute[bone] = absolute[parent] @ base_relatives[bone] @ d_rotation
        for b in range(bone + 1, len(PARENTS)):  # the subtree: parents come first
            if PARENTS[b] >= bone and np.any(d_absolute[PARENTS[b]]):
                d_absolute[b] = d_absolute[PARENTS[b]] @ relative[b]
        d_skinned = np.einsum("nb,bij,nj->ni", w, (d_absolute @ inverse_base_absolutes)[:, :3],
                              base)
        J[:, :, i] = -(d_skinned @ R.T)
    return np.ravel(points - vertices), J.reshape(-1, 26)


def _rigid(rotation, translation):
    out = np.eye(4)
    out[:3, :3], out[:3, 3] = rotation, translation
    return out


def hand_model(rng):
    """A hand with ADBench's bones and parents and 544 vertices: rest transforms of
    plausible lengths and small random twists, each vertex skinned to one bone and its
    parent."""
    relatives = []
    for b, parent in enumerate(PARENTS):
        if parent < 0:
            offset = np.zeros(3)
        elif b == 21:  # the forearm, behind the wrist
            offset = np.array([0.0, -0.6, 0.0])
        elif parent == 0:  # a finger's first bone, fanned out across the palm
            offset = np.array([-0.3 + 0.15 * ((b - 1) // 4), 0.4, 0.0])
        else:
            offset = np.array([0.0, 0.25, 0.0])
        twist = rodrigues(rng.normal(0.0, 0.1, 3)) if parent >= 0 else np.eye(3)
        relatives.append(_rigid(twist, offset))
    absolutes = []
    for b, parent in enumerate(PARENTS):
        absolutes.append(relatives[b] if parent < 0 else absolutes[parent] @ relatives[b])
    bones = rng.integers(0, len(PARENTS), VERTICES)
    local = np.column_stack((rng.uniform(-0.05, 0.05, VERTICES), rng.uniform(0.0, 0.25, VERTICES),
                             rng.uniform(-0.05, 0.05, VERTICES), np.ones(VERTICES)))
    positions = np.einsum("vij,vj->vi", np.stack(absolutes)[bones], local)
    weights = np.zeros((VERTICES, len(PARENTS)))
    own = rng.uniform(0.6, 1.0, VERTICES)
    weights[np.arange(VERTICES), bones] = own
    parents = np.array(PARENTS)[bones]
    has_parent = parents >= 0
    weights[np.arange(VERTICES)[has_parent], parents[has_parent]] = 1.0 - own[has_parent]
    weights[~has_parent, 0] = 1.0
    return {"base_relatives": np.stack(relatives),
            "inverse_base_absolutes": np.linalg.inv(np.stack(absolutes)),
            "base_positions": positions, "weights": weights}


def _random_pose(rng):
    pose = np.concatenate((rng.normal(0.0, 0.5, 3), rng.normal(0.0, 0.2, 3),
                           rng.uniform(-0.5, 0.5, 20)))
    return pose


def ht_data(size, rng):
    model = hand_model(np.random.default_rng(MODEL_SEED))
    correspondences = rng.integers(0, VERTICES, size)
    vertices, _ = ht_manual(_random_pose(rng), **model, correspondences=correspondences,
                            points=np.zeros((size, 3)))
    points = -vertices.reshape(size, 3) + rng.normal(0.0, 0.01, (size, 3))
    return {**model, "correspondences": correspondences, "points": points}


def ht_args(size, rng, **data):
    return (_random_pose(rng),)


PROBLEM = Problem(
    "ht", ht, ht_manual, ht_args,
    (100, 192, 200, 400, 800, 1600, 3200, 6400, 12800, 25600, 51200, 100000), False,
    "ADBench ht: residuals of N points against a skinned 22-bone, 544-vertex hand mesh "
    "(simple variant), Jacobian in the 26 pose parameters",
    output="jacobian", make_data=ht_data, origin="adbench")
