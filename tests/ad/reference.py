"""The independent reference gradient of a corpus case (tests/ad/corpus.py), and the judgment
of an engine's answer against it.

Two references, neither sharing code with ``kernels/ad``:

* **Ridders' method** (Richardson extrapolation of central differences, Numerical Recipes
  ``dfridr``), always: per scalar input element, central differences at steps
  ``h0, h0/1.4, h0/1.4**2, ...`` are extrapolated in a Neville tableau towards ``h = 0``; the
  entry with the smallest estimated error is kept, and its error estimate with it. On a smooth
  function this reaches ~1e-12 relative, a hundred times better than a single central
  difference, and it costs only evaluations of ``f``.
* **autograd**, when it is importable: the case's function is re-created with ``np`` bound to
  ``autograd.numpy`` (the helpers it calls too) and differentiated with ``autograd.grad``.
  Exact up to rounding, but autograd refuses some of the corpus (``x.dot(y)``, ``float(x)``,
  ``np.asarray``, ...), and could in principle be wrong, so it is only used when it agrees
  with Ridders' estimate (``test_corpus.py`` checks that it does on every case it handles).

Tolerances (measured on the corpus): a gradient matches a reference when
``max |got - want| <= rtol * max(scale, SCALE_FLOOR)``, ``scale`` the largest reference entry
over all arguments (normwise: a small entry is judged on the scale of the whole gradient, as
rounding in any method is). autograd and Ridders agree to 2e-12, and Ridders estimates its
own error below 3e-12, on every case, so the reference is checked at ``REFERENCE_RTOL =
1e-9``. The exact engines (forward, reverse, source) are judged at ``1e-9`` too: where they
are right they agree with the reference to 6e-14, and the margin leaves room for a different
but exact formula while still catching an approximation. The ``finite`` engine, a single
central difference (errors up to 1e-9 on the corpus), is judged at ``1e-6``. The errors this
test exists to catch (a missing term, a wrong sign, a zero or NaN gradient, a lost branch)
are of order one.
"""

import dataclasses
import functools
import types
import warnings
import zlib

import numpy as np

try:
    import autograd
    import autograd.numpy as anp
except ImportError:  # the Ridders reference still works alone
    autograd = anp = None

#: Tolerance of each engine's gradient against the reference (see above); 1e-6 for others.
RTOL = {"forward": 1e-9, "reverse": 1e-9, "source": 1e-9, "finite": 1e-6}
#: Tolerance of autograd against Ridders, and of Ridders' own error estimate.
REFERENCE_RTOL = 1e-9
#: Gradients smaller than this overall are compared absolutely (e.g. a zero gradient).
SCALE_FLOOR = 1e-3

# Ridders' parameters (Numerical Recipes): first step, in units of max(|x|, 1) (the corpus
# keeps its arguments at least 0.1 from any kink or domain boundary, five first steps), the
# step ratio, the tableau size, and how much the error may grow before we stop shrinking.
FIRST_STEP = 0.02
STEP_RATIO = 1.4
TABLEAU = 10
SAFE = 2.0


# -- central differences, extrapolated -------------------------------------------------

def _ridders(phi, h0):
    """The derivative at 0 of the scalar function ``phi(t)``, and its error estimate."""
    tableau = np.full((TABLEAU, TABLEAU), np.nan)
    best, error = np.nan, np.inf
    h = h0
    for i in range(TABLEAU):
        tableau[0, i] = (phi(h) - phi(-h)) / (2 * h)
        factor = STEP_RATIO ** 2
        for j in range(1, i + 1):
            tableau[j, i] = (tableau[j - 1, i] * factor - tableau[j - 1, i - 1]) / (factor - 1)
            factor *= STEP_RATIO ** 2
            estimate = max(abs(tableau[j, i] - tableau[j - 1, i]),
                           abs(tableau[j, i] - tableau[j - 1, i - 1]))
            if estimate <= error:
                best, error = tableau[j, i], estimate
        # higher orders have stopped helping: rounding now grows faster than truncation falls
        if i and abs(tableau[i, i] - tableau[i - 1, i - 1]) >= SAFE * error:
            break
        h /= STEP_RATIO
    return best, error


def _value(f, args):
    out = f(*args)
    if np.ndim(out) != 0 or np.iscomplexobj(out):
        raise TypeError(f"the case must return a real scalar, got {out!r:.80}")
    return float(out)


