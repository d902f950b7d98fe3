"""``python -m harness tune``: measure this machine's constants and cache them
(kernels.statevector.tuning), for the kernels, the fused planner and the roofline.

What it measures, each on one thread unless said:

- ``fmas_<precision>``: the FMA peak of one core (kernels.statevector.codegen.peak);
- ``gbs_<level>``: the in-place bandwidth of L2, L3 and DRAM (harness.statevector.levels);
- ``fused_seconds_k<k>_<precision>``: seconds per amplitude of one dense k-qubit gate
  inside a fused stage (its multiply-adds and its sweep of the chunk in L2), k = 1..6,
  and ``fused_seconds_diagonal_<precision>`` of a diagonal one: what the fused planner
  prices a plan's gates at;
- ``fused_block_qubits_<precision>``: the stage size (log2 amplitudes) that ran a QCBM
  and a QFT circuit of 22 qubits fastest;
- ``threaded_parallel_threshold``: the smallest state the parallel stride loop beat the
  serial one on (with more than one core).
"""

import time

import numpy as np

from harness import threads
from harness.statevector import levels, stage_kernels
from harness.statevector import threshold as threshold_mod
from harness.timing import best_seconds
from kernels.statevector import circuits, fused, fusion, roofline, tuning
from kernels.statevector.codegen import peak
from kernels.statevector.compiled import threaded
from kernels.statevector.fused import planner
from kernels.statevector.settings import PRECISIONS

#: Circuits the stage size is chosen on, at this many qubits (past L2 on any machine).
BLOCK_CIRCUITS = ("qcbm", "qft")
BLOCK_QUBITS = 22


def _stage(k, dtype, rng):
    """(program, state): a fused stage of random k-qubit gates (k = 0: diagonal one-qubit
    gates) on a state that is one chunk, in L2, in the layout the backend would hold it
    in (:func:`harness.statevector.stage_kernels.stage`)."""
    dtype = np.dtype(dtype)
    n = stage_kernels.qubits("L2", dtype)
    return stage_kernels.stage(stage_kernels.Case(
        "dense" if k else "diagonal", max(k, 1), fused.program.default_layout(n, dtype),
        dtype.name, "L2"), rng)


def gate_seconds(widths, dtype, rng, rounds=9):
    """{k: seconds per amplitude of one k-qubit gate in a fused stage (k = 0: a diagonal
    one)}: each stage's best time over its gates, the stages timed in turn, round after
    round, so that a change of load on this shared machine moves every width alike."""
    stages = {k: _stage(k, dtype, rng) for k in widths}
    best = dict.fromkeys(widths, float("inf"))
    for _ in range(rounds):
        for k, (program, state) in stages.items():
            best[k] = min(best[k], best_seconds(lambda p=program, s=state: p(s), repeat=1,
                                                max_seconds=float("inf"), min_sample=0.02))
    return {k: t / stages[k][0].info["fused_gates"] / (1 << stages[k][0].n)
            for k, t in best.items()}


def best_block(dtype, rng, rounds=3):
    """(the stage size that ran :data:`BLOCK_CIRCUITS` fastest in total, {size: total
    seconds}): every size and circuit timed in turn, round after round."""
    default = fused.block_qubits(dtype)
    made = [circuits.LIBRARY[name](BLOCK_QUBITS, rng) for name in BLOCK_CIRCUITS]
    state = np.zeros(1 << BLOCK_QUBITS, dtype)
    programs = {(block, i): fused.Program(instructions, BLOCK_QUBITS, dtype, block=block)
                for block in range(default - 3, default + 2)
                for i, instructions in enumerate(made)}
    best = dict.fromkeys(programs, float("inf"))
    for r in range(rounds + 1):  # the first round compiles
        for key, program in programs.items():
            t0 = time.perf_counter()
            program(state)
            if r:
                best[key] = min(best[key], time.perf_counter() - t0)
    totals = {}
    for (block, _), t in best.items():
        totals[block] = totals.get(block, 0.0) + t
    return min(totals, key=totals.get), totals


def measure(say=print):
    """{constant: value} measured now, saying each as it goes."""
    rng = np.random.default_rng(2026)
    constants = {}
    threads.set_threads(1)
    for p in PRECISIONS:
        constants[roofline.fmas_key(p)] = rate = peak.fma_rate(p, seconds=0.1, repeat=7)
        say(f"FMA peak, {p}: {rate / 1e9:.1f} G/s")
    for level in levels.LEVELS:
        constants[roofline.gbs_key(level)] = gbs = levels.inplace_gbs(level, max_seconds=2.0)
        say(f"in-place bandwidth, {level}: {gbs:.1f} GB/s")
    for p in PRECISIONS:
        dtype = np.dtype(p)
        for k, t in gate_seconds(range(fusion.MAX_QUBITS + 1), dtype, rng).items():
            constants[planner.gate_key(k, p)] = t
            say(f"{fused.BACKEND.name} {f'{k}-qubit' if k else 'diagonal'} gate, {p}: "
                f"{t * 1e9:.3f} ns per "
                f"amplitude ({(1 << k) / t / 1e9 if k else 1 / t / 1e9:.2f} G multiply-adds/s)")
        block, totals = best_block(dtype, rng)
        constants[fused.block_key(p)] = block
        say(f"{fused.BACKEND.name} stage size, {p}: 2**{block} amplitudes (" + ", ".join(
            f"2**{b}: {t * 1e3:.1f} ms" for b, t in totals.items()) + ")")
    if threads.max_threads() > 1:
        found = threshold_mod.crossover(threshold_mod.measure(range(10, 21)))
        if found:
            constants[threaded.THRESHOLD_KEY] = found
        say(f"{threaded.BACKEND.name} crossover: {found or 'parallel never clearly faster'}")
    threads.set_threads(1)
    return constants


def command(opts):
    """Measure, write this machine's tuning, and say where (with ``--if-missing``, only
    where this machine has none)."""
    if opts.if_missing and tuning.load():
        print(f"tuning {tuning.describe()} in force ({tuning.path()}); "
              "`python -m harness tune` measures it again")
        return 0
    start = time.perf_counter()
    constants = measure()
    path = tuning.save(constants, measured_with={
        "command": "python -m harness tune", "seconds": round(time.perf_counter() - start),
        "date": time.strftime("%Y-%m-%d")})
    print(f"tuning {tuning.describe()} written to {path}")
    return 0
