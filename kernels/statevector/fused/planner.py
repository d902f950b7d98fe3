"""Which plan the fused backend runs, chosen per circuit and per machine: the fusion width
and, for each width, whether to fuse before or after the cut into stages, priced in
seconds by a model whose constants are this machine's.

A plan's price is the sum of its gates' and its passes' times. A dense gate that mixes k
qubits (:func:`fusion.mixed`; the stages run it as its pieces) costs ``prices(...)[k]``
per amplitude (its 2**k multiply-adds and its sweep of the chunk in L2, as the kernels
run them), a diagonal one ``prices(...)[0]``, a control halves it;
every step is one pass over the whole state, read and written at the in-place bandwidth
of the level the state sits in. ``python -m harness tune`` measures these constants on
this machine (kernels.statevector.tuning); without it the defaults below, measured on
the project machine, stand in.
"""

import numpy as np

from .. import fusion, roofline, tuning
from ..machine import level_of
from . import stages

#: The fusion widths the planner chooses among at the backend's default: 2 to 6. With 6
#: among them (since 2026-12-02) QFT and MQT's QAOA at 20 qubits take 6, the width that
#: measured fastest there (1.05-1.21x faster than the 5 chosen before, both precisions).
CANDIDATES = (2, 3, 4, 5, 6)

#: Seconds per amplitude of one gate in a fused stage (key 0: a diagonal gate, k: a dense
#: k-qubit one), measured by ``python -m harness tune`` on the project machine (2-core
#: Intel Xeon, AVX-512, 2 MiB L2 per core, one thread, 2026-11-28), in the staged layout.
#: Measured again in the split layout (one and two qubits 20-35% cheaper, three 40%),
#: they fused the random circuit at 20 qubits in complex128 into 154 gates instead of
#: 128, 1.14x slower: a stage's gate price misses what a lane gate costs over a gate on
#: high qubits (up to 2.4x), so these stay until the model prices lane gates. Three
#: qubits measured again (1.09 and 0.52 ns, 2026-12-02) once that gate ran in registers.
#: Pricing the lane gates apart was tried the same day (each width measured on and off
#: the lanes: 1.14-1.61x up to five qubits, 2.1-2.4x at six) and did not pay: on QCBM,
#: QFT, QV, random, Heisenberg and QAOA at 14 and 20 qubits, both precisions, the plans
#: it chose took 0.87-1.18x the time, as often slower as faster (the greedy walk then
#: declines joins that touch the lanes and leaves more, narrower gates).
DEFAULT_GATE_SECONDS = {
    "complex128": {0: 0.75e-9, 1: 0.77e-9, 2: 0.63e-9, 3: 1.09e-9, 4: 2.40e-9, 5: 3.83e-9,
                   6: 9.2e-9},
    "complex64": {0: 0.39e-9, 1: 0.38e-9, 2: 0.32e-9, 3: 0.52e-9, 4: 1.20e-9, 5: 2.09e-9,
                  6: 4.7e-9},
}
#: In-place GB/s per level on the same machine, the same day (harness.statevector.levels).
DEFAULT_GBS = {"L2": 78.6, "L3": 18.1, "DRAM": 18.3}


def gate_key(k, precision):
    """The tuning constant of a k-qubit dense gate's time (k = 0: a diagonal gate's)."""
    return f"fused_seconds_{'diagonal' if k == 0 else f'k{k}'}_{precision}"


def prices(precision):
    """{k: seconds per amplitude of a dense k-qubit gate in a fused stage (k = 0: a
    diagonal gate)} on this machine: what the fusion planner weighs a merge by."""
    return {k: tuning.value(gate_key(k, precision), default)
            for k, default in DEFAULT_GATE_SECONDS[precision].items()}


def gate_seconds(inst, precision):
    """Seconds per amplitude of the state that ``inst`` takes in a fused stage: as its
    pieces (:func:`fusion.pieces`), a gate on the targets it mixes, each piece over its
    share of the state."""
    k = 0 if stages.is_diagonal(inst) else len(fusion.mixed(inst.matrix))
    return prices(precision)[k] / (1 << len(inst.ctrl_locs))


def pass_seconds(n, dtype):
    """Seconds per amplitude of one pass over an n-qubit state of ``dtype``."""
    dtype = np.dtype(dtype)
    level = level_of(dtype.itemsize << n)
    gbs = tuning.value(roofline.gbs_key(level), DEFAULT_GBS[level])
    return 2 * dtype.itemsize / (gbs * 1e9)


def seconds(steps, n, dtype):
    """The model's time of the plan ``steps`` (:mod:`.stages`) on an n-qubit state."""
    precision = np.dtype(dtype).name
    per_amplitude = (sum(gate_seconds(g, precision) for g in stages.gates_of(steps))
                     + passes(steps) * pass_seconds(n, dtype))
    return per_amplitude * (1 << n)


def passes(steps):
    """Passes over the whole state the plan makes: one per stage (and per rewrite of the
    layout); a gate run on its own touches only the amplitudes its controls select, half
    the state per control."""
    return sum(s.share for s in steps)


def roofline_work(steps):
    """What the plan must do (:class:`roofline.Work`): see :func:`roofline.multiply_adds`;
    the passes over the whole state (:func:`passes`) and, inside each stage, a pass over
    its chunks (in L2) per gate, a controlled gate's halved per control (it touches only
    those runs)."""
    inner = sum(1 / (1 << len(g.ctrl_locs)) for s in steps if s.chunked
                for g in s.gates)
    return roofline.Work(sum(roofline.multiply_adds(g) for g in stages.gates_of(steps)),
                         {"state": passes(steps), "L2": inner})
