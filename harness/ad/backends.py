"""Every AD backend the suites compare, the hand-written gradient, our engines and the AD
adapters alike, behind one small interface, so that a suite times the same problem at the
same point on each of them.

``get(name, **options).prepare(problem, args)`` returns a :class:`Runner`:

* ``objective()`` and ``gradient()`` are the timed calls;
* ``grads()`` runs the gradient and hands it back in the engines' form (one entry per
  argument, a float for a float argument) for validation;
* ``compile_seconds`` is what preparing cost a tool that compiles (None: no compile step).

What each timed call contains, so that it is what a user of that backend pays:

* ``manual``: the problem's hand-written value and gradient (vectorised numpy), the
  baseline every ratio is taken against; its objective is the plain ``f``;
* ``forward``, ``reverse``, ``source``, ``finite``: the whole ``engine.gradient(f, *args)``,
  seeding, taping and code lookup included; their objective is the plain ``f`` too;
* AD adapters: the tool's own prepared gradient (the function translated, traced or
  compiled once in ``prepare``, outside the timed region), synchronised; their objective
  is the tool's translated ``f``.

:func:`evaluations` and :func:`first_call_seconds` are a crude cost model, in evaluations
of the plain ``f``, that lets the suites skip combinations that would take far too long
before running them even once.
"""

import math

import numpy as np

from harness.errors import Unavailable
from kernels.ad import ENGINES
from kernels.ad.errors import MissingRuleError, NestingError
from kernels.ad.source import SourceTransformError


class Runner:
    """One backend prepared on one problem at one point (see the module docstring)."""

    __slots__ = ("objective", "gradient", "grads", "compile_seconds")

    def __init__(self, objective, gradient, grads, compile_seconds=None):
        self.objective, self.gradient, self.grads = objective, gradient, grads
        self.compile_seconds = compile_seconds


def _nested_runner(problem, args, outer, inner):
    """A nested eval run with the gradient functions ``outer`` and ``inner``: its whole
    procedure is the timed call (it has no objective apart from its derivatives)."""
    f = problem.f

    def run():
        try:
            return f(outer, inner, *args)
        except REFUSALS as exc:  # a pairing that cannot nest: skipped with its reason
            raise NotImplementedError(f"{type(exc).__name__}: {exc}") from exc
    return Runner(_no_objective(problem), run, lambda: (np.asarray(run(), dtype=float),))


#: the engines' refusals by name: nesting they cannot do (reverse inside reverse, an engine
#: inside the source engine), an operation without a rule
REFUSALS = (NestingError, SourceTransformError, MissingRuleError)


def _no_objective(problem):
    def objective():
        raise NotImplementedError(f"{problem.name} is nested: its procedure differentiates "
                                  "as it goes, there is no objective to time apart")
    return objective


class ManualBackend:
    name = "manual"

    def require(self):
        pass

    def prepare(self, problem, args):
        f, manual = problem.f, problem.manual
        if problem.output == "nested":
            return Runner(_no_objective(problem), lambda: manual(*args),
                          lambda: (np.asarray(manual(*args)[0], dtype=float),))
        if problem.output == "jacobian":
            return Runner(lambda: f(*args), lambda: manual(*args),
                          lambda: (manual(*args)[1],))
        return Runner(lambda: f(*args), lambda: manual(*args), lambda: tuple(manual(*args)[1]))


class EngineBackend:
    """One of our engines; ``options`` go to every ``gradient`` (or ``jacobian``) call
    (forward's chunk)."""

    def __init__(self, name, **options):
        self.name, self.engine, self.options = name, ENGINES[name], options

    def require(self):
        pass

    def prepare(self, problem, args):
        f, options = problem.f, self.options
        if problem.output == "nested":
            if options:
                raise NotImplementedError(f"{self.name} takes no options on nested evals")
            return _nested_runner(problem, args, self.engine.gradient, self.engine.gradient)
        if problem.output == "jacobian":
            jacobian = getattr(self.engine, "jacobian", None)
            if jacobian is None:
                raise NotImplementedError(f"the {self.name} engine has no jacobian")
            (x,) = args
            run = (lambda: jacobian(f, x, **options)) if options else (lambda: jacobian(f, x))
            return Runner(lambda: f(x), run, lambda: (run(),))
        engine_gradient = self.engine.gradient
        gradient = ((lambda: engine_gradient(f, *args, **options)) if options
                    else (lambda: engine_gradient(f, *args)))
        return Runner(lambda: f(*args), gradient, gradient)


