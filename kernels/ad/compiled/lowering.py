"""Lowering a function's syntax tree to the compiled engine's SSA form (:mod:`.ir`).

The subset is what numba compiles in nopython mode and what the emitter can differentiate:
float, int and array locals; ``for`` over ``range``; ``if`` and conditional expressions on
values that carry no derivative; the operators, numpy's elementwise functions with a rule
of local partials in the rule table, and the structural operations of
:mod:`.adjoints`; lists (displays, comprehensions, ``append`` and reading an element by
index); calls of other plain Python functions of the same kind, which are inlined (a
function that calls itself is compiled as a function of its own, :class:`.ir.Callee`).
Anything else is refused with
:class:`CompileRefused`, naming the construct, the file and the line: the engine never
runs a function another way in silence.
"""

import ast
import builtins
import inspect
import numbers
import types

import numpy as np

from .. import rules
from ..source.parse import (
    SourceTransformError,
    Where,
    always_returns,
    function_node,
    rewrite_returns,
)
from . import adjoints
from .activity import walk
from .ir import ANEW, Block, Callee, Carried, Const, Copy, Function, If, Loop, Op, Value


class CompileRefused(SourceTransformError):
    """The function uses Python or numpy the compiled engine does not compile; the message
    names the construct, the file and the line."""


_BINARY = {ast.Add: "add", ast.Sub: "sub", ast.Mult: "mul", ast.Div: "truediv",
           ast.Pow: "pow", ast.MatMult: "matmul", ast.Mod: "mod", ast.FloorDiv: "floordiv"}
_SYMBOL = {"add": "+", "sub": "-", "mul": "*", "truediv": "/", "pow": "**", "matmul": "@",
           "mod": "%", "floordiv": "//"}
_COMPARE = {ast.Lt: "<", ast.LtE: "<=", ast.Gt: ">", ast.GtE: ">=", ast.Eq: "==",
            ast.NotEq: "!=", ast.Is: "is", ast.IsNot: "is not"}
#: builtins that see values and give plain answers
_PLAIN_BUILTINS = {len: "len", int: "int", min: "min", max: "max", abs: "abs", bool: "bool"}
#: numpy constructors and queries with no derivative, written as numpy calls
_PLAIN_NUMPY = ("zeros", "ones", "empty", "full", "eye", "arange", "linspace", "shape",
                "ndim", "size", "zeros_like", "ones_like", "sign", "floor", "ceil", "round",
                "argmax", "argmin", "isfinite", "isnan")


class _Frame:
    """One function being lowered (the top one, or one inlined into it): its globals and
    where errors point."""

    def __init__(self, fn, where):
        self.fn, self.where, self.globals = fn, where, fn.__globals__


