"""What the compiled engine differentiates, and the adjoint it writes for each.

Elementwise functions come from the rule table (:mod:`kernels.ad.rules`): a rule made of
local partials (``defpartials``) is compiled from those partials' own code, generated
here as numba source (:func:`partial_source`), so the table stays the one place a
derivative is written. The structural operations (indexing, reductions, products,
transposes, reshapes, joins) move or sum entries without a derivative of their own: their
adjoints are the transposed moves, written once in :data:`STRUCTURAL`.

An adjoint is a list of terms (:class:`Term`), text in which ``{g}`` is the output's
cotangent; each rule is given its operands' names, their shapes and their numba kinds
(:mod:`.kinds`).
"""

import ast
import builtins
import copy
import numbers
import re
import types
from collections.abc import Callable
from typing import NamedTuple

import numpy as np

from ..rules import reads as _reads
from ..rules.table import EveryArgument
from ..source.parse import SourceTransformError, function_node

#: What the adjoint reads of a value: its shape (to make its zero cotangent) or all of it.
SHAPE, VALUE = 1, 2


class Elementwise(NamedTuple):
    """An elementwise operation's rule, per positional argument: the generated function of
    its partial (None: no derivative), the partial itself, 1.0 or -1.0 where the partial
    is that constant, and the partial's one expression (:func:`partial_expression`) where
    it is one."""

    names: list
    partials: list
    constants: list
    expressions: list


class NotCompilable(Exception):
    """A rule's partial uses Python that is not generated for numba."""


def partials(rule):
    """The local partials of an elementwise rule (one per positional argument, None where
    an argument has no derivative), or None when the rule is not made of partials."""
    if isinstance(rule.vjps, EveryArgument):
        return None
    found = []
    for vjp in rule.vjps:
        if vjp is None:
            found.append(None)
            continue
        marked = getattr(vjp, "reads_through", None)
        if marked is None or marked[1] != 0:
            return None
        found.append(marked[0])
    return found


class Vjps(NamedTuple):
    """A rule of vjps, per positional argument: the generated function (None: not
    differentiated here) and the vjp, ``vjp(g, ans, *args)``."""

    names: list
    vjps: list


def vjps(rule):
    """The per-argument vjps of a rule (None for a rule of every argument: joins)."""
    if isinstance(rule.vjps, EveryArgument):
        return None
    return list(rule.vjps)


def vjp_source(rule, i, vjp, helpers):
    """The name of a generated numba function computing ``vjp`` (argument ``i``)."""
    return _generate(vjp, f"_v_{_safe(rule.name)}_{i}", helpers)


def _vjp_reads(op):
    found = []
    for name, vjp in zip(op.static.names, op.static.vjps):
        if name is None:
            continue
        ans, positions = _reads.reads(vjp, 1)
        if ans:
            found.append((-1, VALUE))
        found += [(j, VALUE) for j in range(len(op.args)) if positions is None or j in positions]
    return found


def _vjp_adjoint(op, n):
    terms = []
    for k, (name, vjp) in enumerate(zip(op.static.names, op.static.vjps)):
        if name is None:
            continue
        ans, positions = _reads.reads(vjp, 1)
        values = [op.out.name if ans else "0.0"] + [
            a if positions is None or j in positions else "0.0" for j, a in enumerate(n.args)]
        terms.append(Term(k, f"{name}({{g}}, {', '.join(values)})"))
    return terms


def partial_reads(partial):
    """``(reads ans, positions of the arguments read)`` (None: all of them)."""
    return _reads.reads(partial, 0)


def constant_partial(partial):
    """1.0 or -1.0 where ``partial`` returns that constant whatever its arguments (add's,
    subtract's): the adjoint then passes the cotangent on without a product."""
    try:
        node, _ = function_node(partial)
    except SourceTransformError:
        return None
    body = node.body if isinstance(node, ast.Lambda) else None
    if isinstance(body, ast.UnaryOp) and isinstance(body.op, ast.USub):
        inner = body.operand
        if isinstance(inner, ast.Constant) and inner.value == 1.0:
            return -1.0
    if isinstance(body, ast.Constant) and body.value == 1.0:
        return 1.0
    return None


def _safe(text):
    return re.sub(r"\W", "_", text)


