"""The circuit builders (docs/architecture.md, "Circuits")."""

import numpy as np

from ._instruction import cnot, gate, swap


def qcbm(n, rng, depth=9):
    """The quantum circuit Born machine of the qulacs/Yao benchmarks: ``depth`` layers of
    rotations (Rx Rz first, Rz Rx last, Rz Rx Rz between), each layer but the last
    followed by a ring of CNOTs (i -> i+1 mod n). Angles come from ``rng``."""
    circuit = []
    for layer in range(depth):
        if layer == 0:
            names = ("Rx", "Rz")
        elif layer == depth - 1:
            names = ("Rz", "Rx")
        else:
            names = ("Rz", "Rx", "Rz")
        for q in range(n):
            for name in names:
                circuit.append(gate(name, q, theta=rng.uniform(0, 2 * np.pi)))
        if layer < depth - 1 and n > 1:
            circuit.extend(cnot(q, (q + 1) % n) for q in range(n))
    return circuit


def qft(n):
    """The quantum Fourier transform: H and controlled phases, then the qubit reversal."""
    circuit = []
    for q in reversed(range(n)):
        circuit.append(gate("H", q))
        for c in reversed(range(q)):
            circuit.append(gate("phase", q, ctrl=(c,), theta=np.pi / (1 << (q - c))))
    circuit.extend(swap(q, n - 1 - q) for q in range(n // 2))
    return circuit

