"""The compiled engine: the source transformation emitting numba code.

``prepare(f, *args)`` reads ``f``'s source (and that of every plain function it calls,
inlined), lowers it to SSA form (:mod:`.lowering`), writes the objective as numba source
(:mod:`.emit`) and compiles it in nopython mode for the arguments' types; numba's types of
its values then decide what the adjoint needs (:mod:`.activity`): the gradient function,
the primal pushing that onto a tape of two preallocated arrays and the adjoint popping it
in reverse, is written and compiled in turn. Both live in generated files, so numba's disk
cache keeps them for the next process; the seconds spent compiling are reported apart
(``Prepared.compile_seconds``). Code outside the subset is refused with
:class:`CompileRefused`, naming the construct, the file and the line, never run another
way::

    >>> from kernels.ad import compiled
    >>> compiled.gradient(lambda x: np.sum(np.sin(x) * x), np.ones(3))
    >>> print(compiled.show(f, x))          # the generated objective and gradient

``objective(f, *args)`` is the objective compiled the same way (what the engine's
gradient is timed against). See docs/ad.md, "The compiled engine".
"""

import functools
import hashlib
import json
import os
import re
import time
from pathlib import Path

import numba
import numpy as np

from kernels.statevector.codegen.sources import cache_dir, load_module

from .. import forward, modes, rules
from .._args import check_arguments, check_jacobian_input
from ..backend import ADBackend, Cost, constant
from . import activity, emit, kinds
from .ir import Const, If, Loop, Op, Value
from .lowering import CompileRefused, Lowering, guards_hold

__all__ = ["gradient", "objective", "jacobian", "prepare", "show", "CompileRefused"]

#: The engine's own code, in every generated module's digest: a change to it is a new
#: module, never a stale one from numba's cache.
_VERSION = hashlib.sha1(b"".join(
    p.read_bytes() for p in sorted(Path(__file__).parent.glob("*.py")))).hexdigest()[:16]


def _numba_type(a, name):
    """numba's type of the datum ``name`` (the arguments are checked before): data it
    cannot take (a function, as the nested evals bind) is refused by name."""
    try:
        return numba.typeof(a)
    except ValueError:
        raise CompileRefused(f"the datum {name!r} is a {type(a).__name__}: the compiled "
                             f"engine compiles floats, ints and numpy arrays (it does not "
                             f"nest engines)") from None


class _Compiled:
    """``f`` compiled for one set of argument types (the data's included): the objective's
    and the gradient's dispatchers, the tape kept between calls, ``compile_seconds`` (the
    objective's and the gradient's compilation, lowering included; near zero where
    numba's cache had them) and ``source``, both modules' text."""

    def __init__(self, f, data, args, vector):
        started = time.perf_counter()
        fn = Lowering().function(f, frozenset(data))
        for lowered in [fn] + [c.body for c in fn.callees.values()]:
            activity.merge(activity.hoist(activity.prune(lowered)))
        data = {**data, **fn.constants}
        self.data_names, self.constants = [v.name for v in fn.data], fn.constants
        self.guards = fn.guards
        values = [data[name] for name in self.data_names]
        if len(args) != len(fn.params):
            raise TypeError(f"{fn.name} takes {len(fn.params)} differentiated arguments, "
                            f"got {len(args)}")
        digest = f"{_VERSION} {fn.name}"
        text = emit.objective(fn, digest)
        module = load_module("ad_objective", text)
        types = (*(numba.typeof(a) for a in args),
                 *(_numba_type(v, k) for v, k in zip(values, self.data_names)))
        self._objective = module.objective
        _compile(self._objective, types, text, fn.name)
        typed = _kinds(module, types, ["objective", *fn.callees])
        found = typed["objective"]
        result = found.get(fn.result.name) if not isinstance(fn.result, Const) else None
        scalar = result is None or result.category in ("float", "int", "bool")
        if scalar == vector or (vector and result.category != "array"):
            value = self._objective(*args, *values)
            what = (f"an array of shape {value.shape}" if isinstance(value, np.ndarray)
                    else f"a {type(value).__name__}")
            need = "an array-valued" if vector else "a scalar-valued"
            raise ValueError(f"{'jacobian' if vector else 'gradient'} needs {need} "
                             f"function; {fn.name} returned {what}")
        # the cotangent of the result: 1.0 for a gradient, a row's one-hot for a Jacobian
        seed = numba.types.Array(numba.float64, result.ndim, "C") if vector else numba.float64
        _type(fn, found)
        for v, a in zip(fn.params + fn.data, (*args, *values)):
            v.kind = kinds.of(numba.typeof(a))
        for callee in fn.callees.values():
            _type(callee.body, typed[callee.name])
            for v in callee.order:
                v.kind = typed[callee.name].get(v.name)
        try:
            gtext = emit.gradient(fn, digest)
        except emit.EmitError as e:
            raise CompileRefused(f"{e} (in {fn.name}, {fn.filename})") from None
        gmodule = load_module("ad_gradient", gtext)
        self._gradient = gmodule.gradient
        _compile(self._gradient, types + (seed, numba.float64[::1], numba.int64[::1]),
                 gtext, fn.name)
        self._ft, self._it = np.empty(1024), np.empty(256, np.int64)
        self.source = text + "\n" + gtext
        self.name = fn.name
        self.compile_seconds = time.perf_counter() - started



