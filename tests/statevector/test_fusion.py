"""The fusion planner and the fused backend keep a circuit's meaning: fused = unfused on
seeded random circuits (dense 1-3 qubit gates, controls on 0 and 1, runs of diagonal
gates) and on every library circuit, k = 1..6, both precisions, with chunks small enough
that every stage gathers from scattered runs."""

import re

import numba
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from numba import njit

from kernels.statevector import KERNELS, circuits, fused, fusion, gates, machine
from kernels.statevector.circuits import Instruction
from kernels.statevector.fused import planner
from kernels.statevector.fused import program as fused_program
from kernels.statevector.states import random_state

from .structured import conserving, multiplexed, parity_keeping

REFERENCE = KERNELS["loop"]
DIAGONALS = ("Rz", "phase", "T", "S", "Z")


def random_gates(n, rng, count):
    """Dense gates on 1-3 qubits (some controlled, on 0 or 1, some that do not mix one
    or more of their targets, fusion.pieces, some that keep the count or the parity of
    their targets' ones, fusion.structure and fusion.sectors) mixed with runs of
    diagonal ones (Rz, phase, T, S, Z, CZ, controlled phases), SWAPs (plain, the fused
    backend relabels them, and controlled) and uncontrolled X gates (fusion.x_frame),
    on random qubits."""
    out = []
    while len(out) < count:
        if rng.random() < 0.1:  # an uncontrolled X, which the fused backend folds away
            out.append(circuits.gate("X", int(rng.integers(n))))
            continue
        if n > 1 and rng.random() < 0.15:
            q = rng.permutation(n)[:3].tolist()
            ctrl = (q[2],) if n > 2 and rng.random() < 0.3 else ()
            out.append(Instruction("SWAP", gates.SWAP, (q[0], q[1]), ctrl, (1,) * len(ctrl)))
            continue
        if rng.random() < 0.4:  # a run of diagonal gates
            for _ in range(int(rng.integers(1, 5))):
                name = DIAGONALS[int(rng.integers(len(DIAGONALS)))]
                q = rng.permutation(n)[:2].tolist()
                ctrl = (q[1],) if n > 1 and rng.random() < 0.4 else ()
                theta = float(rng.uniform(-np.pi, np.pi))
                out.append(circuits.gate(name, q[0], ctrl=ctrl,
                                         theta=theta if name in ("Rz", "phase") else None))
            continue
        k = int(rng.integers(1, min(3, n) + 1))
        n_ctrl = int(rng.integers(0, min(2, n - k) + 1))
        qubits = rng.permutation(n)[:k + n_ctrl].tolist()
        matrix = gates.random_unitary(k, rng)
        if k > 1 and rng.random() < 0.3:
            quiet = [int(j) for j in rng.permutation(k)[:int(rng.integers(1, k))]]
            matrix = multiplexed(k, quiet, rng, identity=0.3)
        elif k > 1 and rng.random() < 0.3:
            matrix = conserving(k, rng) if rng.random() < 0.5 else parity_keeping(k, rng)
        vals = tuple(int(v) for v in rng.integers(0, 2, n_ctrl))
        out.append(Instruction("dense", matrix, tuple(qubits[:k]), tuple(qubits[k:]), vals))
    return out


def unfused(instructions, state):
    return circuits.run(REFERENCE, state.astype(np.complex128), instructions)


@settings(max_examples=60, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), n=st.integers(1, 7), k=st.integers(1, 6))
def test_fuse_keeps_the_meaning(seed, n, k):
    rng = np.random.default_rng(seed)
    circuit = random_gates(n, rng, int(rng.integers(1, 30)))
    state = random_state(n, rng)
    out = fusion.fuse(circuit, max_qubits=k)
    assert len(out) <= len(circuit)
    for g in out:  # wider than k only where an input gate already was
        assert len(fusion.span(g)) <= k or any(g is c for c in circuit)
    np.testing.assert_allclose(circuits.run(REFERENCE, state.copy(), out),
                               unfused(circuit, state), atol=1e-12)


@settings(max_examples=80, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), n=st.integers(1, 9), k=st.integers(1, 6),
       block=st.integers(1, 9), single=st.booleans(),
       layout=st.sampled_from(fused_program.LAYOUTS))
