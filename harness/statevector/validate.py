"""Validation before timing: every backend's result is compared with the reference once
per parameter set; a wrong result fails the benchmark and it is never timed."""

import numpy as np

from harness.errors import ValidationError
from kernels.statevector import circuits, naive, subspace

#: Largest state the dense oracle is used for; above it the reference is ``subspace``,
#: which the test suite checks against the dense oracle on every case.
DENSE_REFERENCE_QUBITS = 10

#: Amplitude tolerance (complex128, unit-norm states, circuits of a few hundred gates).
ATOL = 1e-9



def reference(vec, instructions):
    """The reference result of running ``instructions`` on a copy of ``vec``."""
    n = vec.shape[0].bit_length() - 1
    kernel = naive.apply if n <= DENSE_REFERENCE_QUBITS else subspace.apply
    return circuits.run(kernel, vec.copy(), instructions)


def check(name, got, expected, what=""):
    """Raise :class:`ValidationError` naming the backend if ``got`` differs."""
    got = np.asarray(got)
    if got.shape != expected.shape:
        raise ValidationError(f"{name} {what}: result shape {got.shape}, expected {expected.shape}")
    err = np.max(np.abs(got - expected)) if got.size else 0.0
    if not err <= ATOL:  # also catches NaN
        raise ValidationError(f"{name} {what}: max amplitude error {err:.3g} > {ATOL:g}")
    return err


def validated_program(backend, vec, instructions, expected=None, what=""):
    """Build ``backend``'s program, run it once on a copy of ``vec`` (this also compiles
    and warms up JIT code), check the result, and return the program."""
    backend.check()
    n = vec.shape[0].bit_length() - 1
    program = backend.program(instructions, n)
    state = backend.load(vec)
    backend.run(state, program)
    backend.sync()
    if expected is None:
        expected = reference(vec, instructions)
    check(backend.name, backend.result(state), expected, what)
    return program
