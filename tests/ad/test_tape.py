"""Reverse mode's tape keeps only what its vjps read (kernels/ad/rules/reads.py, the nodes of
kernels/ad/reverse/variable.py): what is read off a function's code, what a node keeps,
that a value no vjp reads is freed while f still runs, and that gradients stay right."""

import gc
import operator
import weakref

import numpy as np
import pytest

from kernels.ad import rules
from kernels.ad.reverse import Variable, gradient
from kernels.ad.rules import reads as R


def _ans_x_y(g, ans, x, y):
    return g * y


def _reads_through_a_closure(g, ans, x, y):
    def inner():
        return x
    return g * inner()


def _reads_locals(g, ans, x, y):
    return g * locals()["y"]


def _reads_star_args(g, ans, *args):
    return g * args[1]


def _ignores_star_args(g, ans, *args):
    return g * ans


@pytest.mark.parametrize("fn, expected", [
    (_ans_x_y, (False, frozenset({1}))),
    (lambda g, ans, x, y: g * ans, (True, frozenset())),
    (lambda g, ans, x, y: g * x * y, (False, None)),  # every argument: nothing to prune
    (_reads_through_a_closure, (False, frozenset({0}))),
    (_reads_locals, R.EVERYTHING),
    (_reads_star_args, (False, None)),
    (_ignores_star_args, (True, frozenset())),
    (np.sin, R.EVERYTHING),  # a builtin: its code cannot be read
    (R.through(lambda g, ans, *args: None, lambda ans, x, y: 1.0 / y, 0),
     (False, frozenset({1}))),
])
def test_what_a_vjp_reads_is_read_off_its_code(fn, expected):
    assert R.reads(fn, 1) == expected


def test_the_pruned_arguments_keep_their_places():
    assert R.pruner(None) is None
    assert R.pruner(frozenset())((1.0, 2.0, 3.0)) == (None, None, None)
    keep_second = R.pruner(frozenset({1}))
    assert keep_second((1.0, 2.0)) == (None, 2.0)
    assert keep_second((1.0, 2.0, 3.0)) == (None, 2.0, None)


def test_a_rule_keeps_what_the_vjps_of_its_differentiated_arguments_read():
    mul, add, exp = (rules.RULES[f] for f in (operator.mul, np.add, np.exp))
    # x * c with only x differentiated keeps c, not x; both differentiated keeps both
    ans, prune = mul.keeps(0b01)
    assert not ans and prune(("x", "c")) == (None, "c")
    ans, prune = mul.keeps(0b11)
    assert not ans and (prune is None or prune(("x", "y")) == ("x", "y"))
    ans, prune = add.keeps(0b11)
    assert not ans and prune(("x", "y")) == (None, None)
    ans, prune = exp.keeps(0b1)
    assert ans and prune(("x",)) == (None,)  # exp's vjp reads its output, not its input


def _freed_during(f, *args):
    """f's gradient, and whether the arrays f registered with ``watch`` were freed before
    f returned."""
    watched = []

    def watch(v):
        watched.append(weakref.ref(v.value))
        return v

    alive = []

    def wrapped(*leaves):
        out = f(watch, *leaves)
        gc.collect()
        alive.extend(ref() is not None for ref in watched)
        return out
    return gradient(wrapped, *args), alive


def test_values_no_vjp_reads_are_freed_while_f_runs():
    x = np.linspace(0.1, 1.0, 7)

    def f(watch, x):
        s = watch(x + 1.0)             # read by nothing: add's vjps read nothing
        t = watch(np.concatenate((s, 2.0 * s)))  # a join reads only the shapes
        del s
        u = t * 3.0                    # mul keeps 3.0, not t
        del t
        return np.sum(np.exp(u))

    (grad,), alive = _freed_during(f, x)
    assert alive == [False, False]
    expected = 3.0 * np.exp(3.0 * (x + 1.0)) + 6.0 * np.exp(6.0 * (x + 1.0))
    np.testing.assert_allclose(grad, expected, rtol=1e-13)


def test_values_a_vjp_reads_are_kept_and_used():
    x = np.linspace(-1.0, 1.0, 5)

    def f(watch, x):
        s = watch(np.sin(x))          # read by the product's vjp of its other factor
        e = watch(np.exp(x))          # read by the product's vjp, and exp's own output
        p = s * e
        del s, e
        return np.sum(p)

    (grad,), alive = _freed_during(f, x)
    assert alive == [True, True]
    np.testing.assert_allclose(grad, (np.cos(x) + np.sin(x)) * np.exp(x), rtol=1e-13)


def test_ode_tape_holds_about_what_the_hand_written_adjoint_keeps():
    """gradbench's ode at n = 2000: the adjoint keeps the 4 stage inputs of each of the 10
    steps (40 arrays); the tape held about 6 times that before it kept only what vjps read."""
    from kernels.ad.problems import PROBLEMS
    problem, (x,) = PROBLEMS["ode"].bind(2000, np.random.default_rng(0))
    leaf = Variable(x)
    out = problem.f(leaf)
    buffers, stack, seen = {}, [out._node], set()
    while stack:
        node = stack.pop()
        if id(node) in seen:
            continue
        seen.add(id(node))
        kept = list(node[3] or ()) + ([node[5]] if node[1] else [])
        for v in kept:
            if isinstance(v, np.ndarray):
                while isinstance(v.base, np.ndarray):
                    v = v.base
                buffers[id(v)] = v.nbytes
        stack.extend(parent for _, parent in node[1])
    stage_inputs = 4 * 10 * x.nbytes
    assert sum(buffers.values()) <= 1.1 * stage_inputs + x.nbytes


def test_backward_after_the_leaf_is_gone_gives_the_others_their_gradients():
    a, b = Variable(np.array([1.0, 2.0])), Variable(np.array([3.0, 4.0]))
    out = np.sum(a * b)
    del a
    gc.collect()
    out.backward()
    np.testing.assert_array_equal(b.grad, [1.0, 2.0])


@pytest.mark.parametrize("engine", ["reverse", "source"])
def test_arguments_given_one_cotangent_get_arrays_of_their_own(engine):
    """add's vjp hands its argument the output's cotangent itself, unmultiplied: the
    gradients of x and y in (x + y) * c leave the engine as two arrays."""
    from kernels.ad import ENGINES
    c = np.array([2.0, 3.0])

    def f(x, y):
        return np.sum((x + y) * c)
    gx, gy = ENGINES[engine].gradient(f, np.ones(2), np.zeros(2))
    np.testing.assert_array_equal(gx, c)
    gx[0] = 99.0
    np.testing.assert_array_equal(gy, c)


def test_leaves_given_one_cotangent_get_grads_of_their_own():
    x, y = Variable(np.ones(2)), Variable(np.zeros(2))
    np.sum((x + y) * np.array([2.0, 3.0])).backward()
    x.grad[0] = 99.0
    np.testing.assert_array_equal(y.grad, [2.0, 3.0])
