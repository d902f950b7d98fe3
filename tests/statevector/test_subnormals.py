"""Subnormal floats: our numba kernels flush them in every thread that applies gates and
give each thread its floating-point mode back; fused products are exact zeros where
exact arithmetic has zeros; every backend declares whether it flushes, and its settings
say so."""

import os
import subprocess
import sys
from pathlib import Path

import numba
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from numba import njit, prange

from harness import registry
from harness import settings as result_settings
from kernels.statevector import KERNELS, MODULES, circuits, fused, fusion, gates, subnormals
from kernels.statevector.circuits import Instruction
from kernels.statevector.codegen import sources

needs_x86 = pytest.mark.skipif(not subnormals.X86, reason="the kernels flush through x86's "
                                                          "MXCSR; elsewhere they do not")
#: our kernels that flush: the generated numba ones
FLUSHING = [name for name, module in MODULES.items()
            if module.BACKEND.flushes_subnormals == "yes"]
TINY = {np.complex64: 1e-40, np.complex128: 1e-310}  # subnormal in each precision
N = 15  # above the threaded kernels' crossover: their parallel loops run
ROOT = Path(__file__).resolve().parents[2]


@njit(parallel=True)
def _modes(out):
    # each iteration's thread's mode, without changing it (no bits set)
    for i in prange(out.size):
        out[i] = subnormals._set_bits(np.uint32(0))


def worker_modes():
    out = np.zeros(64 * numba.get_num_threads(), np.uint32)
    _modes(out)
    return set(int(m) & subnormals.FTZ_DAZ for m in out)


def subnormal_state(n, dtype):
    state = np.full(1 << n, TINY[dtype] * (1 + 1j), dtype)
    assert subnormals.count(state) == 2 << n
    return state


def test_every_numba_kernel_flushes():
    assert set(FLUSHING) >= ({"loop", "unrolled", "stride", "threaded"} if subnormals.X86
                             else set())


@needs_x86
@pytest.mark.parametrize("dtype", [np.complex64, np.complex128])
@pytest.mark.parametrize("name", FLUSHING)
def test_a_kernel_flushes_in_every_thread_and_gives_the_modes_back(name, dtype):
    before = subnormals.mode()
    assert worker_modes() == {0}, "numba's workers start without flushing"
    for matrix, locs in ((gates.H, (3,)), (gates.random_unitary(2, np.random.default_rng(1)),
                                           (0, N - 1))):
        state = subnormal_state(N, dtype)
        KERNELS[name](state, matrix, locs)
        # denormals-are-zero read every amplitude as 0, in whichever thread it was
        assert subnormals.count(state) == 0 and not np.any(state)
    assert subnormals.mode() == before
    assert worker_modes() == {0}, "a worker kept flushing after the kernel"
    state = subnormal_state(N, dtype)  # made outside: a flushing numpy makes zeros
    with subnormals.flushing():  # a caller that flushes keeps flushing
        KERNELS[name](state, gates.H, (0,))
        assert subnormals.flushes_here()
    assert subnormals.mode() == before


@needs_x86
@pytest.mark.parametrize("dtype", [np.complex64, np.complex128])
def test_the_fused_backend_flushes_and_still_agrees_with_the_reference(dtype):
    n = 12
    circuit = circuits.LIBRARY["heisenberg"].make(n, np.random.default_rng(4))
    before = subnormals.mode()
    program = fused.compile(circuit, n, dtype, block=8)  # stages in parallel chunks
    state = subnormal_state(n, dtype)
    program(state)
    assert not np.any(state)
    assert subnormals.mode() == before and worker_modes() == {0}
    expected = np.zeros(1 << n, np.complex128)
    expected[0] = 1
    for inst in circuit:  # gate by gate, no fusion (the dense naive takes minutes here)
        inst.apply(KERNELS["subspace"], expected)
    state = np.zeros(1 << n, dtype)
    state[0] = 1
    program(state)
    tol = 1e-5 if dtype == np.complex64 else 1e-12
    np.testing.assert_allclose(state, expected, atol=tol)
    assert subnormals.count(state) == 0


def test_the_mode_is_restored_when_the_block_raises():
    before = subnormals.mode()
    with pytest.raises(RuntimeError), subnormals.flushing():
        assert subnormals.flushes_here() == subnormals.X86
        raise RuntimeError("inside")
    assert subnormals.mode() == before


def test_count_finds_the_subnormal_parts():
    parts = np.array([0, 1e-40, -1e-39, 1.2e-38, 1, -0.0], np.float32)
    assert subnormals.count(parts) == 2
    assert subnormals.count(np.array([1e-310 + 1e-320j, 1j, 0], np.complex128)) == 2


def test_a_template_that_would_skip_a_restore_is_refused():
    early = "def f(st):\n    for i in prange(4):\n        if i:\n            continue\n"
    with pytest.raises(ValueError, match="continue"):
        sources.flushing(early, ", parallel=True")
    inner = ("def f(st):\n    for i in prange(4):\n        for j in range(2):\n"
             "            continue\n")
    made = sources.flushing(inner, ", parallel=True")
    assert "RESTORE_MODE(_fp_2)" in made and made.count("FLUSH_SUBNORMALS()") == 1
    serial = sources.flushing(inner)
    assert serial.count("FLUSH_SUBNORMALS()") == 1 and "RESTORE_MODE(_fp_caller)" in serial
    with pytest.raises(ValueError, match="return"):
        sources.flushing("def f(st):\n    return 1\n")


# --- fused products: exact zeros where exact arithmetic has them -----------------------

