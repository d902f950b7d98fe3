"""gradbench's gradient descent for the nested evals (``particle``, ``saddle``), as its C++
reference runs it (the step-size rule decides the answer, so it is reproduced exactly):
start at step 1e-5; stop when the gradient or the step is shorter than 1e-5; a step that
lowers f is taken (after 10 in a row the step doubles), one that does not halves it.

No numpy here: the iterates are one- or two-element vectors, of whatever array type the
tool's own numpy makes (a dual number, a JAX tracer), and the norms are Python
arithmetic on their elements, so the same code runs on every tool unchanged."""

import functools

TOLERANCE = 1e-5


def _norm(v):
    return sum(e * e for e in v) ** 0.5


def argmin(f, x, gradient):
    """The point gradient descent on ``f`` reaches from ``x`` (an array), with ``gradient(f,
    x) -> (df/dx,)`` the tool's gradient."""
    fx = f(x)
    (gx,) = gradient(f, x)
    eta, streak = 1e-5, 0
    while _norm(gx) > TOLERANCE:
        if streak == 10:
            eta, streak = eta * 2.0, 0
            continue
        step = x - eta * gx
        if _norm(x - step) <= TOLERANCE:
            break
        f_step = f(step)
        if f_step < fx:
            x, fx = step, f_step
            (gx,) = gradient(f, x)
            streak += 1
        else:
            eta, streak = eta / 2.0, 0
    return x


def _negative(x, *, f):
    return -f(x)


def argmax(f, x, gradient):
    """gradbench's argmax: the argmin of -f."""
    return argmin(functools.partial(_negative, f=f), x, gradient)


def known(derivative):
    """A ``gradient(f, x)`` that returns ``(derivative(x),)`` whatever f: the hand-written
    derivatives' way into the same descent."""
    def gradient(f, x):
        return (derivative(x),)
    return gradient
