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
