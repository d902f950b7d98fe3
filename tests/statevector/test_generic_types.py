"""The seed's closing point: `subspace` works for any element type."""

import numpy as np
import pytest

from kernels.statevector import KERNELS, gates, naive

sympy = pytest.importorskip("sympy")


def test_symbolic_phase_gate_on_symbolic_state():
    alpha, theta = sympy.symbols("alpha theta")
    state = np.array([1, alpha, 0, 0], dtype=object)
    matrix = np.array([[sympy.exp(-sympy.I * theta), 0], [0, sympy.exp(sympy.I * theta)]],
                      dtype=object)
    out = KERNELS["subspace"](state, matrix, (0,))
    expected = [sympy.exp(-sympy.I * theta), sympy.exp(sympy.I * theta) * alpha, 0, 0]
    assert out is state
    assert [sympy.simplify(a - b) for a, b in zip(out, expected)] == [0, 0, 0, 0]


def test_symbolic_controlled_gate_matches_naive_symbolically():
    a = sympy.symbols("a0:8")
    u = sympy.symbols("u0:4")
    matrix = np.array(u, dtype=object).reshape(2, 2)
    state = np.array(a, dtype=object)
    out = KERNELS["subspace"](state.copy(), matrix, (2,), (0,), (0,))
    ref = naive.dense_operator(3, matrix, (2,), (0,), (0,)) @ np.array(a, dtype=object)
    assert [sympy.expand(x - y) for x, y in zip(out, ref)] == [0] * 8


class Dual:
    """A minimal dual number a + b*eps, to show the kernel needs nothing but + and *."""

    def __init__(self, a, b=0.0):
        self.a, self.b = a, b

    def __add__(self, other):
        other = other if isinstance(other, Dual) else Dual(other)
        return Dual(self.a + other.a, self.b + other.b)

    __radd__ = __add__

    def __mul__(self, other):
        other = other if isinstance(other, Dual) else Dual(other)
        return Dual(self.a * other.a, self.a * other.b + self.b * other.a)

    __rmul__ = __mul__


def test_dual_numbers_carry_the_derivative_through_a_gate():
    """d/dt of Rx(t)|psi> by dual numbers equals the analytic derivative."""
    t = 0.4
    c, s = np.cos(t / 2), np.sin(t / 2)
    rx = np.array([[Dual(c, -s / 2), Dual(-1j * s, -0.5j * c)],
                   [Dual(-1j * s, -0.5j * c), Dual(c, -s / 2)]], dtype=object)
    psi = np.random.default_rng(3).standard_normal(4) + 0j
    state = np.array([Dual(x) for x in psi], dtype=object)
    out = KERNELS["subspace"](state, rx, (1,))
    values = np.array([d.a for d in out])
    derivs = np.array([d.b for d in out])
    h = 1e-6
    numeric = (naive.apply(psi.copy(), gates.Rx(t + h), (1,))
               - naive.apply(psi.copy(), gates.Rx(t - h), (1,))) / (2 * h)
    np.testing.assert_allclose(values, naive.apply(psi.copy(), gates.Rx(t), (1,)), atol=1e-12)
    np.testing.assert_allclose(derivs, numeric, atol=1e-8)
