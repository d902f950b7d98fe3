"""The source engine's front end: a function's syntax tree, read from its file, the check
that it only uses Python the engine can differentiate, and the rewriting of ``break`` and
``continue`` into flags, so that later stages see structured control flow only.

The whole file is parsed (``linecache`` + ``ast``) rather than ``inspect.getsource``'s
snippet, so that lambdas, which ``getsource`` returns with the rest of their line, are found
exactly: by line, argument names and, when a line holds several, the columns that the code
object's instructions come from.
"""

import ast
import copy
import functools
import linecache
from typing import NamedTuple


class SourceTransformError(NotImplementedError):
    """The function uses Python the source engine does not differentiate; the message names
    the construct, the file and the line."""


class Where(NamedTuple):
    """The function being transformed, as errors name it: its file and qualified name."""

    filename: str
    function: str


def error(what, node, where):
    """A SourceTransformError for ``node`` of the function ``where`` (a :class:`Where`)."""
    return SourceTransformError(f"{what} is not supported by the source engine "
                                f"({where.filename}, line {node.lineno}, in {where.function})")


#: Syntax refused wherever it appears in a differentiated function, with the name the error
#: gives it: it would need closures, exceptions or mutation in the adjoint.
_REFUSED = {
    ast.Try: "try statement",
    ast.With: "with statement", ast.AsyncWith: "async with", ast.AsyncFor: "async for",
    ast.AsyncFunctionDef: "nested async def", ast.Await: "await",
    ast.FunctionDef: "nested def", ast.ClassDef: "class definition", ast.Lambda: "lambda",
    ast.SetComp: "set comprehension", ast.DictComp: "dict comprehension",
    ast.Global: "global statement", ast.Nonlocal: "nonlocal statement",
    ast.Yield: "yield", ast.YieldFrom: "yield from", ast.NamedExpr: "assignment expression (:=)",
    ast.Delete: "del statement", ast.Import: "import inside the function",
    ast.ImportFrom: "import inside the function", ast.Match: "match statement",
}
if hasattr(ast, "TryStar"):
    _REFUSED[ast.TryStar] = "try statement"


def check(node, where):
    """Raise SourceTransformError for the first construct the engine does not handle."""
    args = node.args
    if args.vararg or args.kwarg:
        raise error("variadic parameters (*args, **kwargs)", node, where)
    body = [node.body] if isinstance(node, ast.Lambda) else node.body
    for stmt in body:
        for sub in ast.walk(stmt):
            what = _REFUSED.get(type(sub))
            if what:
                raise error(what, sub, where)
            if isinstance(sub, (ast.For, ast.While)) and sub.orelse:
                raise error(f"{type(sub).__name__.lower()} ... else", sub, where)
            if isinstance(sub, ast.Starred):
                raise error("starred expression (*x)", sub, where)
            targets = (sub.targets if isinstance(sub, ast.Assign) else
                       [sub.target] if isinstance(sub, (ast.AugAssign, ast.AnnAssign)) else [])
            for target in targets:
                for t in ast.walk(target):
                    if isinstance(t, (ast.Subscript, ast.Attribute)):
                        kind = "a subscript" if isinstance(t, ast.Subscript) else "an attribute"
                        aug = "augmented " if isinstance(sub, ast.AugAssign) else ""
                        example = "x[i] += ..." if aug else "x[i] = ..."
                        raise error(f"{aug}assignment to {kind} ({example}; arrays are not "
                                    f"mutated in differentiated code)", t, where)


@functools.lru_cache(maxsize=32)
def _definitions(filename, text):
    """The file's lambdas by first line, and its defs by name: found in one walk of its
    tree (a walk per function read was most of the compiled engine's lowering time)."""
    lambdas, defs = {}, {}
    for n in ast.walk(ast.parse(text, filename)):
        if isinstance(n, ast.Lambda):
            lambdas.setdefault(n.lineno, []).append(n)
        elif isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef)):
            defs.setdefault(n.name, []).append(n)
    return lambdas, defs


def _params(node):
    a = node.args
    return [p.arg for p in a.posonlyargs + a.args + a.kwonlyargs]