class Lowering:
    def __init__(self):
        self.counter = 0
        self.frames = []
        self.helpers = {}
        self.constants = []  # (value, array) of the global arrays read
        self.guards = []  # (holder, name, is a mapping, the object found) of every free name
        # id -> the version of a list an append (or a loop appending to it) made stale: a
        # read of it, by a name that still holds it, is refused (kept, so no id is reused)
        self.superseded = {}
        self.branches = []  # the count where each if being lowered began
        self.lists = set()  # the serials of the lists made (every version has its list's)
        self.recursive = set()  # the functions found calling themselves: not inlined
        self.callees = {}  # function -> its .ir.Callee

    # -- names and errors -------------------------------------------------------------

    def fresh(self, active, block, stem="v"):
        self.counter += 1
        return Value(f"{stem}{self.counter}", active, block, self.counter)

    def refuse(self, what, node):
        where = self.frames[-1].where
        return CompileRefused(f"{what} is not compiled by the compiled engine "
                              f"({where.filename}, line {getattr(node, 'lineno', '?')}, in "
                              f"{where.function})")

    # -- the function -----------------------------------------------------------------

    def function(self, fn, data_names):
        node, filename = function_node(fn)
        self.frames.append(_Frame(fn, Where(filename, fn.__qualname__)))
        body = _statements(node)
        args = node.args
        if args.vararg or args.kwarg:
            raise self.refuse("variadic parameters (*args, **kwargs)", node)
        names = [a.arg for a in args.posonlyargs + args.args]
        keywords = [a.arg for a in args.kwonlyargs]
        top = Block(None)
        env = {}
        params, data = [], []
        for name in names + keywords:
            value = Value(name, name not in data_names and name in names, None)
            env[name] = value
            (params if value.active else data).append(value)
        result = self.body(body, env, top, last_return=True)
        self.frames.pop()
        data += [value for value, _ in self.constants]
        return Function(fn.__qualname__, params, data, top, result, filename, self.helpers,
                        {value.name: obj for value, obj in self.constants},
                        list({(id(g[0]), g[1]): g for g in self.guards}.values()),
                        {c.name: c for c in self.callees.values()})

    def body(self, stmts, env, block, last_return=False):
        """Lower ``stmts`` into ``block``; the returned operand where the function's last
        statement is its ``return``."""
        if last_return:  # ``if c: return a`` then more: the more is the else
            stmts = rewrite_returns(stmts)
        for i, stmt in enumerate(stmts):
            if (last_return and i == len(stmts) - 1 and isinstance(stmt, ast.If)
                    and always_returns(stmt.body) and always_returns(stmt.orelse)):
                return self.branch(stmt.test, stmt.body, stmt.orelse, env, block, stmt,
                                   returns=True)
            if isinstance(stmt, ast.Return):
                if not last_return or i != len(stmts) - 1:
                    raise self.refuse("return before the end of the function (in a loop, "
                                      "a branch or followed by code)", stmt)
                if stmt.value is None:
                    raise self.refuse("return without a value", stmt)
                return self.expr(stmt.value, env, block)
            self.statement(stmt, env, block)
        if last_return:
            raise self.refuse("a function without a final return", stmts[-1] if stmts else None)
        return None

    # -- statements -------------------------------------------------------------------

    def statement(self, stmt, env, block):
        if isinstance(stmt, ast.Assign):
            if len(stmt.targets) != 1:
                raise self.refuse("chained assignment (a = b = ...)", stmt)
            self.assign(stmt.targets[0], stmt.value, env, block, stmt)
        elif isinstance(stmt, ast.AugAssign):
            if not isinstance(stmt.target, ast.Name):
                raise self.refuse("augmented assignment into an element or attribute "
                                  "(x[i] += ...)", stmt)
            value = ast.BinOp(left=ast.Name(id=stmt.target.id, ctx=ast.Load()), op=stmt.op,
                              right=stmt.value, lineno=stmt.lineno)
            env[stmt.target.id] = self.expr(value, env, block)
            if block.stmts and isinstance(block.stmts[-1], Op):
                block.stmts[-1].augmented = True  # refused later if it updates an array
        elif isinstance(stmt, ast.For):
            self.loop(stmt, env, block)
        elif isinstance(stmt, ast.If):
            self.branch(stmt.test, stmt.body, stmt.orelse, env, block, stmt)
        elif isinstance(stmt, ast.Expr) and isinstance(stmt.value, ast.Constant):
            pass  # a docstring
        elif isinstance(stmt, ast.Expr) and _appended(stmt.value):
            name = stmt.value.func.value.id
            env[name] = self.append(stmt.value, env, block)
        elif isinstance(stmt, ast.Pass):
            pass
        else:
            raise self.refuse(_describe(stmt), stmt)

    def assign(self, target, value, env, block, stmt):
        if isinstance(target, ast.Name):
            env[target.id] = self.expr(value, env, block)
            return
        if isinstance(target, ast.Tuple) and all(isinstance(t, ast.Name) for t in target.elts):
            if isinstance(value, ast.Tuple) and len(value.elts) == len(target.elts):
                refs = [self.expr(v, env, block) for v in value.elts]
                for t, ref in zip(target.elts, refs):
                    env[t.id] = ref
                return
            source = self.expr(value, env, block)
            if source.active:
                raise self.refuse("unpacking a differentiated value into names", stmt)
            for k, t in enumerate(target.elts):
                env[t.id] = self.op(stmt, f"{{0}}[{k}]", [source], block)
            return
        if isinstance(target, ast.Subscript):
            raise self.refuse("assignment into an array (x[i] = ...)", stmt)
        raise self.refuse(f"assignment to {type(target).__name__}", stmt)

    def loop(self, stmt, env, block):
        call = stmt.iter
        if stmt.orelse:
            raise self.refuse("for ... else", stmt)
        if not isinstance(stmt.target, ast.Name):
            raise self.refuse("a for loop target that is not a name", stmt)
        seq = None
        if (isinstance(call, ast.Call) and isinstance(call.func, ast.Name)
                and call.func.id not in env and self.resolve(call.func.id, env, call) is range):
            if call.keywords or not 1 <= len(call.args) <= 3:
                raise self.refuse("range() with keywords or more than three bounds", stmt)
            bounds = [self.expr(a, env, block) for a in call.args]
        else:  # for xi in x: over the first axis, each element an index of x
            seq = self.expr(call, env, block)
            bounds = [self.op(stmt, "len({0})", [seq], block)]
        if any(b.active for b in bounds):
            raise self.refuse("a range bound computed from differentiated values", stmt)
        assigned = _stored_names(stmt.body)
        carried_names = [n for n in assigned if n in env and n != stmt.target.id]
        # a list the body appends to is one object all along: its head is the list itself
        grows = {n for n in carried_names if n in _appended_names(stmt.body)
                 and isinstance(env[n], Value)}
        active = {n for n in carried_names if env[n].active}
        saved_counter = self.counter
        while True:
            # lower the body with the heads' activity assumed; again if an end value is
            # active where its head was assumed not (a fixpoint, at most once per name)
            self.counter = saved_counter
            loop = Loop(stmt.lineno, None, bounds, None, [], None)
            body = Block(loop)
            loop.body = body
            inner = dict(env)
            heads = {n: self.fresh(n in active, block, "h") for n in carried_names}
            for n in grows:
                heads[n].name, heads[n].serial = env[n].name, env[n].serial
                self.superseded[id(env[n])] = env[n]
            inner.update(heads)
            loop.target = self.fresh(False, body, "i")
            inner[stmt.target.id] = loop.target if seq is None else self.op(
                stmt, "{0}[{1}]", [seq, loop.target], body, "getitem", (("int",), ("{1}",)))
            for s in stmt.body:
                self.statement(s, inner, body)
            grown = {n for n in carried_names if inner[n].active and n not in active}
            if not grown:
                break
            active |= grown
        for n in grows:
            if inner[n].name != heads[n].name:
                raise self.refuse(f"the list {n!r} appended to in the loop at line "
                                  f"{stmt.lineno} and rebound in it", stmt)
            # the body's appends made the head stale there; after the loop it is the list
            self.superseded.pop(id(heads[n]), None)
        loop.count = self.fresh(False, block, "n")
        for n in carried_names:
            loop.carried.append(Carried(heads[n], env[n], inner[n]))
            env[n] = heads[n]
        for n in assigned:
            if n not in env:  # the body's own: undefined after a loop that did not run
                env[n] = _Undefined(f"first assigned in the loop at line {stmt.lineno}")
        # Python leaves the target at its last value (or as it was, after no iteration):
        # the compiled code keeps neither
        env[stmt.target.id] = _Undefined(f"the variable of the for loop at line "
                                         f"{stmt.lineno}")
        block.stmts.append(loop)

    def branch(self, test, then, orelse, env, block, node, expression=False, returns=False):
        """An ``if`` statement, or with ``expression`` a conditional expression (``then``
        and ``orelse`` its two expressions), or with ``returns`` one whose every path ends
        in a return (the function's last statement): the phis' operands, or the one
        result."""
        cond = self.expr(test, env, block)
        if cond.active:
            raise self.refuse("a condition computed from differentiated values that are "
                              "not compared", node)
        flag = self.fresh(False, block, "b")
        stmt = If(node.lineno, cond, Block(block.loop), Block(block.loop), flag)
        envs = []
        self.branches.append(self.counter)
        for body, part in ((then, stmt.then), (orelse, stmt.orelse)):
            inner = dict(env)
            if expression:
                inner["\0result"] = self.expr(body, inner, part)
            elif returns:
                inner["\0result"] = self.body(body, inner, part, last_return=True)
            else:
                for s in body:
                    self.statement(s, inner, part)
            envs.append(inner)
        self.branches.pop()
        names = ["\0result"] if expression or returns else sorted(
            {n for e in envs for n in e if e.get(n) is not env.get(n)})
        for name in names:
            a, b = envs[0].get(name), envs[1].get(name)
            if a is None or b is None or isinstance(a, _Undefined) or isinstance(b, _Undefined):
                env[name] = _Undefined(f"assigned in one branch of the if at line "
                                       f"{node.lineno} only")
                continue
            if getattr(a, "serial", None) == getattr(b, "serial", 0) and a.serial in self.lists:
                # a list appended to on one path: one object, under its one name
                env[name] = Value(a.name, False, block, a.serial)
                continue
            phi = self.fresh(a.active or b.active, block, "p")
            stmt.then.stmts.append(Copy(node.lineno, phi, a))
            stmt.orelse.stmts.append(Copy(node.lineno, phi, b))
            env[name] = phi
        block.stmts.append(stmt)
        return env.pop("\0result", None)

    # -- expressions ------------------------------------------------------------------

    def op(self, node, primal, args, block, adjoint=None, static=None, out=None, **flags):
        """``out = primal`` (``out``: a new value unless given); ``flags``: :class:`Op`'s."""
        if out is None:
            out = self.fresh(adjoint is not None and any(a.active for a in args), block)
        where = self.frames[-1].where
        at = f"{where.filename}, line {getattr(node, 'lineno', '?')}, in {where.function}"
        block.stmts.append(Op(at, out, primal, list(args), adjoint, static, **flags))
        return out

    # -- lists ------------------------------------------------------------------------

    def new_list(self, node, block):
        made = self.op(node, "[]", [], block, fresh=True)
        self.lists.add(made.serial)
        return made

    def append(self, call, env, block):
        """``name.append(item)``: the list's next version, under its name."""
        if call.keywords or len(call.args) != 1:
            raise self.refuse("append with other than one item", call)
        before = self.expr(call.func.value, env, block)
        item = self.expr(call.args[0], env, block)
        return self.append_to(before, item, call, block)

    def append_to(self, before, item, node, block):
        if not isinstance(before, Value) or before.block is None:
            raise self.refuse(f"an append to {before.name} (the compiled engine appends to "
                              f"the lists a function makes, not to its arguments)", node)
        if self.branches and before.serial <= self.branches[-1] and (
                before.active or item.active):
            # the adjoint would pop the item's cotangent on one path only; a list with no
            # derivative (of indices, say) is only the primal's
            raise self.refuse("an append inside an if to a differentiated list made before "
                              "it", node)
        self.superseded[id(before)] = before
        after = Value(before.name, before.active or item.active, block, before.serial)
        return self.op(node, "{0}.append({1})", [before, item], block, "append",
                       out=after, inplace=True)

    def expr_List(self, node, env, block):
        out = self.new_list(node, block)
        for element in node.elts:
            if isinstance(element, ast.Starred):
                raise self.refuse("*unpacking in a list", node)
            out = self.append_to(out, self.expr(element, env, block), node, block)
        return out

    def expr_ListComp(self, node, env, block):
        """``[elt for target in iter]``: a new list and a loop appending to it, in a scope
        of its own (its target and the list's name do not leak)."""
        if len(node.generators) != 1:
            raise self.refuse("a list comprehension with more than one for", node)
        generator = node.generators[0]
        scope, name = dict(env), f"\0list{self.counter}"
        scope[name] = self.new_list(node, block)
        grow = ast.Expr(value=ast.Call(
            func=ast.Attribute(value=ast.Name(id=name, ctx=ast.Load()), attr="append",
                               ctx=ast.Load()), args=[node.elt], keywords=[]))
        body = [grow]
        for test in reversed(generator.ifs):  # [x for c in r if t]: the append under if t
            body = [ast.If(test=test, body=body, orelse=[])]
        loop = ast.For(target=generator.target, iter=generator.iter, body=body, orelse=[])
        self.loop(ast.fix_missing_locations(ast.copy_location(loop, node)), scope, block)
        return scope[name]

    def expr(self, node, env, block):
        method = getattr(self, f"expr_{type(node).__name__}", None)
        if method is None:
            raise self.refuse(_describe(node), node)
        return method(node, env, block)

    def expr_Constant(self, node, env, block):
        if isinstance(node.value, (bool, int, float)) or node.value is None:
            return Const(repr(node.value))
        raise self.refuse(f"the constant {node.value!r}", node)

    def expr_Name(self, node, env, block):
        if node.id not in env:
            return self.constant(self.resolve(node.id, env, node), node)
        found = env[node.id]
        if isinstance(found, _Undefined):
            raise self.refuse(f"{node.id!r}, {found.why}, read after it", node)
        if id(found) in self.superseded:
            raise self.refuse(f"{node.id!r}, a list appended to since (by another name, or "
                              f"in a function it was passed to), read after it", node)
        return found

    def expr_BinOp(self, node, env, block):
        name = _BINARY.get(type(node.op))
        if name is None:
            raise self.refuse(f"the operator {type(node.op).__name__}", node)
        a, b = self.expr(node.left, env, block), self.expr(node.right, env, block)
        if name == "matmul":  # numba's @ takes vectors and matrices: stacks by a helper
            return self.op(node, "_rt.matmul({0}, {1})", [a, b], block, "matmul")
        text = f"({{0}} {_SYMBOL[name]} {{1}})"
        return self.elementwise(node, rules.BINARY_OPERATORS[name], text, [a, b], block)

    def expr_UnaryOp(self, node, env, block):
        a = self.expr(node.operand, env, block)
        if isinstance(node.op, ast.USub):
            if isinstance(a, Const) and a.text not in ("np", "None", "True", "False"):
                return Const(f"(-{a.text})")  # a literal: folded, not computed
            return self.elementwise(node, np.negative, "(-{0})", [a], block)
        if isinstance(node.op, ast.UAdd):
            return a
        if isinstance(node.op, ast.Not):
            return self.op(node, "(not {0})", [a], block)
        raise self.refuse(f"the operator {type(node.op).__name__}", node)

    def expr_Compare(self, node, env, block):
        if len(node.ops) != 1:
            raise self.refuse("a chained comparison (a < b < c)", node)
        a = self.expr(node.left, env, block)
        b = self.expr(node.comparators[0], env, block)
        return self.op(node, f"({{0}} {_COMPARE[type(node.ops[0])]} {{1}})", [a, b], block)

    def expr_BoolOp(self, node, env, block):
        parts = [self.expr(v, env, block) for v in node.values]
        if any(p.active for p in parts):
            raise self.refuse("and/or of differentiated values", node)
        word = " and " if isinstance(node.op, ast.And) else " or "
        return self.op(node, "(" + word.join(f"{{{k}}}" for k in range(len(parts))) + ")",
                       parts, block)

    def expr_IfExp(self, node, env, block):
        return self.branch(node.test, node.body, node.orelse, env, block, node,
                           expression=True)

    def expr_Tuple(self, node, env, block):
        parts = [self.expr(e, env, block) for e in node.elts]
        if any(p.active for p in parts):
            raise self.refuse("a tuple of differentiated values (outside np.concatenate)",
                              node)
        comma = "," if len(parts) == 1 else ""
        if all(isinstance(p, Const) for p in parts):  # a literal: axes, a shape
            return Const(f"({', '.join(p.text for p in parts)}{comma})")
        inner = ", ".join(f"{{{k}}}" for k in range(len(parts)))
        return self.op(node, f"({inner}{comma})", parts, block)

    def elementwise(self, node, fn, text, args, block):
        if not any(a.active for a in args):
            return self.op(node, text, args, block)
        rule = rules.RULES.get(fn)
        partials = adjoints.partials(rule) if rule is not None else None
        if partials is None:
            return self.by_vjps(node, fn, rule, text, args, block)
        static = adjoints.Elementwise(
            [self.partial_name(rule, i, p, node) for i, p in enumerate(partials)], partials,
            [adjoints.constant_partial(p) if p is not None else None for p in partials],
            [adjoints.partial_expression(p, self.helpers) if p is not None else None
             for p in partials])
        return self.op(node, text, args, block, "elementwise", static)

    def by_vjps(self, node, fn, rule, text, args, block):
        """A rule of one vjp per argument (a user's ``defrule``, numpy's non-elementwise
        functions): each vjp generated into numba source from its own code, as the
        partials are; numba refuses the ones it cannot compile."""
        what = rule.name if rule is not None else getattr(fn, "__name__", fn)
        vjps = adjoints.vjps(rule) if rule is not None else None
        if vjps is None or len(vjps) < len(args):
            raise self.refuse(f"{what} (its rule is neither local partials nor one vjp per "
                              f"argument)", node)
        names = []
        for i, vjp in enumerate(vjps[:len(args)]):
            if vjp is None or not args[i].active:
                names.append(None)
                continue
            try:
                names.append(adjoints.vjp_source(rule, i, vjp, self.helpers))
            except adjoints.NotCompilable as e:
                raise self.refuse(f"{what}'s derivative ({e})", node) from None
        return self.op(node, text, args, block, "vjps",
                       adjoints.Vjps(names, list(vjps[:len(args)])))

    def partial_name(self, rule, i, partial, node):
        """The generated function computing ``partial`` (None: not differentiable)."""
        if partial is None:
            return None
        try:
            return adjoints.partial_source(rule, i, partial, self.helpers)
        except adjoints.NotCompilable as e:
            raise self.refuse(f"{rule.name}'s derivative ({e})", node) from None

    def expr_Subscript(self, node, env, block):
        x = self.expr(node.value, env, block)
        items = node.slice.elts if isinstance(node.slice, ast.Tuple) else [node.slice]
        args, parts, layout = [x], [], []
        for item in items:
            if isinstance(item, ast.Slice):
                bounds = []
                for b in (item.lower, item.upper, item.step):
                    if b is None:
                        bounds.append("")
                        continue
                    ref = self.expr(b, env, block)
                    if ref.active:
                        raise self.refuse("a slice bound computed from differentiated "
                                          "values", node)
                    args.append(ref)
                    bounds.append(f"{{{len(args) - 1}}}")
                parts.append(":".join(bounds[:2]) + (f":{bounds[2]}" if bounds[2] else ""))
                layout.append("slice")
            elif isinstance(item, ast.Constant) and item.value is None:
                parts.append("None")
                layout.append("none")
            elif isinstance(item, (ast.List, ast.Starred)) or (
                    isinstance(item, ast.Constant) and item.value is Ellipsis):
                raise self.refuse("advanced indexing (an index that is a list, an array or "
                                  "...)", node)
            else:
                ref = self.expr(item, env, block)
                if ref.active:
                    raise self.refuse("an index computed from differentiated values", node)
                if isinstance(ref, Value) and ref.serial in self.lists:
                    # numba indexes with an array, not a list: numpy's meaning is the same
                    ref = self.op(node, "np.array({0})", [ref], block)
                args.append(ref)
                parts.append(f"{{{len(args) - 1}}}")
                layout.append("int")
        text = "{0}[" + ", ".join(parts) + "]"
        return self.op(node, text, args, block, "getitem", (tuple(layout), tuple(parts)))

    def expr_Attribute(self, node, env, block):
        if isinstance(node.value, ast.Name) and node.value.id not in env:
            owner = self.resolve(node.value.id, env, node)
            if isinstance(owner, types.ModuleType):
                return self.constant(self.guarded(owner, node.attr, False), node, owner)
        x = self.expr(node.value, env, block)
        if node.attr in ("shape", "ndim", "size"):
            return self.op(node, f"{{0}}.{node.attr}", [x], block)
        if node.attr == "T":
            return self.op(node, "{0}.T", [x], block, "transpose")
        raise self.refuse(f"the attribute .{node.attr}", node)

    def expr_Call(self, node, env, block):
        func = node.func
        if isinstance(func, ast.Attribute) and not (
                isinstance(func.value, ast.Name) and func.value.id not in env
                and isinstance(self.resolve(func.value.id, env, func), types.ModuleType)):
            method = rules.METHODS.get(func.attr)
            if method is None:
                raise self.refuse(f"the method .{func.attr}()", node)
            x = self.expr(func.value, env, block)
            if func.attr in rules.PACKED and len(node.args) > 1:
                node = ast.Call(func=func, args=[ast.Tuple(elts=node.args, ctx=ast.Load())],
                                keywords=node.keywords, lineno=node.lineno)
            return self.numpy_call(method, [x] + [self.expr(a, env, block) for a in node.args],
                                   node, env, block)
        target = self.expr_object(func, env)
        # checkpoint(fn) marks fn to be recomputed by the source engine; compiled, its
        # intermediates are kept as any others': it is fn
        target = getattr(target, "__ad_checkpoint__", target)
        if isinstance(target, types.FunctionType) and target in rules.RULES:
            return self.primitive(target, node, env, block)
        if isinstance(target, types.FunctionType) and not (
                target.__module__ or "").startswith("numpy"):  # np.ones is Python too
            return self.inline(target, node, env, block)
        if target is np.concatenate:  # its operands are the display's items
            return self.numpy_call(target, [], node, env, block)
        if (target in (np.array, np.asarray) and len(node.args) == 1 and not node.keywords
                and isinstance(node.args[0], (ast.List, ast.Tuple))):
            items = [self.expr(e, env, block) for e in node.args[0].elts]
            if not items:
                raise self.refuse("np.array of an empty list", node)
            text = "np.array([" + ", ".join(f"{{{k}}}" for k in range(len(items))) + "])"
            return self.op(node, text, items, block, "array")
        args = [self.expr(a, env, block) for a in node.args]
        if target in _PLAIN_BUILTINS:
            if target is not len and any(a.active for a in args):
                raise self.refuse(f"{_PLAIN_BUILTINS[target]}() of a differentiated value",
                                  node)
            return self.op(node, f"{_PLAIN_BUILTINS[target]}(" + ", ".join(
                f"{{{k}}}" for k in range(len(args))) + ")", args, block)
        if target is float:
            if any(a.active for a in args):
                raise self.refuse("float() of a differentiated value (it escapes tracing)",
                                  node)
            return self.op(node, "float({0})", args, block)
        return self.numpy_call(target, args, node, env, block)

    def numpy_call(self, fn, args, node, env, block):
        name = _numpy_name(fn)
        if name is None:
            raise self.refuse(f"a call of {getattr(fn, '__qualname__', fn)!r} (not numpy, "
                              f"not a plain Python function)", node)
        keywords = {}
        for kw in node.keywords:
            if kw.arg is None:
                raise self.refuse("**keywords in a call", node)
            keywords[kw.arg] = kw.value
        if name in _PLAIN_NUMPY or fn in rules.NONDIFFERENTIABLE:
            if any(a.active for a in args):
                raise self.refuse(f"np.{name} of a differentiated value", node)
            refs = args + [self.expr(v, env, block) for v in keywords.values()]
            texts = [f"{{{k}}}" for k in range(len(args))] + [
                f"{k}={{{len(args) + j}}}" for j, k in enumerate(keywords)]
            return self.op(node, f"np.{name}(" + ", ".join(texts) + ")", refs, block)
        structural = adjoints.STRUCTURAL.get(name)
        if structural is not None:
            return self.structural_call(name, structural, args, keywords, node, env, block)
        if keywords:
            raise self.refuse(f"np.{name}(..., {', '.join(keywords)}=...)", node)
        return self.elementwise(node, fn, f"np.{name}(" + ", ".join(
            f"{{{k}}}" for k in range(len(args))) + ")", args, block)

    def structural_call(self, name, structural, args, keywords, node, env, block):
        """A structural operation (:data:`adjoints.STRUCTURAL`): its operands, and its
        other arguments, positional or keyword, as constants in its ``static``."""
        if name == "concatenate":
            parts = node.args[0] if node.args else None
            if not isinstance(parts, (ast.Tuple, ast.List)):
                raise self.refuse("np.concatenate of anything but a tuple or list "
                                  "display", node)
            operands = [self.expr(e, env, block) for e in parts.elts]
            args = [self.expr(a, env, block) for a in node.args[1:]]
        else:
            operands, args = args[:structural.operands], args[structural.operands:]
        if len(args) > len(structural.positional):
            raise self.refuse(f"np.{name} with {len(args)} arguments after its "
                              f"operands", node)
        static = {}
        for key, ref in zip(structural.positional, args):
            if key in keywords:
                raise self.refuse(f"np.{name}'s {key} given twice", node)
            static[key] = ref  # a positional argument is its keyword
        for key, value in keywords.items():
            static[key] = self.expr(value, env, block)  # a literal or a global's: a Const
        for key, ref in list(static.items()):
            if isinstance(ref, Const) and ref.text == "None":
                del static[key]  # numpy's default, wherever None is taken
                continue
            if key not in structural.keywords or not isinstance(ref, Const):
                raise self.refuse(f"np.{name}(..., {key}=...) (keywords the engine "
                                  f"compiles: {sorted(structural.keywords) or 'none'}, as "
                                  f"constants)", node)
            static[key] = ast.literal_eval(ref.text)
        text = structural.primal(len(operands), static)
        return self.op(node, text, operands, block, name, static)

    def primitive(self, fn, node, env, block):
        """A user's function with a rule of partials (``rules.primitive`` and
        ``defpartials``): called, compiled from its own source, and differentiated by its
        rule, not through its code."""
        if node.keywords:
            raise self.refuse(f"keywords in the call of the primitive {fn.__qualname__}",
                              node)
        args = [self.expr(a, env, block) for a in node.args]
        try:
            name = adjoints.function_source(inspect.unwrap(fn), self.helpers)
        except adjoints.NotCompilable as e:
            raise self.refuse(f"the primitive {fn.__qualname__} ({e})", node) from None
        text = f"{name}(" + ", ".join(f"{{{k}}}" for k in range(len(args))) + ")"
        return self.elementwise(node, fn, text, args, block)

    def inline(self, fn, node, env, block):
        """The plain Python function ``fn`` called here: its body lowered in place, its
        parameters bound to the call's operands; a recursive function is called instead
        (:meth:`call`), once a call of it is found inside its own body."""
        if fn in self.recursive:
            return self.call(fn, node, env, block)
        if any(frame.fn is fn for frame in self.frames):
            raise _Recursion(fn)
        state = (len(block.stmts), len(self.frames), list(self.branches))
        try:
            fnode, inner = self.bind(fn, node, env, block)
            body = _statements(fnode)
            result = self.body(body, inner, block, last_return=True)
        except _Recursion as found:
            if found.fn is not fn:
                raise
            # what was lowered of it in place is dropped: the call replaces it
            del block.stmts[state[0]:]
            del self.frames[state[1]:]
            self.branches[:] = state[2]
            self.recursive.add(fn)
            return self.call(fn, node, env, block)
        self.frames.pop()
        return result

    def bind(self, fn, node, env, block):
        """The call's operands bound to ``fn``'s parameters (defaults as constants), in
        the order it takes them, with ``fn``'s frame entered: ``(node, names)``."""
        fnode, filename = function_node(fn)
        signature = inspect.signature(fn)
        args = [self.expr(a, env, block) for a in node.args]
        keywords = {}
        for kw in node.keywords:
            if kw.arg is None:
                raise self.refuse("**keywords in a call", node)
            keywords[kw.arg] = self.expr(kw.value, env, block)
        try:
            bound = signature.bind(*args, **keywords)
        except TypeError as e:
            raise self.refuse(f"the call of {fn.__qualname__} ({e})", node) from None
        self.frames.append(_Frame(fn, Where(filename, fn.__qualname__)))
        inner = {}
        for name, parameter in signature.parameters.items():
            if parameter.kind in (parameter.VAR_POSITIONAL, parameter.VAR_KEYWORD):
                raise self.refuse("variadic parameters (*args, **kwargs)", fnode)
            if name in bound.arguments:
                inner[name] = bound.arguments[name]
            else:
                inner[name] = self.constant(parameter.default, fnode)
        return fnode, inner

    def call(self, fn, node, env, block):
        """A call of the recursive ``fn``: an operation calling the function compiled from
        it (:class:`.ir.Callee`), lowered on its first call, and again where a call
        differentiates a parameter that the lowering assumed had no derivative."""
        fnode, inner = self.bind(fn, node, env, block)
        self.frames.pop()
        operands = list(inner.values())
        for ref in operands:
            if isinstance(ref, Value) and ref.active and ref.serial in self.lists:
                raise self.refuse(f"a differentiated list passed to the recursive "
                                  f"{fn.__qualname__}", node)
        active = tuple(ref.active for ref in operands)
        callee = self.callees.get(fn)
        if callee is not None and any(a and not b for a, b in zip(active, callee.active)):
            callee.active = tuple(a or b for a, b in zip(active, callee.active))
            if callee.body is None:  # being lowered, under fewer derivatives: again
                raise _Widen(fn)
            callee = self.lower_callee(fn, fnode, inner, callee)
        elif callee is None:
            callee = Callee(f"_r{len(self.callees) + 1}_{fn.__name__}", active)
            self.callees[fn] = callee
            callee = self.lower_callee(fn, fnode, inner, callee)
        text = f"{callee.name}(" + ", ".join(f"{{{k}}}" for k in range(len(operands))) + ")"
        return self.op(node, text, operands, block, "call", callee)

    def lower_callee(self, fn, fnode, inner, callee):
        """``callee.body``: ``fn`` lowered as a function of its own, its parameters
        differentiated as ``callee.active`` says (widened until no call inside it needs
        more)."""
        _, filename = function_node(fn)
        saved = (self.frames, self.branches)
        while True:
            self.frames, self.branches = [_Frame(fn, Where(filename, fn.__qualname__))], []
            callee.body = None
            top = Block(ANEW)
            order = [Value(name, active, None) for name, active in zip(inner, callee.active)]
            body = _statements(fnode)
            try:
                result = self.body(body, dict(zip(inner, order)), top, last_return=True)
                constants = {id(value) for value, _ in self.constants}
                if any(id(a) in constants for s in walk(top) if isinstance(s, Op)
                       for a in s.args):  # data of the top function only
                    raise self.refuse(f"a global array read in the recursive function "
                                      f"{fn.__qualname__} (pass it as an argument)", fnode)
            except _Widen as again:
                if again.fn is not fn:
                    raise
                continue
            finally:
                self.frames, self.branches = saved[0], saved[1]
            break
        callee.order = order
        callee.body = Function(callee.name, [v for v in order if v.active],
                               [v for v in order if not v.active], top, result, filename,
                               self.helpers)
        return callee

    # -- globals ----------------------------------------------------------------------

    def resolve(self, name, env, node):
        """What a free name of the current function is now, recorded as a guard: the code
        is compiled with it (a number as a literal, a function inlined), so a later call
        finds it changed and compiles again (:func:`guards_hold`)."""
        frame = self.frames[-1]
        fn = frame.fn
        if fn.__closure__:
            cells = dict(zip(fn.__code__.co_freevars, fn.__closure__))
            if name in cells:
                return self.guarded(cells[name], "cell_contents", None)
        if name in frame.globals:
            return self.guarded(frame.globals, name, True)
        if hasattr(builtins, name):
            self.guards.append((frame.globals, name, True, _ABSENT))
            return getattr(builtins, name)
        raise self.refuse(f"the name {name!r} (not defined)", node)

    def guarded(self, holder, name, mapping):
        """``holder[name]`` (a mapping) or ``holder.name``, with its guard."""
        obj = holder[name] if mapping else getattr(holder, name, None)
        self.guards.append((holder, name, mapping, obj))
        return obj

    def expr_object(self, node, env):
        """The object a callee expression names (``np.exp``, ``helper``)."""
        if isinstance(node, ast.Name) and node.id not in env:
            return self.resolve(node.id, env, node)
        if isinstance(node, ast.Attribute):
            owner = self.expr_object(node.value, env)
            if isinstance(owner, types.ModuleType):
                found = self.guarded(owner, node.attr, False)
                if found is None:
                    raise self.refuse(f"{owner.__name__}.{node.attr} (not defined)", node)
                return found
        raise self.refuse(f"a call of {_describe(node)}", node)

    def constant(self, obj, node, owner=None):
        if isinstance(obj, bool):
            return Const(repr(obj))
        if isinstance(obj, numbers.Integral):
            return Const(repr(int(obj)))
        if isinstance(obj, numbers.Real):
            return Const(repr(float(obj)))
        if obj is np:
            return Const("np")
        if isinstance(obj, np.ndarray) and obj.dtype.kind in "fiub":
            # a global array: data, passed to the compiled code with every call (numba
            # would freeze it into the cached code)
            for value, known in self.constants:
                if known is obj:
                    return value
            value = Value(f"_global{len(self.constants) + 1}", False, None)
            self.constants.append((value, obj))
            return value
        what = f"{owner.__name__}.{getattr(node, 'attr', '?')}" if owner else (
            getattr(node, "id", None) or type(obj).__name__)
        raise self.refuse(f"the global {what} (the engine compiles number constants, "
                          f"numpy and plain functions)", node)


