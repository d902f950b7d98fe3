"""Gradients of parameterised circuits: the energy <psi(theta)| H |psi(theta)> of a
variational circuit differentiated by every method, on the simulator kernels.

    problem = qcbm_energy(n, depth, rng)
    GRADIENTS[name](problem, theta) -> ndarray like theta

See DESIGN.md, "Contract: variational circuits".
"""

from . import adjoint, differences, fused, traced  # noqa: F401 (fused: the circuit as run)
from .problem import GENERATORS, KERNEL, Problem, Slot, qcbm_energy, tfim_ring  # noqa: F401

#: name -> gradient(problem, theta); the analytic and engine methods first, the
#: energy-only baselines last.
GRADIENTS = {
    "adjoint": adjoint.gradient,
    "forward": traced.forward,
    "reverse": traced.reverse,
    "source": traced.source,
    "param_shift": differences.param_shift,
    "finite": differences.finite,
}