def _span_hits(node, positions):
    start, end = (node.lineno, node.col_offset), (node.end_lineno, node.end_col_offset)
    return sum(start <= p <= end for p in positions)


def function_node(fn):
    """``(node, filename)``: the FunctionDef or Lambda node that defined ``fn`` (a copy,
    free to rewrite)."""
    code = fn.__code__
    name = fn.__qualname__
    filename = code.co_filename
    lines = linecache.getlines(filename, fn.__globals__)
    if not lines:
        raise SourceTransformError(
            f"cannot read the source of {name} (defined in {filename}); the source engine "
            f"differentiates functions whose source file it can read")
    lambdas, defs = _definitions(filename, "".join(lines))
    first = code.co_firstlineno
    if code.co_name == "<lambda>":
        found = list(lambdas.get(first, ()))
    else:
        found = [n for n in defs.get(code.co_name, ())
                 if first in (n.lineno, *(d.lineno for d in n.decorator_list[:1]))]
    wanted = list(code.co_varnames[:code.co_argcount + code.co_kwonlyargcount])
    found = [n for n in found if _params(n) == wanted]
    if len(found) > 1:  # several lambdas on one line: the one the instructions come from
        positions = [(p[0], p[2]) for p in code.co_positions() if None not in (p[0], p[2])]
        found = [max(found, key=lambda n: _span_hits(n, positions))]
    if not found:
        raise SourceTransformError(
            f"cannot find the definition of {name} at {filename}, line {first} "
            f"(was the file changed after it was imported?)")
    if isinstance(found[0], ast.AsyncFunctionDef):
        raise error("async def", found[0], Where(filename, name))
    return copy.deepcopy(found[0]), filename


# -- break and continue ----------------------------------------------------------------

def _jumps(stmts):
    """The kinds of jump ('break', 'continue') among ``stmts``, outside nested loops."""
    found = set()
    for s in stmts:
        if isinstance(s, (ast.Break, ast.Continue)):
            found.add(type(s).__name__.lower())
        elif isinstance(s, ast.If):
            found |= _jumps(s.body) | _jumps(s.orelse)
    return found


def _set(name, value, at):
    return ast.copy_location(ast.Assign([ast.Name(name, ast.Store())], ast.Constant(value)), at)


def _guarded(stmts, flags):
    """``stmts`` with each jump replaced by setting its flag, and what follows a statement
    that may jump run only if no flag is set."""
    out = []
    for i, s in enumerate(stmts):
        if isinstance(s, (ast.Break, ast.Continue)):
            out.append(_set(flags[type(s).__name__.lower()], True, s))
            return out  # the rest of this list is unreachable
        out.append(s)
        if isinstance(s, ast.If) and _jumps([s]):
            s.body, s.orelse = _guarded(s.body, flags), _guarded(s.orelse, flags)
            rest = _guarded(stmts[i + 1:], flags)
            if rest:
                names = [ast.Name(f, ast.Load()) for f in flags.values()]
                test = names[0] if len(names) == 1 else ast.BoolOp(ast.Or(), names)
                out.append(ast.copy_location(ast.If(ast.UnaryOp(ast.Not(), test), rest, []), s))
            return out
    return out


def rewrite_jumps(stmts, fresh):
    """Rewrite the ``break``/``continue`` of every loop in ``stmts`` (in place) into flags
    named by ``fresh(kind)``: ``continue`` sets a flag that skips the rest of the iteration,
    ``break`` one that also ends the loop, which the lowering finds as ``loop.ad_exit``
    (the primal breaks after recording the iteration). Returns ``stmts``."""
    i = 0
    while i < len(stmts):
        s = stmts[i]
        if isinstance(s, ast.If):
            rewrite_jumps(s.body, fresh)
            rewrite_jumps(s.orelse, fresh)
        elif isinstance(s, (ast.For, ast.While)):
            rewrite_jumps(s.body, fresh)
            flags = {kind: fresh(kind) for kind in sorted(_jumps(s.body))}
            s.ad_exit = flags.get("break")
            if flags:
                s.body = _guarded(s.body, flags) or [ast.copy_location(ast.Pass(), s)]
            if "continue" in flags:
                s.body.insert(0, _set(flags["continue"], False, s))
            if s.ad_exit:
                stmts.insert(i, _set(s.ad_exit, False, s))
                i += 1
        i += 1
    return stmts