def test_the_fused_backend_keeps_the_meaning(seed, n, k, block, single, layout):
    """Chunks of 2**block amplitudes (down to 2, so that stages are many and their
    chunks scattered), gates too wide for a chunk run on their own; in both layouts (the
    split one from a register's amplitudes up: 3 qubits in complex128, 4 in
    complex64)."""
    rng = np.random.default_rng(seed)
    dtype = np.complex64 if single else np.complex128
    circuit = random_gates(n, rng, int(rng.integers(1, 30)))
    state = random_state(n, rng).astype(dtype)
    if layout == "split" and n < fused.run_bits(dtype):
        with pytest.raises(ValueError, match="split layout needs"):
            fused.compile(circuit, n, dtype, max_qubits=k, block=block, layout=layout)
        return
    program = fused.compile(circuit, n, dtype, max_qubits=k, block=block, layout=layout)
    got = program(state.copy())
    np.testing.assert_allclose(got, unfused(circuit, state), atol=1e-12 if not single else 2e-5)
    info = program.info
    assert info["layout"] == layout
    assert info["passes"] == info["stages"] + info["wide"] + info["rewrites"]
    assert info["rewrites"] == (2 if layout == "split" else 0)


@pytest.mark.parametrize("name", sorted(circuits.LIBRARY))
@pytest.mark.parametrize("dtype", [np.complex128, np.complex64])
def test_every_library_circuit_fused(name, dtype, rng):
    lib = circuits.LIBRARY[name]
    n = next(m for m in (9, 8, 10, 7, 6, 5, 4) if lib.accepts(m))
    circuit = lib.make(n, rng)
    state = random_state(n, rng).astype(dtype)
    expected = unfused(circuit, state)
    for k in range(1, fusion.MAX_QUBITS + 1):
        np.testing.assert_allclose(circuits.run(REFERENCE, state.astype(np.complex128),
                                                fusion.fuse(circuit, k)), expected, atol=1e-12)
        for block in (None, 6):
            got = fused.compile(circuit, n, dtype, max_qubits=k, block=block)(state.copy())
            np.testing.assert_allclose(got, expected,
                                       atol=1e-12 if dtype == np.complex128 else 2e-5)
    chosen = fused.compile(circuit, n, dtype)  # the planner's width
    assert chosen.info["chosen"] and chosen.info["max_qubits"] in planner.CANDIDATES
    np.testing.assert_allclose(chosen(state.copy()), expected,
                               atol=1e-12 if dtype == np.complex128 else 2e-5)


@pytest.mark.parametrize("dtype", [np.complex128, np.complex64])
@pytest.mark.parametrize("gate", [circuits.gate("H", 0), circuits.gate("X", 9, ctrl=(2,)),
                                  circuits.gate("X", 11, ctrl=(3, 0)),
                                  circuits.gate("Rx", 13, theta=0.3)])
def test_a_lone_one_qubit_gate_is_one_pass_at_the_default(dtype, gate, rng):
    """One one-qubit gate (controlled or not): the stride kernels' one pass, not the
    split layout's rewrite in, stage and rewrite out; with the layout asked for, its
    three passes."""
    n = 14
    state = random_state(n, rng).astype(dtype)
    expected = unfused([gate], state)
    alone = fused.compile([gate], n, dtype)
    asked = fused.compile([gate], n, dtype, layout="split")
    assert (alone.info["passes"], alone.info["stages"], alone.info["rewrites"]) == (1, 0, 0)
    assert (asked.info["passes"], asked.info["rewrites"]) == (3, 2)
    for program in (alone, asked):
        np.testing.assert_allclose(program(state.copy()), expected,
                                   atol=1e-12 if dtype == np.complex128 else 2e-5)
    # a dense two-qubit gate is a stage: in the split layout, where it costs less
    two = fused.compile([Instruction("u", gates.random_unitary(2, rng), (1, 12), ())],
                        n, dtype)
    assert two.layout == "split" and two.info["stages"] == 1


@pytest.mark.parametrize("dtype", [np.complex128, np.complex64])
@pytest.mark.parametrize("active, tile", [((5, 7), 1), ((1, 5), 1), ((0, 6), 2),
                                          ((0, 1, 7), 4), ((0, 1, 2, 3, 8), 8)])
