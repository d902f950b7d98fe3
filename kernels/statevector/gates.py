"""Named gate matrices (complex128), in the qulacs/textbook conventions:
``Rx(t) = exp(-i t X / 2)``, ``phase(t) = diag(1, exp(i t))``, ``T = phase(pi/4)``.

Multi-qubit matrices follow the kernel convention: bit j of the row/column index is
``locs[j]``. CNOT, CZ and Toffoli are the controlled forms; as instructions they are the
X or Z matrix with ``ctrl_locs`` (see :mod:`circuits`), which is how kernels take them.
"""

import numpy as np

_S2 = 1 / np.sqrt(2)

I2 = np.eye(2, dtype=np.complex128)
X = np.array([[0, 1], [1, 0]], dtype=np.complex128)
Y = np.array([[0, -1j], [1j, 0]], dtype=np.complex128)
Z = np.array([[1, 0], [0, -1]], dtype=np.complex128)
H = np.array([[_S2, _S2], [_S2, -_S2]], dtype=np.complex128)
S = np.array([[1, 0], [0, 1j]], dtype=np.complex128)
T = np.array([[1, 0], [0, np.exp(1j * np.pi / 4)]], dtype=np.complex128)


def Rx(theta):
    c, s = np.cos(theta / 2), np.sin(theta / 2)
    return np.array([[c, -1j * s], [-1j * s, c]], dtype=np.complex128)


def Ry(theta):
    c, s = np.cos(theta / 2), np.sin(theta / 2)
    return np.array([[c, -s], [s, c]], dtype=np.complex128)


def Rz(theta):
    return np.diag([np.exp(-0.5j * theta), np.exp(0.5j * theta)]).astype(np.complex128)


def phase(theta):
    return np.diag([1, np.exp(1j * theta)]).astype(np.complex128)


def controlled(matrix, n_ctrl=1):
    """Dense matrix of ``matrix`` with ``n_ctrl`` controls (value 1) on the high bits."""
    dim = matrix.shape[0] << n_ctrl
    out = np.eye(dim, dtype=np.complex128)
    out[dim - matrix.shape[0]:, dim - matrix.shape[0]:] = matrix
    return out


CNOT = controlled(X)            # locs (target, control)
CZ = controlled(Z)
SWAP = np.eye(4, dtype=np.complex128)[[0, 2, 1, 3]]
TOFFOLI = controlled(X, 2)      # locs (target, control, control)


def random_unitary(k, rng):
    """A Haar-random 2**k x 2**k unitary from the generator ``rng`` (QR of a Ginibre matrix)."""
    dim = 1 << k
    q, r = np.linalg.qr(rng.standard_normal((dim, dim)) + 1j * rng.standard_normal((dim, dim)))
    return q * (np.diagonal(r) / np.abs(np.diagonal(r)))
