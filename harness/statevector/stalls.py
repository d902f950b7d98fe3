"""What subnormal amplitudes cost a backend, measured where the benchmark runs: one gate
on a state whose amplitudes are all subnormal, against the same gate on a normal state,
sampled in alternation in this process (kernels.statevector.subnormals says why they
stall an x86 core, and how our kernels avoid it).

How much slower differs by processor (the Heisenberg chain whose subnormals made a plan
run 20x slower on an Intel Xeon ran at 0.67x the fastest peer's time on an AMD Zen 4), so it is
never assumed: it is measured beside every ranking that it could decide.
"""

import time

import numpy as np

from kernels.statevector import circuits, states, subnormals

#: samples of each state, alternated; the minimum of each is kept
ROUNDS = 5
#: the subnormal state's parts are at most this fraction of the smallest normal float
#: (below it by a factor of 64, so that a normal state's rare large parts stay subnormal)
DEPTH = 2.0 ** -6


def subnormal_state(n, dtype, rng):
    """A random state scaled so that its real and imaginary parts are subnormal in
    ``dtype`` (all but a rare few; :func:`kernels.statevector.subnormals.count` says)."""
    dtype = np.dtype(dtype)
    tiny = np.finfo(dtype).smallest_normal
    vec = states.random_state(n, rng)
    vec *= DEPTH * tiny / max(np.max(np.abs(vec.real)), np.max(np.abs(vec.imag)))
    return vec.astype(dtype)


def gate(n):
    """The gate timed: a Hadamard on the middle qubit (a sum and a difference of every
    pair: subnormal operands and subnormal results)."""
    return [circuits.gate("H", n // 2)]


def slowdown(runner, n, dtype, rng, rounds=ROUNDS):
    """{"normal_seconds", "subnormal_seconds", "ratio", "subnormal_parts"}: the minimum
    time of one gate (:func:`gate`) through ``runner`` (a backend's runner,
    kernels.statevector.backend) on a normal state and on a subnormal one, each sample on
    a state loaded afresh outside the clock (a flushing backend leaves zeros behind),
    the two alternated for ``rounds`` rounds."""
    program = runner.program(gate(n), n)
    normal = states.random_state(n, rng).astype(dtype)
    tiny = subnormal_state(n, dtype, rng)
    best = {"normal": float("inf"), "subnormal": float("inf")}
    for _ in range(rounds):
        for kind, vec in (("normal", normal), ("subnormal", tiny)):
            state = runner.load(vec)
            t0 = time.perf_counter()
            runner.run(state, program)
            runner.sync()
            best[kind] = min(best[kind], time.perf_counter() - t0)
    return {"normal_seconds": best["normal"], "subnormal_seconds": best["subnormal"],
            "ratio": best["subnormal"] / best["normal"],
            "subnormal_parts": subnormals.count(tiny)}


def reference_count(expected, dtype):
    """How many real and imaginary parts of the reference's final state (complex128)
    are subnormal once rounded to ``dtype``, the precision the backends ran."""
    return subnormals.count(np.asarray(expected).astype(dtype))
