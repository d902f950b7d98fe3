"""``python -m harness threshold``: where does splitting a gate across threads start to
pay? Times the serial and the parallel stride loop (the ``threaded`` kernel's two halves)
on a dense single-qubit gate for each n, and prints the ratio and the crossover, the
value that ``kernels.statevector.threaded.PARALLEL_THRESHOLD`` should hold."""

import numpy as np

from harness import threads
from harness.timing import best_seconds
from kernels.statevector import gates, stride
from kernels.statevector._validate import check_gate
from kernels.statevector.states import random_state


def best_time(fn, budget=0.2, repeat=7):
    """Minimum time of one call, each of ``repeat`` samples lasting ~budget/repeat."""
    return best_seconds(fn, repeat=repeat, max_seconds=float("inf"), min_sample=budget / repeat)


def measure(qubits, locs=(0, 5)):
    """[(n, serial seconds, parallel seconds)] of H on the best of ``locs``, for each n,
    on every thread this process has."""
    threads.set_threads(threads.max_threads())
    rows = []
    for n in qubits:
        state = random_state(n, np.random.default_rng(n))
        times = []
        for loc in locs:
            if loc >= n:
                continue
            g = check_gate(state, gates.H, (loc,))
            (serial, s_args), (parallel, p_args) = (stride.plan(g, state.dtype, p)
                                                    for p in (False, True))
            ts = best_time(lambda f=serial, a=s_args, state=state: f(state, *a))
            tp = best_time(lambda f=parallel, a=p_args, state=state: f(state, *a))
            times.append((ts, tp))
        rows.append((n, min(t[0] for t in times), min(t[1] for t in times)))
    return rows


def crossover(rows):
    """The smallest state (amplitudes) from which on the parallel loop was at least 1.1x
    the serial one at every larger n measured; None where it never was."""
    found = None
    for n, ts, tp in rows:
        if found is None and ts / tp > 1.1:
            found = 1 << n
        elif ts / tp < 1.0:
            found = None
    return found


def report(qubits):
    print(f"threads: {threads.max_threads()}")
    print(f"{'n':>3} {'amplitudes':>11} {'serial us':>10} {'parallel us':>12} {'speed-up':>9}")
    rows = measure(qubits)
    for n, ts, tp in rows:
        print(f"{n:>3} {1 << n:>11} {ts * 1e6:>10.2f} {tp * 1e6:>12.2f} {ts / tp:>9.2f}")
    found = crossover(rows)
    print(f"suggested PARALLEL_THRESHOLD: {found} amplitudes"
          if found else "parallel never clearly faster in this range")
    return 0


def command(opts):
    """``python -m harness threshold``: the crossover at ``opts.qubits``."""
    return report(opts.qubits)
