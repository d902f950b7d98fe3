"""The fused backend's split layout (kernels.statevector.fused.split): every gate
shape it treats differently (on high qubits only, with targets or controls among the
lanes of a register, diagonal or dense) against the reference kernel, the per-lane
matrices against the gate's entries, and where its chunks lie."""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from kernels.statevector import KERNELS, circuits, fused, fusion, gates, lanes, machine
from kernels.statevector.circuits import Instruction
from kernels.statevector.fused import simd, split
from kernels.statevector.states import random_state

from .structured import conserving, multiplexed, parity_keeping

REFERENCE = KERNELS["loop"]


@settings(max_examples=120, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), single=st.booleans(), k=st.integers(1, 4),
       n_ctrl=st.integers(0, 2), diagonal=st.booleans(), gap=st.integers(0, 3))
def test_each_gate_shape_keeps_the_meaning(seed, single, k, n_ctrl, diagonal, gap):
    """One gate (dense or diagonal, 1-4 targets, 0-2 controls of either value) on random
    qubits of 9, so that targets and controls fall among the lanes, among the qubits
    above them, or both; chunks of 2**(w + gap) amplitudes, so that most of the state
    lies outside each, and a gate with more high qubits than a chunk holds runs alone."""
    rng = np.random.default_rng(seed)
    dtype = np.complex64 if single else np.complex128
    n = 9
    qubits = [int(q) for q in rng.permutation(n)[:k + n_ctrl]]
    if diagonal:
        matrix = np.diag(np.exp(1j * rng.uniform(-np.pi, np.pi, 1 << k)))
    else:
        matrix = gates.random_unitary(k, rng)
    vals = tuple(int(v) for v in rng.integers(0, 2, n_ctrl))
    circuit = [Instruction("g", matrix, tuple(qubits[:k]), tuple(qubits[k:]), vals)]
    state = random_state(n, rng).astype(dtype)
    program = fused.compile(circuit, n, dtype, max_qubits=k, layout="split",
                            block=fused.run_bits(dtype) + gap)
    got = program(state.copy())
    expected = circuits.run(REFERENCE, state.astype(np.complex128), circuit)
    np.testing.assert_allclose(got, expected, atol=2e-5 if single else 1e-12)


@pytest.mark.parametrize("dtype", [np.complex128, np.complex64])
def test_every_lane_gate_shape_keeps_the_meaning(dtype):
    """Every set of lane targets with 0-3 targets above the lanes (up to 6 in all): the
    lane kernel's paths (inputs in registers for one, two or four runs a group, through
    the scratch for more) and its chains of partial sums, each against the reference."""
    rng = np.random.default_rng(49)
    w = fused.run_bits(dtype)
    n = w + 4
    for mask in range(1, 1 << w):
        low = [q for q in range(w) if mask >> q & 1]
        for h in range(min(3, fusion.MAX_QUBITS - len(low)) + 1):
            locs = tuple(int(q) for q in rng.permutation(low + list(range(w, w + h))))
            k = len(locs)
            # a gate keeping its targets' parity runs on the parity kernel where its
            # inputs stay in registers (simd.LANE[R, L | R]), any other on the plain one
            # (on one qubit both are diagonal)
            for kind, m in (("dense", gates.random_unitary(k, rng)),
                            *((("parity", parity_keeping(k, rng)),
                               ("conserving", conserving(k, rng))) if k > 1 else ())):
                circuit = [Instruction("g", m, locs)]
                step = split.step(circuit, n, w, range(w, n))
                lane_row = step.ops[step.ops[:, 0] == split.LANE]
                held = simd.lane_in_registers(1 << h, 1 << len(low))
                assert len(lane_row) == 1 and bool(lane_row[0, 7] >> w) == (
                    kind != "dense" and held), (kind, mask, h)
                state = random_state(n, rng).astype(dtype)
                got = fused.compile(circuit, n, dtype, max_qubits=k,
                                    layout="split")(state.copy())
                expected = circuits.run(REFERENCE, state.astype(np.complex128), circuit)
                np.testing.assert_allclose(got, expected,
                                           err_msg=f"{kind}, lanes {mask:b}, {h} high",
                                           atol=2e-5 if dtype == np.complex64 else 1e-12)