# -- list.append ---------------------------------------------------------------------

def _append_of(s, local_names):
    """``name`` if ``s`` is the statement ``name.append(value)`` on a local name."""
    e = s.value if isinstance(s, ast.Expr) else None
    if (isinstance(e, ast.Call) and isinstance(e.func, ast.Attribute)
            and e.func.attr == "append" and isinstance(e.func.value, ast.Name)
            and e.func.value.id in local_names and len(e.args) == 1 and not e.keywords
            and not isinstance(e.args[0], ast.Starred)):
        return e.func.value.id
    return None


def rewrite_appends(stmts, local_names):
    """Rewrite ``items.append(v)`` on a local list into ``items = items + [v]`` (in place,
    nested blocks too), so that the list is a value like any other: the growing list gets
    a new SSA version per append and its cotangent flows back element by element. (The
    one difference, another name bound to the same list seeing the append, is not
    supported.) Returns ``stmts``."""
    for i, s in enumerate(stmts):
        name = _append_of(s, local_names)
        if name is not None:
            grown = ast.BinOp(ast.Name(name, ast.Load()), ast.Add(),
                              ast.List([s.value.args[0]], ast.Load()))
            stmts[i] = ast.fix_missing_locations(ast.copy_location(
                ast.Assign([ast.Name(name, ast.Store())], ast.copy_location(grown, s)), s))
        for block in ("body", "orelse"):
            if isinstance(s, (ast.If, ast.For, ast.While)):
                rewrite_appends(getattr(s, block), local_names)
    return stmts


# -- list comprehensions and generator expressions --------------------------------------

#: statements whose expressions are evaluated once, before anything else in them runs, so a
#: comprehension in them may be computed just before the statement
_ONCE = (ast.Assign, ast.AugAssign, ast.AnnAssign, ast.Return, ast.Expr, ast.If, ast.For)
#: expressions that may not evaluate all of their parts: a comprehension inside is left
#: where it is (and refused)
_LAZY = (ast.IfExp, ast.BoolOp, ast.Lambda)


class _Rename(ast.NodeTransformer):
    def __init__(self, names):
        self.names = names

    def visit_Name(self, node):
        new = self.names.get(node.id)
        return ast.copy_location(ast.Name(new, node.ctx), node) if new else node


def _hoistable(stmt):
    """The comprehensions of ``stmt`` evaluated whenever ``stmt`` is (outermost only)."""
    found = []

    def visit(node, lazy):
        for child in ast.iter_child_nodes(node):
            if isinstance(child, (ast.stmt, ast.excepthandler)):
                continue  # nested blocks are rewritten on their own
            if isinstance(child, (ast.ListComp, ast.GeneratorExp)) and not lazy:
                found.append(child)
                continue
            visit(child, lazy or isinstance(child, _LAZY))
    if isinstance(stmt, _ONCE):
        parts = [stmt.test] if isinstance(stmt, ast.If) else \
            [stmt.iter] if isinstance(stmt, ast.For) else [stmt]
        for part in parts:
            if isinstance(part, (ast.ListComp, ast.GeneratorExp)):
                found.append(part)
            else:
                visit(part, isinstance(part, _LAZY))
    return found


def _loops(comp, result, fresh):
    """The statements that build ``result`` as ``comp`` does: nested for loops (targets
    renamed, since a comprehension's names are its own), ifs, and an append."""
    renames = {}
    for gen in comp.generators:
        for t in ast.walk(gen.target):
            if isinstance(t, ast.Name) and t.id not in renames:
                renames[t.id] = fresh(f"_c_{t.id}")
    rename = _Rename(renames)
    body = [ast.Expr(ast.Call(ast.Attribute(ast.Name(result, ast.Load()), "append",
                                            ast.Load()),
                              [rename.visit(copy.deepcopy(comp.elt))], []))]
    for k in range(len(comp.generators) - 1, -1, -1):
        gen = comp.generators[k]
        for cond in reversed(gen.ifs):
            body = [ast.If(rename.visit(copy.deepcopy(cond)), body, [])]
        # the first iterable is read in the enclosing scope, the others see the targets
        it = gen.iter if k == 0 else rename.visit(copy.deepcopy(gen.iter))
        body = [ast.For(rename.visit(copy.deepcopy(gen.target)), it, body, [])]
    return [ast.Assign([ast.Name(result, ast.Store())], ast.List([], ast.Load()))] + body


