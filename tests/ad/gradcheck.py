"""gradcheck for every engine and adapter: the gradient along one random direction
against central differences of ``f`` itself (autograd's ``check_grads`` idea), in float64.

``check_gradient(gradient, f, *args, rng=rng)`` asserts that the directional derivative
``sum_i <grad_i, v_i>`` from ``gradient(f, *args)`` matches ``(f(x + h v) - f(x - h v)) / 2h``,
and that each entry has its argument's shape (a float for a float argument).
"""

import numpy as np

#: step and tolerance of the reference difference; f is smooth at the test points, so the
#: O(h^2) truncation error (~1e-10 relative) and rounding (~eps/h ~ 1e-11) stay below RTOL.
STEP = 1e-5
RTOL = 1e-6
ATOL = 1e-8


def _shift(args, direction, h):
    return [a + h * v if isinstance(a, np.ndarray) else float(a + h * v)
            for a, v in zip(args, direction)]


def random_direction(args, rng):
    return [rng.standard_normal(np.shape(a)) if isinstance(a, np.ndarray)
            else float(rng.standard_normal()) for a in args]


def directional_difference(f, args, direction, h=STEP):
    return (f(*_shift(args, direction, h)) - f(*_shift(args, direction, -h))) / (2 * h)


def check_shapes(grads, args):
    assert isinstance(grads, tuple), f"gradient must be a tuple, got {type(grads).__name__}"
    assert len(grads) == len(args), f"{len(grads)} gradient entries for {len(args)} arguments"
    for i, (g, a) in enumerate(zip(grads, args)):
        if isinstance(a, np.ndarray):
            assert isinstance(g, np.ndarray) and g.shape == a.shape, \
                f"gradient {i}: expected an array of shape {a.shape}, got {g!r:.80}"
        else:
            assert isinstance(g, float), f"gradient {i}: expected a float, got {type(g).__name__}"


def check_gradient(gradient, f, *args, rng, rtol=RTOL, atol=ATOL):
    """Assert ``gradient(f, *args)`` agrees with central differences along a random
    direction; returns the gradient tuple for further checks."""
    grads = gradient(f, *args)
    check_shapes(grads, args)
    direction = random_direction(args, rng)
    got = sum(float(np.sum(g * v)) for g, v in zip(grads, direction))
    want = directional_difference(f, args, direction)
    assert np.isclose(got, want, rtol=rtol, atol=atol), \
        f"directional derivative {got!r} != central difference {want!r}"
    return grads