def test_chunk_copies_in_tiles_keep_the_state(dtype, active, tile, rng):
    """Gates on the lowest qubits leave the runs' lanes on higher ones, so that a chunk
    copy moves several runs at once (1 where a run is consecutive or its lanes are
    interleaved with its runs, up to 8)."""
    n = 11
    circuit = [Instruction("dense", gates.random_unitary(2, rng), (a, b), (), ())
               for a, b in zip(active, active[1:] + active[:1])]
    program = fused.compile(circuit, n, dtype, max_qubits=2, block=9, layout="staged")
    assert [s.tables[-1] for s in program.stages] == [tile]
    state = random_state(n, rng).astype(dtype)
    np.testing.assert_allclose(program(state.copy()), unfused(circuit, state),
                               atol=1e-12 if dtype == np.complex128 else 2e-5)


@pytest.mark.parametrize("dtype", [np.complex128, np.complex64])
def test_swaps_are_relabellings(dtype, rng):
    """In the staged layout a stage applies no SWAP: the gates after one act on the
    swapped qubits and the chunk is copied back relabelled, so a circuit of SWAPs alone
    makes stages with no gates in them, and a SWAP between gates leaves the same state
    as applying it."""
    n = 9
    swaps = [Instruction("SWAP", gates.SWAP, (a, b)) for a, b in ((0, 5), (5, 8), (1, 2))]
    program = fused.compile(swaps, n, dtype, max_qubits=2, block=7, layout="staged")
    assert program.info["stages"] >= 1 and program.info["fused_gates"] == 0
    assert all(len(s.ops) == 0 for s in program.stages)
    state = random_state(n, rng).astype(dtype)
    np.testing.assert_array_equal(program(state.copy()), unfused(swaps, state).astype(dtype))
    mixed = [circuits.gate("H", 0), swaps[0], circuits.gate("Rz", 0, theta=0.3),
             circuits.gate("X", 5, ctrl=(1,)), swaps[2], circuits.gate("Ry", 2, theta=1.1)]
    program = fused.compile(mixed, n, dtype, max_qubits=1, block=7, layout="staged")
    assert sum(len(s.ops) for s in program.stages) == len(mixed) - 2
    np.testing.assert_allclose(program(state.copy()), unfused(mixed, state),
                               atol=1e-12 if dtype == np.complex128 else 2e-5)


def test_fusion_merges_what_the_model_says():
    """Three rotations on one qubit become one 2x2; a diagonal run stays diagonal; a gate
    on a qubit no earlier gate touched opens a block of its own."""
    rz, rx = circuits.gate("Rz", 0, theta=0.3), circuits.gate("Rx", 0, theta=0.2)
    out = fusion.fuse([rz, rx, rz], max_qubits=2)
    assert len(out) == 1 and out[0].locs == (0,)
    diag = fusion.fuse([rz, circuits.cz(0, 1), circuits.gate("T", 1)], max_qubits=2)
    assert [g.name for g in diag] == ["diagonal"] and fusion.is_diagonal(diag[0])
    assert len(fusion.fuse([rz, circuits.gate("H", 3)], max_qubits=2)) == 2


def test_two_qubit_unitaries_written_as_cnots_fuse_to_three_qubits(rng):
    """A brickwork of two-qubit unitaries, each written as rotations and three CNOTs (as
    qiskit transpiles them): one greedy walk keeps every block at two qubits (a CNOT
    alone is cheaper than the three-qubit block it would open), the walk one width at a
    time joins neighbouring unitaries into three-qubit gates, as the model prices them
    (a 3-qubit gate 8 + 2, two 2-qubit ones 2 x (4 + 2)); the meaning is kept."""
    n = 6
    circuit = []
    for layer in range(4):
        for a in range(layer % 2, n - 1, 2):
            for cx in range(3):
                circuit += [Instruction("u", gates.random_unitary(1, rng), (q,))
                            for q in (a, a + 1)]
                circuit.append(circuits.cnot(a, a + 1) if cx % 2 == 0
                               else circuits.cnot(a + 1, a))
    at2, at3 = fusion.fuse(circuit, 2), fusion.fuse(circuit, 3)
    assert max(len(fusion.span(g)) for g in at2) == 2
    assert max(len(fusion.span(g)) for g in at3) == 3
    assert sum(map(fusion.cost, at3)) < sum(map(fusion.cost, at2))
    state = random_state(n, rng)
    np.testing.assert_allclose(circuits.run(REFERENCE, state.copy(), at3),
                               unfused(circuit, state), atol=1e-12)


