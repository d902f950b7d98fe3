"""Every AD backend the suites compare, the hand-written gradient, our engines and the AD
adapters alike, behind one small interface, so that a suite times the same problem at the
same point on each of them.

``get(name, **options).prepare(problem, args)`` returns a :class:`Runner`:

* ``objective()`` and ``gradient()`` are the timed calls;
* ``grads()`` runs the gradient and hands it back in the engines' form (one entry per
  argument, a float for a float argument) for validation;
* ``compile_seconds`` is what preparing cost a tool that compiles (None: no compile step).

What each timed call contains, so that it is what a user of that backend pays:

* the baseline: the problem's hand-written value and gradient (vectorised numpy), the
  baseline every ratio is taken against; its objective is the plain ``f``;
* our engines: the whole ``engine.gradient(f, *args)``,
  seeding, taping and code lookup included; their objective is the plain ``f`` too, but
  for an engine that declares it compiles (ADBackend.compiles): its prepared gradient, compiled
  once in ``prepare``, and its objective compiled the same way;
* AD adapters: the tool's own prepared gradient (the function translated, traced or
  compiled once in ``prepare``, outside the timed region), synchronised; their objective
  is the tool's translated ``f``.

:func:`evaluations` and :func:`first_call_seconds` read the crude cost model each backend
declares (kernels.ad.backend.Cost), in evaluations of the plain ``f``, that lets the suites
skip combinations that would take far too long before running them even once.
"""

import inspect

import numpy as np

import adapters
from adapters.ad import _base as _ad_common
from adapters.ad._translate import translate
from harness import registry
from harness.errors import Unavailable
from kernels.ad import ENGINES
from kernels.ad.backend import ADBackend
from kernels.ad.errors import MissingRuleError, NestingError
from kernels.ad.modes import FORWARD, REVERSE
from kernels.ad.source import SourceTransformError
from kernels.ad.sparsity import Sparsity

#: The objective suites' name for the plain f, as the user wrote it: what the hand-written
#: derivative and our engines evaluate (each peer evaluates its own translation), and
#: what every "x objective" ratio divides by; the baseline declares it.
PLAIN_OBJECTIVE = registry.ad_baseline().objective


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


def sparse_pattern(problem, args):
    """A sparse eval's pattern, made ready (kernels.ad.sparsity.Sparsity): the hand-written
    Jacobian's stored entries, the structure the eval's own tools know."""
    return Sparsity(problem.manual(*args)[1])


class ManualBackend:
    """The problem's hand-written derivative (the declared baseline)."""

    def __init__(self, name):
        self.name = name

    def require(self):
        pass

    def prepare(self, problem, args):
        f, manual = problem.f, problem.manual
        if problem.output == "nested":
            return Runner(_no_objective(problem), lambda: manual(*args),
                          lambda: (np.asarray(manual(*args)[0], dtype=float),))
        if problem.output in ("jacobian", "sparse"):
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
        if problem.output in ("jacobian", "sparse"):
            jacobian = getattr(self.engine, "jacobian", None)
            if jacobian is None:
                raise NotImplementedError(f"the {self.name} engine has no jacobian")
            (x,) = args
            if problem.output == "sparse":  # the pattern made ready once, as a user would
                if "sparsity" not in inspect.signature(jacobian).parameters:
                    raise NotImplementedError(f"the {self.name} engine takes no sparsity")
                options = {**options, "sparsity": sparse_pattern(problem, args)}
            run = (lambda: jacobian(f, x, **options)) if options else (lambda: jacobian(f, x))
            return Runner(lambda: f(x), run, lambda: (run(),))
        if self.engine.BACKEND.compiles and not options:
            return self._compiled(f, args)
        engine_gradient = self.engine.gradient
        gradient = ((lambda: engine_gradient(f, *args, **options)) if options
                    else (lambda: engine_gradient(f, *args)))
        return Runner(lambda: f(*args), gradient, gradient)

    def _compiled(self, f, args):
        """An engine that declares it compiles (its ``prepare(f, *args)``): its
        compilation outside the timed region and reported apart, its objective compiled
        the same way, and its gradient the prepared call."""
        prepared, cargs = self.engine.prepare(f, *args)
        gradient = prepared.gradient
        return Runner(lambda: prepared.objective(*cargs), lambda: gradient(*cargs),
                      lambda: prepared.grads(*cargs), prepared.compile_seconds)


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
    """An AD adapter module (``adapters.ad.torch_ad``) as a backend; ``method`` names one of
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
        if problem.output == "sparse":
            raise NotImplementedError(f"{self.name} offers no sparse Jacobian")
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
        f = translate(problem.f, self.module.NUMPY, self.module.as_array)
        given = tuple(self.module.as_array(a) for a in args)
        with _ad_common.missing_is_unsupported(self.name, self.module.NUMPY):
            return _nested_runner(problem._replace(f=f), given, gradient, gradient)


def ad_adapters():
    """The AD adapter modules (see ``adapters.modules``): a backend whose tool is missing
    skips with the module's REASON."""
    return adapters.modules("ad")