def rewrite_comprehensions(stmts, fresh):
    """Rewrite each list comprehension and generator expression (as a list) into the loop
    that builds it, placed just before its statement, where that statement evaluates it
    exactly once (not in a while test, nor under ``and``/``or``/``if else``); the rest stay,
    and ``check_no_comprehension`` refuses them. In place; returns ``stmts``."""
    out = []
    for s in stmts:
        for block in ("body", "orelse"):
            if isinstance(s, (ast.If, ast.For, ast.While)):
                setattr(s, block, rewrite_comprehensions(getattr(s, block), fresh))
        for comp in _hoistable(s):
            result = fresh("_comprehension")
            out.extend(ast.fix_missing_locations(ast.copy_location(n, s))
                       for n in rewrite_comprehensions(_loops(comp, result, fresh), fresh))
            comp.ad_result = result
        out.append(_ReplaceHoisted().visit(s) if _hoistable(s) else s)
    return out


class _ReplaceHoisted(ast.NodeTransformer):
    def _replace(self, node):
        result = getattr(node, "ad_result", None)
        if result is None:
            return self.generic_visit(node)
        return ast.copy_location(ast.Name(result, ast.Load()), node)

    visit_ListComp = visit_GeneratorExp = _replace


def check_no_comprehension(stmts, where):
    """SourceTransformError for a comprehension left in place (see rewrite_comprehensions)."""
    for s in stmts:
        for node in ast.walk(s):
            if isinstance(node, (ast.ListComp, ast.GeneratorExp)):
                what = _REFUSED_COMPREHENSION[type(node)]
                raise error(f"{what} evaluated conditionally (in a while test, under "
                            f"and/or or a conditional expression)", node, where)


_REFUSED_COMPREHENSION = {ast.ListComp: "list comprehension",
                          ast.GeneratorExp: "generator expression"}


# -- early returns ----------------------------------------------------------------------

def always_returns(block):
    """Whether every path through ``block`` ends in a return."""
    if not block:
        return False
    last = block[-1]
    if isinstance(last, ast.Return):
        return True
    return isinstance(last, ast.If) and always_returns(last.body) and always_returns(last.orelse)


def _has_return(stmts):
    return any(isinstance(n, ast.Return) for s in stmts for n in ast.walk(s))


def rewrite_loop_returns(stmts, fresh):
    """Rewrite each ``return v`` inside a loop into ``result = v; returned = True; break``
    (flag names from ``fresh``), with ``if returned: break`` after each inner loop it leaves
    and ``if returned: return result`` after the outermost one: ``break`` and final returns
    are what the lowering differentiates (rewrite_jumps, rewrite_returns run next). Returns
    the new list (``stmts`` itself when no loop holds a return)."""
    if not any(isinstance(n, (ast.For, ast.While)) and _has_return(n.body)
               for s in stmts for n in ast.walk(s)):
        return stmts
    done, result = fresh("_returned"), fresh("_result")
    at = stmts[0]
    return [_set(done, False, at), _set(result, None, at),
            *_loop_returns(stmts, done, result, False)]