def test_what_a_gate_mixes_is_read_from_its_matrix(rng):
    """CNOT (control bit 1) mixes its target bit only, a ZZ coupling nothing, Rx on bit
    0 of two only bit 0; a random unitary every bit, a multiplexed one all but its quiet
    bits."""
    assert fusion.mixed(gates.CNOT) == (0,)  # locs (target, control)
    assert fusion.mixed(np.diag(np.exp(1j * np.array([1, -1, -1, 1])))) == ()
    assert fusion.mixed(np.kron(np.eye(2), gates.Rx(0.4))) == (0,)
    assert fusion.mixed(gates.random_unitary(3, rng)) == (0, 1, 2)
    assert fusion.mixed(multiplexed(4, [1, 3], rng)) == (0, 2)


@settings(max_examples=60, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), k=st.integers(2, 5), n_ctrl=st.integers(0, 2),
       keep=st.integers(0, 2))
def test_a_gate_runs_as_its_pieces(seed, k, n_ctrl, keep):
    """A gate that does not mix some of its targets = its pieces, one after another: a
    gate on the rest per value of those, with them as controls, the identity ones left
    out; targets in ``keep`` stay targets; a gate that mixes every target (or none) is
    itself."""
    rng = np.random.default_rng(seed)
    n = k + n_ctrl + 1
    quiet = [int(j) for j in rng.permutation(k)[:int(rng.integers(1, k))]]
    qubits = [int(q) for q in rng.permutation(n)[:k + n_ctrl]]
    vals = tuple(int(v) for v in rng.integers(0, 2, n_ctrl))
    inst = Instruction("g", multiplexed(k, quiet, rng, identity=0.3), tuple(qubits[:k]),
                       tuple(qubits[k:]), vals)
    kept = set(rng.permutation(qubits[:k])[:keep].tolist())
    out = fusion.pieces(inst, keep=kept)
    state = random_state(n, rng)
    np.testing.assert_allclose(circuits.run(REFERENCE, state.copy(), out),
                               unfused([inst], state), atol=1e-12)
    mixes = fusion.mixed(inst.matrix)  # all of the rest, unless every block is 1
    assert set(mixes) <= set(range(k)) - set(quiet)
    split_off = {qubits[j] for j in range(k) if j not in mixes} - kept
    if mixes and split_off:
        assert 1 <= len(out) <= 1 << len(split_off)
        for piece in out:
            assert set(piece.ctrl_locs) == set(qubits[k:]) | split_off
            assert set(piece.locs) == set(qubits[:k]) - split_off
            assert not np.array_equal(piece.matrix, np.eye(len(piece.matrix)))
    else:
        assert out == [inst]
    dense = Instruction("g", gates.random_unitary(k, rng), tuple(qubits[:k]))
    assert fusion.pieces(dense) == [dense]


def test_multiplexed_blocks_are_priced_by_the_qubits_they_mix():
    """Two ZZ couplings and an Rx on their shared qubit: a 3-qubit block that mixes one
    qubit. With ``multiplex`` it costs a one-qubit gate, and the walk joins it whole; it
    runs as four pieces (one per value of the outer two qubits), and the fused backend's
    plan keeps the meaning."""
    zz = np.diag(np.exp(0.3j * np.array([1, -1, -1, 1])))
    circuit = [Instruction("rzz", zz, (0, 1)), Instruction("rzz", zz, (1, 2)),
               circuits.gate("Rx", 1, theta=0.7)]
    prices = {m: float(1 << m) + 2 for m in range(fusion.MAX_QUBITS + 1)}
    (block,) = fusion.fuse(circuit, 3, prices=prices, multiplex=True)
    assert sorted(block.locs) == [0, 1, 2] and fusion.mixed(block.matrix) == (
        block.locs.index(1),)
    assert len(fusion.pieces(block)) == 4
    assert all(p.locs == (1,) and sorted(p.ctrl_locs) == [0, 2] for p in fusion.pieces(block))
    # without it, the block is priced as a dense 3-qubit gate (10 > 3 + 3 + 4)
    assert len(fusion.fuse(circuit, 3, prices=prices)) > 1
    state = random_state(5, np.random.default_rng(3))
    for layout in fused_program.LAYOUTS:
        for dtype, tol in ((np.complex128, 1e-12), (np.complex64, 2e-5)):
            program = fused.compile(circuit, 5, dtype, layout=layout)
            np.testing.assert_allclose(program(state.astype(dtype)), unfused(circuit, state),
                                       atol=tol)