def _type(fn, found):
    """Set the kind of every value ``fn`` computes from ``found`` (numba's types of the
    objective's variables), refusing what those types show it cannot differentiate."""
    for stmt in activity.walk(fn.body):
        for v in activity.defined(stmt):
            v.kind = found.get(v.name)
        if isinstance(stmt, Op) and stmt.augmented and stmt.out.kind is not None and (
                stmt.out.kind.category == "array"):
            # numpy updates the array, and every other name and view of it; compiled,
            # the name would be rebound and the others keep the old values
            raise CompileRefused(f"an augmented assignment to an array (x += ...: "
                                 f"numpy updates it in-place; write x = x + ...) is "
                                 f"not compiled by the compiled engine ({stmt.line})")
        if isinstance(stmt, Op) and stmt.out.active:
            _check_list_use(stmt)
        if isinstance(stmt, If):  # the flags and counts only the gradient has
            stmt.flag.kind = kinds.Kind("int")
        elif isinstance(stmt, Loop):
            stmt.count.kind = kinds.Kind("int")


def _check_list_use(op):
    """A differentiated operation may read a list only for an element at an index, append
    to it or stack it: anything else (``L * 2``, ``np.sum(L)``) means something else for a
    list than for an array, and is refused rather than differentiated as one."""
    lists = [k for k, a in enumerate(op.args)
             if isinstance(a, Value) and a.kind is not None and a.kind.category == "list"]
    if not lists:
        return
    if (op.inplace or op.adjoint == "stack") and lists == [0]:
        return
    if op.adjoint == "getitem" and lists == [0] and op.static[0] == ("int",):
        return
    raise CompileRefused(f"an operation on a list other than reading one element (at an "
                         f"int index), appending to it or np.stack is not compiled by the "
                         f"compiled engine: it differentiates a list's elements ({op.line})")


class Prepared:
    """A compiled function with its data bound: ``objective(*args)`` and
    ``gradient(*args) -> (value, cotangents)``; ``compile_seconds`` and ``source`` as
    compiled."""

    __slots__ = ("compiled", "data", "compile_seconds", "source")

    def __init__(self, compiled, data):
        data = {**data, **compiled.constants}
        self.compiled, self.data = compiled, tuple(data[n] for n in compiled.data_names)
        self.compile_seconds, self.source = compiled.compile_seconds, compiled.source

    def objective(self, *args):
        return self.compiled._objective(*args, *self.data)

    def gradient(self, *args, seed=1.0):
        """``(value, cotangents)``; ``seed``: the result's cotangent (an array of its shape,
        which the adjoint may write into, for a vector function)."""
        c = self.compiled
        value, grads, c._ft, c._it = c._gradient(*args, *self.data, seed, c._ft, c._it)
        return value, grads

    def grads(self, *args):
        """The gradient as every engine returns it: a float for a float argument."""
        return tuple(float(g) if not isinstance(a, np.ndarray) else g
                     for g, a in zip(self.gradient(*args)[1], args))


def _compile(dispatcher, types, text, name):
    """Compile ``dispatcher`` for ``types``; numba's refusal becomes CompileRefused naming
    the user's line that the generated line came from (its trailing comment)."""
    try:
        dispatcher.compile(types)
    except numba.core.errors.NumbaError as e:
        message = str(e)
        lines = text.splitlines()
        found = re.findall(r"_qsim_generated_ad_\w+\.py\", line (\d+)", message)
        at = next((lines[int(n) - 1].rpartition("  # ")[2] for n in reversed(found)
                   if 0 < int(n) <= len(lines) and "  # " in lines[int(n) - 1]), None)
        plain = [ln.strip() for ln in re.sub(r"\x1b\[[0-9;]*m", "", message).splitlines()
                 if ln.strip()]
        # numba's own words: the error an overload raised, else its first line past the
        # pipeline's name
        first = next((ln.partition("TypingError: ")[2] for ln in plain if "TypingError: " in ln),
                     None) or (plain[1] if len(plain) > 1 else message)
        where = f"the code at {at}" if at else name
        raise CompileRefused(f"numba cannot compile {where}: {first}") from None


