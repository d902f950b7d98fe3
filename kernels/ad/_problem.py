"""The record every AD problem is: the seeds' problems (:mod:`kernels.ad.problems`) and the
field's evals (:mod:`kernels.ad.evals`) alike.

A problem's objective ``f`` is plain numpy as a user writes it. Its differentiated inputs
are the positional arguments (``make_args``); the data it is evaluated on, which no tool
differentiates (an eval's points, observations, a hand model), are keyword-only arguments
bound with ``functools.partial``, as a user binds data before asking for a gradient
(:meth:`Problem.bind`). Every engine and adapter takes such a partial.
"""

import functools
import zlib
from collections.abc import Callable
from typing import NamedTuple

from .backend import ADBackend, Cost, constant

#: The problems' hand-written derivatives as a backend: the baseline every ratio is taken
#: against (its gradient is a value and a derivative: about 3 evaluations of f).
MANUAL = ADBackend(name="manual", role="baseline",
                   cost=Cost(loop=constant(3.0), vector=constant(3.0), nested=constant(1.0)),
                   objective="numpy")

# What a problem asks of a tool, its ``output`` (docs/ad.md, "Problems"):
# "gradient": a scalar f of any positional arguments, ``manual(*args) -> (value, grads)``;
# "jacobian": f of one float array returning an array, ``manual(x) -> (value, J)`` with J
# of shape ``value.shape + x.shape``;
# "sparse": as "jacobian", with ``manual`` returning J as a scipy.sparse matrix of
# f(x).size x x.size whose stored entries are the pattern the engines are given
# (``jacobian(f, x, sparsity=...)``, kernels.ad.sparsity);
# "nested": f takes the tools' ``gradient`` functions first (``f(outer, inner, *args)``)
# and differentiates through them, ``manual(*args) -> (value, None)``.


class Problem(NamedTuple):
    name: str  #: registry key
    f: Callable  #: plain-numpy objective ``f(*args, **data)``
    manual: Callable  #: ``manual(*args, **data) -> (value, derivative)``, by hand
    #: ``make_args(n, rng, **data) -> args``, deterministic given ``rng`` (and the data)
    make_args: Callable
    sizes: tuple  #: the sizes n the seed or the eval uses
    loop: bool  #: True when ``f`` runs a Python loop over elements (cost per element)
    summary: str  #: one line, naming the seed or the eval's origin
    output: str = "gradient"  #: "gradient", "jacobian", "sparse" or "nested" (above)
    #: ``make_data(n, rng) -> dict`` of keyword-only data, drawn before ``make_args`` from
    #: the same generator (the args may be made from it); None: f takes no data
    make_data: Callable | None = None
    origin: str = "seeds"  #: "seeds", "gradbench" or "adbench": which table it belongs to

    def bind(self, size, rng):
        """``(problem, args)`` at ``size``: this problem with data drawn from ``rng`` bound
        into ``f`` and ``manual`` (``functools.partial``), and the args drawn after it.
        A problem without data is itself."""
        if self.make_data is None:
            return self, self.make_args(size, rng)
        data = self.make_data(size, rng)
        args = self.make_args(size, rng, **data)
        return self._replace(f=functools.partial(self.f, **data),
                             manual=functools.partial(self.manual, **data),
                             make_data=None), args


def size_seed(size):
    """An integer seed for a size: the size itself, or a label's CRC (stable across runs,
    unlike ``hash``)."""
    return size if isinstance(size, int) else zlib.crc32(size.encode())
