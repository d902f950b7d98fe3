"""Reverse mode: an operator-overloading graph (:mod:`.variable`: a ``Variable`` with
``.value``, an accumulating ``.grad``, ``.backward()``; numpy intercepted through
``__array_ufunc__``/``__array_function__``), swept back in topological order
(:mod:`.backward`), with in-place operators retiring what they overwrite (:mod:`.alias`)
and the refusal of reverse over reverse (:mod:`.nesting`); the entry points are
``gradient``, ``jacobian`` and ``hessian`` (:mod:`.api`)."""

from ..backend import ADBackend, Cost, constant
from .api import gradient, hessian, jacobian  # noqa: F401 - the engine's API
from .variable import ArrayVariable, RetiredVariable, Variable  # noqa: F401

#: A node on the tape costs tens of numpy scalar operations (measured 30-60 on loops); a
#: Jacobian sweeps back once per output row (1.5-6.8 evaluations a row on ba and ht).
BACKEND = ADBackend(name="reverse", role="engine", nests=True, mode="reverse",
                    cost=Cost(loop=constant(80.0), vector=constant(20.0), jacobian_row=8.0))
