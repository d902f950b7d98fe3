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
#: Jacobian sweeps back once per block of output rows (kernels.ad.blocks: 0.3-4.0
#: evaluations a row on ht at N = 100 and ba at n = 2 .. 10, growing with the block's
#: arrays; 6.4-7.1 a row when it swept once per row).
BACKEND = ADBackend(name="reverse", role="engine", nests=True, mode="reverse",
                    cost=Cost(loop=constant(80.0), vector=constant(20.0), jacobian_row=4.0))