def _numpy_name(fn):
    """``fn``'s name in numpy's namespace (``np.<name>`` is ``fn``), or None."""
    name = getattr(fn, "__name__", None)
    if name is None:
        return None
    if getattr(np, name, None) is fn:
        return name
    found = next((k for k, v in vars(np).items() if v is fn and not k.startswith("_")), None)
    return found


def _stored_names(stmts):
    """The names ``stmts`` bind, and those of the lists they append to (a new version)."""
    return sorted({n.id for s in stmts for n in ast.walk(s)
                   if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Store)}
                  | _appended_names(stmts))


def _appended(node):
    """Whether ``node`` is ``name.append(...)``."""
    return (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute)
            and node.func.attr == "append" and isinstance(node.func.value, ast.Name))


def _appended_names(stmts):
    return {n.func.value.id for s in stmts for n in ast.walk(s) if _appended(n)}


_ABSENT = object()  # a guard's object for a name that must stay undefined (a builtin's)


def guards_hold(guards):
    """Whether every free name the code was compiled with still names what it named: the
    same object, or for a number the same value and type."""
    for holder, name, mapping, obj in guards:
        if mapping:
            now = holder.get(name, _ABSENT)
        else:
            now = getattr(holder, name, _ABSENT)
        if now is obj:
            continue
        if (type(now) is not type(obj) or not isinstance(now, numbers.Number)
                or not (now == obj or (now != now and obj != obj))):
            return False
    return True


