"""Every way of differentiating a variational circuit that the suites compare, behind one
small interface: ``prepare(name, problem, theta)`` returns a :class:`Runner` whose
``gradient()`` and ``energy()`` are the timed calls.

* our methods (``kernels.variational.GRADIENTS``): the whole ``GRADIENTS[name](problem,
  theta)``, circuit building included; their energy is ``problem.energy`` (the stride
  kernel), the same for all of them;
* adapters (``adapters.circuit_gradients()``, labelled ``NAME`` or ``NAME:method``): the
  tool's prepared functions (the problem translated once, outside the timed region), each
  call binding the angles and running, as its users do; their energy is the tool's own.
"""

import adapters
from harness.errors import Unavailable
from kernels import variational


class Runner:
    __slots__ = ("name", "gradient", "energy", "grad")

    def __init__(self, name, gradient, energy):
        self.name, self.gradient, self.energy = name, gradient, energy


def methods():
    """Our gradient methods, in GRADIENTS order."""
    return list(variational.GRADIENTS)


def _adapters():
    return adapters.circuit_gradients()


def adapter_names():
    """Every adapter's circuit-gradient label, available here or not."""
    return list(_adapters())


def names():
    """Every backend: our methods, then the adapters' labels."""
    return methods() + adapter_names()


def prepare(name, problem, theta):
    """A :class:`Runner` of backend ``name`` at ``theta``; :class:`Unavailable` (asv's
    skip) when its tool is missing or it cannot express the problem."""
    if name in variational.GRADIENTS:
        method = variational.GRADIENTS[name]
        return Runner(name, lambda: method(problem, theta), lambda: problem.energy(theta))
    found = _adapters()
    if name not in found:
        raise ValueError(f"unknown gradient backend {name!r}; known: {names()}")
    module, method = found[name]
    if not module.AVAILABLE:
        raise Unavailable(f"{name}: {module.REASON}")
    try:
        grad = module.prepare_gradient(problem, method)
        energy = module.prepare_energy(problem, method)
    except NotImplementedError as exc:
        raise Unavailable(f"{name}: {exc}") from exc
    return Runner(name, lambda: grad(theta), lambda: energy(theta))
