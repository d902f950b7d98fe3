"""What the adapters with circuit gradients share (DESIGN.md, "Contract: variational
circuits"): the method check and the one-call ``circuit_gradient``.

An adapter declares ``GRADIENT_METHODS`` (default first) and writes
``prepare_gradient(problem, method)`` and ``prepare_energy(problem, method)``, each
translating the problem into the tool's objects once and returning ``f(theta)``; then::

    circuit_gradient = _gradients.one_call(prepare_gradient)
"""


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
    circuit_gradient.__doc__ = (f"The gradient of ``problem``'s energy at ``theta`` by "
                                f"{prepare_gradient.__module__}'s default method.")
    return circuit_gradient
