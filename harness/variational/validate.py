"""Validation before timing: a backend's gradient and energy are compared with ours once
per parameter set; a wrong value fails the benchmark and it is never timed.

The reference gradient is the parameter-shift rule (exact, independent of every other
method) up to :data:`SHIFT_MAX_QUBITS`, where its 2P energies stay cheap, and the adjoint
method above (itself checked against the parameter shift in the tests, at 13 qubits).
"""

import numpy as np

from harness.errors import ValidationError
from kernels import variational

#: Largest n whose reference gradient is the parameter-shift rule.
SHIFT_MAX_QUBITS = 8

#: Largest error allowed, relative to the largest reference component (and absolute below
#: 1): exact methods differ by rounding (measured ~1e-14 at 20 qubits); central
#: differences by truncation and rounding (~1e-10 with the cube-root step).
TOLERANCE = {"finite": 1e-5}
DEFAULT_TOLERANCE = 1e-8


def reference(problem, theta):
    """(gradient, energy) of ``problem`` at ``theta`` by the reference method."""
    method = "param_shift" if problem.n <= SHIFT_MAX_QUBITS else "adjoint"
    return variational.GRADIENTS[method](problem, theta), problem.energy(theta)


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
    tol = TOLERANCE.get(runner.name.split(":")[0], DEFAULT_TOLERANCE)
    if not err <= tol:  # NaN fails too
        k = int(np.argmax(diff))
        raise ValidationError(f"{runner.name} {what}: gradient off by {err:.3g} (relative, "
                              f"allowed {tol:g}); component {k}: {got[k]!r}, expected "
                              f"{want[k]!r}")
    e = float(runner.energy())
    if not abs(e - energy) <= DEFAULT_TOLERANCE * max(1.0, abs(energy)):
        raise ValidationError(f"{runner.name} {what}: energy {e!r}, expected {energy!r}")
    return err