def _conserving(rng, n, count):
    """Gates that conserve the number of ones (XX + YY rotations, Rzz, Rz, phases): a
    product of them has exact zeros between sectors of different weight."""
    out = []
    for _ in range(count):
        a, b = (int(q) for q in rng.permutation(n)[:2])
        theta = float(rng.uniform(-1, 1)) * 10.0 ** -int(rng.integers(0, 4))
        kind = int(rng.integers(3))
        if kind == 0:
            out += [circuits.pauli_rotation("Rxx", theta, a, b),
                    circuits.pauli_rotation("Ryy", theta, a, b)]
        elif kind == 1:
            out.append(circuits.pauli_rotation("Rzz", theta, a, b))
        else:
            out.append(circuits.gate("Rz", a, theta=theta))
    return out


def _weights(dim):
    return np.array([bin(i).count("1") for i in range(dim)])


@settings(max_examples=80, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), n=st.integers(2, 4), count=st.integers(2, 12))
def test_fused_products_have_exact_zeros_between_conserved_sectors(seed, n, count):
    rng = np.random.default_rng(seed)
    # a diagonal on every qubit first (it conserves the weight too), so that every gate
    # after it joins its block: one block on all n qubits
    phases = np.exp(1j * rng.uniform(-np.pi, np.pi, 1 << n))
    gates_in = [Instruction("diagonal", np.diag(phases), tuple(range(n))),
                *_conserving(rng, n, count)]
    (block,) = fusion.fuse(gates_in, n, prices={m: 1.0 for m in range(fusion.MAX_QUBITS + 1)})
    m = np.asarray(block.matrix)
    order = list(block.locs)
    w = _weights(len(m))
    off = w[:, None] != w[None, :]
    assert not np.any(m.real[off]) and not np.any(m.imag[off])
    # and the block still is the product, to the bound the snap allows
    exact = np.eye(len(m), dtype=np.complex128)
    for g in gates_in:
        exact = fusion.embed(g, order) @ exact
    bound = len(gates_in) * len(m) * np.finfo(np.float64).eps
    assert np.max(np.abs(m - exact)) <= bound


@settings(max_examples=60, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), dim=st.sampled_from([2, 4, 8, 16]),
       factors=st.integers(1, 40))
def test_a_snap_changes_nothing_above_its_bound(seed, dim, factors):
    rng = np.random.default_rng(seed)
    u = gates.random_unitary(int(np.log2(dim)), rng)
    # parts of every size: some far below the bound, some just above, most of order 1
    noise = 10.0 ** rng.uniform(-19, -12, u.shape) * rng.choice([-1, 1], u.shape)
    product = u * (rng.random(u.shape) < 0.7) + noise + 1j * noise[::-1]
    snapped = fusion.snap(product, factors, dim)
    scale = np.sqrt(np.vdot(product, product).real / dim)
    tol = factors * dim * np.finfo(np.float64).eps * scale
    for got, was in ((snapped.real, product.real), (snapped.imag, product.imag)):
        small = np.abs(was) <= tol
        assert not np.any(got[small])
        np.testing.assert_array_equal(got[~small], was[~small])


def test_a_small_rotation_survives_fusion():
    # sin(5e-11) is 1e5 times the bound: a real entry, kept
    (block,) = fusion.fuse([circuits.gate("Rx", 0, theta=1e-10),
                            circuits.gate("Rz", 0, theta=0.3)], 1)
    assert abs(block.matrix[1, 0]) == pytest.approx(np.sin(5e-11), rel=1e-9)


def test_a_single_gate_is_never_snapped():
    # a block of one gate is that gate: its own 6e-17 (cos of pi/2) stays as given
    rx = circuits.gate("Rx", 0, theta=np.pi)
    (block,) = fusion.fuse([rx], 2)
    assert block is rx


# --- the declarations ------------------------------------------------------------------

def test_every_backend_declares_whether_it_flushes_and_its_settings_say_it():
    for name, backend in registry.simulators().items():
        assert backend.flushes_subnormals in subnormals.FLUSHES, name
        shown = result_settings.of(backend)["flushes_subnormals"]
        assert shown == backend.flushes_subnormals
    assert registry.simulator("fused").flushes_subnormals == subnormals.OURS
    assert registry.simulator("naive").flushes_subnormals == "no"


def test_a_declaration_outside_the_three_words_is_refused():
    from kernels.statevector.backend import Backend
    with pytest.raises(ValueError, match="flushes_subnormals"):
        Backend(name="x", role="plugin", precisions=("complex128",), runner=None,
                flushes_subnormals="sometimes")


def test_named_pauli_rotations_are_qiskits():
    qiskit = pytest.importorskip("qiskit")
    from qiskit.quantum_info import Operator
    for name, method in (("Rxx", "rxx"), ("Ryy", "ryy"), ("Rzz", "rzz")):
        qc = qiskit.QuantumCircuit(2)
        getattr(qc, method)(0.37, 0, 1)
        inst = circuits.pauli_rotation(name, 0.37, 0, 1)
        assert isinstance(inst, Instruction) and inst.params == (0.37,)
        # qiskit's qubit 0 is the low bit, as ours
        np.testing.assert_allclose(inst.matrix, Operator(qc).data, atol=1e-15)


@needs_x86
def test_workers_made_by_a_kernels_first_launch_do_not_keep_flushing():
    # numba makes its threads at the first parallel launch, each taking its creator's
    # mode: in a fresh process, that launch is one of our kernels
    code = ("import numba, numpy as np\n"
            "from kernels.statevector import KERNELS, gates\n"
            "from tests.statevector.test_subnormals import worker_modes\n"
            "numba.set_num_threads(2)\n"
            "KERNELS['threaded'](np.zeros(1 << 16, complex), gates.H, (3,))\n"
            "print(sorted(worker_modes()))\n")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         cwd=ROOT, env={**os.environ, "NUMBA_NUM_THREADS": "2"})
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip() == "[0]"
