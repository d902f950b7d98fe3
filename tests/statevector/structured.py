"""Gates with structure for the tests: unitaries that do not mix some of their qubits."""

import numpy as np

from kernels.statevector import gates


def multiplexed(k, quiet, rng, identity=0.0):
    """A k-qubit unitary that does not mix the bits in ``quiet`` (fusion.mixed): for each
    value of them an independent random unitary on the other bits (the identity with
    probability ``identity``), as an Ising coupling's ZZ and a rotation make."""
    rest = [j for j in range(k) if j not in quiet]
    m = np.zeros((1 << k, 1 << k), dtype=complex)
    for v in range(1 << len(quiet)):
        u = (np.eye(1 << len(rest)) if rng.random() < identity
             else gates.random_unitary(len(rest), rng))
        at = [sum(((v >> b & 1) << j for b, j in enumerate(quiet)), 0)
              | sum((r >> b & 1) << j for b, j in enumerate(rest))
              for r in range(1 << len(rest))]
        m[np.ix_(at, at)] = u
    return m


def conserving(k, rng):
    """A k-qubit unitary that keeps the count of ones (a Heisenberg coupling's product
    keeps the count of up spins): an independent random unitary on each count's indices,
    so that its matrix falls apart into sectors of 1, k, ..., k, 1 indices."""
    m = np.zeros((1 << k, 1 << k), dtype=complex)
    for ones in range(k + 1):
        at = [i for i in range(1 << k) if bin(i).count("1") == ones]
        m[np.ix_(at, at)] = _unitary(len(at), rng)
    return m


def parity_keeping(k, rng):
    """A k-qubit unitary that keeps the parity of the count of ones (XX, YY and ZZ
    couplings, fermionic matchgates): a random unitary on the even-count indices and one
    on the odd."""
    m = np.zeros((1 << k, 1 << k), dtype=complex)
    for odd in (0, 1):
        at = [i for i in range(1 << k) if bin(i).count("1") % 2 == odd]
        m[np.ix_(at, at)] = _unitary(len(at), rng)
    return m


def _unitary(size, rng):
    """A random size x size unitary (any size, not only a power of two)."""
    q, r = np.linalg.qr(rng.normal(size=(size, size)) + 1j * rng.normal(size=(size, size)))
    return q * (np.diagonal(r) / np.abs(np.diagonal(r)))