@pytest.mark.parametrize("k", [3, 4, 6])
def test_a_matrix_falls_apart_into_its_sectors(k, rng):
    """A unitary that keeps the count of ones: its sectors, each padded to a power of two
    with the identity's rows, the one-index sectors together as a diagonal; their product
    (each acting on its indices) is the matrix. A random unitary, and a product that
    would cost more than SECTOR_SHARE of the dense one (five qubits: sectors of 1, 5,
    10, 10, 5, 1 padded to 8 and 16, 0.63), have none."""
    m = conserving(k, rng)
    parts = fusion.sectors(m)
    assert parts is not None
    product = np.eye(1 << k, dtype=complex)
    for at, sub in parts:
        assert len(at) & (len(at) - 1) == 0 and len(set(at.tolist())) == len(at)
        full = np.eye(1 << k, dtype=complex)
        full[np.ix_(at, at)] = sub
        product = full @ product
    np.testing.assert_allclose(product, m, atol=1e-14)
    assert fusion.is_diagonal_matrix(parts[-1][1])  # the two one-index sectors
    assert fusion.sectors(gates.random_unitary(k, rng)) is None
    # two sectors of half the indices each: 2 * (K/2)**2 = K**2 / 2 <= 0.6 K**2
    assert fusion.sectors(multiplexed(3, [2], rng)) is not None
    # one of K - 1 indices (padded to K) and one of 1: more than the share
    almost = np.zeros((8, 8), dtype=complex)
    almost[:7, :7] = gates.random_unitary(3, rng)[:7, :7]
    almost[7, 7] = 1
    assert fusion.sectors(almost) is None
    assert fusion.sectors(conserving(5, rng)) is None


def test_sectors_run_as_ops_of_their_own(rng):
    """A conserving 4-qubit gate on high qubits: one op per sector in both layouts (a
    diagonal on its two one-index sectors, products on 4, 6 and 4 indices padded to 4,
    8 and 4 runs), and the meaning kept."""
    n, gate = 9, Instruction("xxz", conserving(4, rng), (8, 5, 6, 4))
    state = random_state(n, rng)
    for layout in fused_program.LAYOUTS:
        for dtype, tol in ((np.complex128, 1e-12), (np.complex64, 2e-5)):
            program = fused.compile([gate], n, dtype, layout=layout)
            (stage,) = program.stages
            assert sorted(int(row[1]) for row in stage.ops) == (
                [2, 4, 4, 8] if layout == "split" else [1, 2, 2, 3])
            np.testing.assert_allclose(program(state.astype(dtype)), unfused([gate], state),
                                       atol=tol)


def test_a_matrix_has_the_zero_pattern_of_its_structure(rng):
    """A conserving gate has both zero patterns (the finer one is named), a parity-keeping
    one only its own, a dense one none, and an entry of 1e-30 where the pattern has a
    zero is not a zero; the stages skip them in one op on two and three qubits, and run
    four-qubit ones as their sectors."""
    for k in (2, 3, 4):
        assert fusion.structure(conserving(k, rng)) == "conserving"
        assert fusion.structure(parity_keeping(k, rng)) == "parity"
        assert fusion.structure(gates.random_unitary(k, rng)) is None
    m = conserving(3, rng)
    m[0, 7] = 1e-30  # ones differ by 3: neither pattern allows it
    assert fusion.structure(m) is None
    assert fusion.allowed("conserving", 8).sum() == 20
    assert fusion.allowed("parity", 8).sum() == 32
    assert fusion.zeros_skipped(conserving(3, rng), (4, 8)) == ("conserving", None)
    assert fusion.zeros_skipped(conserving(3, rng), (4,))[0] is None
    shape, parts = fusion.zeros_skipped(conserving(4, rng), (4, 8))
    assert shape is None and len(parts) == 4
    # finer sectors than the pattern (a 2 x 2 block per index pair that keeps parity):
    # their 16 multiply-adds beat the pattern's 32
    fine = np.zeros((8, 8), dtype=complex)
    for a, b in ((0, 3), (1, 2), (4, 7), (5, 6)):
        fine[np.ix_([a, b], [a, b])] = gates.random_unitary(1, rng)
    assert fusion.structure(fine) == "parity"
    shape, parts = fusion.zeros_skipped(fine, (4, 8))
    assert shape is None and len(parts) == 4


