"""What the names of a function being lowered refer to, and which of them may carry a
derivative (activity), for the source engine.

Globals, closure cells and module attributes are resolved when the function is transformed,
so that calls of functions with no derivative (``len``, ``range``, ``np.shape``) and of the
builtins the engine handles itself (``map``, ``sum``, ``zip``, ``enumerate``) are known then;
every other call is dispatched when it runs. A name is *active* if it may hold a value
computed from a parameter: a fixpoint over all assignments of the function, which loop
headers use (their values come from later iterations too).
"""

import ast
import builtins
import types
from typing import NamedTuple

import numpy as np

from .. import rules
from .._arrays import original
from .runtime import PLAIN

_QUERIES = rules.QUERIES  # attributes with no derivative
#: methods whose results carry no derivative (x.argmax(), x.round())
_QUERY_METHODS = {name for name, fn in rules.METHODS.items() if fn in rules.NONDIFFERENTIABLE}
_SPECIAL = {id(map): "map", id(sum): "sum", id(zip): "zip", id(enumerate): "enumerate"}
MISSING = object()
_CONCATENATORS = (np.r_, np.c_)


def is_concatenator(obj):
    """Whether ``obj`` is np.r_ or np.c_ (by identity: ``==`` would compare arrays)."""
    return any(obj is c for c in _CONCATENATORS)


class Names:
    """Python names for the generated code, none equal to a name the user's code uses."""

    def __init__(self, reserved):
        self.reserved, self.issued, self.counts = set(reserved), set(), {}

    def _free(self, name):
        return name not in self.reserved and name not in self.issued

    def numbered(self, base):
        k = self.counts.get(base, 0)
        while True:
            k += 1
            name = f"{base}{k}"
            if self._free(name):
                self.counts[base] = k
                self.issued.add(name)
                return name

    def exact(self, name):
        """``name`` itself if free, else a numbered variant."""
        if self._free(name):
            self.issued.add(name)
            return name
        return self.numbered(name)

    def version(self, name):
        """The next SSA name of the user's variable ``name`` (the first is ``name``)."""
        if name not in self.issued:
            self.issued.add(name)
            return name
        return self.numbered(name + "_")


def stored(nodes):
    """The names ``nodes`` assign, in order of first assignment."""
    return dict.fromkeys(n.id for node in nodes for n in ast.walk(node)
                         if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Store))


class SeqHeader(NamedTuple):
    """``for target in seq``: the targets take the elements of one sequence."""

    target: ast.expr
    seq: ast.expr

    def leaves(self):
        """The :class:`SeqHeader` of each sequence the header walks (here: itself)."""
        return [self]


class ZipHeader(NamedTuple):
    """``for a, b in zip(p, q)``: a :class:`SeqHeader` per zipped sequence; ``callee``: the
    expression that names ``zip``."""

    parts: list[SeqHeader]
    callee: ast.expr

    def leaves(self):
        return list(self.parts)


class EnumerateHeader(NamedTuple):
    """``for i, rest in enumerate(seq, start)``: ``index``, the Name ``i``; ``inner``, the
    structure of ``rest in seq``; ``start``, the arguments after ``seq`` (none or one);
    ``callee``: the expression that names ``enumerate``."""

    index: ast.Name
    inner: "SeqHeader | ZipHeader | EnumerateHeader"
    start: list[ast.expr]
    callee: ast.expr

    def leaves(self):
        return self.inner.leaves()


