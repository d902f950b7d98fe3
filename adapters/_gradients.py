"""What the adapters with circuit gradients share (docs/architecture.md, "Adapters"): the
method check, the adapter's public functions, and the one-call ``circuit_gradient``.

Every adapter that differentiates variational circuits keeps its translation into the
tool's objects in a private module of its own, ``adapters._<tool>_gradients``, with two
functions::

    gradient(problem, method, **helpers) -> grad(theta)
    energy(problem, method, **helpers) -> energy(theta)

each translating the problem once and returning the function the suites time. The adapter
declares ``GRADIENT_METHODS`` (default first) and gets its public functions from
:func:`delegated`::

    prepare_gradient, prepare_energy, circuit_gradient = _gradients.delegated(
        NAME, GRADIENT_METHODS, _require, __name__, "._tool_gradients", gate=_gate)

The gradient module imports the tool at its top, so it is imported on first use, once
``_require()`` has found the tool there: an optional dependency, the one kind of module
imported late. The dependency goes one way: the adapter names its gradient module, never
the reverse. What the gradient module needs of the adapter (its translation of one gate)
is handed in as ``helpers``.
"""


import importlib


def check_method(tool, methods, method):
    """``method`` (the default when None) if ``tool`` offers it, else ValueError."""
    if method is None:
        return methods[0]
    if method not in methods:
        raise ValueError(f"{tool} has no gradient method {method!r}; it has {list(methods)}")
    return method


def one_call(prepare_gradient):
    """``circuit_gradient(problem, theta)``: the default method, prepared and called."""
    def circuit_gradient(problem, theta):
        return prepare_gradient(problem)(theta)
    circuit_gradient.__module__ = prepare_gradient.__module__
    circuit_gradient.__qualname__ = circuit_gradient.__name__
    circuit_gradient.__doc__ = (f"The gradient of ``problem``'s energy at ``theta`` by "
                                f"{prepare_gradient.__module__}'s default method.")
    return circuit_gradient


def delegated(tool, methods, require, owner, module, **helpers):
    """``(prepare_gradient, prepare_energy, circuit_gradient)`` of the adapter module
    ``owner`` (its name) of ``tool`` offering ``methods``, its translation in the module
    ``module`` (relative to the adapter's package).

    Each checks the method first (a ValueError naming it, installed tool or not), then
    ``require()`` (the tool is there, else a RuntimeError naming it), imports the module
    and hands it the problem, the method and ``helpers``.
    """
    def translation():
        require()
        return importlib.import_module(module, owner.rpartition(".")[0])

    def prepare_gradient(problem, method=None):
        method = check_method(tool, methods, method)
        return translation().gradient(problem, method, **helpers)

    def prepare_energy(problem, method=None):
        method = check_method(tool, methods, method)
        return translation().energy(problem, method, **helpers)

    names = " or ".join(f'"{m}"' for m in methods)
    prepare_gradient.__doc__ = (f"``grad(theta)`` by {tool}'s {names} (default "
                                f'"{methods[0]}"), the problem translated once.')
    prepare_energy.__doc__ = ("``energy(theta)`` through the same objects as "
                              "``prepare_gradient``.")
    for f in (prepare_gradient, prepare_energy):  # help() and pickle find them in the adapter
        f.__module__, f.__qualname__ = owner, f.__name__
    return prepare_gradient, prepare_energy, one_call(prepare_gradient)