def partial_source(rule, i, partial, helpers):
    """The name of a generated numba function computing ``partial`` (argument ``i`` of
    ``rule``), its source (and that of every plain function it calls) added to
    ``helpers``."""
    return _generate(partial, f"_d_{_safe(rule.name)}_{i}", helpers)


def partial_expression(partial, helpers):
    """``partial``'s body where it is one expression, as text in which its parameters are
    the markers ``__p0__`` (``ans``), ``__p1__``, ...; None otherwise. The adjoint writes
    it inside its product with the cotangent, which numba then computes in one loop and
    one allocation (a call of the generated function returns an array of its own)."""
    try:
        node, _ = function_node(partial)
    except SourceTransformError:
        return None
    if isinstance(node, ast.Lambda):
        body = node.body
    elif len(node.body) == 1 and isinstance(node.body[0], ast.Return):
        body = node.body[0].value
    else:
        return None
    args = node.args
    if args.vararg or args.kwarg or args.kwonlyargs or args.defaults or body is None:
        return None
    markers = {a.arg: f"__p{k}__" for k, a in enumerate(args.posonlyargs + args.args)}
    tree = _Globals(partial, helpers).visit(copy.deepcopy(body))
    for name in ast.walk(tree):
        if isinstance(name, ast.Name) and name.id in markers:
            name.id = markers[name.id]
    return ast.unparse(tree)


def fill(expression, values):
    """A :func:`partial_expression` with its markers replaced by ``values``' text."""
    return re.sub(r"__p(\d+)__", lambda m: values[int(m.group(1))], expression)


def function_source(fn, helpers):
    """The name of a generated numba function computing the plain function ``fn`` (a
    user's primitive), added to ``helpers`` with what it calls."""
    return _generate(fn, f"_f_{_safe(fn.__module__)}_{_safe(fn.__qualname__)}", helpers)


def _generate(fn, name, helpers):
    if name in helpers:
        return name
    helpers[name] = None  # a call cycle stops here
    try:
        node, _ = function_node(fn)
    except SourceTransformError as e:
        raise NotCompilable(str(e)) from None
    rewriter = _Globals(fn, helpers)
    if isinstance(node, ast.Lambda):
        tree = ast.FunctionDef(name=name, args=node.args, body=[ast.Return(node.body)],
                               decorator_list=[], returns=None)
    else:
        tree = node
        tree.name, tree.decorator_list, tree.returns = name, [], None
    tree = ast.fix_missing_locations(rewriter.visit(ast.Module(body=[tree],
                                                               type_ignores=[])))
    helpers[name] = ast.unparse(tree)
    return name


class _Globals(ast.NodeTransformer):
    """Rewrites a partial's free names for a generated module: numpy as ``np``, number
    constants as literals, plain functions as generated functions; ``with`` blocks (numpy's
    ``errstate``, which only silences warnings numba never gives) by their bodies."""

    def __init__(self, fn, helpers):
        self.fn, self.helpers = fn, helpers
        code = fn.__code__
        self.local = set(code.co_varnames)
        self.cells = dict(zip(code.co_freevars, fn.__closure__ or ()))

    def visit_With(self, node):
        return [self.visit(s) for s in node.body]

    def visit_Name(self, node):
        if not isinstance(node.ctx, ast.Load) or node.id in self.local:
            return node
        if node.id in self.cells:
            obj = self.cells[node.id].cell_contents
        elif node.id in self.fn.__globals__:
            obj = self.fn.__globals__[node.id]
        elif hasattr(builtins, node.id):
            return node
        else:
            raise NotCompilable(f"the name {node.id!r} is not defined")
        if obj is np:
            return ast.copy_location(ast.Name(id="np", ctx=ast.Load()), node)
        if isinstance(obj, bool) or not isinstance(obj, numbers.Real):
            if isinstance(obj, types.FunctionType) and not obj.__module__.startswith("numpy"):
                made = _generate(obj, f"_h_{_safe(obj.__module__)}_{obj.__name__}",
                                 self.helpers)
                return ast.copy_location(ast.Name(id=made, ctx=ast.Load()), node)
            raise NotCompilable(f"the global {node.id!r} ({type(obj).__name__})")
        return ast.copy_location(ast.Constant(float(obj) if not isinstance(
            obj, numbers.Integral) else int(obj)), node)


# -- the structural operations ----------------------------------------------------------

