"""Validation before timing: every backend's result is compared with the reference once
per parameter set; a wrong result fails the benchmark and it is never timed."""

import numpy as np

from harness.errors import ValidationError
from harness.statevector.backends import PRECISIONS
from kernels.statevector import circuits, naive, subspace

#: Largest state the dense oracle is used for; above it the reference is ``subspace``,
#: which the test suite checks against the dense oracle on every case.
DENSE_REFERENCE_QUBITS = 10

#: Amplitude tolerance per precision (unit-norm states, circuits of up to ~1000 gates).
ATOL = {"complex128": 1e-9, "complex64": 1e-4}



def reference(vec, instructions):
    """The reference result of running ``instructions`` on a copy of ``vec``."""
    n = vec.shape[0].bit_length() - 1
    kernel = naive.apply if n <= DENSE_REFERENCE_QUBITS else subspace.apply
    return circuits.run(kernel, vec.copy(), instructions)


def check(name, got, expected, what="", precision="complex128"):
    """Raise :class:`ValidationError` naming the backend if ``got`` differs."""
    got = np.asarray(got)
    if got.shape != expected.shape:
        raise ValidationError(f"{name} {what}: result shape {got.shape}, expected {expected.shape}")
    err = np.max(np.abs(got - expected)) if got.size else 0.0
    atol = ATOL[precision]
    if not err <= atol:  # also catches NaN
        raise ValidationError(f"{name} {what} ({precision}): max amplitude error {err:.3g} "
                              f"> {atol:g}")
    return err


def validated_program(backend, vec, instructions, expected=None, what=""):
    """Build ``backend``'s program, run it once on a copy of ``vec`` (this also compiles
    and warms up JIT code), check the result, and return the program."""
    backend.check()
    precision = getattr(backend, "precision", "complex128")
    n = vec.shape[0].bit_length() - 1
    program = backend.program(instructions, n)
    state = backend.load(vec)
    backend.run(state, program)
    backend.sync()
    if expected is None:
        # from the amplitudes the backend was given, rounded to its precision
        start = vec.astype(PRECISIONS[precision]).astype(np.complex128)
        expected = reference(start, instructions)
    check(backend.name, backend.result(state), expected, what, precision)
    return program