def _loop_returns(stmts, done, result, in_loop):
    out = []
    for s in stmts:
        if in_loop and isinstance(s, ast.Return):
            value = s.value if s.value is not None else ast.Constant(None)
            out += [ast.copy_location(ast.Assign([ast.Name(result, ast.Store())], value), s),
                    _set(done, True, s), ast.copy_location(ast.Break(), s)]
            return out  # the rest of this list is unreachable
        out.append(s)
        if isinstance(s, ast.If):
            s.body = _loop_returns(s.body, done, result, in_loop)
            s.orelse = _loop_returns(s.orelse, done, result, in_loop)
        elif isinstance(s, (ast.For, ast.While)) and _has_return(s.body):
            s.body = _loop_returns(s.body, done, result, True)
            leave = (ast.Break() if in_loop
                     else ast.Return(ast.Name(result, ast.Load())))
            out.append(ast.copy_location(
                ast.If(ast.Name(done, ast.Load()), [ast.copy_location(leave, s)], []), s))
    return out


def rewrite_returns(stmts):
    """Rewrite ``if c: return a`` followed by more statements into ``if c: return a
    else: <the rest>`` (and the mirror image), recursively, so that every return ends its
    path and the lowering sees structured control flow (a return inside a loop is already
    a ``break``: rewrite_loop_returns). Returns the new list."""
    out = []
    for i, s in enumerate(stmts):
        if isinstance(s, ast.If):
            s.body, s.orelse = rewrite_returns(s.body), rewrite_returns(s.orelse)
            rest = stmts[i + 1:]
            body_returns, else_returns = always_returns(s.body), always_returns(s.orelse)
            if rest and (body_returns or else_returns):
                if not else_returns:
                    s.orelse = rewrite_returns(s.orelse + rest)
                elif not body_returns:
                    s.body = rewrite_returns(s.body + rest)
                out.append(s)  # (both return: the rest is unreachable)
                return out
        out.append(s)
    return out


# -- names whose arrays another name may share ---------------------------------------------

#: functions and methods that may return a view of their first argument (or the argument)
_VIEWS = {"reshape", "ravel", "transpose", "swapaxes", "moveaxis", "squeeze", "expand_dims",
          "asarray", "asanyarray", "view", "diagonal", "atleast_1d", "atleast_2d",
          "atleast_3d", "broadcast_to", "flip", "fliplr", "flipud", "rot90", "real", "imag"}


def _shares(value):
    """The name whose array ``value`` may share (an alias, a view, a slice), or None."""
    if isinstance(value, ast.Name):
        return value.id
    if isinstance(value, (ast.Subscript, ast.Attribute)) and isinstance(value.value, ast.Name):
        return value.value.id  # a[1:], a[0] of a matrix, a.T, a.real
    if isinstance(value, ast.Call) and isinstance(value.func, ast.Attribute):
        if value.func.attr in _VIEWS:
            base = value.func.value
            if isinstance(base, ast.Name) and value.args and isinstance(value.args[0],
                                                                       ast.Name):
                return value.args[0].id  # np.reshape(a, ...)
            if isinstance(base, ast.Name):
                return base.id  # a.reshape(...)
    return None


def _stored(targets):
    return {n.id for t in targets for n in ast.walk(t)
            if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Store)}


def shared_names(stmts):
    """Names whose array another binding may share: ``b = a``, ``v = a[1:]``, ``t = a.T``,
    ``r = np.reshape(a, ...)``, ``[a, ...]``, ``for row in a`` (both names: ``a`` and
    ``b``, ``v``, ``t``, ``r``, ``row``). An in-place operator on
    one of them would change the others in numpy; the source engine rebinds instead, so it
    refuses those (conservatively: wherever the sharing happens in the function)."""
    shared = set()
    for node in (n for s in stmts for n in ast.walk(s)):
        if isinstance(node, ast.Assign):
            values = [node.value]
            if isinstance(node.value, (ast.Tuple, ast.List)):
                values = list(node.value.elts)
            for v in values:
                name = _shares(v)
                if name:
                    # both sides: an in-place update of the view writes into its base too
                    shared.add(name)
                    shared.update(_stored(node.targets))
        elif isinstance(node, ast.For):
            name = _shares(node.iter)
            if name:
                shared.add(name)
                shared.update(_stored([node.target]))  # each row is a view
        elif isinstance(node, (ast.List, ast.Tuple)) and isinstance(node.ctx, ast.Load):
            shared.update(e.id for e in node.elts if isinstance(e, ast.Name))
    return shared