class NestedBackend:
    """Two of our engines on a nested eval, ``outer/inner``: ``forward/reverse`` takes the
    outer derivatives in forward mode and the inner ones in reverse mode (gradbench's
    "fr"); a pairing the engines cannot nest is refused by name when it runs."""

    def __init__(self, outer, inner):
        self.name = f"{outer}/{inner}"
        self.outer, self.inner = ENGINES[outer].gradient, ENGINES[inner].gradient

    def require(self):
        pass

    def prepare(self, problem, args):
        if problem.output != "nested":
            raise NotImplementedError(f"{self.name} is a pairing for nested evals; "
                                      f"{problem.name} is not one")
        return _nested_runner(problem, args, self.outer, self.inner)


class AdapterBackend:
    """An AD adapter module (``adapters.torch_ad``) as a backend; ``method`` names one of
    its Jacobian functions (``JACOBIAN_METHODS``; None: its default), for Jacobian evals."""

    def __init__(self, module, method=None):
        self.module, self.method = module, method
        self.name = module.NAME if method is None else f"{module.NAME}:{method}"

    def require(self):
        if not self.module.AVAILABLE:
            raise Unavailable(f"{self.name}: {self.module.REASON}")

    def prepare(self, problem, args):
        self.require()
        if problem.output == "nested":
            if self.method is not None:
                raise NotImplementedError(f"{self.name} is a Jacobian method")
            return self._nested(problem, args)
        if problem.output == "jacobian":
            prepare_jacobian = getattr(self.module, "prepare_jacobian", None)
            if prepare_jacobian is None:
                raise NotImplementedError(f"{self.name} offers no Jacobian")
            prepared = prepare_jacobian(problem.f, *args, method=self.method)
        elif self.method is not None:
            raise NotImplementedError(f"{self.name} is a Jacobian method; {problem.name} "
                                      "asks for a gradient")
        else:
            prepared = self.module.prepare(problem.f, *args)  # NotImplementedError: a skip
        return Runner(prepared.objective, prepared.gradient,
                      lambda: tuple(prepared.to_numpy(prepared.gradient())),
                      prepared.compile_seconds)


    def _nested(self, problem, args):
        """The tool's own nesting gradient (``NESTED_GRADIENT(g, *args) -> tuple``, e.g.
        jax.grad, which composes with itself) for both levels, on the eval translated to
        the tool's numpy."""
        gradient = getattr(self.module, "NESTED_GRADIENT", None)
        if gradient is None:
            raise NotImplementedError(f"{self.name}: " + getattr(
                self.module, "NESTED_REASON", "the adapter offers no gradient that nests"))
        from adapters import _ad_common
        from adapters._translate import translate
        f = translate(problem.f, self.module.NUMPY, self.module.as_array)
        given = tuple(self.module.as_array(a) for a in args)
        with _ad_common.missing_is_unsupported(self.name, self.module.NUMPY):
            return _nested_runner(problem._replace(f=f), given, gradient, gradient)


def ad_adapters():
    """The AD adapter modules (see ``adapters.modules``): a backend whose tool is missing
    skips with the module's REASON."""
    import adapters
    return adapters.modules("ad")


def names():
    """Every AD backend name, in a fixed order: the baseline, our engines, the peers."""
    return ["manual", *ENGINES, *adapter_names()]


def adapter_names():
    return [m.NAME for m in ad_adapters()]


#: the exact engines, whose ordered pairs are the nested evals' mixed backends
NESTING = ("forward", "reverse", "source")


def nested_names():
    """Our engines paired on the nested evals, ``outer/inner`` (gradbench's fr, rf, ...);
    an engine alone is both."""
    return [f"{a}/{b}" for a in NESTING for b in NESTING if a != b]