@pytest.mark.parametrize("structure", ["conserving", "parity"])
def test_zero_patterns_run_in_one_op(structure, rng):
    """Gates with a zero pattern on two and three high qubits: one op of the pattern's
    kind (simd.DENSE_KINDS) in both layouts, both precisions, the meaning kept."""
    make = conserving if structure == "conserving" else parity_keeping
    kind = fused.simd.DENSE_KINDS[structure]
    n = 10
    for k in (2, 3):
        if 1 << k not in fused.simd.STRUCTURED_COLUMNS:
            continue
        gate = Instruction("g", make(k, rng), tuple(int(q) for q in rng.permutation(
            range(5, n))[:k]))
        state = random_state(n, rng)
        for layout in fused_program.LAYOUTS:
            for dtype, tol in ((np.complex128, 1e-12), (np.complex64, 2e-5)):
                program = fused.compile([gate], n, dtype, layout=layout)
                (stage,) = program.stages
                assert stage.ops[:, 0].tolist() == [kind], (layout, k)
                np.testing.assert_allclose(program(state.astype(dtype)),
                                           unfused([gate], state), atol=tol,
                                           err_msg=f"{layout} {k} {dtype}")


@settings(max_examples=80, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), n=st.integers(1, 6))
def test_x_frame_keeps_the_meaning(seed, n):
    """Uncontrolled X gates folded into the gates after them: the same state, and an X
    left only where a flipped qubit's last gate could not take it (controlled, or the
    qubit only a control there, or untouched), at most one a qubit, at the end."""
    rng = np.random.default_rng(seed)
    circuit = random_gates(n, rng, int(rng.integers(1, 30)))
    for _ in range(int(rng.integers(0, 6))):
        circuit.insert(int(rng.integers(len(circuit) + 1)),
                       circuits.gate("X", int(rng.integers(n))))
    framed = fusion.x_frame(circuit)
    state = random_state(n, rng)
    np.testing.assert_allclose(circuits.run(REFERENCE, state.copy(), framed),
                               unfused(circuit, state), atol=1e-12)
    flips = [i for i, g in enumerate(framed) if fusion.is_flip(g)]
    assert len({framed[i].locs for i in flips}) == len(flips) <= n
    for i in flips:  # after every other gate on its qubit
        q = framed[i].locs[0]
        assert not any(q in fusion.span(g) for g in framed[i + 1:])
        last = [g for g in framed[:i] if q in fusion.span(g)]
        assert not last or last[-1].ctrl_locs or q not in last[-1].locs


def test_x_frame_flips_controls_and_conjugates_targets():
    """X(0), then CNOT(target 1, control 0) and Rz(0): the CNOT waits for qubit 0 = 0,
    Rz is conjugated (X Rz X: its diagonal reversed) and takes the last flip (X . XRzX =
    Rz X), so no X is left."""
    rz = circuits.gate("Rz", 0, theta=0.3)
    framed = fusion.x_frame([circuits.gate("X", 0), circuits.cnot(0, 1), rz])
    assert len(framed) == 2 and framed[0].ctrl_vals == (0,)
    np.testing.assert_allclose(framed[1].matrix, rz.matrix[::-1, ::-1][::-1])
    assert not any(fusion.is_flip(g) for g in framed)
    # a qubit only ever a control keeps its X, at the end
    framed = fusion.x_frame([circuits.gate("X", 0), circuits.cnot(0, 1)])
    assert [g.ctrl_locs for g in framed] == [(0,), ()] and framed[0].ctrl_vals == (0,)
    assert fusion.is_flip(framed[1]) and framed[1].locs == (0,)


@pytest.mark.parametrize("bad", [0, 7, 2.5, True, "2", None])
def test_fuse_refuses_a_bad_width(bad):
    with pytest.raises(ValueError, match="max_qubits"):
        fusion.fuse([circuits.gate("H", 0)], max_qubits=bad)