class Term(NamedTuple):
    """One operand's share of an adjoint: ``expr`` (``{g}``: the output's cotangent) added
    into the operand's cotangent, or into ``index`` of it. ``shaped``: ``expr`` has the
    operand's shape, so the first term may become the cotangent itself (where it shares
    memory with the output's cotangent, that one is not read again: an operation's adjoint
    runs after every use of its output); else (broadcast) it is added into zeros.
    ``shares``: ``expr`` may be the output's cotangent itself (a partial of 1): of two
    such terms of one operation, only the first becomes a cotangent as it is, the other
    as a copy (two cotangents in one array: adding into one would change the other).
    ``statement``: ``expr`` is a statement that adds into the operand's cotangent,
    ``{into}``, itself (made zeros first where it is not yet)."""

    operand: int
    expr: str
    index: str | None = None
    shaped: bool = True
    shares: bool = False
    statement: bool = False


class Names(NamedTuple):
    """What an adjoint is written from: the operands' text, their kinds, and the output's
    kind; ``shape(k)``: text for operand k's shape."""

    args: list
    kinds: list
    out: object
    shape: Callable


class Structural(NamedTuple):
    """``keywords``: those it takes (as constants); ``primal(count, static)``: its Python
    text for ``count`` operands; ``reads(op)``: [(operand, SHAPE | VALUE)], operand -1 the
    output; ``adjoint(op, names)``: a :class:`Term` per operand it differentiates;
    ``operands``: how many positional arguments are operands, and ``positional``: numpy's
    names for the positional arguments after them (``np.sum(x, 0)`` is ``axis=0``), each
    taken as that keyword or refused, never dropped."""

    keywords: frozenset
    primal: Callable
    reads: Callable
    adjoint: Callable
    operands: int = 1
    positional: tuple = ()


def _axis(static, ndim):
    axis = static.get("axis")
    if axis is None:
        return None
    if not -ndim <= axis < ndim:
        raise ValueError(f"axis {axis} is out of bounds for an array of {ndim} dimensions")
    return axis % ndim


def _sum_primal(count, static):
    return "np.sum({0})" if static.get("axis") is None else f"np.sum({{0}}, axis={static['axis']})"


def _sum_adjoint(op, n):
    axis = _axis(op.static, n.kinds[0].ndim)
    if axis is None:
        return [Term(0, "{g}", shaped=False)]
    return [Term(0, f"_rt.expand_dims({{g}}, {axis})", shaped=False)]


def _mean_adjoint(op, n):
    shape, ndim = n.shape(0), n.kinds[0].ndim
    size = " * ".join(f"{shape}[{d}]" for d in range(ndim)) or "1"
    return [Term(0, f"{{g}} / ({size})", shaped=False)]


def _extremum_primal(which):
    def primal(count, static):
        if static.get("axis") is None:
            return f"np.{which}({{0}})"
        return f"_rt.extreme_along({{0}}, {static['axis']}, {which == 'min'})"
    return primal


def _extremum_adjoint(op, n):
    # ties share the cotangent equally (the table's rule for max and min)
    x, out = n.args[0], op.out.name
    axis = _axis(op.static, n.kinds[0].ndim)
    if axis is None or n.kinds[0].ndim == 1:
        return [Term(0, f"{{g}} * (({x} == {out}) / np.sum({x} == {out}))")]
    hit = f"({x} == np.expand_dims({out}, {axis}))"
    return [Term(0, f"np.expand_dims({{g}}, {axis}) * {hit} / np.expand_dims("
                    f"np.sum({hit}, axis={axis}), {axis})")]


def _product_adjoint(op, n):
    a, b = n.args
    ka, kb = n.kinds
    if ka.category != "array" or kb.category != "array" or ka.ndim > 3 or kb.ndim > 3 or (
            max(ka.ndim, kb.ndim) == 3 and (op.adjoint != "matmul" or min(ka.ndim, kb.ndim) < 2)):
        raise NotImplementedError(
            f"a product of {ka} and {kb}: the engine compiles products of vectors and "
            f"matrices, and @ of stacks (3-D) of matrices with matrices or stacks")
    if max(ka.ndim, kb.ndim) == 3:  # a matrix's share is summed over the stack
        da, db = f"_rt.matmul_nt({{g}}, {b})", f"_rt.matmul_tn({a}, {{g}})"
        return [Term(0, da if ka.ndim == 3 else f"_rt.sum_to({da}, {n.shape(0)})"),
                Term(1, db if kb.ndim == 3 else f"_rt.sum_to({db}, {n.shape(1)})")]
    if ka.ndim == 1 and kb.ndim == 1:
        da, db = f"{{g}} * {b}", f"{{g}} * {a}"
    elif ka.ndim == 2 and kb.ndim == 1:
        da, db = f"np.outer({{g}}, {b})", f"np.dot({a}.T, {{g}})"
    elif ka.ndim == 1:
        da, db = f"np.dot({b}, {{g}})", f"np.outer({a}, {{g}})"
    else:
        da, db = f"np.dot({{g}}, {b}.T)", f"np.dot({a}.T, {{g}})"
    return [Term(0, da), Term(1, db)]