def jacobian_names():
    """The peers' Jacobian methods besides their defaults, as backends ``tool:method``
    (``torch:jacfwd``): the Jacobian evals run these too."""
    return [f"{m.NAME}:{method}" for m in ad_adapters()
            for method in getattr(m, "JACOBIAN_METHODS", ())[1:]]


#: Peers whose ``prepare`` compiles (their Prepared reports compile_seconds); the others
#: run eagerly.
COMPILING = ("jax-jit",)


def compiling_names():
    return [name for name in adapter_names() if name in COMPILING]


def get(name, **options):
    """The backend ``name``; ``options`` are engine options (``chunk=`` for forward)."""
    if name in ENGINES:
        return EngineBackend(name, **options)
    if options:
        raise ValueError(f"backend {name!r} takes no options, got {sorted(options)}")
    if name == "manual":
        return ManualBackend()
    outer, slash, inner = name.partition("/")
    if slash:
        if outer not in ENGINES or inner not in ENGINES:
            raise ValueError(f"unknown pairing {name!r}: outer/inner engines of {list(ENGINES)}")
        return NestedBackend(outer, inner)
    tool, _, method = name.partition(":")
    for module in ad_adapters():
        if module.NAME == tool:
            if method and method not in getattr(module, "JACOBIAN_METHODS", ()):
                raise ValueError(f"{tool} has no Jacobian method {method!r}; it has "
                                 f"{getattr(module, 'JACOBIAN_METHODS', ())}")
            return AdapterBackend(module, method or None)
    raise ValueError(f"unknown AD backend {name!r}; known: "
                     f"{names() + jacobian_names()}")


def input_size(args):
    """The number of scalar inputs: what finite differences and forward passes scale with."""
    return sum(int(np.size(a)) for a in args)


# -- cost model --------------------------------------------------------------------------------
# One gradient's cost in evaluations of the plain f, fitted as an upper envelope to
# measurements of every backend on the seeds' problems (2-core x86, numpy 2.4, torch 2.13,
# jax 0.10, autograd 1.9, algopy 0.7): good for telling a second from an hour, no more.
# Element-loop problems (problem.loop) are where backends differ most: every element
# operation pays the backend's per-operation overhead instead of numpy's scalar one.
# A lambda takes N, the number of scalar inputs.

STEADY = {
    "manual": {"loop": lambda N: 3.0, "vector": lambda N: 3.0},
    "finite": {"loop": lambda N: 2.0 * N + 1, "vector": lambda N: 2.0 * N + 1},
    # a node on the tape costs tens of numpy scalar operations (measured 30-60 on loops)
    "reverse": {"loop": lambda N: 80.0, "vector": lambda N: 20.0},
    "source": {"loop": lambda N: 80.0, "vector": lambda N: 20.0},
    "torch": {"loop": lambda N: 200.0, "vector": lambda N: 30.0},
    # measured 230 (n = 16) to 1020 (n = 1600 and 16000) on the Ackley loop
    "autograd": {"loop": lambda N: 1200.0, "vector": lambda N: 100.0},
    # eager jax.grad dispatches every primitive separately: 5000-11500 on loops
    "jax": {"loop": lambda N: 12000.0, "vector": lambda N: 1000.0},
    "jax-jit": {"loop": lambda N: 20.0, "vector": lambda N: 20.0},
    # forward mode carrying all N directions: O(N) per operation (measured 108 at n = 16,
    # 341 at 1600 on the loop; 5100 on vectorised Ackley at 1600)
    "algopy": {"loop": lambda N: 100.0 + 0.15 * N, "vector": lambda N: 10.0 + 3.0 * N},
}
#: A peer not in STEADY (a new adapter): assume an eager tool's overhead.
UNKNOWN = {"loop": lambda N: 1000.0, "vector": lambda N: 100.0}