def ridders_gradient(f, args):
    """``(gradient, error)``: Ridders' gradient of ``f`` at ``args`` in the engines' form (an
    array per array argument, a float per float), and the largest error it estimates."""
    # C order, so that reshape(-1) below is a view (of a Fortran-ordered copy it is a copy)
    work = [np.array(a, dtype=float, order="C") if isinstance(a, np.ndarray) else float(a)
            for a in args]
    grads, worst = [], 0.0
    for i, a in enumerate(work):
        if isinstance(a, np.ndarray):
            flat = a.reshape(-1)  # a view: writing it perturbs work[i]
            g = np.empty(flat.size)
            for k in range(flat.size):
                xk = flat[k]

                def phi(t, flat=flat, k=k, xk=xk):
                    flat[k] = xk + t
                    try:
                        return _value(f, work)
                    finally:
                        flat[k] = xk

                g[k], err = _ridders(phi, FIRST_STEP * max(abs(xk), 1.0))
                worst = max(worst, err)
            grads.append(g.reshape(a.shape))
        else:
            def phi(t, i=i, x=a):
                work[i] = x + t
                try:
                    return _value(f, work)
                finally:
                    work[i] = x

            g, err = _ridders(phi, FIRST_STEP * max(abs(a), 1.0))
            grads.append(float(g))
            worst = max(worst, err)
    return tuple(grads), worst


def _ridders_vector(phi, h0):
    """:func:`_ridders` for a vector-valued ``phi``: the same tableau, entry by entry, each
    entry keeping its own best estimate; shrinking stops once every entry has stopped
    improving."""
    tableau = [[None] * TABLEAU for _ in range(TABLEAU)]
    best = error = None
    h = h0
    for i in range(TABLEAU):
        tableau[0][i] = (np.asarray(phi(h), float) - np.asarray(phi(-h), float)) / (2 * h)
        if best is None:
            best, error = tableau[0][0].copy(), np.full(tableau[0][0].shape, np.inf)
        factor = STEP_RATIO ** 2
        for j in range(1, i + 1):
            tableau[j][i] = (tableau[j - 1][i] * factor - tableau[j - 1][i - 1]) / (factor - 1)
            factor *= STEP_RATIO ** 2
            estimate = np.maximum(np.abs(tableau[j][i] - tableau[j - 1][i]),
                                  np.abs(tableau[j][i] - tableau[j - 1][i - 1]))
            better = estimate <= error
            best[better], error[better] = tableau[j][i][better], estimate[better]
        if i and np.all(np.abs(tableau[i][i] - tableau[i - 1][i - 1]) >= SAFE * error):
            break
        h /= STEP_RATIO
    return best, error


def ridders_jacobian(f, x, first_step=FIRST_STEP):
    """``(J, error)``: Ridders' Jacobian of the array-valued ``f`` at the 1-D array ``x``,
    one column per input, and the largest error it estimates."""
    x = np.array(x, dtype=float)
    columns, worst = [], 0.0
    for k in range(x.size):
        def phi(t, k=k):
            y = x.copy()
            y[k] += t
            return np.ravel(f(y))
        column, error = _ridders_vector(phi, first_step * max(abs(x[k]), 1.0))
        columns.append(column)
        worst = max(worst, float(np.max(error, initial=0.0)))
    return np.stack(columns, axis=-1), worst


# -- autograd --------------------------------------------------------------------------

@functools.cache
def _autograd_globals(module_name):
    """A copy of the case module's globals with ``np`` bound to ``autograd.numpy`` and every
    function of the module re-created over it, so that helpers are traced too."""
    import sys

    original = vars(sys.modules[module_name])
    namespace = dict(original, np=anp)
    for name, value in original.items():
        if isinstance(value, types.FunctionType) and value.__globals__ is original:
            namespace[name] = _rebound(value, namespace)
    return namespace


def _rebound(fn, namespace):
    new = types.FunctionType(fn.__code__, namespace, fn.__name__, fn.__defaults__,
                             fn.__closure__)
    new.__kwdefaults__ = fn.__kwdefaults__
    return new


def autograd_gradient(f, args):
    """autograd's gradient of ``f`` in the engines' form; raises what autograd raises, and
    ValueError for a non-finite or misshapen answer."""
    if autograd is None:
        raise ImportError("autograd is not installed")
    fn = _rebound(f, _autograd_globals(f.__module__))
    grads = []
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # e.g. autograd's "r_ is slow" advice
        for i, a in enumerate(args):
            g = autograd.grad(fn, argnum=i)(*args)
            g = np.array(g, dtype=float) if isinstance(a, np.ndarray) else float(g)
            if np.shape(g) != np.shape(a) or not np.all(np.isfinite(g)):
                raise ValueError(f"autograd's gradient {i} is {g!r:.80}")
            grads.append(g)
    return tuple(grads)


# -- the reference -----------------------------------------------------------------------

@dataclasses.dataclass(frozen=True)
class Reference:
    """The reference of one case: ``grads`` (what engines are judged against) and how it was
    found."""

    grads: tuple
    method: str  # "autograd" or "ridders"
    ridders: tuple
    ridders_error: float  # Ridders' own error estimate, largest over the elements
    autograd: tuple | None  # None where autograd failed
    autograd_failure: str | None
    disagreement: float | None  # normwise, autograd against Ridders