def _statements(node):
    """A def's body, or a lambda's as the return of its expression."""
    if isinstance(node, ast.Lambda):
        return [ast.Return(value=node.body, lineno=node.lineno)]
    return node.body


class _Recursion(Exception):
    """Raised where ``fn`` is called inside its own body, to its outer call: which calls
    it as a function of its own rather than inlining it."""

    def __init__(self, fn):
        self.fn = fn


class _Widen(_Recursion):
    """Raised where a call of the recursive ``fn`` being lowered differentiates a
    parameter its lowering assumed was not: it is lowered again."""


class _Undefined:
    """A name that may be unset where it is read (first assigned in a loop that may run no
    iteration, or in one branch of an if): a read of it is refused."""

    active = False

    def __init__(self, why):
        self.why = why


def _describe(node):
    names = {ast.While: "a while loop", ast.Try: "a try statement", ast.With: "a with "
             "statement", ast.Lambda: "a lambda", ast.GeneratorExp: "a generator expression",
             ast.Dict: "a dict", ast.FunctionDef: "a nested def", ast.Break: "break",
             ast.Continue: "continue", ast.Raise: "raise", ast.Assert: "assert",
             ast.Global: "a global statement", ast.Nonlocal: "a nonlocal statement",
             ast.Starred: "*unpacking", ast.JoinedStr: "an f-string",
             ast.Expr: "an expression statement",
             ast.Return: "an early return (in a loop or a branch)"}
    return names.get(type(node), f"the syntax {type(node).__name__}")

