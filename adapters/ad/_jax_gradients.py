"""JAX's compiled gradient of a variational circuit's energy, for jax_jit_ad
(docs/architecture.md, "Adapters"; the shared layout in :mod:`adapters._gradients`).

The circuit's energy is written in ``jax.numpy``, as its users write it for
``jax.jit(jax.grad(energy))``: a complex128 state, each gate a reshape to (high bits,
qubit, low bits) and an einsum with its 2x2 matrix, controls a ``jnp.where`` on a constant
mask, the energy a sum of gathers times weights; the constants come from
:mod:`adapters.ad._circuit_plan`.

"jit": ``jax.jit(jax.grad(energy))`` compiled and run once when prepared, so no timed
call traces or compiles. The returned functions carry the compile time as
``compile_seconds``.

Tracing unrolls a Python loop over the gates, and XLA's compile time grows with the
program: unrolled, the QCBM circuit at n = 20 (660 gates) took 32 s to compile its
gradient and 16 s its energy (jax 0.10.2, one CPU thread). So, as JAX users write layered
circuits, the longest run of repeated layers goes through ``jax.lax.scan`` (its body
traced once, the layers' rotation matrices scanned over) and only the rest is unrolled:
11 s and 5.5 s at n = 20, the gradient and energy run within 5% of the unrolled ones.
Layers repeat when their gates act on the same qubits with the same controls and the
same fixed gates (constants of the body); only the angles differ.
"""

import time

import numpy as np

from . import _circuit_plan
from .jax_ad import jax  # configured there (x64, one thread), as jax_jit_ad uses it

jnp = jax.numpy


def repeated_block(signature):
    """``(start, length, repeats)`` of the run ``signature[start:start + length * repeats]``
    made of ``repeats`` equal blocks that covers the most steps beyond its first block
    (``(0, 0, 0)`` when nothing repeats). ``signature`` is a 1-D int array."""
    best, found = 0, (0, 0, 0)
    for length in range(1, len(signature) // 2 + 1):
        # same[i]: step i equals step i + length; a run of r such steps from i makes
        # r // length + 1 equal blocks from i
        same = np.concatenate([[0], signature[:-length] == signature[length:], [0]])
        edges = np.diff(same.astype(np.int8))
        starts, ends = np.flatnonzero(edges == 1), np.flatnonzero(edges == -1)
        if not len(starts):
            continue
        longest = np.argmax(ends - starts)
        repeats = (ends[longest] - starts[longest]) // length + 1
        if (repeats - 1) * length > best:
            best, found = (repeats - 1) * length, (int(starts[longest]), length, int(repeats))
    return found


def _bytes(array):
    return None if array is None else array.tobytes()


def energy_function(problem):
    """``energy(theta)``: a float64 array ``theta`` (``n_params``) to a 0-d float64 array,
    traceable by ``jax.jit`` and ``jax.grad``."""
    p = _circuit_plan.plan(problem)
    n = p.n
    a, b, c = p.coeffs
    # a repeated layer's fixed gates are constants of the scanned body: part of its signature
    keys = {}
    signature = np.array([keys.setdefault((q, _bytes(mask), _bytes(fixed)), len(keys))
                          for q, mask, fixed in p.steps], dtype=np.int64)
    start, length, repeats = repeated_block(signature)
    stop = start + length * repeats
    rotations = np.cumsum([0] + [s.fixed is None for s in p.steps])  # before each step
    first, last = rotations[start], rotations[stop]
    per_layer = (last - first) // max(repeats, 1)
    zero = _circuit_plan.zero_state(n)

    def run(psi, us, steps):
        """The steps on psi, the rotations' matrices taken in turn from us."""
        us = iter(us)
        for q, mask, fixed in steps:
            blocks = psi.reshape(2 ** (n - q - 1), 2, 2 ** q)
            new = jnp.einsum("ab,ibj->iaj", next(us) if fixed is None else fixed,
                             blocks).reshape(2 ** n)
            psi = new if mask is None else jnp.where(mask, new, psi)
        return psi

    def layer(psi, us):
        return run(psi, us, p.steps[start:start + length]), None

    def energy(theta):
        angle = (p.freq * theta[p.param])[:, None, None]
        u = a + b * jnp.cos(angle) + c * jnp.sin(angle)  # all rotations at once
        psi = run(jnp.asarray(zero), u[:first], p.steps[:start])
        if repeats:
            psi, _ = jax.lax.scan(layer, psi, u[first:last].reshape(repeats, per_layer, 2, 2))
        psi = run(psi, u[last:], p.steps[stop:])
        total = 0.0
        for index, weight in p.terms:
            moved = psi if index is None else psi[index]  # P psi up to the weight
            total = total + jnp.vdot(psi, weight * moved).real
        return total

    return energy


def _compiled(problem, differentiate):
    """``(call, compile_seconds)``: the energy or its gradient, compiled and run once."""
    energy = energy_function(problem)
    fn = jax.jit(jax.grad(energy) if differentiate else energy)
    start = time.perf_counter()
    compiled = fn.lower(jnp.asarray(problem.theta0)).compile()
    compile_seconds = time.perf_counter() - start

    def call(theta):
        return compiled(problem.check(theta)).block_until_ready()

    call(problem.theta0)  # warm-up: the first run allocates and touches everything once
    return call, compile_seconds


def gradient(problem, method):
    """``grad(theta)``: the compiled ``jax.grad`` of the jax.numpy energy (jax-jit's one
    method, "jit")."""
    compiled, compile_seconds = _compiled(problem, True)

    def grad(theta):
        return np.array(compiled(theta))  # a writable float64 copy, as the contract gives

    grad.compile_seconds = compile_seconds
    return grad


def energy(problem, method):
    """``energy(theta)``: the compiled jax.numpy energy."""
    compiled, compile_seconds = _compiled(problem, False)

    def value(theta):
        return float(compiled(theta))

    value.compile_seconds = compile_seconds
    return value
