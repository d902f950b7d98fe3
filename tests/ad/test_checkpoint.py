"""``checkpoint(fn)`` (kernels/ad/checkpoint.py): the source engine runs a checkpointed
function again in the backward pass instead of keeping its intermediates; every other
engine sees through it. Checked on gradbench's ode written with a checkpointed step:
the same derivatives as without, from every engine, and a backward pass that holds one
state per step."""

import numpy as np
import pytest

from kernels.ad import ENGINES, source
from kernels.ad.checkpoint import CheckpointError, checkpoint
from kernels.ad.evals import ode

from .test_source_keeps import _held

STEPS = 10


def _rk4_step(x, y, h):
    k1 = ode._rhs(x, y)
    k2 = ode._rhs(x, y + h / 2 * k1)
    k3 = ode._rhs(x, y + h / 2 * k2)
    k4 = ode._rhs(x, y + h * k3)
    return y + h / 6 * (k1 + 2 * k2 + 2 * k3 + k4)


_step = checkpoint(_rk4_step)


def ode_checkpointed(x):
    h = ode.END / STEPS
    y = np.zeros(len(x))
    for _ in range(STEPS):
        y = _step(x, y, h)
    return y[-1]


def ode_step_by_keyword(x):
    h = ode.END / STEPS
    y = np.zeros(len(x))
    for _ in range(STEPS):
        y = _step(x, y=y, h=h)
    return y[-1]


def _noisy(y):
    return y * (1.0 + np.random.random())


def uses_a_nondeterministic_step(x):
    return np.sum(checkpoint(_noisy)(x))


def _manual(x):
    return ode.ode_manual(x, s=STEPS)[1][0]


@pytest.mark.parametrize("engine", sorted(ENGINES))
@pytest.mark.parametrize("f", [ode_checkpointed, ode_step_by_keyword])
def test_every_engine_gives_the_derivative_of_the_function_checkpointed(engine, f):
    x = np.random.default_rng(0).random(50)
    (g,) = ENGINES[engine].gradient(f, x)
    np.testing.assert_allclose(g, _manual(x), rtol=1e-6 if engine == "finite" else 1e-12)
    assert float(f(x)) == pytest.approx(float(ode.ode(x, s=STEPS)), rel=1e-15)


def test_the_source_backward_pass_holds_one_state_per_step():
    n = 2000
    x = np.random.default_rng(1).random(n)
    _, adjoint = source.transform(ode_checkpointed).primal(x)
    # the states y_0 .. y_10 (each step's argument and value) and x, where the adjoint of
    # ode as written holds 40 stage inputs (test_source_keeps.py)
    assert _held(adjoint) <= (STEPS + 2) * x.nbytes + 1024
    _, plain = source.transform(ode.solve).primal(x, s=STEPS)
    assert _held(plain) >= 40 * x.nbytes


def test_source_jacobian_and_hessian_run_the_step_again_each_time():
    x = np.random.default_rng(2).random(6)

    def states(x):
        h = ode.END / STEPS
        y = np.zeros(len(x))
        for _ in range(STEPS):
            y = _step(x, y, h)
        return y
    np.testing.assert_allclose(source.jacobian(states, x, mode="reverse"),
                               ENGINES["forward"].jacobian(states, x), rtol=1e-12)
    np.testing.assert_allclose(source.hessian(ode_checkpointed, x),
                               ENGINES["forward"].hessian(ode_checkpointed, x), rtol=1e-10)


def test_a_step_that_gives_another_value_when_run_again_is_an_error():
    with pytest.raises(CheckpointError, match="_noisy.*deterministic"):
        source.gradient(uses_a_nondeterministic_step, np.ones(3))


def test_a_checkpointed_primitive_is_its_rule():
    f = checkpoint(np.sin)
    (g,) = source.gradient(lambda x: np.sum(f(x)), np.linspace(0.0, 1.0, 4))
    np.testing.assert_allclose(g, np.cos(np.linspace(0.0, 1.0, 4)), rtol=1e-15)