def test_compile_refuses_bad_gates_and_states():
    with pytest.raises(ValueError, match="loc"):
        fused.compile([circuits.gate("H", 5)], 3)
    program = fused.compile([circuits.gate("H", 0)], 3)
    for state in (np.zeros(8, np.complex64), np.zeros(16, np.complex128),
                  np.zeros(16, np.complex128)[::2], [0j] * 8):
        before = np.array(state, copy=True)
        with pytest.raises(ValueError, match="state"):
            program(state)
        np.testing.assert_array_equal(np.asarray(state), before)
    with pytest.raises(NotImplementedError, match="complex128 and complex64"):
        fused.compile([circuits.gate("H", 0)], 3, np.float64)
    for bad in (0, -2, 2.5, True):
        with pytest.raises(ValueError, match="block"):
            fused.compile([circuits.gate("H", 0)], 3, block=bad)
    with pytest.raises(ValueError, match="max_qubits"):
        fused.compile([circuits.gate("H", 0)], 3, max_qubits=9)
    with pytest.raises(ValueError, match="layout must be one of"):
        fused.compile([circuits.gate("H", 0)], 3, layout="packed")
    # the stage kernels stop at 2**6 columns: a wider gate is named, not run wrong (it
    # used to fail in the planner's price table with a KeyError)
    wide = Instruction("u", np.eye(1 << 7, dtype=complex), tuple(range(7)))
    with pytest.raises(NotImplementedError, match="up to 6 targets.*gate 1 has 7"):
        fused.compile([circuits.gate("H", 0), wide], 9)


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_staggered_buffers_fall_in_different_l1_sets(dtype):
    """Each buffer starts STAGGER bytes past a 4 KiB boundary after the one before, so
    the same run of the real and of the imaginary parts lie in different sets of L1;
    each is C-contiguous, zeroed and writable, and none overlaps another."""
    bufs = fused_program.staggered(2, (1 << 10, 1 << 10, 64, 64), dtype)
    starts = [b.ctypes.data for b in bufs]
    assert [s % 4096 for s in starts] == [0, 2048, 0, 2048]
    for b, size in zip(bufs, (1 << 10, 1 << 10, 64, 64)):
        assert b.shape == (2, size) and b.dtype == dtype and b.flags.c_contiguous
        assert b.flags.writeable and not b.any()
    for a, b in zip(bufs, bufs[1:]):
        assert a.ctypes.data + a.nbytes <= b.ctypes.data


@pytest.mark.parametrize("layout", fused_program.LAYOUTS)
def test_two_threads_give_the_same_state(rng, layout):
    n = 12
    circuit = circuits.LIBRARY["qcbm"].make(n, rng)
    state = random_state(n, rng)
    program = fused.compile(circuit, n, max_qubits=3, block=8, layout=layout)
    one = program(state.copy())
    before = numba.get_num_threads()
    numba.set_num_threads(min(2, numba.config.NUMBA_NUM_THREADS))
    try:
        two = program(state.copy())
    finally:
        numba.set_num_threads(before)
    np.testing.assert_allclose(two, one, atol=1e-13)


PACKED = r"\bv(?:fn?m(?:add|sub)\w*|mul|add|sub)p{}\s[^\n]*%[yz]mm"


@pytest.mark.parametrize("dtype", [np.complex128, np.complex64])
def test_the_stage_loops_are_packed_simd(dtype):
    """The loop a stage runs holds packed multiply-adds on 256- or 512-bit registers."""
    n = 10
    program = fused.compile(circuits.LIBRARY["qv"].make(n, np.random.default_rng(1)), n,
                            dtype, max_qubits=2, block=8, layout="staged")
    _, (loop, _), _, args = next(s for s in program.steps if not callable(s))
    # numba does not disassemble code it loaded from its cache: compile the loop afresh
    options = {k: v for k, v in loop.targetoptions.items() if k not in ("cache", "nopython")}
    fresh = njit(**options)(loop.py_func)
    fresh(np.zeros(1 << n, dtype), *args, *program.buffers(1))
    asm = "\n".join(fresh.inspect_asm().values())
    packed = re.findall(PACKED.format("d" if dtype == np.complex128 else "s"), asm)
    assert len(packed) >= 8, f"{dtype.__name__}: no packed arithmetic in the stage loop"
    assert machine.isa() in ("avx512", "avx2", "avx", "sse2")


def test_cache_sizes_are_read_from_the_os():
    sizes = machine.cache_sizes()
    assert sizes[2] >= 64 << 10
    assert fused.block_qubits(np.complex128) == fused.block_qubits(np.complex64) - 1