def _kinds(module, types, names):
    """The typemaps of the objective and the recursive functions it calls (``names``),
    kept beside its module: numba's cache restores the compiled code but not the types it
    inferred."""
    key = hashlib.sha1(str(types).encode()).hexdigest()[:12]
    path = cache_dir() / f"{module.__name__}.{key}.kinds.json"
    dispatchers = {name: getattr(module, name) for name in names}
    annotation = module.objective.overloads[module.objective.signatures[0]].type_annotation
    if not hasattr(annotation, "typemap"):  # from the cache: a string, or nothing
        if path.exists():
            return {name: {k: kinds.Kind(*v) for k, v in found.items()}
                    for name, found in json.loads(path.read_text()).items()}
        for dispatcher in dispatchers.values():  # the types were lost with the cache's
            dispatcher.recompile()  # copy: infer them again
    found = {name: kinds.typemap(d) for name, d in dispatchers.items()}
    tmp = path.with_suffix(f".{os.getpid()}.tmp")
    tmp.write_text(json.dumps({name: {k: list(v) for k, v in typemap.items()}
                               for name, typemap in found.items()}))
    os.replace(tmp, path)
    return found


_PREPARED = {}


def _split(f):
    """``(function, data)``: a functools.partial's keywords are data (not differentiated)."""
    if type(f) is functools.partial:
        if f.args:
            raise TypeError("the compiled engine binds data by keyword "
                            "(functools.partial(f, name=value))")
        return f.func, dict(f.keywords)
    return f, {}


def prepare(f, *args, vector=False):
    """``f`` compiled for the types of ``args`` (cached per function and types); with
    ``vector``, an array-valued ``f``, whose adjoint takes the result's cotangent."""
    fn, data = _split(f)
    if not callable(fn) or not hasattr(fn, "__code__"):
        raise TypeError(f"the compiled engine differentiates Python functions (def or "
                        f"lambda); got {type(fn).__name__}")
    if fn in rules.RULES:
        raise CompileRefused(f"{fn.__qualname__} is a primitive with a rule: the compiled "
                             f"engine compiles plain functions")
    for name, value in (fn.__kwdefaults__ or {}).items():
        data.setdefault(name, value)
    check_arguments(args, "the compiled engine")
    args = tuple(_as_float(a) for a in args)
    names = sorted(data)
    key = (fn, vector, tuple(names), tuple(numba.typeof(a) for a in args),
           tuple(_numba_type(data[k], k) for k in names))
    found = _PREPARED.get(key)
    if found is None or not guards_hold(found.guards):  # a global it read was rebound
        found = _PREPARED[key] = _Compiled(fn, data, args, vector)
    return Prepared(found, data), args


def _as_float(a):
    """A checked argument as the compiled code takes it: a float, or a C-ordered float64
    array (a float32 one widened, as the other engines compute)."""
    if isinstance(a, np.ndarray):
        return np.ascontiguousarray(a, dtype=np.float64)
    return float(a)


def gradient(f, *args):
    """The gradient of the scalar-valued ``f`` at ``args``: one entry per argument, of its
    shape (a float for a float argument)."""
    prepared, args = prepare(f, *args)
    return prepared.grads(*args)


def objective(f, *args):
    """The objective compiled the same way as the gradient: a function of ``args``."""
    prepared, _ = prepare(f, *args)
    return prepared.objective


def jacobian(f, x, sparsity=None, mode=None):
    """The Jacobian of the array-valued ``f`` at the float array ``x``: shape
    ``np.shape(f(x)) + x.shape``. Reverse mode runs the compiled primal and adjoint once
    per output row, the row's one-hot as the result's cotangent; ``mode`` as reverse
    mode's (None: the mode of fewer passes, forward mode's engine serving the forward
    one)."""
    x = check_jacobian_input(x, "the compiled engine")
    if sparsity is not None:
        raise CompileRefused("sparse Jacobians are not compiled: the forward, reverse and "
                             "source engines take them")
    if modes.check(mode) == modes.FORWARD:
        return forward.jacobian(f, x, mode=modes.FORWARD)
    prepared, (x,) = prepare(f, x, vector=True)
    value = prepared.objective(x)
    if modes.choose(mode, x.size, value.size, None) == modes.FORWARD:
        return forward.jacobian(f, x, mode=modes.FORWARD)
    rows = np.empty((value.size,) + x.shape)
    for i in range(value.size):
        seed = np.zeros(value.size)
        seed[i] = 1.0
        rows[i] = prepared.gradient(x, seed=seed.reshape(value.shape))[1][0]
    return rows.reshape(value.shape + x.shape)


def show(f, *args):
    """The generated objective and gradient of ``f`` for ``args``' types, as text."""
    prepared, _ = prepare(f, *args)
    return prepared.source


#: in runs of the plain f: a vectorised f is numpy's loops either way, so the gradient
#: costs what its own objective's would (targets of 3 to 4); an element loop compiled runs
#: far under the interpreted f (det at 8: its gradient 0.1x the plain f), so 1 still
#: bounds it from above
BACKEND = ADBackend(name="compiled", role="engine", compiles=True, mode="reverse",
                    cost=Cost(loop=constant(1.0), vector=constant(4.0)))