class Scope:
    """The names of one function: ``locals`` (parameters and assigned names), ``names``
    (fresh names for generated code), ``active_names`` (the activity fixpoint)."""

    def __init__(self, fn, stmts, params, used, constants=frozenset()):
        code = fn.__code__
        self.fn, self.stmts, self.params = fn, stmts, params
        self.constants = constants  # parameters bound to data: never active
        self.names = Names(used | set(params) | set(code.co_freevars) | set(code.co_names))
        self.locals = set(params) | set(stored(stmts))
        self.freevars = dict(zip(code.co_freevars, fn.__closure__ or ()))
        self.active_names = self._fixpoint()

    def resolve(self, e):
        """The object a global or closure name (or a module attribute) refers to now
        (numpy's own, not the wrapper forward mode puts in its place while it traces)."""
        return original(self._resolve(e))

    def _resolve(self, e):
        if isinstance(e, ast.Name):
            if e.id in self.locals:
                return MISSING
            if e.id in self.freevars:
                try:
                    return self.freevars[e.id].cell_contents
                except ValueError:
                    return MISSING
            g = self.fn.__globals__
            if e.id in g:
                return g[e.id]
            b = g.get("__builtins__", builtins)
            return (b if isinstance(b, dict) else vars(b)).get(e.id, MISSING)
        if isinstance(e, ast.Attribute):
            base = self._resolve(e.value)
            if isinstance(base, types.ModuleType):
                return getattr(base, e.attr, MISSING)
        return MISSING

    def callee(self, call):
        """'plain', 'method', 'map', 'sum', 'zip', 'enumerate' or 'call' (run-time dispatch)."""
        obj = self.resolve(call.func)
        if obj is MISSING:
            return "method" if isinstance(call.func, ast.Attribute) else "call"
        try:
            if obj in PLAIN or obj in rules.NONDIFFERENTIABLE:
                return "plain"
        except TypeError:  # an unhashable callable
            return "call"
        return _SPECIAL.get(id(obj), "call")

    def act(self, e, on):
        """Whether ``e`` may be active, ``on(name)`` telling it for local names."""
        t = type(e)
        if t is ast.Name:
            return e.id in self.locals and on(e.id)
        if t is ast.Attribute:
            return e.attr not in _QUERIES and self.act(e.value, on)
        if t is ast.Subscript:
            if is_concatenator(self.resolve(e.value)):  # np.r_[x, 1.0]: its items
                return self.act(e.slice, on)
            return self.act(e.value, on)
        if t is ast.Call:
            kind = self.callee(e)
            if kind == "plain" or (kind == "method" and e.func.attr in _QUERY_METHODS):
                return False
            return ((kind == "method" and self.act(e.func.value, on))
                    or any(self.act(a, on) for a in e.args)
                    or any(self.act(k.value, on) for k in e.keywords))
        if t is ast.UnaryOp:
            return not isinstance(e.op, ast.Not) and self.act(e.operand, on)
        if t is ast.BinOp:
            if isinstance(e.op, ast.FloorDiv):  # locally constant: a plain value
                return False
            return self.act(e.left, on) or self.act(e.right, on)
        if t is ast.IfExp:
            return self.act(e.body, on) or self.act(e.orelse, on)
        if t is ast.BoolOp:
            return any(self.act(v, on) for v in e.values)
        if t in (ast.Tuple, ast.List, ast.Set):
            return any(self.act(v, on) for v in e.elts)
        if t is ast.Dict:
            return any(self.act(v, on) for v in e.values)
        return False  # constants, comparisons, f-strings

    def _fixpoint(self):
        """Names that may hold an active value anywhere (loop headers use this)."""
        active = set(self.params) - self.constants
        changed = True
        while changed:
            changed = False
            for node in (n for s in self.stmts for n in ast.walk(s)):
                if isinstance(node, ast.Assign):
                    pairs = [(t, self.act(node.value, active.__contains__))
                             for t in node.targets]
                elif isinstance(node, (ast.AugAssign, ast.AnnAssign)) and node.value:
                    pairs = [(node.target, self.act(node.value, active.__contains__)
                              or self.act(node.target, active.__contains__))]
                elif isinstance(node, ast.For):
                    pairs = [(leaf.target, self.act(leaf.seq, active.__contains__))
                             for leaf in self.shape(node.target, node.iter).leaves()]
                else:
                    continue
                for name in (n for t, act in pairs if act for n in stored([t])):
                    if name not in active:
                        active.add(name)
                        changed = True
        return active

    def shape(self, target, it):
        """The structure of the for header ``for target in it``: an
        :class:`EnumerateHeader`, a :class:`ZipHeader` or a :class:`SeqHeader`."""
        if isinstance(it, ast.Call) and not it.keywords and isinstance(target, ast.Tuple):
            kind = self.callee(it)
            if (kind == "enumerate" and len(target.elts) == 2 and 1 <= len(it.args) <= 2
                    and isinstance(target.elts[0], ast.Name)):
                return EnumerateHeader(target.elts[0], self.shape(target.elts[1], it.args[0]),
                                       it.args[1:], it.func)
            if kind == "zip" and len(target.elts) == len(it.args):
                return ZipHeader([SeqHeader(t, s) for t, s in zip(target.elts, it.args)],
                                 it.func)
        return SeqHeader(target, it)
