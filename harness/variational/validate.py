"""Validation before timing: a backend's gradient and energy are compared with ours once
per parameter set; a wrong value fails the benchmark and it is never timed.

The reference gradient is the method that declares itself the reference at the problem's
size (kernels.variational.METHODS): the parameter-shift rule (exact, independent of every
other method) while its 2P energies stay cheap, the adjoint method above (itself checked
against the parameter shift in the tests, at 13 qubits).
"""

import numpy as np

from harness.errors import ValidationError
from kernels import variational

#: Largest error allowed, relative to the largest reference component (and absolute below
#: 1): exact methods differ by rounding (measured ~1e-14 at 20 qubits); an inexact one
#: (central differences) by truncation and rounding (~1e-10 with the cube-root step).
DEFAULT_TOLERANCE = 1e-8
INEXACT_TOLERANCE = 1e-5


def reference_method(n):
    """The method whose gradient others are validated against at n qubits."""
    return min((m for m in variational.METHODS if m.reference_qubits >= n),
               key=lambda m: m.reference_qubits)


def tolerance(name):
    """The error allowed to backend ``name`` (a method, or an adapter's label)."""
    method = next((m for m in variational.METHODS if m.name == name.split(":")[0]), None)
    return INEXACT_TOLERANCE if method is not None and not method.exact else DEFAULT_TOLERANCE


def reference(problem, theta):
    """(gradient, energy) of ``problem`` at ``theta`` by the reference method."""
    return reference_method(problem.n).gradient(problem, theta), problem.energy(theta)


def compare(runner, problem, theta, what=""):
    """Raise :class:`ValidationError` naming the backend if its gradient (shape, dtype,
    values) or energy is wrong; returns the largest relative error."""
    want, energy = reference(problem, theta)
    got = np.asarray(runner.gradient())
    if got.shape != want.shape or not np.issubdtype(got.dtype, np.floating):
        raise ValidationError(f"{runner.name} {what}: gradient of shape {got.shape} dtype "
                              f"{got.dtype}, expected {want.shape} float")
    scale = max(1.0, float(np.max(np.abs(want))))
    diff = np.abs(got - want)
    diff[np.isnan(diff)] = np.inf  # a NaN is as wrong as it gets
    err = float(np.max(diff)) / scale
    tol = tolerance(runner.name)
    if not err <= tol:  # NaN fails too
        k = int(np.argmax(diff))
        raise ValidationError(f"{runner.name} {what}: gradient off by {err:.3g} (relative, "
                              f"allowed {tol:g}); component {k}: {got[k]!r}, expected "
                              f"{want[k]!r}")
    e = float(runner.energy())
    if not abs(e - energy) <= DEFAULT_TOLERANCE * max(1.0, abs(energy)):
        raise ValidationError(f"{runner.name} {what}: energy {e!r}, expected {energy!r}")
    return err
