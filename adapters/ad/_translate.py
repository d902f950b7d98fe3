"""Run a plain-numpy function on another tool's numpy, unchanged.

The AD tools differentiate code written against their own numpy (``jax.numpy``,
``autograd.numpy``, torch, algopy). The benchmark problems are written against numpy
itself, as a user writes them, and reach it only through module globals (``np.sin``).
:func:`translate` therefore keeps the function's code and gives it a new globals dict in
which numpy is replaced by the tool's namespace: the tool then sees exactly the code the
other engines see, with no source rewriting.
"""

import dis
import functools
import types

import numpy

_CACHE = {}


def translate(f, namespace, convert=None):
    """``f`` rebuilt so that the numpy it reaches is ``namespace``.

    ``f`` may be a ``functools.partial`` binding data (an eval's points): its function is
    rebuilt, and the bound ndarrays pass through ``convert`` (the tool's array type, for a
    tool whose operators do not take numpy arrays; None keeps them).

    Swapped in a new globals dict: every global bound to the numpy module, and every
    global bound to one of numpy's public functions (``from numpy import sin``), which
    becomes the namespace's function of the same name where it has one. The functions of
    ``f``'s own module that its globals hold (helpers a problem calls, ``f`` itself for
    recursion) are rebuilt into the same dict, so they see ``namespace`` too; closure cells
    holding numpy functions are swapped the same way. Functions imported from other modules
    keep the real numpy. The globals are a snapshot taken at the first call; the result is
    cached per ``(f, namespace)``, so a tool that caches on function identity (jax.jit)
    sees the same function every time.
    """
    if isinstance(f, functools.partial):
        def bound(value):
            return convert(value) if convert and isinstance(value, numpy.ndarray) else value
        return functools.partial(translate(f.func, namespace), *map(bound, f.args),
                                 **{k: bound(v) for k, v in f.keywords.items()})
    if not isinstance(f, types.FunctionType):
        raise TypeError(f"f must be a plain Python function (def or lambda), "
                        f"got {type(f).__name__}")
    key = (f, namespace)
    cached = _CACHE.get(key)
    if cached is None:
        cached = _CACHE[key] = _rebuild_module(f, namespace)
    return cached


@functools.cache
def _numpy_functions():
    """id -> names of numpy's public functions and ufuncs, aliases included (np.abs is
    np.absolute, np.atan np.arctan); numpy keeps them alive, so no other object can
    have their id."""
    names = {}
    for name, value in vars(numpy).items():
        if callable(value) and not isinstance(value, type) and not name.startswith("_"):
            names.setdefault(id(value), []).append(name)
    return names


def _swap(value, namespace):
    if value is numpy:
        return namespace
    for name in _numpy_functions().get(id(value), ()):
        if hasattr(namespace, name):
            return getattr(namespace, name)
    return value


def _rebuild_module(f, namespace):
    module_globals = f.__globals__
    new_globals = {name: _swap(value, namespace) for name, value in module_globals.items()}
    rebuilt = {}
    for name, value in module_globals.items():
        if isinstance(value, types.FunctionType) and value.__globals__ is module_globals:
            rebuilt[value] = new_globals[name] = _with_globals(value, new_globals, namespace)
    return rebuilt.get(f) or _with_globals(f, new_globals, namespace)


def _with_globals(fn, new_globals, namespace):
    closure = fn.__closure__
    if closure and any(_swap(_contents(c), namespace) is not _contents(c) for c in closure):
        # new cells only where needed: replacing them unshares them with sibling closures
        closure = tuple(types.CellType(_swap(_contents(c), namespace)) for c in closure)
    out = types.FunctionType(fn.__code__, new_globals, fn.__name__, fn.__defaults__, closure)
    out.__kwdefaults__ = fn.__kwdefaults__
    out.__qualname__ = fn.__qualname__
    out.__module__ = fn.__module__
    out.__doc__ = fn.__doc__
    out.__dict__.update(fn.__dict__)
    return out


def _contents(cell):
    try:
        return cell.cell_contents
    except ValueError:  # an empty cell (a variable not yet assigned)
        return None


def binary_operators(f):
    """The binary operators (``"@"``, ``"+="``, ...) in ``f``'s code, its nested code
    (lambdas, comprehensions) and the code of the functions of its module it names,
    followed recursively: what a tool without some operator must check before running."""
    if isinstance(f, functools.partial):
        f = f.func
    if not isinstance(f, types.FunctionType):
        raise TypeError(f"f must be a plain Python function, got {type(f).__name__}")
    module_globals = f.__globals__
    found, seen, todo = set(), set(), [f.__code__]
    while todo:
        code = todo.pop()
        if code in seen:
            continue
        seen.add(code)
        for ins in dis.get_instructions(code):
            if ins.opname == "BINARY_OP":
                found.add(ins.argrepr)
        todo.extend(c for c in code.co_consts if isinstance(c, types.CodeType))
        for name in code.co_names:
            value = module_globals.get(name)
            if isinstance(value, types.FunctionType) and value.__globals__ is module_globals:
                todo.append(value.__code__)
    return found