@settings(max_examples=60, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), single=st.booleans(), k=st.integers(2, 5))
def test_a_gate_that_does_not_mix_a_target_keeps_the_meaning(seed, single, k):
    """A gate that does not mix some of its targets (fusion.mixed), on qubits among the
    lanes and above them: above, those targets become its pieces' controls (a row per
    piece); among the lanes they stay targets, and the lane kernel takes only the
    patterns of the lane targets it mixes."""
    rng = np.random.default_rng(seed)
    dtype = np.complex64 if single else np.complex128
    w, n = fused.run_bits(dtype), fused.run_bits(dtype) + 4
    locs = tuple(int(q) for q in rng.permutation(n)[:k])
    quiet = [int(j) for j in rng.permutation(k)[:int(rng.integers(1, k))]]
    inst = Instruction("g", multiplexed(k, quiet, rng), locs)
    state = random_state(n, rng).astype(dtype)
    program = fused.compile([inst], n, dtype, max_qubits=k, layout="split")
    np.testing.assert_allclose(program(state.copy()),
                               circuits.run(REFERENCE, state.astype(np.complex128), [inst]),
                               atol=2e-5 if single else 1e-12)
    (ops,) = [s.ops for s in program.stages]
    high_quiet = [locs[j] for j in quiet if locs[j] >= w]
    assert len(ops) == 1 << len(high_quiet)
    mixing_lanes = sum(1 << locs[j] for j in range(k) if j not in quiet and locs[j] < w)
    assert all(row[7] == mixing_lanes for row in ops)


@settings(max_examples=120, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), single=st.booleans(), k=st.integers(1, 3),
       n_ctrl=st.integers(0, 2), gates_=st.integers(1, 4), gap=st.integers(0, 3))
def test_permutations_keep_the_meaning(seed, single, k, n_ctrl, gates_, gap):
    """Gates that only move amplitudes (a random permutation of 2**k rows, with cycles of
    every length, the identity and X-, CNOT-, SWAP- and Toffoli-like ones among them;
    0-2 controls of either value) on random qubits of 9, a dense gate after each so a
    wrong move cannot hide: on qubits above the lanes they run as moves (MOVE), among
    them as lane gates, and both against the reference kernel."""
    rng = np.random.default_rng(seed)
    dtype = np.complex64 if single else np.complex128
    n = 9
    circuit = []
    for _ in range(gates_):
        qubits = [int(q) for q in rng.permutation(n)[:k + n_ctrl]]
        matrix = np.eye(1 << k, dtype=complex)[rng.permutation(1 << k)]
        vals = tuple(int(v) for v in rng.integers(0, 2, n_ctrl))
        circuit.append(Instruction("p", matrix, tuple(qubits[:k]), tuple(qubits[k:]), vals))
        circuit.append(Instruction("u", gates.random_unitary(1, rng), (int(rng.integers(n)),)))
    state = random_state(n, rng).astype(dtype)
    program = fused.compile(circuit, n, dtype, max_qubits=1, layout="split",
                            block=fused.run_bits(dtype) + gap)
    got = program(state.copy())
    expected = circuits.run(REFERENCE, state.astype(np.complex128), circuit)
    np.testing.assert_allclose(got, expected, atol=2e-5 if single else 1e-12)


def test_a_permutation_on_high_qubits_is_its_cycles_of_runs():
    """A SWAP of two qubits above the lanes moves two of its four runs (one cycle); a
    three-cycle moves three; CNOT with its control above the lanes moves its two target
    runs under the control; a phase or any entry other than 0 and 1 is no move."""
    w, n = 3, 8
    swap = split.step([Instruction("SWAP", gates.SWAP, (4, 6))], n, w, range(w, n))
    assert list(swap.ops[0, :2]) == [split.MOVE, 1]
    # cycle bounds [0, 2], then the runs of matrix indices 1 and 2: qubit 4's bit, 6's
    assert list(swap.offs) == [0, 2, 1 << split.run_bit(4, w), 1 << split.run_bit(6, w)]
    three = np.eye(8)[[1, 2, 0, 3, 4, 5, 6, 7]]  # row 0 takes column 1, 1 takes 2, 2 takes 0
    bounds, order = split.move_cycles(three)
    assert list(bounds) == [0, 3] and list(order) == [0, 1, 2]
    cx = split.step([circuits.gate("X", 5, ctrl=(7,))], n, w, range(w, n))
    assert cx.ops[0, 0] == split.MOVE and cx.ops[0, 4] == 1 << split.run_bit(7, w)
    for m in (gates.Y, np.diag([1, 1j]) @ gates.X, 0.5 * np.eye(2)):
        assert not split.is_permutation(m)
    assert split.is_permutation(gates.TOFFOLI) and split.is_permutation(np.eye(4))


