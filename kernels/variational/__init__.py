"""Gradients of parameterised circuits: the energy <psi(theta)| H |psi(theta)> of a
variational circuit differentiated by every method, on the simulator kernels.

    problem = qcbm_energy(n, depth, rng)
    GRADIENTS[name](problem, theta) -> ndarray like theta

See docs/ad.md, "Circuit gradients".
"""

from collections.abc import Callable
from dataclasses import dataclass

from . import adjoint, differences, fused, traced  # noqa: F401 (fused: the circuit as run)
from .problem import GENERATORS, KERNEL, Problem, Slot, qcbm_energy, tfim_ring  # noqa: F401


@dataclass(frozen=True)
class Method:
    """A gradient method and its facts: ``exact`` (up to rounding; central differences
    are not), ``reference_qubits`` (the largest n at which it is the reference the others
    are validated against, 0 where it is none: the narrowest such method that takes n is
    used), ``baseline`` (the one the tables draw every other against)."""

    name: str
    gradient: Callable
    exact: bool = True
    reference_qubits: int = 0
    baseline: bool = False


#: The methods, the analytic and engine ones first, the energy-only baselines last. The
#: parameter-shift rule (exact, independent of every other method) is the reference while
#: its 2P energies stay cheap; the adjoint method (held to it in the tests) above.
METHODS = (
    Method("adjoint", adjoint.gradient, reference_qubits=64, baseline=True),
    Method("forward", traced.forward),
    Method("reverse", traced.reverse),
    Method("source", traced.source),
    Method("param_shift", differences.param_shift, reference_qubits=8),
    Method("finite", differences.finite, exact=False),
)

#: name -> gradient(problem, theta)
GRADIENTS = {m.name: m.gradient for m in METHODS}
