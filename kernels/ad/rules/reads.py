"""What a rule's vjps read of a recorded operation: its output ``ans`` and which of its
positional arguments (kernels.ad.rules.table.Rule.keeps).

The reverse engine records one node per operation and keeps on it only what a later vjp
of that node will read; the rest (``y + h * k``'s operands, the product inside
``concatenate((a, x * y))``) is freed as the forward pass goes, as a hand-written adjoint
frees it. Nobody declares these facts: they are read off the vjps' own code, once per
rule. A parameter that no instruction of a function names (and that no inner function
captures) cannot be read by it, so leaving it out is safe; anything the code cannot
answer for (a builtin, a callable object, ``locals()``, a varargs parameter that is used)
counts as reading everything.
"""

import dis
import inspect

#: A function that reads every value it is given (its answer where the code says nothing).
EVERYTHING = (True, None)

# Names whose use lets a function see its parameters without naming them.
_INTROSPECTION = frozenset({"locals", "vars", "eval", "exec", "_getframe", "currentframe"})


def through(vjp, inner, lead):
    """Mark ``vjp`` as reading what ``inner`` reads (defpartials' vjps read what their
    partial reads); ``lead``: the parameters ``inner`` takes before ``ans``."""
    vjp.reads_through = (inner, lead)
    return vjp


def reads(fn, lead):
    """``(reads ans, positions of the positional args it reads)`` of ``fn`` called as
    ``fn(<lead parameters>, ans, *args, **kwargs)``; the positions are a frozenset, or None
    for every position. Conservative: see the module docstring."""
    marked = getattr(fn, "reads_through", None)
    while marked is not None:
        fn, lead = marked
        marked = getattr(fn, "reads_through", None)
    code = getattr(fn, "__code__", None)
    if code is None or not inspect.isfunction(fn) or _INTROSPECTION & set(code.co_names):
        return EVERYTHING
    used = set(code.co_cellvars)  # captured by an inner function: assume it is read
    for ins in dis.get_instructions(code):
        if type(ins.argval) is str:
            used.add(ins.argval)
    positional = code.co_varnames[:code.co_argcount]
    if len(positional) <= lead:  # ans and the args all in *args
        return EVERYTHING if code.co_flags & inspect.CO_VARARGS else (False, frozenset())
    ans_read = positional[lead] in used
    positions = {i for i, name in enumerate(positional[lead + 1:]) if name in used}
    if code.co_flags & inspect.CO_VARARGS:
        varargs = code.co_varnames[code.co_argcount + code.co_kwonlyargcount]
        if varargs in used:
            return ans_read, None
    elif len(positions) == len(positional) - lead - 1:
        return ans_read, None  # every argument it can be given: nothing to prune
    return ans_read, frozenset(positions)


def union(found):
    """The reads of several vjps of one rule together."""
    ans_read, positions = False, frozenset()
    for a, p in found:
        ans_read = ans_read or a
        positions = None if positions is None or p is None else positions | p
    return ans_read, positions


def pruner(positions):
    """A function from an operation's argument tuple to the tuple its node keeps (None in
    the places no vjp reads; the same length, as the vjps take them positionally), or None
    where every argument is kept."""
    if positions is None:
        return None
    if not positions:
        nones = {}

        def drop_all(args):
            n = len(args)
            kept = nones.get(n)
            if kept is None:
                kept = nones[n] = (None,) * n
            return kept
        return drop_all
    first, second = 0 in positions, 1 in positions

    def keep_some(args):
        n = len(args)
        if n == 2:  # the binary operators: most of an element loop's nodes
            if first and second:
                return args
            x, y = args
            return (x if first else None, y if second else None)
        if n == 1:  # a reduction or a method called with its defaults
            return args if first else (None,)
        return tuple([a if i in positions else None for i, a in enumerate(args)])
    return keep_some