def names():
    """Every AD backend name, in a fixed order: the baseline, our engines, the peers."""
    return list(registry.ad())


def adapter_names():
    return [b.name for b in registry.ad().values() if b.role in ("peer", "plugin")]


def nested_names():
    """The engines that nest, paired on the nested evals ``outer/inner`` (gradbench's
    fr, rf, ...); an engine alone is both."""
    nesting = [b.name for b in registry.ad().values() if b.nests]
    return [f"{a}/{b}" for a in nesting for b in nesting if a != b]


def jacobian_names():
    """The peers' Jacobian methods besides their defaults, as backends ``tool:method``
    (``torch:jacfwd``): the Jacobian evals run these too."""
    return [f"{m.NAME}:{method}" for m in ad_adapters()
            for method in getattr(m, "JACOBIAN_METHODS", ())[1:]]


def compiling_names():
    """The backends whose preparation compiles (their compile time is a result of its
    own)."""
    return [b.name for b in registry.ad().values() if b.compiles]


def own_objectives():
    """Our engines that time an objective of their own (compiled as their gradient is)."""
    return [b.name for b in registry.ad().values() if b.role == "engine" and b.compiles]


def get(name, **options):
    """The backend ``name``; ``options`` are engine options (``chunk=`` for forward)."""
    declared = registry.ad()
    backend = declared.get(name)
    if backend is not None and backend.role == "engine":
        unknown = set(options) - set(backend.options)
        if unknown:
            raise ValueError(f"{name} takes the options {list(backend.options)}, not "
                             f"{sorted(unknown)}")
        return EngineBackend(name, **options)
    if options:
        raise ValueError(f"backend {name!r} takes no options, got {sorted(options)}")
    if backend is not None and backend.role == "baseline":
        return ManualBackend(name)
    outer, slash, inner = name.partition("/")
    if slash:
        nesting = [b.name for b in declared.values() if b.nests]
        if outer not in nesting or inner not in nesting:
            raise ValueError(f"unknown pairing {name!r}: outer/inner engines of {nesting}")
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
# Each backend declares its constants (kernels.ad.backend.Cost); these functions read them.

def _declared(name):
    """The declaration behind ``name``: a backend, the outer engine of a pairing, or the
    tool of a ``tool:method`` Jacobian; an unknown name costs what an unknown tool does."""
    outer, slash, _ = name.partition("/")
    tool = name.partition(":")[0]
    return registry.ad().get(outer if slash else tool, ADBackend(name, "plugin"))


def evaluations(name, problem, args, chunk=None):
    """Predicted cost of one steady ``name`` gradient of ``problem`` at ``args``, in
    evaluations of the plain ``f`` (``chunk``: forward's; None is its default); of a
    nested eval, in runs of its hand-written procedure (a backend that refuses nesting:
    one, since it refuses at its first call)."""
    N = input_size(args)
    declared = _declared(name)
    cost = declared.cost
    if (problem.output == "jacobian" and declared.role == "engine"
            and declared.mode == REVERSE and N <= int(np.size(problem.f(*args)))):
        # a reverse-mode engine's jacobian hands a tall one to forward mode: its primal's
        # run, then the forward engine's passes
        forward = next(b for b in registry.ad().values()
                       if b.role == "engine" and b.mode == FORWARD)
        return 1.0 + evaluations(forward.name, problem, args)
    if problem.output == "nested":
        nested = cost.as_outer if "/" in name else cost.nested
        return nested(N) if nested is not None else 1.0
    if problem.output == "sparse":  # as a dense Jacobian of its forward directions
        N = _directions(problem, args)
    if cost.steady is not None:
        return cost.steady(problem, N, chunk)
    steady = (cost.loop if problem.loop else cost.vector)(N)
    if problem.output == "jacobian" and cost.jacobian_row:
        steady += cost.jacobian_row * int(np.size(problem.f(*args)))
    return steady


#: (problem, input size) -> the directions of its sparse Jacobian: the pattern is the
#: eval's structure at a size, found once a process
_DIRECTIONS = {}


def _directions(problem, args):
    """The passes of a sparse eval's Jacobian in the mode of fewer (every exact engine
    picks it; forward on ba): its colours and the check's."""
    key = problem.name, input_size(args)
    if key not in _DIRECTIONS:
        pattern = sparse_pattern(problem, args)
        side = pattern.columns if pattern.cheaper() == FORWARD else pattern.rows
        _DIRECTIONS[key] = side[1] + 1
    return _DIRECTIONS[key]


def exact(name):
    """Whether backend ``name`` (a backend, a pairing, a ``tool:method``) declares exact
    derivatives (finite differences do not: they get a looser tolerance)."""
    return _declared(name).exact


def first_call_seconds(name, problem, args, f_seconds, chunk=None):
    """Predicted seconds of ``name``'s first gradient (compilation included) given that
    one plain ``f`` takes ``f_seconds``: what a suite's setup pays before timing."""
    fixed, loop_factor = _declared(name).cost.first_call
    factor = loop_factor if problem.loop else 1.0
    return fixed + factor * evaluations(name, problem, args, chunk) * f_seconds
