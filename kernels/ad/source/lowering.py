"""Lowering a function's syntax tree to the source engine's SSA form (:mod:`.ir`).

Expressions are flattened into one primitive per statement (a Wengert list); the parts
that cannot carry a derivative (constants, shapes, conditions, indices, calls of ``len``
and ``range``) stay Python as written, renamed to the current SSA names. Activity is
decided here: a value is active when it is computed from a parameter. Loop headers use
the conservative, flow-insensitive answer of a fixpoint over the whole function.
"""

import ast
import copy
import operator
from collections.abc import Callable
from typing import NamedTuple

import numpy as np

from .. import rules
from . import runtime as rt
from .calls import CallLowering
from .ir import (
    Block,
    Build,
    Carried,
    Copy,
    Function,
    If,
    Loop,
    Op,
    Plain,
    Ref,
    Stream,
    Unpack,
    Value,
)
from .parse import (
    Where,
    check,
    check_no_comprehension,
    error,
    function_node,
    rewrite_appends,
    rewrite_comprehensions,
    rewrite_jumps,
    rewrite_loop_returns,
    rewrite_returns,
    shared_names,
)
from .scope import (
    MISSING,
    EnumerateHeader,
    Names,
    Scope,
    SeqHeader,
    ZipHeader,
    is_concatenator,
    stored,
)


class _Operator(NamedTuple):
    """A Python operator: the function with its rule, its symbol and the short name its
    generated vjp helpers carry."""

    fn: Callable
    symbol: str
    short: str


#: Python's operators in the syntax tree, as named in the one table of rules.BINARY_OPERATORS
#: and UNARY_OPERATORS (the short names name the generated vjp helpers)
_AST_BINARY = {ast.Add: ("add", "+", "add"), ast.Sub: ("sub", "-", "sub"),
               ast.Mult: ("mul", "*", "mul"), ast.Div: ("truediv", "/", "div"),
               ast.Pow: ("pow", "**", "pow"), ast.MatMult: ("matmul", "@", "matmul"),
               ast.Mod: ("mod", "%", "mod")}
_BINARY = {node: _Operator(rules.BINARY_OPERATORS[name], symbol, short)
           for node, (name, symbol, short) in _AST_BINARY.items()}
_UNARY = {ast.USub: _Operator(rules.UNARY_OPERATORS["neg"], "-", "neg"),
          ast.UAdd: _Operator(rules.UNARY_OPERATORS["pos"], "+", "pos")}
#: rules whose vjps return their argument's shape (no broadcasting to undo)
_EXACT = {operator.matmul, np.trace, np.transpose, np.sum, np.mean, np.reshape,
          operator.getitem}
#: rules whose vjps may return a sparse Scatter
_SPARSE = {operator.getitem, np.take}
_RETURN = "<return>"  # the pseudo-variable tail returns assign


class _VjpKey(NamedTuple):
    """The helper key of the vjp of argument ``arg`` of a statically known rule."""

    short: str
    arg: int


def _literal(e):
    if isinstance(e, ast.Constant):
        return True
    if isinstance(e, ast.UnaryOp) and isinstance(e.op, (ast.USub, ast.UAdd)):
        return isinstance(e.operand, ast.Constant)
    return isinstance(e, ast.Tuple) and all(map(_literal, e.elts))


