"""The exchange plan keeps a circuit's meaning: emulated rank by rank (each rank's slice
run through its own restricted gates, an exchange as the swap of two bits of the whole
state), it matches the reference on hypothesis-drawn circuits whose gates hit global
qubits as targets, controls and diagonals, over 2, 4 and 8 ranks; and it sends no message
where none is needed."""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from kernels.statevector import KERNELS, circuits, gates
from kernels.statevector.distributed import plan as planning
from kernels.statevector.states import random_state
from tests.statevector.test_fusion import random_gates

REFERENCE = KERNELS["loop"]


def emulate(plan, state):
    """``plan`` run on the whole vector as its ranks would, one slice at a time."""
    n, g = plan.n, plan.g
    local = n - g
    state = state.copy()
    for step in plan.steps:
        if isinstance(step, planning.Exchange):
            t = state.reshape((2,) * n)  # axis a is bit n-1-a
            for p, G in zip(step.local, step.glob, strict=True):
                t = np.swapaxes(t, n - 1 - p, n - 1 - G)
            state = np.ascontiguousarray(t).reshape(-1)
            continue
        slices = state.reshape(1 << g, 1 << local)
        for rank in range(1 << g):
            fixed = {local + j: (rank >> j) & 1 for j in range(g)}
            mine = [x for x in (planning.restrict(i, fixed) for i in step.gates) if x]
            # every restricted gate lies on local bits: the rank needs nothing else
            assert all(max(x.locs + x.ctrl_locs) < local for x in mine)
            slices[rank] = circuits.run(REFERENCE, slices[rank].copy(), mine)
    return state


def expected(instructions, state):
    return circuits.run(REFERENCE, state.copy(), instructions)


@settings(max_examples=80, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), n=st.integers(3, 8), g=st.integers(1, 3),
       eviction=st.sampled_from(planning.EVICTIONS))
def test_plan_keeps_the_meaning(seed, n, g, eviction):
    g = min(g, n - 3)  # slices of 3 qubits at least: the random gates span up to 3
    rng = np.random.default_rng(seed)
    circuit = random_gates(n, rng, int(rng.integers(1, 30)))
    start = random_state(n, rng)
    plan = planning.plan(circuit, n, g, eviction)
    np.testing.assert_allclose(emulate(plan, start), expected(circuit, start), atol=1e-12)


@pytest.mark.parametrize("name", sorted(circuits.LIBRARY))
@pytest.mark.parametrize("g", [1, 2, 3])
def test_library_circuits(name, g):
    n = 8
    try:
        circuit = circuits.LIBRARY[name](n, np.random.default_rng(5))
    except ValueError:
        pytest.skip(f"{name} has no {n}-qubit form")
    instructions = getattr(circuit, "instructions", circuit)
    start = random_state(n, np.random.default_rng(6))
    plan = planning.plan(instructions, n, g)
    np.testing.assert_allclose(emulate(plan, start), expected(instructions, start),
                               atol=1e-12)


def test_controls_diagonals_and_swaps_on_global_qubits_send_nothing():
    n, g = 6, 2  # qubits 4 and 5 are global
    rng = np.random.default_rng(1)
    circuit = [circuits.cnot(5, 0), circuits.gate("Rz", 4, theta=0.3),
               circuits.cz(4, 5), circuits.gate("phase", 5, ctrl=(1,), theta=0.7),
               circuits.dense(np.diag(np.exp(1j * rng.uniform(size=4))), 4, 2),
               circuits.swap(5, 1),  # a relabelling: no amplitude moves here
               circuits.gate("H", 5)]  # so this H runs on local bit 1
    plan = planning.plan(circuit, n, g)
    # the one exchange is the SWAP's, deferred to the end, where the layout is restored
    assert plan.exchanges == 1
    start = random_state(n, rng)
    np.testing.assert_allclose(emulate(plan, start), expected(circuit, start), atol=1e-12)


def test_belady_sends_away_the_qubit_needed_last():
    # H on the global qubit 3 needs it local; of the local qubits, 0 and 1 are needed
    # again next, 2 never: 2 is sent away, and no second exchange is needed
    circuit = [circuits.gate("H", 3), circuits.gate("H", 0), circuits.gate("H", 1),
               circuits.gate("H", 3)]
    plan = planning.plan(circuit, 4, 1)
    first = next(s for s in plan.steps if isinstance(s, planning.Exchange))
    assert first == planning.Exchange(local=(2,), glob=(3,))
    # the two H on qubit 3 cancel; the layout is put back at the end: two exchanges
    assert plan.exchanges == 2


def test_global_qubits_needed_together_come_in_one_exchange():
    n, g = 6, 2
    circuit = [circuits.gate("H", 4), circuits.gate("H", 5), circuits.gate("H", 0)]
    plan = planning.plan(circuit, n, g)
    first = next(s for s in plan.steps if isinstance(s, planning.Exchange))
    assert sorted(first.glob) == [4, 5] and len(first.local) == 2
    assert 0 not in first.local  # qubit 0 is needed by the same stretch
    # one remap in, one out: 3/4 of a slice each, where four single swaps send 2 slices
    assert plan.exchanges == 2 and plan.sent(1024) == 2 * 768
    start = random_state(n, np.random.default_rng(2))
    np.testing.assert_allclose(emulate(plan, start), expected(circuit, start), atol=1e-12)


def test_global_qubits_swapped_with_each_other_are_restored():
    # SWAP(4, 5) relabels: the final layout wants the two global qubits in each other's
    # places, which no single exchange of local and global bits does: two are needed
    n, g = 6, 2
    circuit = [circuits.gate("H", 4), circuits.swap(4, 5), circuits.gate("Rx", 0, theta=0.4)]
    plan = planning.plan(circuit, n, g)
    start = random_state(n, np.random.default_rng(3))
    np.testing.assert_allclose(emulate(plan, start), expected(circuit, start), atol=1e-12)
    only = planning.plan([circuits.swap(4, 5)], n, g)
    assert only.exchanges == 2
    np.testing.assert_allclose(emulate(only, start), expected([circuits.swap(4, 5)], start),
                               atol=1e-12)


@pytest.mark.parametrize("name", ["qft", "random"])
def test_exchanges_at_24_qubits_over_4_ranks(name):
    # the count target (counted, not timed): at most a quarter of the exchanges
    # that one per gate on a global qubit would make
    n, g = 24, 2
    circuit = circuits.LIBRARY[name](n, np.random.default_rng(0))
    on_global = sum(max(i.locs + i.ctrl_locs) >= n - g for i in circuit)
    plan = planning.plan(circuit, n, g)
    assert 0 < 4 * plan.exchanges <= on_global


def test_refusals_name_what_is_wrong():
    with pytest.raises(ValueError, match="at least one qubit"):
        planning.plan([], 3, 3)
    wide = circuits.dense(gates.random_unitary(3, np.random.default_rng(0)), 0, 1, 2)
    with pytest.raises(ValueError, match="mixes 3 qubits"):
        planning.plan([wide], 4, 2)
    with pytest.raises(ValueError, match="eviction"):
        planning.plan([], 4, 1, "random")
    with pytest.raises(ValueError, match="mixes qubit"):
        planning.restrict(circuits.gate("H", 3), {3: 0})