def _transpose_primal(count, static):
    axes = static.get("axes")
    return "np.transpose({0})" if axes is None else f"np.transpose({{0}}, {tuple(axes)})"


def _transpose_adjoint(op, n):
    axes = (op.static or {}).get("axes")
    if axes is None:  # all axes reversed: its own inverse
        return [Term(0, "{g}.T")]
    ndim = n.kinds[0].ndim
    if sorted(a % ndim for a in axes) != list(range(ndim)) or len(axes) != ndim:
        raise ValueError(f"np.transpose's axes {tuple(axes)} are not a permutation of an "
                         f"array of {ndim} dimensions")
    inverse = [0] * ndim
    for k, a in enumerate(axes):
        inverse[a % ndim] = k
    return [Term(0, f"np.transpose({{g}}, {tuple(inverse)})")]


def _expand_dims_adjoint(op, n):
    if n.kinds[0].category != "array":
        return [Term(0, "{g}[0]")]
    return [Term(0, f"np.ascontiguousarray({{g}}).reshape({n.shape(0)})")]


def _stack_adjoint(op, n):
    return [Term(0, f"_rt.unstack({{g}}, {op.static.get('axis', 0)})")]


def _reshape_adjoint(op, n):
    return [Term(0, f"np.ascontiguousarray({{g}}).reshape({n.shape(0)})")]


def _trace_adjoint(op, n):
    if n.kinds[0].ndim != 2:
        raise NotImplementedError("np.trace of an array that is not a matrix")
    shape = n.shape(0)
    return [Term(0, f"{{g}} * np.eye({shape}[0], {shape}[1])")]


def _concatenate_primal(count, static):
    parts = ", ".join(f"{{{k}}}" for k in range(count))
    axis = static.get("axis", 0)
    return f"np.concatenate(({parts}{',' if count == 1 else ''}), axis={axis})"


def _concatenate_adjoint(op, n):
    axis = _axis({"axis": op.static.get("axis", 0)}, n.out.ndim)
    lead = ":, " * axis
    found, start = [], "0"
    for k in range(len(n.args)):
        size = f"{n.shape(k)}[{axis}]"
        stop = size if start == "0" else f"{start} + {size}"
        found.append(Term(k, f"{{g}}[{lead}{start}:{stop}]"))
        start = stop
    return found


def _getitem_adjoint(op, n):
    layout, parts = op.static
    names = {f"{{{k}}}": name for k, name in enumerate(n.args)}

    def text(part):
        return re.sub(r"\{\d+\}", lambda m: names[m.group(0)], part)

    # an index numba typed as an array (an int array, or a list lowered to one): the
    # entries it picks, each of whose cotangents is added where it came from
    arrays = [p for p, kind in zip(parts, layout) if kind == "int"
              and n.kinds[int(p.strip("{}"))].category == "array"]
    if arrays:
        if len(arrays) > 1 or set(layout) - {"int", "slice"} or layout.count("int") > 1:
            raise NotImplementedError("an advanced index with other than slices beside it "
                                      "(the engine differentiates one int array among "
                                      "slices)")
        if n.kinds[int(arrays[0].strip("{}"))].dtype.startswith("bool"):
            raise NotImplementedError("a boolean mask as an index (the engine "
                                      "differentiates an int array among slices)")
        axis = layout.index("int")
        into = ", ".join(":" if kind == "int" else text(p) for p, kind in zip(parts, layout))
        return [Term(0, f"_rt.add_at({{into}}[{into}], {axis}, {text(arrays[0])}, {{g}})",
                     statement=True)]

    into = [text(p) for p, kind in zip(parts, layout) if kind != "none"]
    picks = [":" if kind == "slice" else "0" for kind in layout if kind != "int"]
    g = "{g}" if "0" not in picks else "{g}[" + ", ".join(picks) + "]"
    index = ", ".join(into) if into else "..."
    return [Term(0, g, index=index)]


