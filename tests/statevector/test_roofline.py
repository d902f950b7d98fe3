"""The roofline's accounting: multiply-adds counted by a gate's structure (against a
count written out entry by entry), what a fused plan must do, the bound it is held to,
and the FMA peak's microbenchmark."""

import numba
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from harness.threads import numba_threads
from kernels.statevector import KERNELS, circuits, fused, gates, roofline
from kernels.statevector.circuits import Instruction
from kernels.statevector.codegen import peak
from kernels.statevector.states import random_state


def counted(matrix, n_ctrl):
    """Multiply-adds per amplitude, entry by entry: a row with one nonzero entry that is
    exactly 1 is a move (none), any other nonzero entry of a row whose only entry it is
    one, and a row of several entries one per entry; controls halve it."""
    m = np.asarray(matrix)
    rows = []
    for row in m:
        nz = [x for x in row if x != 0]
        rows.append(len(nz))
    monomial = all(r == 1 for r in rows)
    total = 0
    for row in m:
        nz = [x for x in row if x != 0]
        total += (0 if nz[0] == 1 else 1) if monomial else len(nz)
    return total / m.shape[0] / 2 ** n_ctrl


@pytest.mark.parametrize("inst, expected", [
    (circuits.gate("H", 0), 2), (circuits.gate("X", 0), 0), (circuits.gate("T", 0), 0.5),
    (circuits.gate("Rz", 0, theta=0.3), 1), (circuits.gate("X", 0, ctrl=(1,)), 0),
    (Instruction("SWAP", gates.SWAP, (0, 1)), 0), (circuits.gate("X", 0, ctrl=(1, 2)), 0),
    (circuits.gate("Rx", 0, ctrl=(1,), theta=0.2), 1.0),
    (Instruction("dense", np.ones((8, 8)), (0, 1, 2)), 8),
    (Instruction("ccu", np.ones((2, 2)), (0,), (1, 2), (1, 0)), 0.5),
])
def test_multiply_adds_by_structure(inst, expected):
    assert roofline.multiply_adds(inst) == expected


@settings(max_examples=60, deadline=None)
@given(k=st.integers(1, 3), n_ctrl=st.integers(0, 2), seed=st.integers(0, 2**32 - 1),
       kind=st.sampled_from(["dense", "sparse", "monomial", "permutation"]))
def test_multiply_adds_match_the_entry_count(k, n_ctrl, seed, kind):
    rng = np.random.default_rng(seed)
    dim = 1 << k
    if kind in ("monomial", "permutation"):
        m = np.zeros((dim, dim), complex)
        m[np.arange(dim), rng.permutation(dim)] = (
            1 if kind == "permutation" else rng.choice([1, -1, 1j, 0.5], dim))
    else:
        m = rng.normal(size=(dim, dim)) + 1j * rng.normal(size=(dim, dim))
        if kind == "sparse":
            m *= rng.random((dim, dim)) < 0.5
            m[np.arange(dim), np.arange(dim)] += 2  # no empty row
    inst = Instruction("g", m, tuple(range(k)), tuple(range(k, k + n_ctrl)), (1,) * n_ctrl)
    assert roofline.multiply_adds(inst) == pytest.approx(counted(m, n_ctrl))


def test_the_bound_is_the_slowest_roof():
    limits = roofline.Limits({"complex128": 4e9}, {"L2": 100.0, "DRAM": 10.0})
    n, nbytes = 20, 16 << 20
    # 10 multiply-adds per amplitude: 40 FMAs each, at 4e9 a second
    heavy = roofline.Work(10.0, {"state": 1, "L2": 0})
    assert roofline.seconds(heavy, n, np.complex128, limits, "DRAM") == pytest.approx(
        (10 * 4 * 2**20 / 4e9, "compute"))
    light = roofline.Work(1.0, {"state": 3, "L2": 2})
    best, bound = roofline.seconds(light, n, np.complex128, limits, "DRAM")
    assert (best, bound) == pytest.approx((3 * 2 * nbytes / 10e9, "DRAM"))
    # a state that sits in L2 adds its passes to the chunks' there
    best, bound = roofline.seconds(light, n, np.complex128, limits, "L2")
    assert bound == "L2" and best == pytest.approx(5 * 2 * nbytes / 100e9)