class _Lowerer(CallLowering):
    def __init__(self, fn, node, filename, constants=frozenset()):
        self.fn, self.node, self.where = fn, node, Where(filename, fn.__qualname__)
        self.constants = constants
        code = fn.__code__
        params = list(code.co_varnames[:code.co_argcount + code.co_kwonlyargcount])
        if isinstance(node, ast.Lambda):
            stmts = [ast.copy_location(ast.Return(value=node.body), node.body)]
        else:
            stmts = node.body
        used = {n.id for n in ast.walk(node) if isinstance(n, ast.Name)}
        flags = Names(used | set(params) | set(code.co_names))
        stmts = rewrite_comprehensions(stmts, flags.numbered)
        stmts = rewrite_returns(rewrite_loop_returns(stmts, flags.numbered))
        check_no_comprehension(stmts, self.where)
        stmts = rewrite_jumps(stmts, lambda kind: flags.numbered(f"_{kind}"))
        stmts = rewrite_appends(stmts, set(params) | set(stored(stmts)))
        self.scope = scope = Scope(fn, stmts, params, used | flags.issued, constants)
        self.shared = shared_names(stmts)
        self.params, self.stmts, self.names, self.locals = params, stmts, scope.names, scope.locals
        self.loads = [n for s in stmts for n in ast.walk(s)
                      if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Load)]
        self.helpers, self._helper_names = {}, {}
        self.env, self.block, self.line = {}, None, node.lineno

    # -- helpers bound into the generated code --------------------------------------------

    def helper(self, key, obj=None):
        """The generated name of a runtime helper (``rt.HELPERS[key]`` unless ``obj``)."""
        name = self._helper_names.get(key)
        if name is None:
            base = key if isinstance(key, str) else f"_{key.short}_d{key.arg}"
            name = self._helper_names[key] = self.names.exact(
                base if base.startswith("_") or base == "slice" else "_" + base)
            self.helpers[name] = rt.HELPERS[key] if obj is None else obj
        return name

    def vjp(self, fn, short, i):
        obj = rt.static_vjp(fn, i)
        return None if obj is None else self.helper(_VjpKey(short, i), obj)

    def active(self, e):
        return self.scope.act(e, lambda n: n in self.env and self.env[n].active)

    # -- emitting ----------------------------------------------------------------------------

    def emit(self, stmt):
        self.block.stmts.append(stmt)

    def new(self, hint, active, base="_t"):
        v = Value(self.names.version(hint) if hint else self.names.numbered(base), active,
                  self.block)
        self.block.defs.append(v)
        return v

    def lookup(self, node):
        v = self.env.get(node.id)
        if v is None:
            raise error(f"local variable '{node.id}' used where it may be unassigned", node,
                        self.where)
        return v

    def plain(self, e):
        """``e`` as Python text, local names renamed to their current SSA values."""
        lowerer = self

        class Rename(ast.NodeTransformer):
            def visit_Name(self, node):
                if isinstance(node.ctx, ast.Load) and node.id in lowerer.locals:
                    return ast.copy_location(ast.Name(lowerer.lookup(node).name, ast.Load()),
                                             node)
                return node
        return ast.unparse(Rename().visit(copy.deepcopy(e)))

    def plain_ref(self, e, hint=None):
        text = self.plain(e)
        if _literal(e):
            return Ref(text=f"({text})" if text[0] in "-+" else text)
        if isinstance(e, ast.Name):
            return Ref(self.lookup(e)) if e.id in self.locals else Ref(text=text)
        if isinstance(e, ast.Attribute) and self.scope.resolve(e.value) is not MISSING:
            return Ref(text=text)  # np.pi: a module attribute
        v = self.new(hint, False)
        self.emit(Plain(self.line, f"{v} = {text}"))
        return Ref(v)

    def as_value(self, ref, hint=None):
        if ref.value is not None:
            return ref.value
        v = self.new(hint, False)
        self.emit(Plain(self.line, f"{v} = {ref}"))
        return v

    # -- statements --------------------------------------------------------------------------

    def lower_stmts(self, stmts, tail):  # noqa: C901 - one branch per statement kind
        for i, s in enumerate(stmts):
            self.line = s.lineno
            last = tail and i == len(stmts) - 1
            if isinstance(s, ast.Return):
                if not last:
                    raise error("return before the end of the function (end each branch of "
                                "a final if/else with a return instead)", s, self.where)
                if s.value is None:
                    raise error("return without a value", s, self.where)
                self.env[_RETURN] = self.as_value(self.expr(s.value))
            elif last and not isinstance(s, ast.If):
                raise error("a function that does not end with a return statement", s,
                            self.where)
            elif isinstance(s, ast.If):
                self.lower_if(s, last)
            elif isinstance(s, ast.For):
                self.lower_for(s)
            elif isinstance(s, ast.While):
                self.lower_while(s)
            elif isinstance(s, ast.Assign):
                self.assign(s.targets, s.value)
            elif isinstance(s, ast.AugAssign):
                if s.target.id in self.shared and self.active(s.target):
                    raise error(f"in-place {ast.unparse(s).split(' ')[1]} on '{s.target.id}', "
                                f"whose array another name or a view shares (numpy would "
                                f"change both; write {s.target.id} = {s.target.id} "
                                f"{ast.unparse(s).split(' ')[1][:-1]} ...)", s, self.where)
                load = ast.copy_location(ast.Name(s.target.id, ast.Load()), s.target)
                self.assign([s.target], ast.copy_location(ast.BinOp(load, s.op, s.value), s))
            elif isinstance(s, ast.AnnAssign):
                if s.value is not None:
                    self.assign([s.target], s.value)
            elif isinstance(s, ast.Expr):
                self.expression_statement(s)
            elif isinstance(s, (ast.Assert, ast.Raise)):
                self.emit(Plain(s.lineno, self.plain(s)))
            elif not isinstance(s, ast.Pass):
                raise error(f"{type(s).__name__} statement", s, self.where)

    def expression_statement(self, s):
        """A call whose value is unused: plain, unless it touches a differentiable value,
        which it could only affect by mutating it: refused rather than differentiated as if
        it had not happened (``items.append(v)`` was rewritten before: parse.rewrite_appends)."""
        e = s.value
        if isinstance(e, ast.Constant) and isinstance(e.value, str):
            return  # a docstring
        if self.active(e):
            raise error("a call on a differentiable value whose result is unused (only a "
                        "mutation could matter, and only list.append is differentiated)",
                        e, self.where)
        self.emit(Plain(s.lineno, self.plain(e)))  # value unused: no derivative

    def target_text(self, t):
        """Bind the names of an assignment target to new inactive values; its text."""
        if isinstance(t, ast.Name):
            v = self.new(t.id, False)
            self.env[t.id] = v
            return v.name
        parts = [self.target_text(e) for e in t.elts]
        return f"({', '.join(parts)}{',' if len(parts) == 1 else ''})"

    def assign(self, targets, value):
        if not self.active(value):
            text = self.plain(value)  # before the targets: it reads the old versions
            self.emit(Plain(self.line, " = ".join(map(self.target_text, targets)) + f" = {text}"))
            return
        t0 = targets[0]
        if (len(targets) == 1 and isinstance(t0, (ast.Tuple, ast.List))
                and isinstance(value, (ast.Tuple, ast.List)) and len(value.elts) == len(t0.elts)):
            refs = [self.expr(v, t.id if isinstance(t, ast.Name) else None)
                    for t, v in zip(t0.elts, value.elts)]
            for t, r in zip(t0.elts, refs):
                self.bind(t, r)
            return
        ref = self.expr(value, t0.id if len(targets) == 1 and isinstance(t0, ast.Name) else None)
        for t in targets:
            self.bind(t, ref)

    def bind(self, t, ref):
        if isinstance(t, ast.Name):
            self.env[t.id] = self.as_value(ref, t.id)
        elif not ref.active:
            self.emit(Plain(self.line, f"{self.target_text(t)} = {ref}"))
        else:
            outs = [self.new(e.id if isinstance(e, ast.Name) else None, True) for e in t.elts]
            self.emit(Unpack(self.line, outs, ref))
            for e, v in zip(t.elts, outs):
                self.bind(e, Ref(v))

    def _outside(self, stmt):
        inside = {id(n) for n in ast.walk(stmt)}
        return {n.id for n in self.loads if id(n) not in inside}

    def lower_if(self, s, tail):
        tests, bodies, node = [], [], s
        while True:
            tests.append(self.plain(node.test))
            bodies.append(node.body)
            if len(node.orelse) == 1 and isinstance(node.orelse[0], ast.If):
                node = node.orelse[0]
                continue
            tests.append(None)
            bodies.append(node.orelse)
            break
        if tail and not bodies[-1]:
            raise error("a final if without else (the function must return on every path)",
                        s, self.where)
        self.branches(s.lineno, tests, [lambda b=b: self.lower_stmts(b, tail) for b in bodies],
                      self._outside(s))

    def branches(self, line, tests, fills, outside):
        outer, env0 = self.block, self.env
        blocks, envs = [], []
        for fill in fills:
            self.block, self.env = Block(outer.loop), dict(env0)
            fill()
            blocks.append(self.block)
            envs.append(self.env)
        self.block, self.env = outer, dict(env0)
        changed = dict.fromkeys(n for e in envs for n, v in e.items() if env0.get(n) is not v)
        for name in changed:
            incoming = [e.get(name) for e in envs]
            if not (name in env0 or name in outside or None not in incoming):
                continue  # assigned on some paths only and never read after: no join needed
            phi = self.new(None if name.startswith("<") else name,
                           any(v.active for v in incoming if v is not None), "_r")
            for b, v in zip(blocks, incoming):
                if v is not None:
                    b.stmts.append(Copy(line, phi, Ref(v)))
            self.env[name] = phi
        self.emit(If(line, tests, blocks, self.new(None, False, "_br")))

    def lower_for(self, s):
        shape = self.scope.shape(s.target, s.iter)
        seqs = {id(leaf.seq): self.expr(leaf.seq) for leaf in shape.leaves()}  # evaluated once
        unpacks = []  # (target, element value) of tuple targets, unpacked after the header

        def header(loop):
            def target(leaf):
                t, ref = leaf.target, seqs[id(leaf.seq)]
                if isinstance(t, ast.Name):
                    v = self.new(t.id, ref.active)
                    self.env[t.id] = v
                else:
                    v = self.new(None, ref.active, "_e")
                    unpacks.append((t, v))
                if ref.active:
                    loop.streams.append(Stream(ref, v))
                return v.name

            def render(sh):
                """The header's target pattern and iterable, as Python text."""
                if isinstance(sh, SeqHeader):
                    return target(sh), str(seqs[id(sh.seq)])
                if isinstance(sh, ZipHeader):
                    parts = [target(leaf) for leaf in sh.parts]
                    zipped = ", ".join(str(seqs[id(leaf.seq)]) for leaf in sh.parts)
                    return f"({', '.join(parts)})", f"{self.plain(sh.callee)}({zipped})"
                assert isinstance(sh, EnumerateHeader)
                start = "".join(f", {self.plain(a)}" for a in sh.start)
                index = self.new(sh.index.id, False)
                self.env[sh.index.id] = index
                pattern, inner = render(sh.inner)
                return f"({index}, {pattern})", f"{self.plain(sh.callee)}({inner}{start})"

            pattern, iterable = render(shape)
            for t, v in unpacks:
                self.bind(t, Ref(v))
            return f"for {pattern} in {iterable}:"

        self.loop(s, header, ())

    def lower_while(self, s):
        test_loads = {n.id for n in ast.walk(s.test) if isinstance(n, ast.Name)}
        self.loop(s, lambda loop: f"while {self.plain(s.test)}:", test_loads)

    def loop(self, s, header, extra_loads):
        outer = self.block
        assigned = stored([s.target] + s.body if isinstance(s, ast.For) else s.body)
        outside = self._outside(s) | set(extra_loads)
        carried = [n for n in assigned if n in self.env or n in outside]
        count = self.new(None, False, "_n")
        loop = Loop(s.lineno, None, Block(None), [], [], count, self.names.numbered("_st"))
        loop.body.loop = loop
        self.block = loop.body
        heads = {}  # name -> (header value, entry Ref or None)
        for name in carried:
            entry = self.env.get(name)
            head = self.new(name, name in self.scope.active_names)
            heads[name] = head, None if entry is None else Ref(entry)
            self.env[name] = head
        loop.header = header(loop)
        self.lower_stmts(s.body, False)
        if getattr(s, "ad_exit", None):
            loop.exit = Ref(self.env[s.ad_exit])
        self.block = outer
        for name, (head, entry) in heads.items():
            end = self.env.get(name)
            after = self.new(name, head.active)
            loop.carried.append(Carried(head, entry,
                                        None if end is None or end is head else Ref(end), after))
            self.env[name] = after
        for name in assigned:
            if name not in carried:
                self.env.pop(name, None)
        self.emit(loop)

    # -- expressions -------------------------------------------------------------------------

    def expr(self, e, hint=None):
        """Lower ``e``: a Ref to an SSA value, or to constant text when ``e`` is inactive."""
        if not self.active(e):
            return self.plain_ref(e, hint)
        t = type(e)
        if t is ast.Name:
            return Ref(self.lookup(e))
        if t is ast.BinOp and type(e.op) in _BINARY:
            op = _BINARY[type(e.op)]
            left, right = self.expr(e.left), self.expr(e.right)
            return self.static(hint, op.fn, op.short, [left, right],
                               f"{left} {op.symbol} {right}")
        if t is ast.UnaryOp and type(e.op) in _UNARY:
            op = _UNARY[type(e.op)]
            x = self.expr(e.operand)
            return self.static(hint, op.fn, op.short, [x], f"{op.symbol}{x}")
        if t is ast.Call:
            return self.call(e, hint)
        if t is ast.Attribute and e.attr in rules.ATTRIBUTES:
            x = self.expr(e.value)
            fn = rules.ATTRIBUTES[e.attr]
            short = "transpose" if e.attr == "T" else e.attr
            return self.static(hint, fn, short, [x], f"{x}.{e.attr}")
        if t is ast.Subscript and is_concatenator(self.scope.resolve(e.value)):
            return self.concatenator(e, hint)
        if t is ast.Subscript:
            x = self.expr(e.value)
            index = self.plain_ref(self._index(e.slice))
            return self.static(hint, operator.getitem, "getitem", [x, index], f"{x}[{index}]")
        if t in (ast.Tuple, ast.List):
            items = [self.expr(v) for v in e.elts]
            out = self.new(hint, True)
            self.emit(Build(self.line, out, items, "()" if t is ast.Tuple else "[]"))
            return Ref(out)
        if t is ast.IfExp:
            return self.ifexp(e, hint)
        what = {ast.BinOp: lambda: f"operator {ast.unparse(e).split(' ')[1]!r}",
                ast.UnaryOp: lambda: "operator ~", ast.BoolOp: lambda: "and/or",
                ast.Attribute: lambda: f"attribute .{e.attr}"}.get(t, lambda: t.__name__)()
        raise error(f"{what} on a differentiable value", e, self.where)

    def static(self, hint, fn, short, args, primal, kwargs=()):
        dynamic = self.keyword_call(hint, fn, short, args, kwargs)
        if dynamic is not None:
            return dynamic
        out = self.new(hint, True)
        vjps = [self.vjp(fn, short, i) if a.active else None for i, a in enumerate(args)]
        self.emit(Op(self.line, out, args, kwargs, primal=primal, vjps=vjps,
                     scatter=fn in _SPARSE,
                     exact=fn in _EXACT or isinstance(fn, np.ufunc) and fn.nin == 1))
        return Ref(out)

    def _index(self, e):
        """An index as an expression building the index object (slices as slice(...))."""
        if isinstance(e, ast.Slice):
            parts = [p if p is not None else ast.Constant(None) for p in (e.lower, e.upper, e.step)]
            return ast.Call(ast.Name(self.helper("slice", slice), ast.Load()), parts, [])
        if isinstance(e, ast.Tuple) and any(isinstance(v, ast.Slice) for v in e.elts):
            return ast.Tuple([self._index(v) for v in e.elts], ast.Load())
        return e

    def ifexp(self, e, hint):
        key = f"<ifexp {id(e)}>"

        def fill(branch):
            def run():
                self.env[key] = self.as_value(self.expr(branch))
            return run
        self.branches(self.line, [self.plain(e.test), None], [fill(e.body), fill(e.orelse)],
                      {key})
        phi = self.env.pop(key)
        return Ref(phi)

    def run(self):
        top = self.block = Block(None)
        params = []
        for name in self.params:
            params.append(self.new(name, name not in self.constants))
            self.env[name] = params[-1]
        self.lower_stmts(self.stmts, True)
        a = self.node.args
        parts = [p.arg for p in a.posonlyargs] + (["/"] if a.posonlyargs else [])
        parts += [p.arg for p in a.args] + (["*"] if a.kwonlyargs else [])
        parts += [p.arg for p in a.kwonlyargs]
        name = self.fn.__name__ if self.fn.__name__.isidentifier() else "lambda_"
        return Function(name=self.names.exact(name), signature=", ".join(parts),
                        params=params, body=top, result=Ref(self.env[_RETURN]),
                        helpers=self.helpers, freevars=list(self.scope.freevars),
                        filename=self.where.filename, line=self.node.lineno, names=self.names,
                        helper=self.helper)


def lower(fn, constants=frozenset()):
    """The SSA form of the Python function ``fn`` (SourceTransformError if it cannot be);
    the parameters named in ``constants`` hold data, never differentiated."""
    node, filename = function_node(fn)
    check(node, Where(filename, fn.__qualname__))
    return _Lowerer(fn, node, filename, constants).run()