def normwise_error(got, want):
    """``max |got - want| / max(scale, SCALE_FLOOR)`` over all entries, ``scale`` the largest
    ``|want|``; infinite when ``got`` has a non-finite entry."""
    if not all(np.all(np.isfinite(g)) for g in got):
        return np.inf
    scale = max((float(np.max(np.abs(w), initial=0.0)) for w in want), default=0.0)
    worst = max((float(np.max(np.abs(np.asarray(g, dtype=float) - w), initial=0.0))
                 for g, w in zip(got, want)), default=0.0)
    return worst / max(scale, SCALE_FLOOR)


def reference(f, args):
    """The :class:`Reference` of ``f`` at ``args``."""
    ridders, error = ridders_gradient(f, args)
    try:
        exact, failure = autograd_gradient(f, args), None
    except Exception as e:  # autograd refuses part of the corpus; Ridders stands alone there
        lines = str(e).splitlines()
        exact, failure = None, f"{type(e).__name__}: {lines[0][:100] if lines else ''}"
    disagreement = None if exact is None else normwise_error(exact, ridders)
    use_autograd = exact is not None and disagreement <= REFERENCE_RTOL
    return Reference(grads=exact if use_autograd else ridders,
                     method="autograd" if use_autograd else "ridders",
                     ridders=ridders, ridders_error=error, autograd=exact,
                     autograd_failure=failure, disagreement=disagreement)


def case_args(case):
    """The case's arguments, fresh and the same on every call (seeded by its name)."""
    return case.make_args(np.random.default_rng(zlib.crc32(case.name.encode())))


@functools.cache
def case_reference(case):
    return reference(case.f, case_args(case))


# -- judging an engine -------------------------------------------------------------------

@dataclasses.dataclass(frozen=True)
class Outcome:
    """``status``: "ok", "refused" (the engine raised) or "wrong" (it returned a wrong value,
    shape or type); ``detail``: the error's first line, or what was wrong; ``warnings``: the
    warnings the engine emitted."""

    status: str
    detail: str = ""
    warnings: tuple = ()


def _form_problem(grads, args):
    """What is wrong with the form of ``grads`` (one entry per argument, an array of its shape
    and real dtype, a float for a float), or None."""
    if not isinstance(grads, tuple) or len(grads) != len(args):
        return f"expected a tuple of {len(args)} entries, got {grads!r:.80}"
    for i, (g, a) in enumerate(zip(grads, args)):
        if isinstance(a, np.ndarray):
            if not (isinstance(g, np.ndarray) and g.shape == a.shape and g.dtype.kind == "f"):
                return f"gradient {i}: expected a float array of shape {a.shape}, got {g!r:.80}"
        elif not isinstance(g, float):
            return f"gradient {i}: expected a float, got {type(g).__name__} {g!r:.60}"
    return None


def judge(gradient, case, rtol=1e-6):
    """Run ``gradient(case.f, *args)`` and classify the answer against the case's reference
    (at the normwise tolerance ``rtol``)."""
    args = case_args(case)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        try:
            grads = gradient(case.f, *args)
        except Exception as e:
            lines = str(e).splitlines()
            return Outcome("refused", f"{type(e).__name__}: {lines[0] if lines else ''}")
    said = tuple(f"{w.category.__name__}: {str(w.message).splitlines()[0]}" for w in caught)
    problem = _form_problem(grads, args)
    if problem is None:
        ref = case_reference(case).grads
        error = normwise_error(grads, ref)
        if error <= rtol:
            return Outcome("ok", warnings=said)
        problem = f"normwise error {error:.2g}: {_first_difference(grads, ref)}"
    return Outcome("wrong", problem + "".join(f"; warned {w}" for w in said), said)


def _first_difference(got, want):
    """The entry that differs most, as "gradient i[index]: got ... want ..."."""
    worst = (-1.0, "")
    for i, (g, w) in enumerate(zip(got, want)):
        diff = np.abs(np.asarray(g, dtype=float) - w)
        diff = np.where(np.isnan(diff), np.inf, diff)
        k = np.unravel_index(int(np.argmax(diff)), np.shape(w)) if np.ndim(w) else ()
        if float(diff[k]) > worst[0]:
            at = f"[{', '.join(map(str, k))}]" if k else ""
            worst = (float(diff[k]), f"gradient {i}{at}: got {float(np.asarray(g)[k]):.6g}, "
                                     f"want {float(np.asarray(w)[k]):.6g}")
    return worst[1]


@functools.cache
def engine_outcome(engine, case):
    """The :class:`Outcome` of the engine named ``engine`` (a key of ``kernels.ad.ENGINES``)
    on ``case``, computed once per process (the tests and the table share it)."""
    from kernels.ad import ENGINES

    return judge(ENGINES[engine].gradient, case, RTOL.get(engine, 1e-6))
