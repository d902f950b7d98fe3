"""What an AD backend declares about itself: one :class:`ADBackend` per backend (the
hand-written derivative, each of our engines, every AD adapter and plugin), made where the
backend is written, so that the harness reads facts instead of testing names: which is
the baseline, which are exact, which nest, which compile, and what a gradient costs.

The cost model (:class:`Cost`) is crude on purpose: one steady gradient's cost in
evaluations of the plain ``f``, fitted as an upper envelope to measurements on the seeds'
problems (2-core x86, numpy 2.4, torch 2.13, jax 0.10, autograd 1.9, algopy 0.7), good
for telling a second from an hour before a suite spends either. Each function of it takes
N, the number of scalar inputs.
"""

from collections.abc import Callable
from dataclasses import dataclass

from . import modes as _modes

#: What a backend is to the comparison:
#: - baseline: the problem's hand-written derivative, which every ratio is taken
#:   against;
#: - engine: one of our engines;
#: - peer: a built-in adapter of an external AD tool;
#: - plugin: an adapter an installed distribution declares (entry point).
ROLES = ("baseline", "engine", "peer", "plugin")
#: The modes a backend's derivatives may be taken in (ADBackend.mode).
MODES = (*_modes.MODES, None)


def constant(value):
    """A cost of ``value`` evaluations whatever N."""
    return lambda N: value


@dataclass(frozen=True)
class Cost:
    """One derivative's cost in evaluations of the plain ``f`` (functions of N).

    ``loop`` and ``vector``: a steady gradient of an element-loop problem (every element
    operation pays the backend's per-operation overhead) and of a vectorised one;
    ``steady(problem, N, chunk)``, where given, replaces both (forward mode's passes depend
    on its chunk). ``jacobian_row``: what a Jacobian costs per output row on top, for the
    backends whose Jacobian grows with its rows (a sweep per row, or per block of rows).
    ``nested``: a nested eval's whole procedure in runs of its hand-written version, None
    where the backend refuses nesting (at its first call); ``as_outer``: the same when it
    is the outer engine of an ``outer/inner`` pairing. ``first_call``: (fixed seconds,
    multiplier of a steady gradient on element loops) of the first call, where compiling
    costs more than a steady gradient."""

    loop: Callable = constant(1000.0)
    vector: Callable = constant(100.0)
    steady: Callable | None = None
    jacobian_row: float = 0.0
    nested: Callable | None = None
    as_outer: Callable | None = None
    first_call: tuple = (0.0, 1.0)


#: A tool that declares no cost: an eager tool's overhead.
UNKNOWN_COST = Cost()


@dataclass(frozen=True)
class ADBackend:
    """The facts of one AD backend. ``exact``: its derivatives are exact up to rounding
    (finite differences are not: they are validated to a looser tolerance). ``nests``: it
    can be either side of an ``outer/inner`` pairing on the nested evals. ``compiles``: its
    preparation traces and compiles (its compile time is a result of its own).
    ``options``: the engine options its gradient takes (forward's ``chunk``).
    ``package``: the distribution whose version a result names. ``mode``: the mode its
    derivatives are taken in, "forward" or "reverse" (tangents pushed forward or
    cotangents pulled back; None: neither, as finite differences), for what asks for a
    mode by name (gradbench's nested evals). ``objective``: the name the objective suites
    time its objective under, where that is not its own name (the baseline's is the plain
    f as the user wrote it, "numpy", which our engines evaluate too)."""

    name: str
    role: str
    cost: Cost = UNKNOWN_COST
    exact: bool = True
    nests: bool = False
    compiles: bool = False
    options: tuple = ()
    package: str = "qsim-ad-bench"
    mode: str | None = None
    objective: str | None = None

    def __post_init__(self):
        if self.role not in ROLES:
            raise ValueError(f"AD backend {self.name}: role must be one of {ROLES}, got "
                             f"{self.role!r}")
        if self.mode not in MODES:
            raise ValueError(f"AD backend {self.name}: mode must be one of {MODES}, got "
                             f"{self.mode!r}")