#: A Jacobian's cost per output row, in evaluations of f, for the tools whose Jacobian
#: grows with its rows: ours and autograd sweep back once per row, torch's jacrev maps its
#: pullback over them. The upper envelope of ba and ht at their two smallest sizes
#: (reverse 1.5-6.8, source 3.8-5.9, autograd 2.6-8.5, torch 0.2-0.6); the others' cost is
#: their gradient's (forward and finite differences go by columns, JAX compiles the map).
JACOBIAN_ROW = {"reverse": 8.0, "source": 8.0, "autograd": 10.0, "torch": 0.6}

#: A nested eval's whole procedure, in runs of its hand-written version (its inner and
#: outer derivatives by hand). Measured: forward at both levels 19x on saddle (N = 2),
#: 22x on particle (N = 1), 6000x on kmeans_dir (N = 80: each outer direction runs the
#: inner gradient's passes); forward over reverse 16x there; torch.func 170x on saddle,
#: 7000x on kmeans_dir; autograd 38x on saddle; finite differences of finite differences
#: about (2N + 1)^2. A pairing or engine that cannot nest refuses at its first call.
NESTED = {"manual": lambda N: 1.0, "forward": lambda N: max(25.0, N * N),
          "forward/reverse": lambda N: 30.0, "forward/source": lambda N: 30.0,
          "finite": lambda N: (2.0 * N + 1) ** 2, "torch": lambda N: 200.0 * N,
          "autograd": lambda N: 50.0 * N, "jax": lambda N: 2000.0 * N}
#: an engine or pairing not in NESTED refuses nesting at once
REFUSES = lambda N: 1.0  # noqa: E731

#: The first call (prepare and the validation gradient), where it costs much more than a
#: steady gradient: (fixed seconds, multiplier of a steady gradient on element loops).
FIRST_CALL = {
    # eager JAX compiles each primitive it meets, once per process: 0.3-0.9 s on the
    # vectorised problems; 15-35 steady gradients on the Ackley loop (160 s at n = 1600)
    "jax": (0.5, 40.0),
    # jax.jit traces and compiles: 0.1-0.5 s for vectorised code; tracing unrolls an
    # element loop, ~3000 steady gradients (0.2 s for Ackley at n = 16, 3.6 s for the
    # cubic fit at n = 100)
    "jax-jit": (0.1, 3000.0),
}


def _forward(problem, N, chunk):
    if chunk is None:  # forward's default adapts after its first pass (see its _passes)
        fw = ENGINES["forward"]
        chunk = fw.loop_chunk(N) if problem.loop else fw.default_chunk(N)
    chunk = min(chunk, N)
    passes = math.ceil(N / chunk)
    if problem.loop:
        # a pass costs 20-70 evaluations, more as the chunk's partials widen (measured 72
        # at one pass of 1600, 14 a pass at 31 passes of 517 over 16000)
        return passes * (20.0 + 50.0 * chunk / N)
    # every numpy call also carries a (chunk, ...) stack of partials: about chunk times
    # f's own work per pass (measured within 3x of this on Ackley, trmul and mps)
    return passes * (10.0 + chunk)


def evaluations(name, problem, args, chunk=None):
    """Predicted cost of one steady ``name`` gradient of ``problem`` at ``args``, in
    evaluations of the plain ``f`` (``chunk``: forward's; None is its default); of a
    nested eval, in runs of its hand-written procedure."""
    N = input_size(args)
    if problem.output == "nested":
        return NESTED.get(name, REFUSES)(N)
    if name == "forward":
        return _forward(problem, N, chunk)
    steady = STEADY.get(name, UNKNOWN)["loop" if problem.loop else "vector"](N)
    if problem.output == "jacobian" and name in JACOBIAN_ROW:
        steady += JACOBIAN_ROW[name] * int(np.size(problem.f(*args)))
    return steady


def first_call_seconds(name, problem, args, f_seconds, chunk=None):
    """Predicted seconds of ``name``'s first gradient (compilation included) given that
    one plain ``f`` takes ``f_seconds``: what a suite's setup pays before timing."""
    fixed, loop_factor = FIRST_CALL.get(name, (0.0, 1.0))
    factor = loop_factor if problem.loop else 1.0
    return fixed + factor * evaluations(name, problem, args, chunk) * f_seconds