def _append_adjoint(op, n):
    # the item's cotangent is the last of the list's, popped off: what is left is the
    # cotangent of the version before, the same list under the same name
    if n.kinds[1].category == "array":
        pop = f"_rt.popped({{g}}, {n.shape(1)})"  # the item's zeros where none came
    else:
        pop = "{g}.pop()"
    return [Term(0, "{g}"), Term(1, pop)]


def _array_adjoint(op, n):
    if any(k.category == "array" for k in n.kinds):
        raise NotImplementedError("np.array of arrays: the engine compiles np.array of "
                                  "numbers")
    return [Term(k, f"{{g}}[{k}]") for k in range(len(n.args))]


def _none(op):
    return []


def _concatenate_reads(op):
    return [(k, SHAPE) for k, a in enumerate(op.args) if not a.active]


STRUCTURAL = {
    "sum": Structural(frozenset({"axis"}), _sum_primal, _none, _sum_adjoint,
                      positional=("axis", "dtype", "out")),
    "mean": Structural(frozenset(), lambda count, static: "np.mean({0})",
                       lambda op: [(0, SHAPE)], _mean_adjoint,
                       positional=("axis", "dtype", "out")),
    "max": Structural(frozenset({"axis"}), _extremum_primal("max"),
                      lambda op: [(0, VALUE), (-1, VALUE)], _extremum_adjoint,
                      positional=("axis", "out")),
    "min": Structural(frozenset({"axis"}), _extremum_primal("min"),
                      lambda op: [(0, VALUE), (-1, VALUE)], _extremum_adjoint,
                      positional=("axis", "out")),
    "dot": Structural(frozenset(), lambda count, static: "np.dot({0}, {1})",
                      lambda op: [(0, VALUE), (1, VALUE)], _product_adjoint, 2, ("out",)),
    "transpose": Structural(frozenset({"axes"}), _transpose_primal, _none,
                            _transpose_adjoint, positional=("axes",)),
    "expand_dims": Structural(frozenset({"axis"}), lambda count, static:
                              f"_rt.expand_dims({{0}}, {static['axis']})",
                              lambda op: [(0, SHAPE)], _expand_dims_adjoint,
                              positional=("axis",)),
    "stack": Structural(frozenset({"axis"}), lambda count, static:
                        f"_rt.stack({{0}}, {static.get('axis', 0)})", _none, _stack_adjoint,
                        positional=("axis", "out")),
    "reshape": Structural(frozenset(), lambda count, static:
                          "np.ascontiguousarray({0}).reshape({1})", _none, _reshape_adjoint,
                          2, ("order",)),
    "trace": Structural(frozenset(), lambda count, static: "np.trace({0})",
                        lambda op: [(0, SHAPE)], _trace_adjoint,
                        positional=("offset", "axis1", "axis2", "dtype", "out")),
    "concatenate": Structural(frozenset({"axis"}), _concatenate_primal, _concatenate_reads,
                              _concatenate_adjoint, positional=("axis", "out")),
}
#: the operations written as syntax rather than calls: their reads and adjoints
SYNTAX = {
    "matmul": Structural(frozenset(), None, lambda op: [(0, VALUE), (1, VALUE)],
                         _product_adjoint),
    "transpose": STRUCTURAL["transpose"],
    "array": Structural(frozenset(), None, lambda op: [], _array_adjoint),
    "vjps": Structural(frozenset(), None, _vjp_reads, _vjp_adjoint),
    "append": Structural(frozenset(), None, lambda op: [(1, SHAPE)], _append_adjoint),
    # a recursive function's call: its adjoint (written by the emitter) calls the
    # function's own, which takes the operands again
    "call": Structural(frozenset(), None,
                       lambda op: [(k, VALUE) for k in range(len(op.args))], None),
    "getitem": Structural(frozenset(), None,
                          lambda op: [(k, VALUE) for k in range(1, len(op.args))],
                          _getitem_adjoint),
}


def rule_of(op):
    """The :class:`Structural` of a non-elementwise operation."""
    return SYNTAX.get(op.adjoint) or STRUCTURAL[op.adjoint]