@pytest.mark.parametrize("dtype", [np.complex128, np.complex64])
def test_lane_entries_start_on_a_vector_of_an_aligned_matrix(dtype):
    """After a diagonal gate on three high qubits (8 entries, not a run's worth), a lane
    gate's per-lane entries are padded to start on a vector, the program holds the
    matrix on a cache line, and the stage still computes the reference's state."""
    rng = np.random.default_rng(7)
    w = fused.run_bits(dtype)
    n = w + 4
    circuit = [Instruction("d", np.diag(np.exp(1j * rng.uniform(0, 6, 8))), (w, w + 1, w + 2)),
               Instruction("u", gates.random_unitary(2, rng), (0, w + 3)),
               Instruction("d1", np.diag(np.exp(1j * rng.uniform(0, 6, 2))), (w,)),
               Instruction("v", np.diag(np.exp(1j * rng.uniform(0, 6, 4))), (1, w + 1))]
    step = split.step(circuit, n, w, range(w, n))
    lane_rows = step.ops[np.isin(step.ops[:, 0], (split.LANE, split.DIAGONAL_LANES))]
    assert len(lane_rows) == 2 and np.all(lane_rows[:, 2] % (1 << w) == 0)
    program = fused.compile(circuit, n, dtype, max_qubits=1, layout="split")
    stage = next(s for s in program.steps if not callable(s) and s[0] == "stage")
    m_re, m_im = stage[3][-2:]
    assert m_re.ctypes.data % 64 == 0 and m_im.ctypes.data % 64 == 0
    state = random_state(n, rng).astype(dtype)
    expected = circuits.run(REFERENCE, state.astype(np.complex128), circuit)
    np.testing.assert_allclose(program(state.copy()), expected,
                               atol=2e-5 if dtype == np.complex64 else 1e-12)


def test_the_lane_matrix_holds_each_lanes_entries():
    """A one-qubit gate U on lane qubit 0 of a two-lane run: lane 0 is U00 x[0] + U01
    x[1], lane 1 is U11 x[1] + U10 x[0] (pattern 0 takes a lane's own amplitude, pattern
    1 its partner's); controlled on lane qubit 1 = 0 in a four-lane run, the lanes with
    qubit 1 set keep their amplitude."""
    u = np.array([[1, 2], [3, 4]], dtype=complex)
    entries = split.lane_matrix(Instruction("u", u, (0,), (), ()), 1, diagonal=False)
    np.testing.assert_array_equal(entries[0], [[1, 4], [2, 3]])
    entries = split.lane_matrix(Instruction("u", u, (0,), (1,), (0,)), 2, diagonal=False)
    np.testing.assert_array_equal(entries[0], [[1, 4, 1, 1], [2, 3, 0, 0]])
    assert lanes.patterns(0b1010) == [0, 2, 8, 10]


@pytest.mark.parametrize("dtype", [np.complex128, np.complex64])
def test_chunks_hold_the_qubits_that_pick_l2s_set(dtype, rng):
    """Every chunk holds the lane qubits and the ones above them that pick an L2 set:
    fixing one of those would put a chunk in half of L2's sets."""
    n = 22
    w = fused.run_bits(dtype)
    low = w + split.set_qubits(n, w, np.dtype(dtype).itemsize)
    # together with the lanes they span one way of L2 (here the state is larger)
    assert (1 << low) * np.dtype(dtype).itemsize == machine.way_bytes(2)
    steps = split.plan(circuits.LIBRARY["qv"].make(n, rng), n, fused.block_qubits(dtype),
                         w, itemsize=np.dtype(dtype).itemsize)
    assert isinstance(steps[0], split.Rewrite) and isinstance(steps[-1], split.Rewrite)
    stages = [s for s in steps if isinstance(s, split.Step)]
    assert len(stages) > 1 and all(s.chunked for s in stages)
    for s in stages:
        assert all(bit >= split.run_bit(low, w) for bit in s.outer)


def test_a_gate_wider_than_a_chunk_runs_alone_over_what_its_controls_select(rng):
    """A gate with more qubits above the chunk's fixed ones than a chunk has room for
    runs alone over the whole state, a pass over the blocks its controls select."""
    n, dtype = 22, np.complex64
    w = fused.run_bits(dtype)
    low = w + split.set_qubits(n, w, 8)
    many = circuits.gate("X", n - 1, ctrl=tuple(range(low, n - 1)))
    steps = split.plan([circuits.gate("H", 0), many], n, fused.block_qubits(dtype), w,
                       itemsize=8)
    alone = [s for s in steps if isinstance(s, split.Step) and not s.chunked]
    assert len(alone) == 1 and alone[0].gates == (many,)
    assert alone[0].share == 2.0 ** -(n - 1 - low) and len(alone[0].outer) == 0