def test_a_fused_program_states_its_work(rng):
    n = 12
    circuit = circuits.LIBRARY["qcbm"].make(n, rng)
    program = fused.compile(circuit, n, block=8)
    work = program.work
    assert work.passes["state"] == program.info["passes"] > 1
    # every stage gate sweeps the chunks once, halved per control
    assert 0 < work.passes["L2"] <= program.info["fused_gates"]
    assert program.info["work"] == work._asdict()
    # at least the unfused circuit's own multiply-adds less its moves, at most 2**k each
    assert 0 < work.multiply_adds <= (1 << program.info["max_qubits"]) * program.info[
        "fused_gates"]


def test_a_gate_with_many_controls_runs_alone_and_keeps_the_runs_long(rng):
    """MQT's quantum walk has X gates with up to n - 1 controls: run alone, each touches
    the amplitudes its controls select, and the stages keep runs of full vectors (the
    staged layout; the split one's runs are always full registers)."""
    n = 14
    many = circuits.gate("X", 0, ctrl=tuple(range(1, 12)))
    circuit = [*circuits.LIBRARY["qcbm"].make(n, rng)[:40], many,
               *circuits.LIBRARY["qcbm"].make(n, rng)[:40]]
    program = fused.compile(circuit, n, np.complex64, block=10, layout="staged")
    assert all(s.w == fused.run_bits(np.complex64) for s in program.stages)
    assert program.info["wide"] >= 1
    # alone, it is 2**-11 of a pass, not one
    assert program.info["stages"] < program.work.passes["state"] < program.info["passes"]
    assert fused.compile([many], n, layout="staged").work.passes["state"] == 2.0**-11
    state = random_state(n, rng).astype(np.complex64)
    expected = circuits.run(KERNELS["subspace"], state.astype(np.complex128), circuit)
    np.testing.assert_allclose(program(state.copy()), expected, atol=2e-5)


def plausible(rate):
    """A rate that counted its work: finite, more than a core preempted for most of a 5 ms
    window still does (1e6 multiply-adds per second; under a loaded test run one was seen
    at 2e7), fewer than any machine's cores do (1e14)."""
    return np.isfinite(rate) and 1e6 < rate < 1e14


@pytest.mark.parametrize("dtype", [np.complex128, np.complex64])
def test_the_fma_peak_is_measured(dtype):
    rate = peak.fma_rate(dtype, seconds=0.005, repeat=2)
    assert plausible(rate)


def test_the_fma_peak_refuses_other_types():
    with pytest.raises(ValueError, match="float32 or float64"):
        peak.fma_rate(np.int64)
    with pytest.raises(ValueError, match="threads must be between 1 and"):
        peak.fma_rate(np.float64, threads=numba.config.NUMBA_NUM_THREADS + 1)


def test_the_fma_peak_of_several_threads_runs_every_threads_chains():
    accs = np.ones((3, peak.CHAINS * peak.lanes(np.float64)))
    peak._run_each(accs, 10)
    # each chain: x -> 0.999 x + 1e-3, ten times, from 1
    expected = 1.0
    for _ in range(10):
        expected = 0.999 * expected + 1e-3
    np.testing.assert_allclose(accs, expected, rtol=1e-15)
    before = numba.get_num_threads()
    threads = min(2, numba.config.NUMBA_NUM_THREADS)
    with numba_threads(threads):
        rate = peak.fma_rate(np.float32, seconds=0.005, repeat=2, threads=threads)
    assert plausible(rate)
    assert numba.get_num_threads() == before  # the caller's count, given back


def test_gates_alone_are_a_pass_each_over_what_their_controls_select():
    h, t = circuits.gate("H", 0), circuits.gate("T", 3)
    cnot, swap = circuits.gate("X", 1, ctrl=(0,)), Instruction("SWAP", gates.SWAP, (0, 2))
    toffoli = circuits.gate("X", 2, ctrl=(0, 1))
    work = roofline.gates_alone([h, cnot, t, swap, toffoli])
    # H two multiply-adds, T half of one (its 1 is a move), the moves none
    assert work.multiply_adds == 2.5
    assert work.passes == {"state": 1 + 0.5 + 1 + 1 + 0.25}
    assert roofline.gates_alone([]) == roofline.Work(0, {"state": 0})
